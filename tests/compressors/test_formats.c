/* Payload sizes against formulas written here, spec parsing errors, aggregation and
 * unbiasedness declarations, NaN/Inf errors, TernGrad's last-layer / small-tensor / shared
 * scaler options, PowerSGD shapes, and decoding of truncated or corrupted payloads (which
 * must fail with a byte offset, never crash: run this under GCSIM_SANITIZE=ON too). */
#include <math.h>

#include "../check.h"
#include "tutil.h"

static size_t uleb_len(size_t v)
{
    size_t k = 1;
    while (v >= 128) {
        v >>= 7;
        k++;
    }
    return k;
}
static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* header: format id byte + LEB128 n */
static size_t hdr(size_t n) { return 1 + uleb_len(n); }

typedef size_t (*formula)(size_t n);
/* Hand-written payload sizes (n > 0). Example, qsgd defaults (s=4, 9 levels -> 4 bits,
 * bucket 512) on n = 1000: header 1 + 2 = 3, two bucket norms 8, codes 1000*4/8 = 500 -> 511. */
static size_t f_none(size_t n) { return hdr(n) + 4 * n; }
static size_t f_half(size_t n) { return hdr(n) + 2 * n; }
static size_t f_tern(size_t n) { return hdr(n) + 1 + 4 + ceil_div(n, 4); }
static size_t f_tern512(size_t n) { return hdr(n) + 1 + 4 * ceil_div(n, 512) + ceil_div(n, 4); }
static size_t f_qsgd(size_t n) { return hdr(n) + 4 * ceil_div(n, 512) + ceil_div(4 * n, 8); }
static size_t f_qsgd_s2(size_t n) { return hdr(n) + 4 * ceil_div(n, 512) + ceil_div(3 * n, 8); }
static size_t f_qsgd_s1(size_t n) { return hdr(n) + 4 * ceil_div(n, 100) + ceil_div(2 * n, 8); }
static size_t f_orq3(size_t n) { return hdr(n) + 12 * ceil_div(n, 512) + ceil_div(2 * n, 8); }
static size_t f_orq9(size_t n) { return hdr(n) + 36 * ceil_div(n, 512) + ceil_div(4 * n, 8); }
static size_t f_bb(size_t n) { return hdr(n) + 8 * ceil_div(n, 512) + ceil_div(n, 8); }
static size_t f_bpb(size_t n) { return hdr(n) + 4 * ceil_div(n, 512) + ceil_div(n, 8); }
static size_t f_sign(size_t n) { return hdr(n) + 4 + ceil_div(n, 8); }
static size_t f_onebit(size_t n) { return hdr(n) + 8 * ceil_div(n, 512) + ceil_div(n, 8); }
static size_t f_randomk(size_t n)
{
    size_t k = (size_t)floor(0.01 * (double)n + 0.5);
    k = k < 1 ? 1 : k;
    return hdr(n) + uleb_len(k) + 8 * k;
}

static const struct {
    const char *spec;
    formula f;
} sizes[] = {
    {"none", f_none},
    {"fp16", f_half},
    {"bf16", f_half},
    {"terngrad", f_tern},
    {"terngrad:bucket=512", f_tern512},
    {"qsgd", f_qsgd},
    {"ecq", f_qsgd},
    {"qsgd:s=2", f_qsgd_s2},
    {"qsgd:s=1,bucket=100", f_qsgd_s1},
    {"orq", f_orq3},
    {"linear", f_orq3},
    {"orq:s=9", f_orq9},
    {"bingrad-b", f_bb},
    {"bingrad-pb", f_bpb},
    {"signsgd", f_sign},
    {"onebit", f_onebit},
    {"randomk:ratio=0.01", f_randomk},
};

