/*
 * sim/collectives/content_hash.h: a 64-bit hash of an object's bytes, for the memos that
 * intern platforms by content (schedule_memo.c, tuner_memo.c).
 *
 * The memos compare a platform (4 KB) byte for byte with every one they hold; `calibrate`
 * asks for a new platform at every step of its search, so each lookup missed through
 * hundreds of them and memcmp took half of the fits' time (issue 47). The hash is compared
 * first and memcmp only confirms a match: equal bytes give equal hashes, so no match is
 * lost, and a collision costs one memcmp, never a wrong answer.
 */
#ifndef GCSIM_CONTENT_HASH_H
#define GCSIM_CONTENT_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t gcsim_content_hash(const void *object, size_t bytes)
{
    const unsigned char *p = object;
    /* FNV-1a's step over 8-byte words, in four independent lanes: one chain of dependent
     * multiplies ran at a word per multiply latency, and the memos hash a platform on
     * every lookup that misses their last-asked fast path */
    uint64_t h[4] = {1469598103934665603ull, 0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full,
                     0x165667b19e3779f9ull};
    const uint64_t prime = 1099511628211ull;
    size_t k = 0;
    for (; k + 32 <= bytes; k += 32) {
        uint64_t w[4];
        memcpy(w, p + k, 32);
        for (int lane = 0; lane < 4; lane++)
            h[lane] = (h[lane] ^ w[lane]) * prime;
    }
    uint64_t out = h[0] ^ (h[1] * 31) ^ (h[2] * 961) ^ (h[3] * 29791);
    for (; k < bytes; k++)
        out = (out ^ p[k]) * prime;
    return out ^ (out >> 31);
}

#endif
