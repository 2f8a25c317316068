/*
 * sim/config/units.h: quantities with units, as written in platform and model files.
 *
 * Rates: a number, an optional SI (k, M, G, T) or binary (Ki, Mi, Gi, Ti) prefix, then
 * "bps" or "b/s" for bits per second or "Bps" or "B/s" for bytes per second. The case of
 * the b/B is significant, so bits and bytes are never ambiguous: "1Gbps" is 125e6 bytes/s,
 * "12.5GBps" is 12.5e9 bytes/s. Results are always in bytes per second.
 * Times: a number then "s", "ms", "us" or "ns". Results in seconds.
 * Compute speeds: a number, a prefix, then "flops" or "FLOPS" (floating-point operations
 * per second), e.g. "8.9Tflops".
 * Sizes: a number, a prefix, then "B" (bytes), e.g. "25MiB".
 * Zero, negative, NaN and infinite quantities are rejected.
 */
#ifndef GCSIM_CONFIG_UNITS_H
#define GCSIM_CONFIG_UNITS_H

#include <stdbool.h>

bool gcsim_parse_rate_Bps(const char *text, double *bytes_per_s);
bool gcsim_parse_time_s(const char *text, double *seconds);
bool gcsim_parse_flops(const char *text, double *flop_per_s);
bool gcsim_parse_size_bytes(const char *text, double *bytes);

/* The largest byte count gcsim accepts for a size in a file or an option (buffers, buckets,
 * fusion sizes): 2^50 B (1 PiB), the bound of collective --sizes; 1e300B printed
 * 300-digit times. */
#define GCSIM_MAX_SIZE_BYTES 1125899906842624.0
/* A size (as gcsim_parse_size_bytes) that is a whole number of bytes ("1.5B" is none), at
 * most GCSIM_MAX_SIZE_BYTES. */
bool gcsim_parse_whole_bytes(const char *text, double *bytes);
/* Whether a parsed size is a whole number of bytes, allowing the rounding of its decimal
 * times its prefix ("1.001kB"); rounds *bytes to it when so. */
bool gcsim_whole_bytes(double *bytes);

#endif
