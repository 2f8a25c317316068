/* Stack laws by setting (sim/stack/stack_law.c, docs/stacks.md "Laws by setting"): a law
 * with settings read strictly and evaluated as the docs say (interpolated in its scale,
 * modelled beyond its settings), a compressor's spec read for its setting, the old
 * single-setting laws still read, and the shipped pytorch-ddp laws moving with top-k's
 * density, QSGD's levels and PowerSGD's rank as the measured runs say, each value computed
 * by hand below. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stack.h"

/* Law "d" (density, log scale, held beyond): GPU 10 us at 1,000 elements at every setting;
 * at 100,000 elements 1,000 us at density 0.01 and 2,000 us at 0.1; host 20 and 40 us.
 * Law "r" (rank, linear, extends): host-bound, 100 us at rank 2, 200 us at rank 4. */
#define STACK_HEAD                                                                          \
    "{\"schema\": \"gcsim-stack/1\", \"name\": \"t\", \"description\": \"d\", \"source\": \"s\"," \
    " \"codec\": \"laws\","                                                                 \
    " \"granularity\": {\"unit\": \"bucket\", \"bucket_bytes\": \"1GiB\", \"source\": \"s\"}," \
    " \"costs\": {\"collective_call\": \"7us\", \"sync\": \"3us\", \"source\": \"s\"},"
#define STACK_TAIL                                                                          \
    " \"compressors\": {\"none\": {\"exchange\": \"allreduce\", \"source\": \"s\"}}}"

static const char *settings_json =
    STACK_HEAD
    " \"laws\": {"
    "  \"d\": {\"gpu\": \"h100\", \"elements\": [1000, 100000], \"parameter\": \"density\","
    "         \"scale\": \"log\", \"beyond\": \"held\", \"reference\": 0.01, \"source\": \"s\","
    "         \"settings\": ["
    "   {\"at\": 0.01, \"basis\": \"measured\", \"host_us\": [20, 20], \"gpu_us\": [10, 1000],"
    "    \"source\": \"s\"},"
    "   {\"at\": 0.1, \"basis\": \"derived\", \"host_us\": [40, 40], \"gpu_us\": [10, 2000],"
    "    \"source\": \"s\"}]},"
    "  \"r\": {\"gpu\": \"h100\", \"elements\": [1000, 100000], \"parameter\": \"rank\","
    "         \"scale\": \"linear\", \"beyond\": \"extends\", \"reference\": 1, \"source\": \"s\","
    "         \"settings\": ["
    "   {\"at\": 2, \"basis\": \"m\", \"host_us\": [100, 100], \"gpu_us\": [1, 1], \"source\": \"s\"},"
    "   {\"at\": 4, \"basis\": \"m\", \"host_us\": [200, 200], \"gpu_us\": [2, 2], \"source\": \"s\"}]},"
    "  \"old\": {\"gpu\": \"h100\", \"elements\": [1000], \"host_us\": [5], \"gpu_us\": [7],"
    "           \"source\": \"s\"}},"
    STACK_TAIL;

static gcsim_stack *parse(const char *json, gcsim_error *err)
{
    gcsim_stack *s = malloc(sizeof *s);
    if (s && gcsim_stack_parse(json, "t.json", s, err)) {
        free(s);
        return NULL;
    }
    return s;
}

static const gcsim_stack_law *law_named(const gcsim_stack *s, const char *name)
{
    for (int k = 0; k < s->n_laws; k++)
        if (strcmp(s->laws[k].name, name) == 0)
            return &s->laws[k];
    return NULL;
}

static double at_density(const gcsim_stack *s, const gcsim_stack_law *l, double n, double d)
{
    gcsim_stack_setting set = {.density = d};
    return gcsim_stack_law_s(s, l, n, &set, 1, 1, NULL);
}

