/*
 * The codec cost model and the exchange (sim/codec, docs/codec.md): properties a cost model
 * must have, checked on the shipped models and platforms (argv[1]: the repository root).
 *   - every compressor has a cost on every GPU type of the catalog; an unknown type is an
 *     error naming it;
 *   - encode + decode time never decreases with the tensor's size (model and profile);
 *   - a measured profile is interpolated linearly between its points;
 *   - all-gather: a GPU receives (N-1) x payload bytes and decodes N-1 payloads, so decode
 *     work grows with N;
 *   - with zero codec time the predictions without codec cost return exactly;
 *   - with (nearly) infinite bandwidth no compressor beats none;
 *   - the exchange: defaults per payload class, combinations refused with a message.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analytic.h"
#include "../check.h"
#include "codec.h"
#include "step.h"
#include "compressor.h"

/* The engine on a scenario's step, resolved once (step.h): the engines take steps. */
static int analytic_predict_s(const gcsim_scenario *s, gcsim_prediction *out, gcsim_error *err)
{
    gcsim_resolved_step st;
    gcsim_topology topo;
    if (gcsim_step_resolve(&st, s, err))
        return -1;
    if (gcsim_step_topology(&st, &topo, err)) {
        gcsim_step_release(&st);
        return -1;
    }
    int rc = gcsim_analytic_predict(&st, &topo, out, err);
    gcsim_topology_free(&topo);
    gcsim_step_release(&st);
    return rc;
}


static char root[512];

static const char *path_of(const char *rel)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s", root, rel);
    return buf;
}

static const char *const specs[] = {
    "fp16", "bf16", "terngrad", "qsgd", "signsgd", "onebit", "topk:ratio=0.01",
    "dgc:ratio=0.001", "randomk:ratio=0.01", "threshold", "ecq", "orq", "linear",
    "bingrad-b", "bingrad-pb", "powersgd:rank=1", "powersgd:rank=4", "ef+signsgd", NULL};

/* A payload size for n elements: the library's fixed width, else density x 8 bytes. */
static double payload_of(const char *spec, double n)
{
    gc_compressor *c;
    char msg[256];
    if (gc_compressor_create(spec, &c, msg, sizeof msg))
        return NAN;
    size_t b;
    double out = gc_compressor_fixed_payload_bytes(c, (size_t)n, &b)
                     ? (double)b
                     : 8.0 * ceil(gc_compressor_density(c) * n);
    gc_compressor_free(c);
    return out;
}

static void every_compressor_every_gpu(void)
{
    const char *const *types = gcsim_gpu_types();
    const char *const *names = gc_compressor_names();
    int n_types = 0;
    for (int t = 0; types[t]; t++, n_types++) {
        const gcsim_gpu_params *g;
        gcsim_error err;
        CHECK(gcsim_gpu_params_find(types[t], &g, &err) == 0);
        for (int k = 0; names[k]; k++) {
            gcsim_codec c;
            int rc = gcsim_codec_init_model(&c, g, names[k], &err);
            CHECK(rc == 0);
            if (rc) {
                fprintf(stderr, "%s on %s: %s\n", names[k], types[t], err.message);
                continue;
            }
            double n = 1 << 20, e = gcsim_codec_encode_s(&c, n, payload_of(names[k], n));
            double d = gcsim_codec_decode_s(&c, n, payload_of(names[k], n));
            if (strcmp(names[k], "none") == 0)
                CHECK(e == 0 && d == 0);
            else
                CHECK(e > 0 && d > 0 && isfinite(e) && isfinite(d));
        }
    }
    /* the catalog's twelve types (gb200 since the NVLink domains) */
    CHECK(n_types == 12);
    const gcsim_gpu_params *g;
    gcsim_error err;
    CHECK(gcsim_gpu_params_find("k80", &g, &err) == -1);
    CHECK_STR_CONTAINS(err.message, "\"k80\"");
    CHECK_STR_CONTAINS(err.message, "codec_profile");
    /* through a platform: the message names its file too */
    gcsim_platform p;
    CHECK(gcsim_platform_load(path_of("platforms/cloud-v100-25gbe.json"), &p, &err) == 0);
    strcpy(p.gpu.type, "k80");
    gcsim_codec c;
    CHECK(gcsim_codec_init(&c, &p, "qsgd", &err) == -1);
    CHECK_STR_CONTAINS(err.message, "cloud-v100-25gbe.json: codec model: no memory bandwidth");
    CHECK_STR_CONTAINS(err.message, "\"k80\"");
    CHECK(gcsim_codec_init(&c, &p, "none", &err) == 0); /* none needs no GPU figures */
}

