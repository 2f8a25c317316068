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

#endif
