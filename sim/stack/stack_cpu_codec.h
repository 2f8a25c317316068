/*
 * sim/stack/stack_cpu_codec.h: a codec-model stack whose compressors run on the host's CPU
 * ("cpu_codec", private to sim/stack): BytePS compresses each reduced partition in host
 * memory, so its encode and decode cost is the bytes each pass of its CPU code moves at
 * the host's DRAM bandwidth, not the GPU's codec model (docs/stacks.md, "BytePS").
 */
#ifndef GCSIM_STACK_CPU_CODEC_H
#define GCSIM_STACK_CPU_CODEC_H

#include "codec.h"
#include "json_strict.h"
#include "stack.h"

/* Reads $.cpu_codec (v; NULL when the file has none) into s. */
int stack_cpu_codec_parse(const cJSON *v, gcsim_stack *s, json_ctx *ctx);

/* Seconds per element of a pass set streaming `bytes` per element, `serial_bytes` of them
 * by one thread per partition: (bytes - serial) / DRAM + serial / min(DRAM, threads x
 * thread rate); the thread pool is ignored when st has none. */
double stack_cpu_codec_seconds_per_element(const gcsim_stack *st, double bytes,
                                           double serial_bytes);

/* Prices a compressed spec's codec on the host under st (st has a cpu_codec): *codec's
 * cost becomes linear in elements at the listed bytes per element over the DRAM bandwidth.
 * Errors (exit 2) name the stack file and field when st lists no passes for spec. */
int stack_cpu_codec_apply(const gcsim_stack *st, const char *spec, gcsim_codec *codec,
                          gcsim_error *err);

#endif
