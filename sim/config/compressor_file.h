/*
 * sim/config/compressor_file.h: compressors described by a JSON file ("gcsim-compressor/1",
 * docs/compressors.md "Described compressors"), usable wherever --compressor takes a
 * built-in's name: `--compressor file:PATH.json`.
 *
 * The file is read once, strictly (unknown keys, wrong types and out-of-range values are
 * errors naming the file and the JSON path), and turned into the spec of the compressor
 * library's "described" compressor (compressors/c_described.c). From then on it travels
 * as any spec does: payload bytes come from sim/config/payload.c, the exchange from its
 * aggregation, codec costs and stack programs from the built-in its "codec" names.
 */
#ifndef GCSIM_CONFIG_COMPRESSOR_FILE_H
#define GCSIM_CONFIG_COMPRESSOR_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "codec_profile_file.h"
#include "gcsim_error.h"

#define GCSIM_COMPRESSOR_FILE_PREFIX "file:"

/* Whether a --compressor value names a description file (starts with "file:"). */
bool gcsim_compressor_is_file(const char *arg);

/* The spec a --compressor value stands for: a description file's lowered spec
 * ("described:..." or "ef+described:..."), any other value copied as it is. 0, or -1 with
 * err naming the file and the JSON path. */
int gcsim_compressor_resolve(const char *arg, char *spec, size_t spec_len, gcsim_error *err);

/* The description file a spec was read from by gcsim_compressor_resolve in this process
 * (for messages that must name the file: a stack that cannot run it), or NULL. */
const char *gcsim_compressor_file_of(const char *spec);

/* The convergence factor (iterations to fp32's accuracy / fp32's) a description file states
 * in "convergence", with its "source"; false when the spec is not from a file or the file
 * states none (then the factor is unknown: a described compressor has no accuracy proxy). */
bool gcsim_compressor_file_convergence(const char *spec, double *factor, const char **source);

/* The codec costs per tensor size a description file states in $.codec.measured (its GPU
 * type in *gpu), or NULL: then the costs are its codec.like built-in's. */
const gcsim_codec_profile_entry *gcsim_compressor_file_codec(const char *spec,
                                                             const char **gpu);

#endif
