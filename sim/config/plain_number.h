/*
 * sim/config/plain_number.h: the one parser of plain decimal numbers that every option value
 * and every number inside an option (hsdp:G, every:N, fraction:P, --mfu) goes through.
 *
 * strtol and strtod accept leading spaces, a '+', hexadecimal ("0x1p-1"), "inf" and "nan";
 * a number a person types is none of those. Plain decimal: an optional '-', then a digit
 * (or, for reals, a point), then digits, a point and an exponent; nothing before or after.
 */
#ifndef GCSIM_CONFIG_PLAIN_NUMBER_H
#define GCSIM_CONFIG_PLAIN_NUMBER_H

#include <stdbool.h>

/* A whole number in [min, max], written in plain decimal digits ("-" allowed first). */
bool gcsim_plain_int(const char *text, long long min, long long max, long long *out);
/* A finite real in [min, max], plain decimal with an optional exponent ("2.5e-3"). */
bool gcsim_plain_double(const char *text, double min, double max, double *out);

#endif
