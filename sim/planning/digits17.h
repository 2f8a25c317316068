/*
 * sim/planning/digits17.h: a double as printf's "%.17g" writes it, faster.
 *
 * A sweep writes about 15 numbers a row and millions of rows; glibc's exact formatting
 * (strfromd, printf) costs about 0.2 us a number, a fifth of the time a case may take.
 * Seventeen digits are enough to carry every bit, which is why the outputs use them.
 */
#ifndef GCSIM_PLANNING_DIGITS17_H
#define GCSIM_PLANNING_DIGITS17_H

/* Longest text: "-1.2345678901234567e-308" and its terminating NUL. */
enum { DIGITS17_MAX = 32 };

/* Writes v (finite) as snprintf(out, DIGITS17_MAX, "%.17g", v) would, byte for byte, and
 * returns its length. Most numbers take an extended-precision fast path; the few whose
 * seventeenth digit it cannot decide (halfway cases, neighbours of powers of ten) and
 * every number on a machine without 64-bit long double mantissas are left to strfromd. */
int digits17_format(char out[DIGITS17_MAX], double v);

#endif
