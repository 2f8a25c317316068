/*
 * tests/fuzz/fuzz_target.h: what every fuzz target in tests/fuzz/ shares.
 *
 * Each target defines LLVMFuzzerTestOneInput. With clang and GCSIM_FUZZ=ON it is linked
 * against libFuzzer; in every other build it is linked with replay_main.c, which feeds it
 * the committed corpus files so CTest catches regressions with any compiler.
 *
 * A target checks the documented contract of the code it drives, not just "no crash":
 * FUZZ_REQUIRE aborts (a finding for libFuzzer, a failed test for the replay) when a
 * promise of the public header is broken, e.g. an error message that does not name its
 * origin, or a successful parse that returns a non-positive bandwidth.
 */
#ifndef GCSIM_TESTS_FUZZ_TARGET_H
#define GCSIM_TESTS_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_REQUIRE(cond, ...)                                                        \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: contract broken: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                              \
            fputc('\n', stderr);                                                       \
            abort();                                                                   \
        }                                                                              \
    } while (0)

/* The input as a NUL-terminated string (text parsers take C strings). An embedded NUL
 * simply ends the text early, as it would when read from a file. Caller frees. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* An error message must be a NUL-terminated, non-empty string that names its origin. */
static inline void fuzz_check_message(const char *msg, size_t cap, const char *origin)
{
    FUZZ_REQUIRE(memchr(msg, '\0', cap) != NULL, "message not terminated");
    FUZZ_REQUIRE(msg[0] != '\0', "empty error message");
    if (origin)
        FUZZ_REQUIRE(strstr(msg, origin) != NULL, "message \"%s\" does not name %s", msg,
                     origin);
}

#endif
