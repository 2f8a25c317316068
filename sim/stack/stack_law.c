/*
 * sim/stack/stack_law.c: what a stack's op costs on a GPU, and which entry of a stack runs
 * a compressor (stack.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor_file.h"
#include "compressor.h"
#include "stack.h"

/* Piecewise linear in the element count between measured sizes; below the smallest, the
 * smallest's value; above the largest, `above_grows`: proportional to size (the GPU's
 * work), else the largest's value (the host's work does not grow with size). */
static double interpolate(const gcsim_stack_law *l, const double *y, double n, bool above_grows)
{
    int k = l->n_points;
    if (n <= l->elements[0])
        return y[0];
    if (n >= l->elements[k - 1])
        return above_grows ? y[k - 1] * n / l->elements[k - 1] : y[k - 1];
    int i = 1;
    while (l->elements[i] < n)
        i++;
    double x0 = l->elements[i - 1], x1 = l->elements[i];
    return y[i - 1] + (y[i] - y[i - 1]) * (n - x0) / (x1 - x0);
}

const char *gcsim_stack_parameter_name(gcsim_stack_parameter p)
{
    switch (p) {
    case STACK_SETTING_DENSITY: return "density";
    case STACK_SETTING_BITS: return "bits";
    case STACK_SETTING_RANK: return "rank";
    case STACK_SETTING_NONE: break;
    }
    return "none";
}

int gcsim_stack_qsgd_bits(double levels)
{
    /* a sign bit and ceil(log2(s + 1)) bits of level (0..s), rounded up to a width that
     * divides a byte or is whole bytes (bench/gpu/codec_settings.py's packing) */
    int need = 1 + (int)ceil(log2(levels + 1) - 1e-12);
    static const int widths[] = {2, 4, 8, 16};
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++)
        if (need <= widths[k])
            return widths[k];
    return 32;
}

/* The number after "key=" in a normalized spec ("...:key=V,..." or "...,key=V"), or 0. */
static double spec_value(const char *spec, const char *key)
{
    size_t n = strlen(key);
    for (const char *at = strstr(spec, key); at; at = strstr(at + 1, key))
        if ((at[-1] == ':' || at[-1] == ',') && at[n] == '=')
            return atof(at + n + 1);
    return 0;
}

gcsim_stack_setting gcsim_stack_setting_of(const char *spec)
{
    gcsim_stack_setting set = {0, 0, 0};
    if (!spec)
        return set;
    if (strncmp(spec, "ef+", 3) == 0)
        spec += 3;
    const char *colon = strchr(spec, ':');
    size_t name = colon ? (size_t)(colon - spec) : strlen(spec);
#define IS(x) (name == strlen(x) && strncmp(spec, x, name) == 0)
    if (IS("topk") || IS("dgc") || IS("randomk"))
        set.density = spec_value(spec, "ratio");
    else if (IS("qsgd") && spec_value(spec, "s") > 0)
        set.bits = gcsim_stack_qsgd_bits(spec_value(spec, "s"));
    else if (IS("powersgd"))
        set.rank = spec_value(spec, "rank");
    else if (IS("described")) {
        /* a described compressor (compressor_file.h) sets what its reference's laws are of:
         * a sparse payload's density, a low-rank payload's rank, the bits per element */
        if (strstr(spec, ":payload=sparse"))
            set.density = spec_value(spec, "density");
        if (strstr(spec, ":payload=lowrank"))
            set.rank = spec_value(spec, "rank");
        else
            set.bits = spec_value(spec, "bits");
    }
#undef IS
    return set;
}

double gcsim_stack_law_setting(const gcsim_stack_law *law, const gcsim_stack_setting *set)
{
    double v = 0;
    if (set)
        v = law->parameter == STACK_SETTING_DENSITY ? set->density
            : law->parameter == STACK_SETTING_BITS  ? set->bits
            : law->parameter == STACK_SETTING_RANK  ? set->rank
                                                    : 0;
    return v > 0 ? v : law->reference;
}