static void check_sizes(void)
{
    static const size_t ns[] = {1, 3, 4, 1000, 4097, 3 * 512 + 17, 70000};
    float *g = falloc(70000), *q = falloc(70000);
    char err[256];
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
            size_t n = ns[k], fixed = 0;
            gc_compressor *c = make(sizes[s].spec);
            gc_rng rng;
            gc_rng_seed(&rng, 3);
            fill_grad(g, n, 9);
            gc_bytes p = {0};
            CHECK(gc_compressor_encode(c, 0, g, n, &rng, &p, q, err, sizeof err) == 0);
            CHECK(gc_compressor_fixed_payload_bytes(c, n, &fixed));
            if (p.len != sizes[s].f(n) || fixed != sizes[s].f(n)) {
                fprintf(stderr, "%s n=%zu: payload %zu, predicted %zu, formula %zu\n",
                        sizes[s].spec, n, p.len, fixed, sizes[s].f(n));
                CHECK(0);
            }
            gc_bytes_free(&p);
            gc_compressor_free(c);
        }
    /* the worked example in the comment above */
    CHECK(f_qsgd(1000) == 511);
    /* data-dependent formats say so */
    size_t b;
    gc_compressor *c = make("qsgd:code=elias");
    CHECK(!gc_compressor_fixed_payload_bytes(c, 1000, &b));
    gc_compressor_free(c);
    c = make("dgc");
    CHECK(!gc_compressor_fixed_payload_bytes(c, 1000, &b));
    gc_compressor_free(c);
    free(g), free(q);
}