static void monotone_in_size(const gcsim_codec *c, const char *spec)
{
    double last = 0;
    for (double n = 1; n <= 4e9; n *= 1.37) {
        double p = payload_of(spec, n);
        double t = gcsim_codec_encode_s(c, n, p) + gcsim_codec_decode_s(c, n, p);
        if (!(t >= last * (1 - 1e-12))) {
            fprintf(stderr, "%s (%s): %g s at %g elements after %g s\n", spec, c->description,
                    t, n, last);
            CHECK(t >= last);
            return;
        }
        last = t;
    }
}

static void monotone(void)
{
    const char *const *types = gcsim_gpu_types();
    for (int t = 0; types[t]; t++) {
        const gcsim_gpu_params *g;
        gcsim_error err;
        CHECK(gcsim_gpu_params_find(types[t], &g, &err) == 0);
        for (int k = 0; specs[k]; k++) {
            gcsim_codec c;
            CHECK(gcsim_codec_init_model(&c, g, specs[k], &err) == 0);
            monotone_in_size(&c, specs[k]);
        }
    }
    /* the shipped measured profile, every entry it has */
    gcsim_platform p;
    gcsim_error err;
    CHECK(gcsim_platform_load(path_of("platforms/h100-ndr.json"), &p, &err) == 0);
    int profiled = 0;
    for (int k = 0; specs[k]; k++) {
        gcsim_codec c;
        CHECK(gcsim_codec_init(&c, &p, specs[k], &err) == 0);
        profiled += c.source == CODEC_COST_PROFILE;
        monotone_in_size(&c, specs[k]);
    }
    CHECK(profiled >= 8);
}

static void profile_interpolation(void)
{
    gcsim_platform p;
    gcsim_error err;
    CHECK(gcsim_platform_load(path_of("platforms/h100-ndr.json"), &p, &err) == 0);
    gcsim_codec c;
    CHECK(gcsim_codec_init(&c, &p, "fp16", &err) == 0);
    CHECK(c.source == CODEC_COST_PROFILE);
    CHECK_STR_CONTAINS(c.description, "h100-pytorch.json");
    /* measured (bench/gpu/results/h100-codec.json): fp16 encode 13.584 us at 4,194,304
     * elements, 18.944 us at 6,553,600 (the 25 MiB bucket) */
    CHECK_REL(gcsim_codec_encode_s(&c, 6553600, 0), 18.944e-6, 1e-12);
    CHECK_REL(gcsim_codec_encode_s(&c, (4194304 + 6553600) / 2.0, 0),
              (13.584e-6 + 18.944e-6) / 2, 1e-12);
    /* above the largest point (67,108,864: 137.568 us), proportional */
    CHECK_REL(gcsim_codec_encode_s(&c, 2 * 67108864.0, 0), 2 * 137.568e-6, 1e-12);
    /* a compressor the profile lacks falls back to the model, and says so */
    CHECK(gcsim_codec_init(&c, &p, "ecq", &err) == 0);
    CHECK(c.source == CODEC_COST_MODEL);
    CHECK_STR_CONTAINS(c.description, "has no entry");
    /* a profile for another GPU is refused, naming the file and field */
    gcsim_platform v = p;
    strcpy(v.gpu.type, "v100");
    CHECK(gcsim_codec_init(&c, &v, "fp16", &err) == -1);
    CHECK_STR_CONTAINS(err.message, "$.gpu");
    CHECK_STR_CONTAINS(err.message, "h100-pytorch.json");
}

