/*
 * tests/check.h: the few assertions gcsim's C tests use. A failed check prints the file,
 * line and values and makes the test exit 1; a test ends with CHECK_DONE().
 */
#ifndef GCSIM_TESTS_CHECK_H
#define GCSIM_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            check_failures++;                                                        \
        }                                                                            \
    } while (0)

/* |a - b| <= rel * max(|a|, |b|), or both exactly equal. */
#define CHECK_REL(a, b, rel)                                                              \
    do {                                                                                  \
        double ca_ = (a), cb_ = (b), cr_ = (rel);                                         \
        double cm_ = fabs(ca_) > fabs(cb_) ? fabs(ca_) : fabs(cb_);                       \
        if (!(ca_ == cb_ || fabs(ca_ - cb_) <= cr_ * cm_)) {                              \
            fprintf(stderr, "%s:%d: %s = %.17g, %s = %.17g, relative error %.3g > %.3g\n", \
                    __FILE__, __LINE__, #a, ca_, #b, cb_, fabs(ca_ - cb_) / cm_, cr_);    \
            check_failures++;                                                             \
        }                                                                                 \
    } while (0)

#define CHECK_STR_CONTAINS(haystack, needle)                                           \
    do {                                                                               \
        const char *ch_ = (haystack), *cn_ = (needle);                                 \
        if (!ch_ || !strstr(ch_, cn_)) {                                               \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, \
                    ch_ ? ch_ : "(null)", cn_);                                        \
            check_failures++;                                                          \
        }                                                                              \
    } while (0)

#define CHECK_DONE()                                                      \
    do {                                                                  \
        if (check_failures) {                                             \
            fprintf(stderr, "%d check(s) failed\n", check_failures);      \
            return 1;                                                     \
        }                                                                 \
        return 0;                                                         \
    } while (0)

#endif