static void check_specs(void)
{
    gc_compressor *c = NULL;
    char err[256];
    CHECK(gc_compressor_create("qsgd", &c, err, sizeof err) == 0);
    CHECK(strcmp(gc_compressor_spec(c), "qsgd:s=4,bucket=512,norm=l2,code=fixed") == 0);
    gc_compressor_free(c);
    CHECK(gc_compressor_create("ef+topk:ratio=0.01", &c, err, sizeof err) == 0);
    CHECK(strcmp(gc_compressor_spec(c), "ef+topk:ratio=0.01,code=pairs,sample=0") == 0);
    gc_compressor_free(c);
    CHECK(gc_compressor_create("terngrad:clip=2.5", &c, err, sizeof err) == 0);
    CHECK_STR_CONTAINS(gc_compressor_spec(c), "clip=2.5");
    gc_compressor_free(c);

    struct {
        const char *spec, *needle;
    } bad[] = {
        {"zip", "unknown compressor \"zip\""},
        {"", "empty"},
        {"qsgd:levels=4", "unknown key levels"},
        {"qsgd:s=abc", "key s"},
        {"qsgd:s=0", "key s"},
        {"qsgd:s=4,s=5", "key s given twice"},
        {"qsgd:norm=l3", "key norm"},
        {"qsgd:s", "key s"},
        {"qsgd:s=4,", "trailing comma"},
        {"terngrad:clip=-1", "key clip"},
        {"terngrad:clip=nan", "key clip"},
        {"orq:s=4", "key s"},
        {"dgc:ratio=2", "key ratio"},
        {"ecq:beta=1.5", "key beta"},
        {"powersgd:rank=0", "key rank"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        c = NULL;
        err[0] = 0;
        CHECK(gc_compressor_create(bad[i].spec, &c, err, sizeof err) == -1);
        CHECK(c == NULL);
        CHECK_STR_CONTAINS(err, bad[i].needle);
    }
}

static void check_declarations(void)
{
    struct {
        const char *spec;
        gc_aggregation agg;
        bool unbiased;
    } t[] = {
        {"none", GC_AGG_DENSE_SUMMABLE, true},
        {"fp16", GC_AGG_DENSE_SUMMABLE, false},
        {"bf16", GC_AGG_DENSE_SUMMABLE, false},
        {"powersgd", GC_AGG_DENSE_SUMMABLE, false},
        {"terngrad", GC_AGG_SHARED_SCALE, false}, /* clipping biases it */
        {"terngrad:clip=0", GC_AGG_SHARED_SCALE, true},
        {"qsgd", GC_AGG_PER_WORKER_SCALE, true},
        {"orq", GC_AGG_PER_WORKER_SCALE, true},
        {"linear", GC_AGG_PER_WORKER_SCALE, true},
        {"bingrad-b", GC_AGG_PER_WORKER_SCALE, false},
        {"bingrad-pb", GC_AGG_PER_WORKER_SCALE, false},
        {"signsgd", GC_AGG_PER_WORKER_SCALE, false},
        {"onebit", GC_AGG_PER_WORKER_SCALE, false},
        {"ecq", GC_AGG_PER_WORKER_SCALE, false},
        {"dgc", GC_AGG_SPARSE, false},
        {"topk", GC_AGG_SPARSE, false},
        {"randomk", GC_AGG_SPARSE, true},
        {"threshold", GC_AGG_SPARSE, false},
        {"ef+qsgd", GC_AGG_PER_WORKER_SCALE, false},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        gc_compressor *c = make(t[i].spec);
        CHECK(gc_compressor_aggregation(c) == t[i].agg);
        if (gc_compressor_is_unbiased(c) != t[i].unbiased) {
            fprintf(stderr, "%s: unbiased flag wrong\n", t[i].spec);
            CHECK(0);
        }
        gc_compressor_free(c);
    }
    CHECK(strcmp(gc_aggregation_name(GC_AGG_SPARSE), "sparse") == 0);
}

static void check_nonfinite(void)
{
    const char *const *names = gc_compressor_names();
    float *g = falloc(3000);
    char err[256], spec[64];
    for (int ef = 0; ef < 2; ef++)
        for (const char *const *nm = names; *nm; nm++) {
            snprintf(spec, sizeof spec, "%s%s", ef ? "ef+" : "", *nm);
            for (int kind = 0; kind < 2; kind++) {
                size_t at = kind ? 2999 : 5;
                gc_compressor *c = make(spec);
                gc_rng rng;
                gc_rng_seed(&rng, 1);
                fill_grad(g, 3000, 2);
                g[at] = kind ? -INFINITY : NAN;
                gc_bytes p = {0};
                err[0] = 0;
                CHECK(gc_compressor_encode(c, 0, g, 3000, &rng, &p, NULL, err, sizeof err) == -1);
                char want[64];
                snprintf(want, sizeof want, "element %zu is %s", at, kind ? "infinite" : "NaN");
                CHECK_STR_CONTAINS(err, want);
                gc_bytes_free(&p);
                gc_compressor_free(c);
            }
        }
    free(g);
}

static void check_terngrad_options(void)
{
    float g[8] = {1, 0, 0, 0, 0, 0, 0, 0}, q[8], d[8];
    char err[256];
    gc_rng rng;
    gc_rng_seed(&rng, 5);
    gc_bytes p = {0};
    /* scaler with clipping: mean 1/8, variance 1/8 - 1/64 = 7/64, sigma = 0.33072,
     * 2.5 sigma = 0.82680 < max|g| = 1, so s = 0.82680 and the 1 is clipped to it */
    gc_compressor *c = make("terngrad");
    float s = 0;
    CHECK(gc_compressor_local_scale(c, 0, g, 8, &s));
    CHECK_REL(s, 2.5 * sqrt(7.0 / 64.0), 1e-6);
    CHECK(gc_compressor_encode(c, 0, g, 8, &rng, &p, q, err, sizeof err) == 0);
    CHECK(q[0] == s); /* clipped value = s: probability 1 */
    for (int i = 1; i < 8; i++)
        CHECK(q[i] == 0);
    /* scaler sharing: a larger shared scale is used as given */
    gc_compressor_set_shared_scale(c, 1, 2.0f);
    CHECK(gc_compressor_encode(c, 1, g, 8, &rng, &p, q, err, sizeof err) == 0);
    CHECK(q[0] == 0.0f || q[0] == 2.0f);
    /* the scaler in the payload (after header 2 bytes and mode byte) is the shared one */
    float stored;
    memcpy(&stored, p.data + 3, 4);
    CHECK(stored == 2.0f);
    /* it applied to that encode only: the next one uses the local scaler again */
    CHECK(gc_compressor_encode(c, 1, g, 8, &rng, &p, q, err, sizeof err) == 0);
    memcpy(&stored, p.data + 3, 4);
    CHECK(stored == s);
    gc_compressor_free(c);
    /* last layer as fp32: header 2 + mode 1 + 32 bytes, reconstruction exact */
    c = make("terngrad");
    CHECK(gc_compressor_set_last_layer(c, 3, true) == 0);
    CHECK(gc_compressor_encode(c, 3, g, 8, &rng, &p, q, err, sizeof err) == 0);
    CHECK(p.len == 2 + 1 + 32);
    CHECK(memcmp(q, g, sizeof g) == 0);
    CHECK(gc_compressor_decode(c, p.data, p.len, d, 8, err, sizeof err) == 0);
    CHECK(memcmp(d, g, sizeof g) == 0);
    gc_compressor_free(c);
    c = make("terngrad:last=tern");
    CHECK(gc_compressor_set_last_layer(c, 3, true) == 0);
    CHECK(gc_compressor_encode(c, 3, g, 8, &rng, &p, q, err, sizeof err) == 0);
    CHECK(p.len == 2 + 1 + 4 + 2);
    gc_compressor_free(c);
    /* The last layer's size without encoding (the payload model of a 10^12-element last
     * layer, issue 15): the encoded lengths above, and the other formats' usual size. */
    size_t fixed = 0;
    c = make("terngrad");
    CHECK(gc_compressor_fixed_payload_bytes_last_layer(c, 8, &fixed) && fixed == 2 + 1 + 32);
    CHECK(gc_compressor_fixed_payload_bytes(c, 8, &fixed) && fixed == 2 + 1 + 4 + 2);
    /* 10^12 elements: header 1 + ULEB128 of 10^12 (40 bits, 6 bytes), mode 1, 4 x 10^12 */
    CHECK(gc_compressor_fixed_payload_bytes_last_layer(c, 1000000000000u, &fixed) &&
          fixed == 7 + 1 + 4000000000000u);
    gc_compressor_free(c);
    c = make("terngrad:last=tern");
    CHECK(gc_compressor_fixed_payload_bytes_last_layer(c, 8, &fixed) && fixed == 2 + 1 + 4 + 2);
    gc_compressor_free(c);
    c = make("fp16");
    CHECK(gc_compressor_fixed_payload_bytes_last_layer(c, 8, &fixed) && fixed == 2 + 16);
    gc_compressor_free(c);
    c = make("qsgd:code=elias");
    CHECK(!gc_compressor_fixed_payload_bytes_last_layer(c, 8, &fixed));
    gc_compressor_free(c);
    /* tensors below min_size go as fp32 */
    c = make("terngrad:min_size=9");
    CHECK(gc_compressor_encode(c, 0, g, 8, &rng, &p, q, err, sizeof err) == 0);
    CHECK(p.len == 2 + 1 + 32);
    gc_compressor_free(c);
    gc_bytes_free(&p);
}

static void check_powersgd_shape(void)
{
    float *g = falloc(1000), *q = falloc(1000), *d = falloc(1000);
    char err[256];
    gc_rng rng;
    gc_rng_seed(&rng, 5);
    gc_bytes p = {0};
    fill_grad(g, 1000, 4);
    gc_compressor *c = make("powersgd:rank=2");
    CHECK(gc_compressor_set_shape(c, 0, 10, 100, err, sizeof err) == 0);
    CHECK(gc_compressor_encode(c, 0, g, 1000, &rng, &p, q, err, sizeof err) == 0);
    /* header 3, mode 1, rows uleb 1, cols uleb 1, rank 1, (10 + 100) * 2 floats */
    CHECK(p.len == 3 + 1 + 1 + 1 + 1 + 4 * 2 * 110);
    CHECK(gc_compressor_decode(c, p.data, p.len, d, 1000, err, sizeof err) == 0);
    CHECK(memcmp(d, q, 1000 * sizeof *q) == 0);
    CHECK(gc_compressor_set_shape(c, 1, 10, 10, err, sizeof err) == 0);
    CHECK(gc_compressor_encode(c, 1, g, 1000, &rng, &p, q, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "does not hold");
    /* rank 1 on a rank-1 matrix is exact up to rounding: g[i][j] = (i+1)(j-3) */
    gc_compressor_free(c);
    c = make("powersgd:rank=1,cols=50");
    for (size_t i = 0; i < 1000; i++)
        g[i] = (float)((double)(i / 50 + 1) * ((double)(i % 50) - 3.0) * 1e-3);
    CHECK(gc_compressor_encode(c, 0, g, 1000, &rng, &p, q, err, sizeof err) == 0);
    double e = 0, t = 0;
    for (size_t i = 0; i < 1000; i++) {
        e += (q[i] - g[i]) * (double)(q[i] - g[i]);
        t += (double)g[i] * g[i];
    }
    CHECK(e / t < 1e-10);
    gc_compressor_free(c);
    gc_bytes_free(&p);
    free(g), free(q), free(d);
}

/* Truncations and corruptions must be rejected with a byte offset, or decode to something;
 * never crash or read out of bounds. */
static void check_decode_robustness(void)
{
    static const char *const specs[] = {
        "none", "fp16", "terngrad", "terngrad:bucket=64", "qsgd", "qsgd:code=elias",
        "qsgd:s=3,bucket=0,code=elias", "qsgd:code=gamma", "qsgd:s=3,bucket=0,code=gamma",
        "ecq:code=elias", "dgc", "dgc:code=pairs", "topk:ratio=0.05",
        "randomk:ratio=0.05,code=rle", "threshold", "orq:s=5,bucket=64", "linear",
        "bingrad-b", "bingrad-pb", "signsgd", "onebit", "ecq", "powersgd", "powersgd:rank=2",
    };
    size_t n = 1000;
    float *g = falloc(n), *d = falloc(n);
    char err[256];
    gc_rng rng;
    gc_rng_seed(&rng, 77);
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
        gc_compressor *c = make(specs[s]);
        fill_grad(g, n, 5);
        gc_bytes p = {0};
        CHECK(gc_compressor_encode(c, 0, g, n, &rng, &p, NULL, err, sizeof err) == 0);
        /* every truncation fails and names a byte offset */
        for (size_t len = 0; len < p.len; len++) {
            uint8_t *cut = malloc(len ? len : 1);
            memcpy(cut, p.data, len);
            err[0] = 0;
            int rc = gc_compressor_decode(c, cut, len, d, n, err, sizeof err);
            if (rc != -1) {
                fprintf(stderr, "%s: truncation to %zu bytes decoded\n", specs[s], len);
                CHECK(0);
            }
            CHECK_STR_CONTAINS(err, "byte offset");
            free(cut);
        }
        /* a wrong element count and a wrong compressor are rejected */
        CHECK(gc_compressor_decode(c, p.data, p.len, d, n - 1, err, sizeof err) == -1);
        CHECK_STR_CONTAINS(err, "byte offset 1");
        /* random corruptions: no crash, errors name an offset */
        uint8_t *buf = malloc(p.len + 16);
        for (int trial = 0; trial < 300; trial++) {
            memcpy(buf, p.data, p.len);
            size_t len = p.len;
            int flips = 1 + (int)gc_rng_below(&rng, 4);
            for (int f = 0; f < flips; f++)
                buf[gc_rng_below(&rng, len)] ^= (uint8_t)(1u << gc_rng_below(&rng, 8));
            if (trial % 3 == 0) /* extra bytes */
                len += (size_t)gc_rng_below(&rng, 16);
            err[0] = 0;
            if (gc_compressor_decode(c, buf, len, d, n, err, sizeof err) != 0)
                CHECK_STR_CONTAINS(err, "byte offset");
        }
        /* pure noise behind a valid header */
        for (int trial = 0; trial < 100; trial++) {
            size_t len = 3 + (size_t)gc_rng_below(&rng, p.len + 8);
            uint8_t *noise = malloc(len);
            for (size_t i = 0; i < len; i++)
                noise[i] = (uint8_t)gc_rng_next(&rng);
            memcpy(noise, p.data, 3);
            err[0] = 0;
            if (gc_compressor_decode(c, noise, len, d, n, err, sizeof err) != 0)
                CHECK_STR_CONTAINS(err, "byte offset");
            free(noise);
        }
        free(buf);
        gc_bytes_free(&p);
        gc_compressor_free(c);
    }
    /* another compressor's payload */
    gc_compressor *a = make("qsgd"), *b = make("ecq");
    gc_bytes p = {0};
    fill_grad(g, n, 5);
    CHECK(gc_compressor_encode(a, 0, g, n, &rng, &p, NULL, err, sizeof err) == 0);
    CHECK(gc_compressor_decode(b, p.data, p.len, d, n, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "format id at byte offset 0");
    gc_bytes_free(&p);
    gc_compressor_free(a);
    gc_compressor_free(b);
    free(g), free(d);
}

int main(void)
{
    check_sizes();
    check_specs();
    check_declarations();
    check_nonfinite();
    check_terngrad_options();
    check_powersgd_shape();
    check_decode_robustness();
    CHECK_DONE();
}