static void test_small_laws(void)
{
    gcsim_error err;
    gcsim_stack *s = parse(settings_json, &err);
    CHECK(s != NULL);
    if (!s)
        return;
    const gcsim_stack_law *d = law_named(s, "d"), *r = law_named(s, "r"), *old = law_named(s, "old");
    CHECK(d && r && old);
    CHECK(d->parameter == STACK_SETTING_DENSITY && d->n_settings == 2 && !d->host_extends);
    /* at a measured setting: as measured */
    CHECK_REL(at_density(s, d, 100000, 0.01), 1000e-6, 1e-12);
    CHECK_REL(at_density(s, d, 100000, 0.1), 2000e-6, 1e-12);
    /* halfway in log density (sqrt(0.001)): GPU 1,500 us, host 30 */
    CHECK_REL(at_density(s, d, 100000, sqrt(0.001)), 1500e-6, 1e-9);
    /* below the smallest setting of a log law: the smallest's cost */
    CHECK_REL(at_density(s, d, 100000, 0.001), 1000e-6, 1e-12);
    /* above: log(1 / 0.01) / log(10) = 2 segments out, the GPU's slope continued
     * (2,000 + 1,000 us), the host held (40 us: it sets the time at 1,000 elements) */
    CHECK_REL(at_density(s, d, 100000, 1.0), 3000e-6, 1e-9);
    CHECK_REL(at_density(s, d, 1000, 1.0), 40e-6, 1e-12);
    /* no density (another compressor): the reference 0.01; NULL the same */
    CHECK_REL(at_density(s, d, 100000, 0), 1000e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(s, d, 100000, NULL, 1, 1, NULL), 1000e-6, 1e-12);
    /* rank, linear, extends: 150 us at 3; 400 at 8 (two segments above, host too); 50 at
     * 1 (half a segment below) */
    gcsim_stack_setting r3 = {.rank = 3}, r8 = {.rank = 8}, r1 = {.rank = 1};
    CHECK_REL(gcsim_stack_law_s(s, r, 1000, &r3, 1, 1, NULL), 150e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(s, r, 1000, &r8, 1, 1, NULL), 400e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(s, r, 1000, &r1, 1, 1, NULL), 50e-6, 1e-12);
    /* the old form: one setting, whatever the compressor's */
    CHECK(old->parameter == STACK_SETTING_NONE && old->n_settings == 1);
    CHECK_REL(at_density(s, old, 1000, 0.5), 7e-6, 1e-12);
    /* what the output says */
    char buf[256];
    CHECK_STR_CONTAINS(gcsim_stack_law_basis(d, 0.01, buf, sizeof buf),
                       "density 0.01: at a measured setting (measured)");
    CHECK_STR_CONTAINS(gcsim_stack_law_basis(d, 0.05, buf, sizeof buf),
                       "density 0.05: interpolated between measured 0.01 and 0.1 (log)");
    CHECK_STR_CONTAINS(gcsim_stack_law_basis(d, 0.5, buf, sizeof buf),
                       "density 0.5: modelled above the measured 0.1");
    CHECK_STR_CONTAINS(gcsim_stack_law_basis(d, 0.001, buf, sizeof buf),
                       "density 0.001: modelled below the measured 0.01: GPU work held");
    CHECK_STR_CONTAINS(gcsim_stack_law_basis(old, 0.5, buf, sizeof buf), "measured (one setting)");
    free(s);
}

/* The scales built from what sets a kernel's cost (stack_law.c's coordinate; docs/stacks.md
 * "Laws by setting"), each on a two-setting law, the coordinates computed by hand:
 *   sectors: x(d) = 24 d + 8 (1 - (1 - d)^8): x(0.1) = 6.956262, x(0.25) = 13.199097,
 *            x(0.5) = 19.96875, x(1) = 32, x(0.01) = 0.858042;
 *   gather, L2 2 MB, 10^6 elements: x(d) = 20 d + 4 (1 - e^-8d) + 32 (d - (1 - e^-8d)/8)
 *            (1 - 2e6 / (1e6 (4 + 12 d))): x(0.01) = 0.513949, x(0.05) = 2.477704,
 *            x(0.1) = 4.816417, x(0.5) = 23.585347;
 *   passes:  5 below 8 bits, 3 at 8, 2 at 16. */