static void allgather_grows_with_n(void)
{
    gcsim_platform p;
    gcsim_error err;
    CHECK(gcsim_platform_load(path_of("platforms/cloud-v100-25gbe.json"), &p, &err) == 0);
    const double payload = 1e6;
    gcsim_bucket_bytes b = {.dense_bytes = 32e6, .payload_bytes = payload, .compressed = true,
                            .aggregation = PAYLOAD_PER_WORKER_SCALE, .encode_s = 1e-3,
                            .decode_s = 2e-4};
    double last_decode = 0;
    for (int n = 2; n <= 64; n *= 2) {
        gcsim_topology t;
        gcsim_schedule s;
        CHECK(gcsim_topology_init(&t, &p, n, &err) == 0);
        CHECK(gcsim_schedule_build(&s, COLLECTIVE_ALLGATHER, &t, 0, 1, &err) == 0);
        for (int e = 0; e < n; e += n - 1) {
            double received = 0;
            for (int ph = 0; ph < s.n_phases; ph++)
                for (int x = s.in_index[ph][e]; x < s.in_index[ph][e + 1]; x++) {
                    const gcsim_flow *f = &s.phases[ph].flows[s.in_flows[ph][x]];
                    for (int st = f->first_step; st <= f->last_step; st++)
                        received += gcsim_flow_bytes(&s.phases[ph], f, st, &b);
                }
            CHECK_REL(received, (n - 1) * payload, 1e-12);
        }
        CHECK(s.decodes == n - 1);
        double dec = gcsim_bucket_decode_s(&b, &s);
        CHECK_REL(dec, (n - 1) * 2e-4, 1e-12);
        CHECK(dec > last_decode);
        last_decode = dec;
        gcsim_schedule_free(&s);
        gcsim_topology_free(&t);
    }
}

typedef struct {
    gcsim_platform platform;
    gcsim_model model;
} world;

/* threshold's payload depends on the gradient's scale, which a model does not give
 * (gcsim_payload_plan_build refuses it): it is left out of the predictions. */
static bool predictable(const char *spec)
{
    return strcmp(spec, "threshold") != 0;
}

static int predict(const world *w, const char *spec, int gpus, const gcsim_codec *codec,
                   gcsim_exchange ex, gcsim_prediction *out)
{
    gcsim_error err;
    gcsim_payload_plan plan;
    if (gcsim_payload_plan_build(spec, &w->model, &plan, &err))
        goto fail;
    gcsim_codec_setup cs;
    if (gcsim_codec_setup_init(&cs, &w->platform, spec, ex, NULL, &err))
        goto fail_plan;
    gcsim_scenario s = {.platform = &w->platform, .model = &w->model, .payload = &plan,
                        .scaling = SCALING_WEAK, .batch = w->model.batch_per_gpu,
                        .bucket_bytes = GCSIM_DEFAULT_BUCKET_BYTES, .overlap = true};
    gcsim_codec_setup_apply(&cs, &s);
    s.codec = codec ? codec : &cs.codec;
    if (gcsim_platform_place(&w->platform, gpus, &s.placement, &err) ||
        analytic_predict_s(&s, out, &err))
        goto fail_plan;
    gcsim_payload_plan_free(&plan);
    return 0;
fail_plan:
    gcsim_payload_plan_free(&plan);
fail:
    fprintf(stderr, "%s: %s\n", spec, err.message);
    return -1;
}

