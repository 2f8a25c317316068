/*
 * sim/calibrate/platform_patch.h: a platform file with some fields replaced and every other
 * field kept as it was.
 *
 * The base JSON tree is copied with cJSON and patched in place: a field given a value gets
 * it (as a quantity string such as "231.5GBps"); every patch, with a value or not, sets
 * $.sources.<path> to its source text, so a field that was looked at and kept says why.
 * The result must load with gcsim's platform loader; a patch that would break it is an
 * internal error, never a file written.
 */
#ifndef GCSIM_CALIBRATE_PLATFORM_PATCH_H
#define GCSIM_CALIBRATE_PLATFORM_PATCH_H

#include <cjson/cJSON.h>

#include "gcsim_error.h"

typedef struct {
    const char *path;   /* dotted, as in sources: "intra_node.latency", "nic.bandwidth" */
    const char *value;  /* the new quantity string; NULL keeps the base value */
    const char *source; /* what $.sources.<path> becomes */
} platform_patch;

/* Applies the patches to base_text (a valid platform file named base_origin) and returns
 * the new text in *out (malloc'ed, caller frees); out_origin names it in messages. */
int platform_patch_apply(const char *base_text, const char *base_origin,
                         const platform_patch *patches, int n_patches, const char *out_origin,
                         char **out, gcsim_error *err);

/* root printed as platform files are laid out (two spaces, not cJSON's tabs), with a final
 * newline; malloc'ed, NULL when memory runs out. */
char *platform_patch_print(const cJSON *root);

#endif
