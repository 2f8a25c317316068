/* The Elias integer codes of qsgd/ecq (compressors/bitio.h): hand-computed omega and gamma
 * codewords, round trips up to 2^64 - 1, hostile streams rejected with a byte offset; and
 * the exact bytes of a small qsgd payload with code=elias (omega) and code=gamma. */
#include "../check.h"
#include "bitio.h"
#include "tutil.h"

/* Encode x with the chosen code into buf (32 zeroed bytes); returns the bits written. */
static size_t encode(int omega, uint64_t x, uint8_t *buf)
{
    gc_bitw w = {buf, 0, 0};
    if (omega)
        gc_put_omega(&w, x);
    else
        gc_put_gamma(&w, x);
    size_t nbits = (size_t)(w.d - buf) * 8 + (size_t)w.bits;
    gc_bitw_flush(&w);
    return nbits;
}

/* Encode x with the chosen code and return its bits as a '0'/'1' string in stream order. */
static void code_string(int omega, uint64_t x, char *s, size_t len)
{
    uint8_t buf[32] = {0};
    size_t nbits = encode(omega, x, buf);
    size_t i = 0;
    for (; i < nbits && i + 1 < len; i++)
        s[i] = (char)('0' + (buf[i / 8] >> (i % 8) & 1));
    s[i] = 0;
}

/* Encode then decode x; the decoder must consume exactly the encoded bits. */
static void check_round_trip(int omega, uint64_t x)
{
    uint8_t buf[32] = {0};
    size_t nbits = encode(omega, x, buf);
    CHECK(nbits == (size_t)(omega ? gc_omega_bits(x) : gc_gamma_bits(x)));
    gc_bitr r = {buf, sizeof buf * 8, 0, 0};
    uint64_t y = 0;
    char err[128];
    int rc = omega ? gc_get_omega(&r, &y, "value", err, sizeof err)
                   : gc_get_gamma(&r, &y, "value", err, sizeof err);
    CHECK(rc == 0);
    CHECK(y == x);
    CHECK(r.pos == nbits);
}

static void check_codewords(void)
{
    /* omega: groups from the innermost out, then a 0.
     *  1: no group                       -> 0
     *  2 = 10b, len 2 -> 1 stops          -> 10 0
     *  3 = 11b                            -> 11 0
     *  4 = 100b, len 3 -> 2 = 10b         -> 10 100 0
     *  7 = 111b, len 3 -> 2               -> 10 111 0
     *  8 = 1000b, len 4 -> 3 = 11b        -> 11 1000 0
     *  16 = 10000b, len 5 -> 4 = 100b, len 3 -> 2 = 10b -> 10 100 10000 0 */
    static const struct {
        uint64_t x;
        const char *omega, *gamma;
    } t[] = {
        /* gamma: bitlen(x) - 1 zeros, then x in binary */
        {1, "0", "1"},
        {2, "100", "010"},
        {3, "110", "011"},
        {4, "101000", "00100"},
        {7, "101110", "00111"},
        {8, "1110000", "0001000"},
        {16, "10100100000", "000010000"},
    };
    char s[160];
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        code_string(1, t[i].x, s, sizeof s);
        if (strcmp(s, t[i].omega) != 0) {
            fprintf(stderr, "omega(%llu) = %s, expected %s\n", (unsigned long long)t[i].x, s,
                    t[i].omega);
            CHECK(0);
        }
        code_string(0, t[i].x, s, sizeof s);
        if (strcmp(s, t[i].gamma) != 0) {
            fprintf(stderr, "gamma(%llu) = %s, expected %s\n", (unsigned long long)t[i].x, s,
                    t[i].gamma);
            CHECK(0);
        }
        CHECK(gc_omega_bits(t[i].x) == (int)strlen(t[i].omega));
        CHECK(gc_gamma_bits(t[i].x) == (int)strlen(t[i].gamma));
    }
    /* omega(2^32): 33 bits, len 33 -> 32 = 100000b (6 bits) -> 5 = 101b -> 2 = 10b:
     * 2 + 3 + 6 + 33 + 1 = 45 bits */
    CHECK(gc_omega_bits((uint64_t)1 << 32) == 45);
    /* omega(2^64 - 1): 64 bits -> 63 (6 bits) -> 5 (3 bits) -> 2 (2 bits): 76 bits */
    CHECK(gc_omega_bits(UINT64_MAX) == 76);

    /* round trips: every value to 5000, then around powers of two up to 2^64 - 1 */
    for (uint64_t x = 1; x <= 5000; x++) {
        check_round_trip(1, x);
        check_round_trip(0, x);
    }
    for (int k = 1; k < 64; k++) {
        uint64_t p = (uint64_t)1 << k;
        check_round_trip(1, p - 1), check_round_trip(1, p), check_round_trip(1, p + 1);
        check_round_trip(0, p - 1), check_round_trip(0, p), check_round_trip(0, p + 1);
    }
    check_round_trip(1, UINT64_MAX);
    check_round_trip(0, UINT64_MAX);
}

