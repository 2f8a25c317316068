/*
 * compressors/c_described.c: "described", a compressor known only by its payload format,
 * for compressors that exist as a description file and not as C code (docs/compressors.md,
 * "Described compressors"; the simulator writes the spec from a JSON file).
 *
 * It sizes payloads by a formula and has no encoder: it cannot run on a gradient, so it
 * has no accuracy proxy. Its keys say the format:
 *   payload=fixed    bits per element, packed, plus scale_bytes per bucket (bucket
 *                    elements, 0: the whole tensor);
 *   payload=sparse   ceil(density * n) selected elements of bits value bits and index_bits
 *                    index bits each, packed, plus scale_bytes per bucket;
 *   payload=lowrank  two factors of rank r of the tensor viewed as rows x cols (cols =
 *                    ceil(sqrt(n)), as PowerSGD's default), bits per factor element; sent
 *                    dense (4 bytes per element) when that is not smaller;
 * each plus extra_bytes per tensor (format flags). Tensors of fewer than dense_below
 * elements, and the last layer when last=fp32, are sent as extra_bytes + 4 n. Every
 * payload starts with the library's header (gc_payload_header_bytes), as built-ins do.
 * agg says how payloads combine in a collective; codec names the built-in whose codec
 * work and stack programs price this one (the simulator's cost reference); exchanges the
 * exchanges it may use.
 */
#include <math.h>

#include "internal.h"

enum {
    K_PAYLOAD, K_BITS, K_INDEX_BITS, K_DENSITY, K_RANK, K_SCALE_BYTES, K_BUCKET, K_EXTRA,
    K_DENSE_BELOW, K_LAST, K_AGG, K_UNBIASED, K_CODEC, K_EXCHANGES, K_COUNT
};
static const char *const payload_choices[] = {"fixed", "sparse", "lowrank", NULL};
static const char *const last_choices[] = {"same", "fp32", NULL};
/* gc_aggregation's values, in its order, under gc_aggregation_name's names */
static const char *const agg_choices[] = {"dense-summable", "shared-scale", "sparse",
                                          "per-worker-scale", NULL};
/* the built-ins a description may take its codec costs from (compressor.c's names) */
static const char *const codec_choices[] = {
    "none",    "fp16",   "bf16",      "terngrad",  "qsgd",    "dgc",
    "topk",    "randomk", "threshold", "orq",      "linear",  "bingrad-b",
    "bingrad-pb", "signsgd", "onebit", "ecq",      "powersgd", NULL,
};
static const gc_key keys[] = {
    {"payload", GK_ENUM, "fixed", 0, 0, payload_choices},
    {"bits", GK_INT, "32", 1, 64, NULL},
    {"index_bits", GK_INT, "0", 0, 64, NULL},
    {"density", GK_REAL, "1", 0, 1, NULL},
    {"rank", GK_INT, "1", 1, 65535, NULL},
    {"scale_bytes", GK_INT, "0", 0, 1024, NULL},
    {"bucket", GK_INT, "0", 0, 4294967295.0, NULL},
    {"extra_bytes", GK_INT, "0", 0, 1024, NULL},
    {"dense_below", GK_INT, "0", 0, 4294967295.0, NULL},
    {"last", GK_ENUM, "same", 0, 0, last_choices},
    {"agg", GK_ENUM, "dense-summable", 0, 0, agg_choices},
    {"unbiased", GK_INT, "0", 0, 1, NULL},
    {"codec", GK_ENUM, "none", 0, 0, codec_choices},
    /* the exchanges the format supports, a bit each: 1 all-reduce, 2 all-gather, 4 parameter
     * server (7: any the aggregation and the stack allow) */
    {"exchanges", GK_INT, "7", 1, 7, NULL},
};
_Static_assert(sizeof keys / sizeof keys[0] == K_COUNT && K_COUNT <= GC_MAX_KEYS,
               "one key per enum value");

