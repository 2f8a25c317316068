/*
 * sim/config/codec_profile_file.h: reading a measured codec profile file strictly
 * (docs/codec.md, "Profile format"). The reader lives with the platform reader so that a
 * platform's gpu.codec_profile is checked when the platform is loaded, whole, and not first
 * when a compressor needs it (issue 45); sim/codec turns an entry into a codec cost.
 */
#ifndef GCSIM_CONFIG_CODEC_PROFILE_FILE_H
#define GCSIM_CONFIG_CODEC_PROFILE_FILE_H

#include "gcsim_error.h"

#define GCSIM_CODEC_PROFILE_MAX_POINTS 32
/* Entries per profile at most (one per compressor spec measured; 17 compressors). */
#define GCSIM_CODEC_PROFILE_MAX_ENTRIES 256
/* A point's tensor at most 2^40 elements (the cap on a layer's weights) and its times at
 * most 3.6e9 us (an hour, the cap on a model's times): 1e300 printed 300-digit times. */
#define GCSIM_CODEC_PROFILE_MAX_ELEMENTS 1099511627776.0
#define GCSIM_CODEC_PROFILE_MAX_US 3.6e9

typedef struct {
    int entry;                  /* its index in $.entries */
    char measured_as[256];      /* "measured_as", else its "compressor" */
    char kind[16];              /* measured | derived */
    char date[64];              /* "" when the file gives none */
    /* per tensor of elements[k]: made non-decreasing in k (a running maximum) */
    int n_points;
    double elements[GCSIM_CODEC_PROFILE_MAX_POINTS];
    double encode_s[GCSIM_CODEC_PROFILE_MAX_POINTS];
    double decode_s[GCSIM_CODEC_PROFILE_MAX_POINTS];
} gcsim_codec_profile_entry;

/* Reads the profile file at `path` for GPU type `gpu_type` and checks every entry (its
 * compressor spec, points, and no spec measured twice). With spec (a normalized compressor
 * spec) and out, fills *out with the entry of that spec. Returns 0 (found, or no spec asked),
 * 1 when no entry has the spec, -1 with a message naming the file and JSON path. */
int gcsim_codec_profile_read(const char *path, const char *gpu_type, const char *spec,
                             gcsim_codec_profile_entry *out, gcsim_error *err);

#endif