static void zero_codec_and_infinite_bandwidth(void)
{
    static world w;
    gcsim_error err;
    CHECK(gcsim_platform_load(path_of("platforms/cloud-v100-25gbe.json"), &w.platform, &err) == 0);
    CHECK(gcsim_model_load(path_of("models/resnet-50.json"), &w.model, &err) == 0);
    /* zero codec time: a GPU with infinite memory bandwidth and FLOP/s and free launches */
    gcsim_gpu_params free_gpu = {"free", INFINITY, INFINITY, 0, "test", 0};
    for (int k = 0; specs[k]; k++) {
        if (!predictable(specs[k]))
            continue;
        gcsim_codec zero;
        CHECK(gcsim_codec_init_model(&zero, &free_gpu, specs[k], &err) == 0);
        /* the same scenario with s.codec == NULL (no codec cost, as before sim/codec) */
        gcsim_codec none_cost;
        memset(&none_cost, 0, sizeof none_cost);
        none_cost.source = CODEC_COST_NONE;
        gcsim_prediction a, b;
        for (int ex = GCSIM_EXCHANGE_ALLREDUCE; ex <= GCSIM_EXCHANGE_ALLGATHER; ex++) {
            CHECK(predict(&w, specs[k], 64, &zero, (gcsim_exchange)ex, &a) == 0);
            CHECK(predict(&w, specs[k], 64, &none_cost, (gcsim_exchange)ex, &b) == 0);
            CHECK(a.iteration_s == b.iteration_s && a.compress_s == 0);
        }
    }
    /* A hand-computed old prediction: fp16 on ring without codec cost is unchanged by
     * sim/codec when codec time is zero (checked above) and pays exactly its encode and
     * decode otherwise: exposed work grows by at most encode + decode. */
    gcsim_prediction with, without;
    gcsim_codec none_cost;
    memset(&none_cost, 0, sizeof none_cost);
    CHECK(predict(&w, "fp16", 64, NULL, GCSIM_EXCHANGE_AUTO, &with) == 0);
    CHECK(predict(&w, "fp16", 64, &none_cost, GCSIM_EXCHANGE_AUTO, &without) == 0);
    CHECK(with.compress_s > 0);
    CHECK(with.iteration_s >= without.iteration_s);
    CHECK(with.iteration_s <= without.iteration_s + with.compress_s * (1 + 1e-12));

    /* (nearly) infinite bandwidth and no latency: compression cannot win */
    gcsim_platform *p = &w.platform;
    p->nic.bandwidth_Bps = p->intra.gpu_to_gpu_Bps = p->intra.gpu_to_host_Bps = 1e30;
    p->nic.latency_s = p->intra.latency_s = p->fabric.switch_latency_s = 0;
    p->nic.connection_Bps = 0; /* no socket-connection cap either (0: none, platform.h) */
    for (int gpus = 8; gpus <= 64; gpus *= 8) {
        gcsim_prediction none, c;
        CHECK(predict(&w, "none", gpus, NULL, GCSIM_EXCHANGE_AUTO, &none) == 0);
        for (int k = 0; specs[k]; k++)
            for (int ex = GCSIM_EXCHANGE_AUTO; ex <= GCSIM_EXCHANGE_PS && predictable(specs[k]); ex++) {
                CHECK(predict(&w, specs[k], gpus, NULL, (gcsim_exchange)ex, &c) == 0);
                if (!(c.throughput_samples_per_s <= none.throughput_samples_per_s * (1 + 1e-12)))
                    fprintf(stderr, "%s (%s) beats none at infinite bandwidth: %g > %g\n",
                            specs[k], gcsim_exchange_name((gcsim_exchange)ex),
                            c.throughput_samples_per_s, none.throughput_samples_per_s);
                CHECK(c.throughput_samples_per_s <= none.throughput_samples_per_s * (1 + 1e-12));
            }
    }
    /* decode work grows with N under all-gather */
    gcsim_prediction p8, p64;
    CHECK(predict(&w, "topk:ratio=0.01", 8, NULL, GCSIM_EXCHANGE_AUTO, &p8) == 0);
    CHECK(predict(&w, "topk:ratio=0.01", 64, NULL, GCSIM_EXCHANGE_AUTO, &p64) == 0);
    CHECK(p64.decode_s > p8.decode_s && p64.encode_s == p8.encode_s);
    gcsim_model_free(&w.model);
}

