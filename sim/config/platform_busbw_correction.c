/*
 * sim/config/platform_busbw_correction.c: "busbw_correction" (platform_busbw_correction.h;
 * docs/formats.md). Written by `gcsim calibrate` where one latency and one bandwidth per
 * link cannot follow a log (steps in its busbw curve); every value is fitted to that log.
 *
 *   "busbw_correction": [
 *     {"fitted_to": "a3mega-2x8.log", "collective": "all_reduce", "gpus": 16,
 *      "bands": [{"below_bytes": 23726566, "busbw_factor": 0.91},
 *                {"below_bytes": 94906266, "busbw_factor": 1.12},
 *                {"busbw_factor": 1.0}]}
 *   ]
 *
 * Strict: bands in increasing below_bytes, the last one open (no below_bytes), factors in
 * [0.1, 10], at most one entry per collective and GPU count.
 */
#include "platform_busbw_correction.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const op_names[] = {"all_reduce", "all_gather", "reduce_scatter", NULL};

static int parse_band(const cJSON *b, const char *path, bool last, double prev_below,
                      double *below, double *factor, json_ctx *ctx)
{
    static const char *const keys[] = {"below_bytes", "busbw_factor", NULL};
    if (json_expect_object(b, path, keys, ctx))
        return -1;
    bool has_below = json_member(b, "below_bytes") != NULL;
    if (last && has_below)
        return gcsim_fail(ctx->err, "%s: %s.below_bytes: the last band is open (all larger "
                                    "sizes): leave below_bytes out", ctx->origin, path);
    if (!last && !has_below)
        return gcsim_fail(ctx->err, "%s: %s.below_bytes: required on every band but the last",
                          ctx->origin, path);
    *below = INFINITY;
    if (has_below) {
        const cJSON *v = json_member(b, "below_bytes");
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 1 ||
            v->valuedouble > 1125899906842624.0 || v->valuedouble != floor(v->valuedouble))
            return gcsim_fail(ctx->err, "%s: %s.below_bytes: must be a whole number of bytes "
                                        "from 1 to 2^50", ctx->origin, path);
        *below = v->valuedouble;
        if (!(*below > prev_below))
            return gcsim_fail(ctx->err, "%s: %s.below_bytes: %.17g is not above the previous "
                                        "band's %.17g (bands go in increasing size)",
                              ctx->origin, path, *below, prev_below);
    }
    return json_number(b, path, "busbw_factor", true, GCSIM_BUSBW_FACTOR_MIN,
                       GCSIM_BUSBW_FACTOR_MAX, factor, ctx);
}

static int parse_entry(const cJSON *e, const char *path, gcsim_busbw_correction *c,
                       json_ctx *ctx)
{
    static const char *const keys[] = {"fitted_to", "collective", "gpus", "bands", NULL};
    long long gpus = 0;
    if (json_expect_object(e, path, keys, ctx) ||
        json_string(e, path, "fitted_to", true, c->fitted_to, sizeof c->fitted_to, ctx) ||
        json_choice(e, path, "collective", true, op_names, &c->op, ctx) ||
        json_integer(e, path, "gpus", true, 2, 1 << 20, &gpus, ctx))
        return -1;
    c->gpus = (int)gpus;
    if (c->fitted_to[0] == '\0')
        return gcsim_fail(ctx->err, "%s: %s.fitted_to: must name the log the factors were "
                                    "fitted to", ctx->origin, path);
    const cJSON *bands = json_member(e, "bands");
    int n = cJSON_IsArray(bands) ? cJSON_GetArraySize(bands) : -1;
    if (n < 1 || n > GCSIM_BUSBW_MAX_BANDS)
        return gcsim_fail(ctx->err, "%s: %s.bands: must be an array of 1 to %d bands",
                          ctx->origin, path, GCSIM_BUSBW_MAX_BANDS);
    double prev = 0;
    for (int k = 0; k < n; k++) {
        char bpath[160];
        snprintf(bpath, sizeof bpath, "%s.bands[%d]", path, k);
        if (parse_band(cJSON_GetArrayItem(bands, k), bpath, k == n - 1, prev,
                       &c->below_bytes[k], &c->factor[k], ctx))
            return -1;
        prev = c->below_bytes[k];
    }
    c->n_bands = n;
    return 0;
}

int gcsim_platform_parse_busbw_correction(const cJSON *root, gcsim_platform *p,
                                          json_ctx *ctx)
{
    const cJSON *a = json_member(root, "busbw_correction");
    p->busbw_correction.n = 0;
    if (!a)
        return 0;
    int n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
    if (n < 1 || n > GCSIM_BUSBW_MAX_ENTRIES)
        return gcsim_fail(ctx->err, "%s: $.busbw_correction: must be an array of 1 to %d "
                                    "entries (one per log fitted)",
                          ctx->origin, GCSIM_BUSBW_MAX_ENTRIES);
    for (int i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "$.busbw_correction[%d]", i);
        gcsim_busbw_correction *c = &p->busbw_correction.entry[i];
        if (parse_entry(cJSON_GetArrayItem(a, i), path, c, ctx))
            return -1;
        for (int j = 0; j < i; j++)
            if (p->busbw_correction.entry[j].op == c->op &&
                p->busbw_correction.entry[j].gpus == c->gpus)
                return gcsim_fail(ctx->err, "%s: %s: a second entry for %s on %d GPUs (give "
                                            "one per collective and GPU count)",
                                  ctx->origin, path, op_names[c->op], c->gpus);
    }
    p->busbw_correction.n = n;
    return 0;
}

const gcsim_busbw_correction *gcsim_busbw_correction_find(const gcsim_platform *p, int op,
                                                          int gpus)
{
    for (int i = 0; i < p->busbw_correction.n; i++)
        if (p->busbw_correction.entry[i].op == op && p->busbw_correction.entry[i].gpus == gpus)
            return &p->busbw_correction.entry[i];
    return NULL;
}

double gcsim_busbw_correction_factor(const gcsim_busbw_correction *c, double bytes)
{
    for (int k = 0; k < c->n_bands - 1; k++)
        if (bytes < c->below_bytes[k])
            return c->factor[k];
    return c->factor[c->n_bands - 1];
}

double gcsim_busbw_corrected_time_s(const gcsim_platform *p, int op, int gpus, double bytes,
                                    double time_s)
{
    const gcsim_busbw_correction *c = gcsim_busbw_correction_find(p, op, gpus);
    return c ? time_s / gcsim_busbw_correction_factor(c, bytes) : time_s;
}
