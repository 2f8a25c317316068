/*
 * tests/fuzz/fuzz_spec.c: the compressor spec parser (gc_compressor_create,
 * compressors/compressor.h) on arbitrary text, and the compressor it builds run once.
 *
 * Contract checked: a rejected spec leaves a non-empty message; an accepted one has a
 * canonical spec that parses back to the same canonical spec; encoding a small finite
 * gradient either fails with a message or gives a payload that decodes to exactly the
 * `quantized` values encode reported, of the announced fixed size when there is one.
 */
#include <math.h>

#include "compressor.h"
#include "fuzz_target.h"

/* Sizes: empty tensor, one element, and one with several buckets of the smaller bucket
 * sizes; kept small so parameters such as s=32767 stay fast. */
static const size_t sizes[] = {0, 1, 67};
#define MAX_N 67

/* Payloads above this are skipped: orq:s=65537,bucket=1 stores 65537 fp32 levels per
 * element (262 KB each), legal but minutes per input under ASan; a caller sizing memory
 * would check gc_compressor_fixed_payload_bytes the same way. */
#define MAX_PAYLOAD_BYTES (1u << 20)

static void run_once(gc_compressor *c, int tensor_id, size_t n, gc_rng *rng)
{
    float grad[MAX_N], quantized[MAX_N], decoded[MAX_N];
    size_t fixed = 0;
    if (gc_compressor_fixed_payload_bytes(c, n, &fixed) && fixed > MAX_PAYLOAD_BYTES)
        return;
    for (size_t i = 0; i < n; i++) /* a mix of signs, magnitudes and exact zeros */
        grad[i] = (i % 5 == 0) ? 0.0f : (float)(gc_rng_normal(rng) * (i % 3 ? 1e-3 : 2.0));
    gc_bytes payload = {0};
    char err[512] = "";
    if (gc_compressor_encode(c, tensor_id, grad, n, rng, &payload, quantized, err,
                             sizeof err) != 0) {
        fuzz_check_message(err, sizeof err, NULL);
        gc_bytes_free(&payload);
        return;
    }
    if (gc_compressor_fixed_payload_bytes(c, n, &fixed))
        FUZZ_REQUIRE(fixed == payload.len, "%s: n=%zu: fixed size %zu, payload %zu",
                     gc_compressor_spec(c), n, fixed, payload.len);
    FUZZ_REQUIRE(payload.len >= gc_payload_header_bytes(n), "payload shorter than header");
    int rc = gc_compressor_decode(c, payload.data, payload.len, decoded, n, err, sizeof err);
    FUZZ_REQUIRE(rc == 0, "%s: n=%zu: own payload does not decode: %s", gc_compressor_spec(c),
                 n, err);
    for (size_t i = 0; i < n; i++)
        FUZZ_REQUIRE(memcmp(&decoded[i], &quantized[i], sizeof(float)) == 0 ||
                         (isnan(decoded[i]) && isnan(quantized[i])),
                     "%s: n=%zu: element %zu decodes to %g, encode said %g",
                     gc_compressor_spec(c), n, i, decoded[i], quantized[i]);
    gc_bytes_free(&payload);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = fuzz_cstring(data, size);
    gc_compressor *c = NULL;
    char err[512] = "";
    int rc = gc_compressor_create(spec, &c, err, sizeof err);
    free(spec);
    if (rc != 0) {
        FUZZ_REQUIRE(rc == -1 && c == NULL, "failed create returned %d", rc);
        fuzz_check_message(err, sizeof err, NULL);
        return 0;
    }
    /* The canonical spec is a fixed point of parse-and-print. */
    const char *canon = gc_compressor_spec(c);
    gc_compressor *again = NULL;
    FUZZ_REQUIRE(gc_compressor_create(canon, &again, err, sizeof err) == 0,
                 "canonical spec \"%s\" rejected: %s", canon, err);
    FUZZ_REQUIRE(strcmp(gc_compressor_spec(again), canon) == 0, "\"%s\" reprints as \"%s\"",
                 canon, gc_compressor_spec(again));
    gc_compressor_free(again);

    gc_rng rng;
    gc_rng_seed(&rng, 42);
    for (int step = 0; step < 2; step++) { /* two steps reach error feedback and momentum */
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            run_once(c, (int)k, sizes[k], &rng);
        gc_compressor_next_step(c);
    }
    gc_compressor_free(c);
    return 0;
}
