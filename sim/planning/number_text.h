/*
 * sim/planning/number_text.h: numbers as printf writes them ("%.17g", "%lld"), faster.
 *
 * A sweep writes about 15 numbers a row and millions of rows; glibc's exact formatting
 * (strfromd, printf) costs about 0.2 us a number, a fifth of the time a case may take.
 * Seventeen digits are enough to carry every bit, which is why the outputs use them.
 */
#ifndef GCSIM_PLANNING_NUMBER_TEXT_H
#define GCSIM_PLANNING_NUMBER_TEXT_H

/* Longest text: "-1.2345678901234567e-308" and its terminating NUL (an integer's
 * "-9223372036854775808" is shorter). */
enum { NUMBER_TEXT_MAX = 32 };

/* Writes v (finite) as snprintf(out, NUMBER_TEXT_MAX, "%.17g", v) would, byte for byte,
 * and returns its length. Most numbers take an extended-precision fast path; the few
 * whose seventeenth digit it cannot decide (halfway cases, neighbours of powers of ten)
 * and every number on a machine without 64-bit long double mantissas are left to
 * strfromd. */
int number_text_g17(char out[NUMBER_TEXT_MAX], double v);

/* Writes v as "%lld" would and returns its length. */
int number_text_lld(char out[NUMBER_TEXT_MAX], long long v);

#endif
