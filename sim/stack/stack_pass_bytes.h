/*
 * sim/stack/stack_pass_bytes.h: one entry of a stack's per-compressor pass list
 * ($.cpu_codec.compressors.NAME, $.gpu_passes.compressors.NAME; private to sim/stack): the
 * bytes the codec's passes stream per element, encode and decode, and where that count
 * comes from. Both lists price a codec by those bytes over a memory's bandwidth, so both read
 * them the same way.
 */
#ifndef GCSIM_STACK_PASS_BYTES_H
#define GCSIM_STACK_PASS_BYTES_H

#include "json_strict.h"

/* Reads entry c (at: its path, for messages; keys: the entry's allowed keys, which must
 * include the three read here) into *encode / *decode, both positive, with a non-empty
 * "source". memory names what streams them ("CPU's", "GPU's") in the message. */
int stack_pass_bytes_parse(const cJSON *c, const char *at, const char *const *keys,
                           const char *memory, double *encode_bytes_per_elem,
                           double *decode_bytes_per_elem, json_ctx *ctx);

#endif