static const char *scales_json =
    STACK_HEAD
    " \"laws\": {"
    "  \"sec\": {\"gpu\": \"h100\", \"elements\": [1000, 100000], \"parameter\": \"density\","
    "           \"scale\": \"sectors\", \"beyond\": \"held\", \"reference\": 0.1, \"source\": \"s\","
    "           \"settings\": ["
    "   {\"at\": 0.1, \"basis\": \"m\", \"host_us\": [1, 1], \"gpu_us\": [10, 1000], \"source\": \"s\"},"
    "   {\"at\": 0.5, \"basis\": \"m\", \"host_us\": [1, 1], \"gpu_us\": [10, 2000], \"source\": \"s\"}]},"
    "  \"gat\": {\"gpu\": \"h100\", \"elements\": [1000, 1000000], \"parameter\": \"density\","
    "           \"scale\": \"gather\", \"beyond\": \"held\", \"reference\": 0.01, \"l2_bytes\": 2e6,"
    "           \"source\": \"s\", \"settings\": ["
    "   {\"at\": 0.01, \"basis\": \"m\", \"host_us\": [1, 1], \"gpu_us\": [10, 100], \"source\": \"s\"},"
    "   {\"at\": 0.1, \"basis\": \"m\", \"host_us\": [1, 1], \"gpu_us\": [10, 300], \"source\": \"s\"}]},"
    "  \"pas\": {\"gpu\": \"h100\", \"elements\": [1000, 100000], \"parameter\": \"bits\","
    "           \"scale\": \"passes\", \"beyond\": \"extends\", \"reference\": 8, \"source\": \"s\","
    "           \"settings\": ["
    "   {\"at\": 2, \"basis\": \"m\", \"host_us\": [110, 110], \"gpu_us\": [10, 800], \"source\": \"s\"},"
    "   {\"at\": 4, \"basis\": \"m\", \"host_us\": [100, 100], \"gpu_us\": [10, 700], \"source\": \"s\"},"
    "   {\"at\": 8, \"basis\": \"m\", \"host_us\": [60, 60], \"gpu_us\": [10, 500], \"source\": \"s\"}]}},"
    STACK_TAIL;

static void test_scales(void)
{
    gcsim_error err;
    gcsim_stack *s = parse(scales_json, &err);
    CHECK(s != NULL);
    if (!s)
        return;
    const gcsim_stack_law *sec = law_named(s, "sec"), *gat = law_named(s, "gat"),
                          *pas = law_named(s, "pas");
    CHECK(sec && gat && pas);
    CHECK(sec->scale == STACK_SCALE_SECTORS && gat->scale == STACK_SCALE_GATHER &&
          pas->scale == STACK_SCALE_PASSES && gat->l2_bytes == 2e6 && pas->host_extends);
    /* sectors: 0.25 at (13.199097 - 6.956262) / (19.96875 - 6.956262) = 0.479757 of the way:
     * 1,479.757 us; 1.0 beyond, the slope per unit (1,000 / 13.012488) continued: 2,924.593;
     * 0.01 below: 1,000 - 76.849 x 6.098220 = 531.356 (never below zero) */
    CHECK_REL(at_density(s, sec, 100000, 0.25), 1479.7572e-6, 1e-6);
    CHECK_REL(at_density(s, sec, 100000, 1.0), 2924.5926e-6, 1e-6);
    CHECK_REL(at_density(s, sec, 100000, 0.01), 531.3563e-6, 1e-6);
    /* gather: 0.05 at (2.477704 - 0.513949) / (4.816417 - 0.513949) = 0.456425: 191.285 us;
     * 0.5 beyond: 300 + 200 / 4.302468 x (23.585347 - 4.816417) = 1,172.473 */
    CHECK_REL(at_density(s, gat, 1000000, 0.05), 191.2851e-6, 1e-6);
    CHECK_REL(at_density(s, gat, 1000000, 0.5), 1172.4727e-6, 1e-6);
    /* passes (falling as the width grows): 16 bits is 2 passes, one beyond 8's 3: the GPU's
     * 100 us per pass and the host's 20 us (extends) come off: 400 us; host-bound at 1,000
     * elements: 40 us; 2 and 4 bits have 5 passes each: each its own (800, 700 us), 3 bits
     * between them the lower's (800) */
    gcsim_stack_setting b16 = {.bits = 16}, b2 = {.bits = 2}, b3 = {.bits = 3}, b4 = {.bits = 4};
    CHECK_REL(gcsim_stack_law_s(s, pas, 100000, &b16, 1, 1, NULL), 400e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(s, pas, 1000, &b16, 1, 1, NULL), 40e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(s, pas, 100000, &b2, 1, 1, NULL), 800e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(s, pas, 100000, &b3, 1, 1, NULL), 800e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(s, pas, 100000, &b4, 1, 1, NULL), 700e-6, 1e-12);
    char buf[256];
    CHECK_STR_CONTAINS(gcsim_stack_law_basis(sec, 0.25, buf, sizeof buf),
                       "density 0.25: interpolated between measured 0.1 and 0.5 (sectors)");
    CHECK_STR_CONTAINS(gcsim_stack_law_basis(gat, 0.5, buf, sizeof buf),
                       "the 0.01-0.1 segment (gather)");
    free(s);
}

