/*
 * sim/config/size_list.h: a list of message sizes, as `gcsim collective --sizes` and
 * nccl-tests' -b/-e/-f take them: "16MiB,8GiB" (a list, in the order given) or "8B:8GiB"
 * (doubling from MIN while not above MAX). Every size is a whole number of bytes from 1 B
 * to GCSIM_SIZE_LIST_MAX_BYTES; no item may be empty ("8B,,16B"), no list is cut short.
 */
#ifndef GCSIM_CONFIG_SIZE_LIST_H
#define GCSIM_CONFIG_SIZE_LIST_H

#include <stddef.h>

/* 2^50 bytes (1 PiB), a thousand times the largest GPU memory. Beyond about 2^63 bytes the
 * DES's byte counts overflow (1e20 B was 848% off the closed form, 1e300 B 1e282%), and
 * past 2^53 a size is no longer an exact integer in a double. */
#define GCSIM_SIZE_LIST_MAX_BYTES 1125899906842624.0

/* Fills sizes[0..max) and returns how many (>= 1), or -1 with a message starting with
 * "--sizes:" in msg (len bytes). */
int gcsim_parse_size_list(const char *text, double *sizes, int max, char *msg, size_t len);

#endif