/* Where setting v lies, at n elements, in the coordinate the law's cost is linear in
 * (bench/gpu/make_stack_laws.py's coordinate, line for line; why each form: there and
 * docs/stacks.md, "Laws by setting"). Per element of the tensor: */
static double coordinate(const gcsim_stack_law *law, double v, double n)
{
    switch (law->scale) {
    case STACK_SCALE_LOG: /* torch.topk's radix passes over the tensor: log k */
        return log(v);
    case STACK_SCALE_SECTORS: {
        /* a scatter of sorted indices: 24 bytes streamed per kept element, 64 per touched
         * 32-byte sector (read and written back), n/8 (1 - (1 - d)^8) sectors touched */
        double d = fmin(fmax(v, 0), 1);
        return 24 * d + 8 * (1 - pow(1 - d, 8));
    }
    case STACK_SCALE_GATHER: {
        /* a gather at random indices: 20 bytes streamed per kept element, 32 per sector read
         * from DRAM: first touches n/8 (1 - exp(-8d)), re-touches missed in the share of
         * the footprint (4n + 12k bytes) beyond the L2 */
        double d = fmax(v, 0);
        double first = 1 - exp(-8 * d);
        double miss = n > 0 ? fmax(0, 1 - law->l2_bytes / (n * (4 + 12 * d))) : 0;
        return 20 * d + 4 * first + 32 * fmax(d - first / 8, 0) * miss;
    }
    case STACK_SCALE_PASSES: /* QSGD decode: cast + scale; + offset at 8; + unpack below */
        return v >= 16 ? 2 : v >= 8 ? 3 : 5;
    case STACK_SCALE_LINEAR:
        break;
    }
    return v;
}

static const char *scale_name(gcsim_stack_scale s)
{
    switch (s) {
    case STACK_SCALE_LOG: return "log";
    case STACK_SCALE_SECTORS: return "sectors";
    case STACK_SCALE_GATHER: return "gather";
    case STACK_SCALE_PASSES: return "passes";
    case STACK_SCALE_LINEAR: break;
    }
    return "linear";
}

/* The law's host and GPU seconds at n elements for setting v: linear in the law's
 * coordinate between the two measured settings around v. Beyond them the GPU part continues
 * the nearest segment with a slope per unit of coordinate never below 0 (cost never falls
 * as the work grows; never below zero), except below the smallest setting of a log-scale
 * law, where it is the smallest's (a selection's passes over the tensor do not shrink with
 * k). The host part, by the law's "beyond": held (the same ops whatever the setting: the
 * nearest setting's) or extends (PowerSGD's per-column loop, QSGD's passes per width: the
 * nearest segment continued, as the GPU's). A coordinate may fall as the setting grows
 * (QSGD's passes: fewer at wider codes); two settings at one coordinate cost as the lower. */
static void at_setting(const gcsim_stack_law *law, double v, double n, double *host, double *busy,
                       double *floor_s)
{
    int k = law->n_settings, i = 0, j = 0;
    double x = 0, x0 = 0, x1 = 0;
    bool extends = law->host_extends;
    if (k > 1) {
        if (v <= law->at[0]) {
            i = 0, j = 1;
        } else if (v >= law->at[k - 1]) {
            i = k - 2, j = k - 1;
        } else {
            j = 1;
            while (law->at[j] < v)
                j++;
            i = j - 1;
        }
        x = coordinate(law, v, n);
        x0 = coordinate(law, law->at[i], n), x1 = coordinate(law, law->at[j], n);
    }
    /* from setting i (0) to setting j (1); two settings at one coordinate: v's own, else i */
    double w = x1 != x0 ? (x - x0) / (x1 - x0) : v >= law->at[j] ? 1 : 0;
    double h0 = interpolate(law, law->host_s[i], n, false);
    double h1 = interpolate(law, law->host_s[j], n, false);
    double g0 = interpolate(law, law->gpu_s[i], n, true);
    double g1 = interpolate(law, law->gpu_s[j], n, true);
    double hs = x1 != x0 ? (h1 - h0) / (x1 - x0) : 0, gs = x1 != x0 ? (g1 - g0) / (x1 - x0) : 0;
    double f0 = law->gpu_s[i][0], f1 = law->gpu_s[j][0];
    if (w < 0) { /* before the first segment */
        *host = extends ? fmax(h0 + fmax(hs, 0) * (x - x0), 0) : h0;
        *busy = law->scale == STACK_SCALE_LOG ? g0 : fmax(g0 + fmax(gs, 0) * (x - x0), 0);
        *floor_s = f0;
    } else if (w <= 1) {
        *host = h0 + (h1 - h0) * w;
        *busy = g0 + (g1 - g0) * w;
        *floor_s = f0 + (f1 - f0) * w;
    } else { /* past the last segment */
        *host = extends ? h1 + fmax(hs, 0) * (x - x1) : h1;
        *busy = g1 + fmax(gs, 0) * (x - x1);
        *floor_s = f1;
    }
}

