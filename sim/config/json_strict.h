/*
 * sim/config/json_strict.h: strict reading of JSON configuration files with cJSON.
 *
 * Every accessor names the file and the JSON path in its error ("$.nic.bandwidth"), so a
 * user can find the mistake without reading code. Objects are checked for unknown and
 * duplicate keys: a misspelt key is an error, never silently ignored.
 */
#ifndef GCSIM_CONFIG_JSON_STRICT_H
#define GCSIM_CONFIG_JSON_STRICT_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "gcsim_error.h"

typedef struct {
    const char *origin; /* file path or "<embedded ...>" */
    gcsim_error *err;
} json_ctx;

/* Parses text into a cJSON tree; a syntax error names the line, column and byte offset. */
int json_parse_document(const char *text, json_ctx *ctx, cJSON **out);

/* Reads a whole file (at most max_bytes) into a NUL-terminated buffer. */
int json_read_file(const char *path, long max_bytes, char **out, gcsim_error *err);

/* json_read_file then json_parse_document: the tree of a whole file, errors naming
 * ctx->origin. The caller frees *out with cJSON_Delete. */
int json_load_file(const char *path, long max_bytes, json_ctx *ctx, cJSON **out);

/* The value must be an object whose keys are all in `allowed` (NULL-terminated) and unique. */
int json_expect_object(const cJSON *value, const char *path, const char *const *allowed,
                       json_ctx *ctx);

/* Child `key` of object at `path`; NULL when absent. */
const cJSON *json_member(const cJSON *object, const char *key);

/* The index of the first control character (U+0000 to U+001F, U+007F) of text, or -1.
 * json_string and json_expect_object refuse strings and keys that hold one: names and
 * descriptions are printed as written, and an escape sequence would reach the terminal. */
int json_control_char(const char *text);

/* Accessors: when the member is absent they fail if required, else leave *out untouched
 * and return 0. */
int json_string(const cJSON *object, const char *path, const char *key, bool required,
                char *out, size_t out_size, json_ctx *ctx);
int json_integer(const cJSON *object, const char *path, const char *key, bool required,
                 long long min, long long max, long long *out, json_ctx *ctx);
int json_number(const cJSON *object, const char *path, const char *key, bool required,
                double min, double max, double *out, json_ctx *ctx);
int json_rate_Bps(const cJSON *object, const char *path, const char *key, bool required,
                  double *out, json_ctx *ctx);
int json_time_s(const cJSON *object, const char *path, const char *key, bool required,
                double *out, json_ctx *ctx);
int json_flops(const cJSON *object, const char *path, const char *key, bool required,
               double *out, json_ctx *ctx);
/* A size in whole bytes, at most GCSIM_MAX_SIZE_BYTES (units.h). */
int json_size_bytes(const cJSON *object, const char *path, const char *key, bool required,
                    double *out, json_ctx *ctx);
/* A time of at most max_s: past it "FILE: PATH.KEY: T s is more than the MAX s gcsim accepts
 * for WHAT". */
int json_time_at_most(const cJSON *object, const char *path, const char *key, bool required,
                      double max_s, const char *what, double *out, json_ctx *ctx);
/* One of the NULL-terminated `choices`; *out is its index. */
int json_choice(const cJSON *object, const char *path, const char *key, bool required,
                const char *const *choices, int *out, json_ctx *ctx);

/* A readable rendering of a JSON value for messages, e.g. "\"fast\"" or "an object". */
const char *json_describe(const cJSON *value, char *buf, size_t buf_size);

#endif