static void test_strict(void)
{
    static const struct {
        const char *law, *message;
    } bad[] = {
        {"{\"gpu\": \"h100\", \"elements\": [1], \"parameter\": \"rank\", \"scale\": \"linear\","
         " \"beyond\": \"held\", \"reference\": 1, \"source\": \"s\", \"settings\": ["
         " {\"at\": 4, \"basis\": \"m\", \"host_us\": [1], \"gpu_us\": [1], \"source\": \"s\"},"
         " {\"at\": 2, \"basis\": \"m\", \"host_us\": [1], \"gpu_us\": [1], \"source\": \"s\"}]}",
         "t.json: $.laws.x.settings[1].at: settings must increase (2 after 4)"},
        {"{\"gpu\": \"h100\", \"elements\": [1], \"host_us\": [1], \"gpu_us\": [1],"
         " \"parameter\": \"rank\", \"source\": \"s\"}",
         "t.json: $.laws.x.parameter: only for a law with \"settings\""},
        {"{\"gpu\": \"h100\", \"elements\": [1], \"parameter\": \"none\", \"scale\": \"linear\","
         " \"beyond\": \"held\", \"reference\": 1, \"source\": \"s\", \"settings\": []}",
         "t.json: $.laws.x.parameter: a law with settings names the parameter"},
        {"{\"gpu\": \"h100\", \"elements\": [1, 2], \"parameter\": \"bits\", \"scale\": \"log\","
         " \"beyond\": \"held\", \"reference\": 8, \"source\": \"s\", \"settings\": ["
         " {\"at\": 8, \"basis\": \"m\", \"host_us\": [1], \"gpu_us\": [1, 2], \"source\": \"s\"}]}",
         "t.json: $.laws.x.settings[0].host_us: expected an array of 2 numbers"},
        {"{\"gpu\": \"h100\", \"elements\": [1], \"parameter\": \"bits\", \"scale\": \"log\","
         " \"beyond\": \"sideways\", \"reference\": 8, \"source\": \"s\", \"settings\": []}",
         "t.json: $.laws.x.beyond"},
        {"{\"gpu\": \"h100\", \"elements\": [1], \"parameter\": \"density\", \"scale\": \"gather\","
         " \"beyond\": \"held\", \"reference\": 0.01, \"source\": \"s\", \"settings\": []}",
         "t.json: $.laws.x.l2_bytes"},
        {"{\"gpu\": \"h100\", \"elements\": [1], \"parameter\": \"density\", \"scale\": \"sectors\","
         " \"beyond\": \"held\", \"reference\": 0.01, \"l2_bytes\": 5, \"source\": \"s\","
         " \"settings\": [{\"at\": 0.1, \"basis\": \"m\", \"host_us\": [1], \"gpu_us\": [1],"
         " \"source\": \"s\"}]}",
         "t.json: $.laws.x.l2_bytes: only for a law with \"scale\": \"gather\""},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char json[2048];
        snprintf(json, sizeof json, STACK_HEAD " \"laws\": {\"x\": %s}," STACK_TAIL, bad[k].law);
        gcsim_error err;
        gcsim_stack *s = parse(json, &err);
        CHECK(s == NULL);
        if (s)
            free(s);
        else
            CHECK_STR_CONTAINS(err.message, bad[k].message);
    }
}

