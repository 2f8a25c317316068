/*
 * tests/fuzz/fuzz_decode.c: every compressor's decoder (gc_compressor_decode) fed
 * arbitrary bytes. compressor.h promises: "Arbitrary bytes never crash: a payload that is
 * truncated or inconsistent with n is an error naming the byte offset."
 *
 * Input: byte 0 picks a spec from decode_specs.h (modulo their number); the rest is the
 * payload. The element count n the caller expects is read from the payload's own header
 * (format id, then LEB128 n) when it is at most FUZZ_DECODE_MAX_N, so the fuzzer reaches
 * the body decoders instead of stopping at the count check; otherwise n = 1, a mismatch.
 * The output buffer holds exactly n floats, so AddressSanitizer sees any overrun.
 */
#include "compressor.h"
#include "decode_specs.h"
#include "fuzz_target.h"

static gc_compressor *compressors[FUZZ_N_DECODE_SPECS];

static void setup(void)
{
    char err[512];
    for (size_t i = 0; i < FUZZ_N_DECODE_SPECS; i++)
        FUZZ_REQUIRE(gc_compressor_create(fuzz_decode_specs[i], &compressors[i], err,
                                          sizeof err) == 0,
                     "spec %s: %s", fuzz_decode_specs[i], err);
    for (const char *const *name = gc_compressor_names(); *name; name++) {
        int covered = 0;
        for (size_t i = 0; i < FUZZ_N_DECODE_SPECS; i++)
            covered |= strcmp(gc_compressor_name(compressors[i]), *name) == 0;
        FUZZ_REQUIRE(covered, "compressor %s has no spec in decode_specs.h", *name);
    }
}

/* n from the payload header, or 1 when absent or too large. */
static size_t header_n(const uint8_t *p, size_t len)
{
    uint64_t n = 0;
    for (size_t i = 1; i < len && i <= 10; i++) {
        n |= (uint64_t)(p[i] & 0x7f) << (7 * (i - 1));
        if (!(p[i] & 0x80))
            return n <= FUZZ_DECODE_MAX_N ? (size_t)n : 1;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!compressors[0])
        setup();
    if (size < 1)
        return 0;
    const gc_compressor *c = compressors[data[0] % FUZZ_N_DECODE_SPECS];
    const uint8_t *payload = data + 1;
    size_t len = size - 1;
    size_t n = header_n(payload, len);
    /* Exact-size copies so any read or write past either end is caught. */
    uint8_t *copy = malloc(len ? len : 1);
    float *out = malloc(n ? n * sizeof(float) : 1);
    if (!copy || !out)
        abort();
    if (len)
        memcpy(copy, payload, len);
    char err[512] = "";
    if (gc_compressor_decode(c, copy, len, out, n, err, sizeof err) != 0)
        fuzz_check_message(err, sizeof err, NULL);
    free(copy);
    free(out);
    return 0;
}