static void exchange_rules(void)
{
    gcsim_exchange_choice o;
    gcsim_error err;
    gcsim_collective ring = COLLECTIVE_RING, tern = COLLECTIVE_TERNGRAD;
    CHECK(gcsim_exchange_resolve(GCSIM_EXCHANGE_AUTO, ring, COLLECTIVE_FROM_DEFAULT, "topk", &o, &err) == 0);
    CHECK(o.exchange == GCSIM_EXCHANGE_ALLGATHER && o.collective == COLLECTIVE_ALLGATHER);
    CHECK(gcsim_exchange_resolve(GCSIM_EXCHANGE_AUTO, ring, COLLECTIVE_FROM_PLATFORM, "qsgd", &o, &err) == 0);
    CHECK(o.exchange == GCSIM_EXCHANGE_ALLGATHER);
    for (int k = 0; k < 5; k++) {
        const char *summable[] = {"none", "fp16", "bf16", "powersgd", "randomk"};
        CHECK(gcsim_exchange_resolve(GCSIM_EXCHANGE_AUTO, COLLECTIVE_TREE, COLLECTIVE_FROM_PLATFORM,
                                     summable[k], &o, &err) == 0);
        CHECK(o.exchange == GCSIM_EXCHANGE_ALLREDUCE && o.collective == COLLECTIVE_TREE);
        CHECK(o.shared_support == (k == 4));
    }
    /* the TernGrad paper's pattern is kept where a platform or --collective names it */
    CHECK(gcsim_exchange_resolve(GCSIM_EXCHANGE_AUTO, tern, COLLECTIVE_FROM_PLATFORM, "terngrad", &o, &err) == 0);
    CHECK(o.exchange == GCSIM_EXCHANGE_PATTERN && o.collective == COLLECTIVE_TERNGRAD);
    CHECK(gcsim_exchange_resolve(GCSIM_EXCHANGE_AUTO, tern, COLLECTIVE_FROM_CLI, "qsgd", &o, &err) == 0);
    CHECK(o.collective == COLLECTIVE_TERNGRAD);
    /* an explicit --exchange on such a platform wins over the platform's pattern */
    CHECK(gcsim_exchange_resolve(GCSIM_EXCHANGE_ALLGATHER, tern, COLLECTIVE_FROM_PLATFORM, "terngrad", &o, &err) == 0);
    CHECK(o.collective == COLLECTIVE_ALLGATHER);
    CHECK(gcsim_exchange_resolve(GCSIM_EXCHANGE_ALLREDUCE, tern, COLLECTIVE_FROM_PLATFORM, "terngrad", &o, &err) == 0);
    CHECK(o.collective == COLLECTIVE_RING);
    /* an explicit --collective names the exchange: ring is all-reduce with the hop rule */
    CHECK(gcsim_exchange_resolve(GCSIM_EXCHANGE_AUTO, ring, COLLECTIVE_FROM_CLI, "dgc", &o, &err) == 0);
    CHECK(o.exchange == GCSIM_EXCHANGE_ALLREDUCE && o.collective == COLLECTIVE_RING);
    /* contradictions are refused, naming both */
    CHECK(gcsim_exchange_resolve(GCSIM_EXCHANGE_ALLGATHER, ring, COLLECTIVE_FROM_CLI, "dgc", &o, &err) == -1);
    CHECK_STR_CONTAINS(err.message, "--exchange allgather");
    CHECK_STR_CONTAINS(err.message, "ring");
    CHECK(gcsim_exchange_resolve(GCSIM_EXCHANGE_ALLREDUCE, tern, COLLECTIVE_FROM_CLI, "dgc", &o, &err) == -1);
    CHECK_STR_CONTAINS(err.message, "--exchange allreduce");
    CHECK(gcsim_exchange_resolve(GCSIM_EXCHANGE_PS, COLLECTIVE_ALLGATHER, COLLECTIVE_FROM_CLI, "dgc", &o, &err) == -1);
    gcsim_exchange e;
    CHECK(gcsim_exchange_parse("allgather", &e) == 0 && e == GCSIM_EXCHANGE_ALLGATHER);
    CHECK(gcsim_exchange_parse("terngrad-pattern", &e) == -1);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s REPO\n", argv[0]);
        return 2;
    }
    snprintf(root, sizeof root, "%s", argv[1]);
    every_compressor_every_gpu();
    monotone();
    profile_interpolation();
    allgather_grows_with_n();
    zero_codec_and_infinite_bandwidth();
    exchange_rules();
    CHECK_DONE();
}