static void check_hostile(void)
{
    char err[160];
    uint64_t y;
    /* all ones: omega groups 1 -> 3 -> 15 -> 65535, then a group of 65536 bits would be
     * needed: rejected before reading it, naming the code's start */
    uint8_t ones[64];
    memset(ones, 0xff, sizeof ones);
    gc_bitr r = {ones, sizeof ones * 8, 0, 100};
    err[0] = 0;
    CHECK(gc_get_omega(&r, &y, "level", err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "byte offset 100");
    CHECK(r.pos == 4 + 1 + 3 + 15); /* 4 leading ones and groups of 1, 3, 15 more bits */
    /* all zeros: the 64th leading zero of a gamma code is rejected without reading on */
    uint8_t zeros[64] = {0};
    gc_bitr z = {zeros, sizeof zeros * 8, 0, 7};
    err[0] = 0;
    CHECK(gc_get_gamma(&z, &y, "level", err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "byte offset 7");
    CHECK(z.pos == 64);
    /* a code cut short: omega 16 = 10100100000 without its last 3 bits */
    uint8_t b16[2] = {0};
    gc_bitw w = {b16, 0, 0};
    gc_put_omega(&w, 16);
    gc_bitw_flush(&w);
    gc_bitr t = {b16, 8, 0, 0};
    err[0] = 0;
    CHECK(gc_get_omega(&t, &y, "index gap", err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "truncated at byte offset");
    CHECK_STR_CONTAINS(err, "index gap");
}

/* x = {0, -2, 0, 0, 2}, s = 1, l-inf: scale 2, every |x|/2 * s is 0 or exactly 1, so the
 * levels are deterministic: -1 at index 1, +1 at index 4. Stream (bits in order):
 *  omega: E(nnz+1 = 3) 110 | gap 1-(-1) = 2: 100, sign 1, level 1: 0 | gap 3: 110, sign 0,
 *         level 0 -> 1101001011000 (13 bits): bytes LSB first 0b01001011 = 0x4b, 0b00011 = 0x03
 *  gamma: 011 | 010, 1, 1 | 011, 0, 1 -> 0110101101101: 0b11010110 = 0xd6, 0b10110 = 0x16 */
static void check_payload_bytes(void)
{
    const float x[5] = {0, -2, 0, 0, 2};
    const char *specs[2] = {"qsgd:s=1,norm=linf,code=elias", "qsgd:s=1,norm=linf,code=gamma"};
    const uint8_t stream[2][2] = {{0x4b, 0x03}, {0xd6, 0x16}};
    char err[256];
    for (int k = 0; k < 2; k++) {
        gc_compressor *c = make(specs[k]);
        gc_bytes p = {0};
        float q[5], d[5];
        CHECK(gc_compressor_encode(c, 0, x, 5, NULL, &p, q, err, sizeof err) == 0);
        /* header: format id 5, uleb128(5); fp32 scale 2.0 = 0x40000000 little-endian */
        const uint8_t want[8] = {5, 5, 0, 0, 0, 0x40, stream[k][0], stream[k][1]};
        CHECK(p.len == 8);
        CHECK(p.len == 8 && memcmp(p.data, want, 8) == 0);
        CHECK(gc_compressor_decode(c, p.data, p.len, d, 5, err, sizeof err) == 0);
        for (int i = 0; i < 5; i++)
            CHECK(d[i] == x[i] && q[i] == x[i]);
        /* corrupt: the first stream byte all ones makes omega read 1 -> 3 -> 15 and run out
         * of bits; gamma reads nnz + 1 = 1, then finds trailing data */
        uint8_t bad[8];
        memcpy(bad, p.data, 8);
        bad[6] = 0xff;
        err[0] = 0;
        CHECK(gc_compressor_decode(c, bad, 8, d, 5, err, sizeof err) == -1);
        CHECK_STR_CONTAINS(err, "byte offset");
        /* truncated by one byte */
        err[0] = 0;
        CHECK(gc_compressor_decode(c, p.data, 7, d, 5, err, sizeof err) == -1);
        CHECK_STR_CONTAINS(err, "byte offset");
        gc_bytes_free(&p);
        gc_compressor_free(c);
    }
}

int main(void)
{
    check_codewords();
    check_hostile();
    check_payload_bytes();
    CHECK_DONE();
}
