/*
 * sim/stack/stack_law.c: what a stack's op costs on a GPU, and which entry of a stack runs
 * a compressor (stack.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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

double gcsim_stack_law_s(const gcsim_stack *s, const gcsim_stack_law *law, double elements,
                         double fraction, double gpu_scale, const gcsim_gpu_params *gpu)
{
    (void)s;
    if (!(elements > 0))
        return 0;
    double host = interpolate(law, law->host_s, elements, false);
    double busy = interpolate(law, law->gpu_s, elements, true);
    /* Above the smallest measured size's time (launch-bound: the kernels' fixed cost) the
     * GPU's work moves memory: it scales with the datasheet bandwidth of the measured GPU
     * over this one's. */
    double floor_s = law->gpu_s[0];
    double ratio = 1.0;
    const gcsim_gpu_params *ref;
    gcsim_error unused;
    if (gpu && gcsim_gpu_params_find(law->gpu, &ref, &unused) == 0)
        ratio = ref->mem_Bps / gpu->mem_Bps;
    double work = busy > floor_s ? (busy - floor_s) * ratio * gpu_scale : 0;
    double device = fmin(busy, floor_s) + work;
    return fraction * fmax(host, device);
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
    snprintf(name, 64, "%s", gc_compressor_name(c));
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
        if (e->refusal[0])
            return gcsim_fail(err, "stack %s cannot run %s: %s (%s)", s->name, name, e->refusal,
                              s->path);
        *out = e;
        return 0;
    }
    return gcsim_fail(err, "stack %s has no entry for compressor %s (%s lists how it runs each "
                           "compressor it supports)",
                      s->name, name, s->path);
}