static void test_spec_settings(void)
{
    /* QSGD's code width: 1 + ceil(log2(s + 1)) bits, rounded up to 2, 4, 8, 16 */
    CHECK(gcsim_stack_qsgd_bits(1) == 2);
    CHECK(gcsim_stack_qsgd_bits(4) == 4);
    CHECK(gcsim_stack_qsgd_bits(7) == 4);
    CHECK(gcsim_stack_qsgd_bits(8) == 8);
    CHECK(gcsim_stack_qsgd_bits(127) == 8);
    CHECK(gcsim_stack_qsgd_bits(128) == 16);
    CHECK(gcsim_stack_qsgd_bits(32767) == 16);
    gcsim_stack_setting a = gcsim_stack_setting_of("topk:ratio=0.5,code=pairs,sample=0");
    CHECK(a.density == 0.5 && a.bits == 0 && a.rank == 0);
    a = gcsim_stack_setting_of("ef+qsgd:s=1023,bucket=512,norm=l2,code=fixed");
    CHECK(a.bits == 16 && a.density == 0);
    a = gcsim_stack_setting_of("powersgd:rank=16,min_compression_rate=2");
    CHECK(a.rank == 16);
    a = gcsim_stack_setting_of("dgc:ratio=0.001,code=rle,sample=0.01");
    CHECK(a.density == 0.001);
    a = gcsim_stack_setting_of("terngrad:bucket=0");
    CHECK(a.density == 0 && a.bits == 0 && a.rank == 0);
}

/* The shipped pytorch-ddp laws on their H100 (platforms/stacks/pytorch-ddp.json, derived by
 * bench/gpu/make_stack_laws.py): the values are the file's, at the settings and sizes
 * named; the ratios between settings are the H200 settings run's. */
static void test_shipped(void)
{
    gcsim_stack *s = malloc(sizeof *s);
    gcsim_error err;
    CHECK(s && gcsim_stack_load("pytorch-ddp", s, &err) == 0);
    const gcsim_stack_law *topk = law_named(s, "topk.encode"), *qsgd = law_named(s, "qsgd.encode"),
                          *ps = law_named(s, "powersgd.encode");
    CHECK(topk && qsgd && ps);
    if (!topk || !qsgd || !ps) {
        free(s);
        return;
    }
    /* top-k on 2^26 elements (GPU-bound): 1,529.6 us at 1% (measured on the H100), 1,954.2
     * at 50% (x 1.278: torch.topk's selection grows slowly with k) */
    gcsim_stack_setting t1 = gcsim_stack_setting_of("topk:ratio=0.01,code=pairs,sample=0");
    gcsim_stack_setting t50 = gcsim_stack_setting_of("topk:ratio=0.5,code=pairs,sample=0");
    CHECK_REL(gcsim_stack_law_s(s, topk, 67108864, &t1, 1, 1, NULL), 1529.6e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(s, topk, 67108864, &t50, 1, 1, NULL), 1954.2e-6, 1e-12);
    /* QSGD on 2^26: s = 16 (8-bit codes, the H100's int8) 2,142.0 us; s = 4 (4 bits, packed)
     * 2,816.0; s = 1023 (16 bits, no packing) 1,999.0 */
    gcsim_stack_setting q4 = gcsim_stack_setting_of("qsgd:s=4,bucket=512");
    gcsim_stack_setting q16 = gcsim_stack_setting_of("qsgd:s=16,bucket=512");
    gcsim_stack_setting q1023 = gcsim_stack_setting_of("qsgd:s=1023,bucket=512");
    CHECK_REL(gcsim_stack_law_s(s, qsgd, 67108864, &q16, 1, 1, NULL), 2142.0e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(s, qsgd, 67108864, &q4, 1, 1, NULL), 2816.0e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(s, qsgd, 67108864, &q1023, 1, 1, NULL), 1999.0e-6, 1e-12);
    /* PowerSGD on 6,553,600 elements (host-bound): 600.6 us at rank 4 (measured), 1,183.8 at
     * 8, 2,164.8 at 16, and halfway at 12 */
    gcsim_stack_setting r4 = {.rank = 4}, r8 = {.rank = 8}, r12 = {.rank = 12}, r16 = {.rank = 16};
    CHECK_REL(gcsim_stack_law_s(s, ps, 6553600, &r4, 1, 1, NULL), 600.6e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(s, ps, 6553600, &r8, 1, 1, NULL), 1183.8e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(s, ps, 6553600, &r16, 1, 1, NULL), 2164.8e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(s, ps, 6553600, &r12, 1, 1, NULL), 0.5 * (1183.8 + 2164.8) * 1e-6,
              1e-12);
    free(s);
}

int main(void)
{
    test_small_laws();
    test_scales();
    test_strict();
    test_spec_settings();
    test_shipped();
    CHECK_DONE();
}
