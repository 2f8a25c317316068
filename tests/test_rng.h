/*
 * tests/test_rng.h: the reproducible random numbers C tests draw their cases from, without
 * libc's rand (whose sequence differs between C libraries): xorshift64* (Vigna 2016), each
 * test keeping its own state and seed.
 */
#ifndef GCSIM_TESTS_TEST_RNG_H
#define GCSIM_TESTS_TEST_RNG_H

#include <stdint.h>

static inline uint64_t test_xorshift64star(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545f4914f6cdd1dull;
}

#endif
