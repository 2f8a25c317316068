/* The "described" compressor (c_described.c): payload sizes by its formula, checked against
 * hand-computed bytes and against the built-ins whose formats the examples imitate; it has no
 * encoder and stays out of the list of names a user picks from. */
#include <string.h>

#include "../check.h"
#include "compressor.h"

static size_t fixed_bytes(const char *spec, size_t n, int last)
{
    gc_compressor *c = NULL;
    char err[256];
    size_t b = 0;
    if (gc_compressor_create(spec, &c, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", spec, err);
        return (size_t)-1;
    }
    bool ok = last ? gc_compressor_fixed_payload_bytes_last_layer(c, n, &b)
                   : gc_compressor_fixed_payload_bytes(c, n, &b);
    gc_compressor_free(c);
    return ok ? b : (size_t)-2;
}

int main(void)
{
    const char *tern = "described:payload=fixed,bits=2,scale_bytes=4,extra_bytes=1,last=fp32,"
                       "agg=shared-scale,codec=terngrad";
    /* header 1 + uleb(1000) 2; body 1 flag + 4 scale + 1000 x 2 bits = 250 */
    CHECK(fixed_bytes(tern, 1000, 0) == 3 + 1 + 4 + 250);
    CHECK(fixed_bytes(tern, 1000, 0) == fixed_bytes("terngrad", 1000, 0));
    CHECK(fixed_bytes(tern, 1001, 0) == fixed_bytes("terngrad", 1001, 0)); /* padding */
    /* the last layer as fp32: 1 + 4 n */
    CHECK(fixed_bytes(tern, 1000, 1) == 3 + 1 + 4000);
    CHECK(fixed_bytes(tern, 1000, 1) == fixed_bytes("terngrad", 1000, 1));
    /* one scale per 512-element bucket: 2 buckets, 1000 bits */
    const char *sign = "described:bits=1,scale_bytes=4,bucket=512,agg=per-worker-scale,codec=signsgd";
    CHECK(fixed_bytes(sign, 1000, 0) == 3 + 8 + 125);
    CHECK(fixed_bytes(sign, 1000, 0) == fixed_bytes("signsgd:bucket=512", 1000, 0));
    /* below dense_below elements: extra + 4 n */
    CHECK(fixed_bytes("described:bits=2,extra_bytes=1,dense_below=100", 10, 0) == 2 + 1 + 40);
    /* sparse: ceil(0.01 x 1000) = 10 pairs of 32 + 32 bits */
    CHECK(fixed_bytes("described:payload=sparse,bits=32,index_bits=32,density=0.01,agg=sparse,"
                      "codec=topk", 1000, 0) == 3 + 80);
    /* low rank 4 on 10000 = 100 x 100: 4 x 200 fp32 factors; on 64 = 8 x 8 the factors hold
     * 64 elements, so the tensor goes dense */
    const char *lr = "described:payload=lowrank,rank=4,bits=32,extra_bytes=1,codec=powersgd";
    CHECK(fixed_bytes(lr, 10000, 0) == 3 + 1 + 3200);
    CHECK(fixed_bytes(lr, 64, 0) == 2 + 1 + 256);

    gc_compressor *c = NULL;
    char err[256];
    CHECK(gc_compressor_create(tern, &c, err, sizeof err) == 0);
    if (c) {
        CHECK(gc_compressor_aggregation(c) == GC_AGG_SHARED_SCALE);
        CHECK(strcmp(gc_compressor_cost_reference(c), "terngrad") == 0);
        CHECK(gc_compressor_described_rank(c) == 0);
        CHECK(gc_compressor_exchanges(c) == GC_EXCHANGES_ANY);
        /* the canonical spec leaves out keys at their default and reads back to itself */
        CHECK(strcmp(gc_compressor_spec(c), "described:bits=2,scale_bytes=4,extra_bytes=1,"
                                            "last=fp32,agg=shared-scale,codec=terngrad") == 0);
        CHECK(!gc_compressor_is_unbiased(c));
        float g[4] = {1, 2, 3, 4};
        gc_bytes out = {0};
        CHECK(gc_compressor_encode(c, 0, g, 4, NULL, &out, NULL, err, sizeof err) != 0);
        CHECK_STR_CONTAINS(err, "no encoder");
        gc_bytes_free(&out);
        gc_compressor_free(c);
    }
    CHECK(gc_compressor_create("described:payload=sparse,index_bits=0", &c, err, sizeof err) != 0);
    CHECK_STR_CONTAINS(err, "index_bits");
    for (const char *const *n = gc_compressor_names(); *n; n++)
        CHECK(strcmp(*n, "described") != 0);
    CHECK(gc_compressor_create("described:bits=1,exchanges=5", &c, err, sizeof err) == 0);
    if (c) {
        CHECK(gc_compressor_exchanges(c) == (GC_EXCHANGE_BIT_ALLREDUCE | GC_EXCHANGE_BIT_PS));
        gc_compressor_free(c);
    }
    /* a built-in is its own cost reference */
    CHECK(gc_compressor_create("qsgd", &c, err, sizeof err) == 0);
    if (c) {
        CHECK(strcmp(gc_compressor_cost_reference(c), "qsgd") == 0);
        gc_compressor_free(c);
    }
    CHECK_DONE();
}