double gcsim_stack_law_s(const gcsim_stack *s, const gcsim_stack_law *law, double elements,
                         const gcsim_stack_setting *set, double fraction, double gpu_scale,
                         const gcsim_gpu_params *gpu)
{
    (void)s;
    if (!(elements > 0))
        return 0;
    double host, busy, floor_s;
    at_setting(law, gcsim_stack_law_setting(law, set), elements, &host, &busy, &floor_s);
    /* Above the smallest measured size's time (launch-bound: the kernels' fixed cost) the
     * GPU's work moves memory: it scales with the datasheet bandwidth of the measured GPU
     * over this one's. */
    double ratio = 1.0;
    const gcsim_gpu_params *ref;
    gcsim_error unused;
    if (gpu && gcsim_gpu_params_find(law->gpu, &ref, &unused) == 0)
        ratio = ref->mem_Bps / gpu->mem_Bps;
    double work = busy > floor_s ? (busy - floor_s) * ratio * gpu_scale : 0;
    double device = fmin(busy, floor_s) + work;
    return fraction * fmax(host, device);
}

double gcsim_stack_law_gpu_s(const gcsim_stack *s, const gcsim_stack_law *law, double elements,
                             const gcsim_stack_setting *set, double fraction, double gpu_scale,
                             const gcsim_gpu_params *gpu)
{
    /* the same law with its host part at 0: what the GPU's stream runs of the call */
    gcsim_stack_law g = *law;
    for (int k = 0; k < g.n_settings; k++)
        for (int i = 0; i < g.n_points; i++)
            g.host_s[k][i] = 0;
    return gcsim_stack_law_s(s, &g, elements, set, fraction, gpu_scale, gpu);
}

const char *gcsim_stack_law_basis(const gcsim_stack_law *law, double v, char *buf, size_t size)
{
    const char *p = gcsim_stack_parameter_name(law->parameter);
    int k = law->n_settings;
    if (law->parameter == STACK_SETTING_NONE || k < 1) {
        snprintf(buf, size, "%s (one setting)", k < 1 ? "measured" : law->basis[0]);
        return buf;
    }
    for (int i = 0; i < k; i++)
        if (v == law->at[i]) {
            snprintf(buf, size, "%s %g: at a measured setting (%s)", p, v, law->basis[i]);
            return buf;
        }
    const char *scale = scale_name(law->scale);
    if (k == 1)
        snprintf(buf, size, "%s %g: modelled as the one measured setting %g (%s)", p, v,
                 law->at[0], law->basis[0]);
    else if (v < law->at[0])
        snprintf(buf, size, "%s %g: modelled below the measured %g: GPU work %s, host %s", p,
                 v, law->at[0],
                 law->scale == STACK_SCALE_LOG ? "held" : "continuing the first segment",
                 law->host_extends ? "too" : "held");
    else if (v > law->at[k - 1])
        snprintf(buf, size, "%s %g: modelled above the measured %g: GPU work continuing the "
                            "%g-%g segment (%s), host %s",
                 p, v, law->at[k - 1], law->at[k - 2], law->at[k - 1], scale,
                 law->host_extends ? "too" : "held");
    else {
        int j = 1;
        while (law->at[j] < v)
            j++;
        snprintf(buf, size, "%s %g: interpolated between measured %g and %g (%s)", p, v,
                 law->at[j - 1], law->at[j], scale);
    }
    return buf;
}