static int check(const double *p, char *err, size_t err_len)
{
    if ((int)p[K_PAYLOAD] == 1 && (p[K_INDEX_BITS] < 1 || !(p[K_DENSITY] > 0))) {
        gc_errf(err, err_len, "described: payload=sparse needs index_bits >= 1 and density > 0");
        return -1;
    }
    return 0;
}

static size_t packed_bytes(double elems, double bits) { return (size_t)ceil(elems * bits / 8.0); }

static bool body_bytes(const double *p, size_t n, bool last, size_t *bytes)
{
    size_t extra = (size_t)p[K_EXTRA];
    if (n < (size_t)p[K_DENSE_BELOW] || (last && (int)p[K_LAST] == 1)) {
        *bytes = extra + 4 * n;
        return true;
    }
    size_t bucket = (size_t)p[K_BUCKET];
    size_t scales = (size_t)p[K_SCALE_BYTES] * gc_nbuckets(n, bucket == 0 || bucket > n ? n : bucket);
    double bits = p[K_BITS];
    switch ((int)p[K_PAYLOAD]) {
    case 0:
        *bytes = extra + scales + packed_bytes((double)n, bits);
        break;
    case 1: {
        double k = n ? ceil(p[K_DENSITY] * (double)n) : 0.0;
        *bytes = extra + scales + packed_bytes(k, bits + p[K_INDEX_BITS]);
        break;
    }
    default: {
        size_t cols = n ? (size_t)ceil(sqrt((double)n)) : 1, rows = n ? (n + cols - 1) / cols : 0;
        size_t r = (size_t)p[K_RANK];
        size_t lowrank = packed_bytes((double)(r * (rows + cols)), bits);
        /* PowerSGD's rule (c_powersgd.c): dense when the factors hold as many elements */
        *bytes = extra + (r >= rows || r >= cols || r * (rows + cols) >= n ? 4 * n : lowrank);
        break;
    }
    }
    return true;
}

static bool fixed_body(const double *p, size_t n, size_t *bytes) { return body_bytes(p, n, false, bytes); }
static bool fixed_body_last(const double *p, size_t n, size_t *bytes) { return body_bytes(p, n, true, bytes); }

static int encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                  gc_bytes *out, float *q, char *err, size_t err_len)
{
    (void)p, (void)st, (void)g, (void)n, (void)rng, (void)out, (void)q;
    gc_errf(err, err_len, "a described compressor sizes payloads only: it has no encoder, so it "
            "cannot run on gradients (no accuracy proxy; docs/compressors.md)");
    return -1;
}

static int decode(const double *p, gc_reader *r, float *out, size_t n, char *err, size_t err_len)
{
    (void)p, (void)r, (void)out, (void)n;
    gc_errf(err, err_len, "a described compressor has no decoder (docs/compressors.md)");
    return -1;
}

static bool unbiased(const double *p) { return p[K_UNBIASED] == 1; }
static gc_aggregation agg_of(const double *p) { return (gc_aggregation)(int)p[K_AGG]; }
static size_t bucket(const double *p, size_t n)
{
    size_t b = (size_t)p[K_BUCKET];
    return b == 0 || b > n ? n : b;
}

const char *gc_described_cost_reference(const double *p) { return codec_choices[(int)p[K_CODEC]]; }
unsigned gc_described_exchanges(const double *p) { return (unsigned)p[K_EXCHANGES]; }
int gc_described_rank(const double *p) { return (int)p[K_PAYLOAD] == 2 ? (int)p[K_RANK] : 0; }

const gc_codec gc_codec_described = {
    .name = "described", .format_id = 18, .keys = keys, .nkeys = K_COUNT,
    .agg = GC_AGG_DENSE_SUMMABLE, .agg_of = agg_of, .unbiased = unbiased, .check = check,
    .encode = encode, .decode = decode, .fixed_body = fixed_body,
    .fixed_body_last = fixed_body_last, .bucket = bucket, .checks_finite = true,
    .omit_defaults = true,
};