bool gcsim_stack_entry_has_ops(const gcsim_stack *s, const gcsim_stack_entry *e)
{
    (void)s;
    return e && (e->encode.n || e->unpack.n || e->between.n || e->decode.n);
}

int gcsim_stack_gpu(const gcsim_platform *p, gcsim_gpu_params *out, gcsim_error *err)
{
    const gcsim_gpu_params *known;
    gcsim_error unknown;
    if (gcsim_gpu_params_find(p->gpu.type, &known, &unknown) == 0) {
        *out = *known;
    } else if (p->gpu.memory_Bps > 0) {
        *out = (gcsim_gpu_params){.type = p->gpu.type, .source = "the platform's gpu.memory_bandwidth"};
    } else {
        return gcsim_fail(err, "%s: $.gpu: a training stack prices its ops by memory bandwidth, "
                               "and GPU type \"%s\" is not in gcsim's table: give "
                               "gpu.memory_bandwidth, or use --stack fused with a "
                               "gpu.codec_profile",
                          p->source_path, p->gpu.type);
    }
    if (p->gpu.memory_Bps > 0)
        out->mem_Bps = p->gpu.memory_Bps;
    return 0;
}

/* The name of the compressor a spec creates (name[64]); 0, or -1 with msg. The last spec
 * of each thread is remembered: a sweep asks for one spec's entry once per case, and
 * creating the compressor (it parses and formats its spec) was 5% of a sweep's time. */
static int compressor_name_of(const char *spec, char name[64], char *msg, size_t msg_len)
{
    static _Thread_local char last_spec[256], last_name[64];
    static _Thread_local bool have_last;
    size_t len = strlen(spec);
    if (have_last && len < sizeof last_spec && memcmp(last_spec, spec, len + 1) == 0) {
        memcpy(name, last_name, sizeof last_name);
        return 0;
    }
    gc_compressor *c;
    if (gc_compressor_create(spec, &c, msg, msg_len))
        return -1;
    /* a described compressor runs as the stack runs the built-in it names */
    snprintf(name, 64, "%s", gc_compressor_cost_reference(c));
    gc_compressor_free(c);
    have_last = len < sizeof last_spec;
    if (have_last) {
        memcpy(last_spec, spec, len + 1);
        memcpy(last_name, name, sizeof last_name);
    }
    return 0;
}

int gcsim_stack_entry_for(const gcsim_stack *s, const char *spec,
                          const gcsim_stack_entry **out, gcsim_error *err)
{
    *out = NULL;
    if (s->codec_model)
        return 0;
    char msg[256], name[64];
    /* "ef+X" is X with the stack's error-feedback ops (gcsim_stack.error_feedback): X's
     * entry, once the whole spec is known to be valid. */
    const char *base = strncmp(spec ? spec : "", "ef+", 3) == 0 ? spec + 3 : NULL;
    if (compressor_name_of(spec ? spec : "none", name, msg, sizeof msg) ||
        (base && compressor_name_of(base, name, msg, sizeof msg)))
        return gcsim_fail(err, "%s", msg);
    for (int k = 0; k < s->n_entries; k++) {
        const gcsim_stack_entry *e = &s->entries[k];
        if (strcmp(e->compressor, name) != 0)
            continue;
        if (e->refusal[0]) {
            /* a described compressor runs as its reference: name the file and field */
            const char *file = gcsim_compressor_file_of(spec);
            if (file)
                return gcsim_fail(err, "%s: $.codec.like: stack %s cannot run %s, which the "
                                       "description names for its costs: %s (%s)",
                                  file, s->name, name, e->refusal, s->path);
            return gcsim_fail(err, "stack %s cannot run %s: %s (%s)", s->name, name, e->refusal,
                              s->path);
        }
        *out = e;
        return 0;
    }
    return gcsim_fail(err, "stack %s has no entry for compressor %s (%s lists how it runs each "
                           "compressor it supports)",
                      s->name, name, s->path);
}
