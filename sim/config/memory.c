/* Memory feasibility of one data-parallel worker (memory.h). */
#include "memory.h"

#include <stdio.h>

int gcsim_samples_per_gpu(gcsim_scaling scaling, int batch, int gpus)
{
    return scaling == SCALING_STRONG ? (batch + gpus - 1) / gpus : batch;
}

static double state_bytes_per_param(gcsim_optimizer o)
{
    return o == GCSIM_OPT_ADAM ? 8.0 : o == GCSIM_OPT_MOMENTUM ? 4.0 : 0.0;
}

/* A 16-bit working copy beside the fp32 master weights under mixed precision. */
static double weight_bytes_per_param(gcsim_precision p)
{
    return gcsim_precision_grad_elem_bytes(p) == 4 ? 4.0 : 2.0 + 4.0;
}

double gcsim_memory_bytes_per_param(gcsim_precision p, gcsim_optimizer o)
{
    return weight_bytes_per_param(p) + (double)gcsim_precision_grad_elem_bytes(p) +
           state_bytes_per_param(o);
}

void gcsim_memory_estimate(const gcsim_model *m, const gcsim_platform *pf, int samples_per_gpu,
                           gcsim_memory *out)
{
    double n = (double)gcsim_model_params(m);
    out->params = gcsim_model_params(m);
    out->samples_per_gpu = samples_per_gpu;
    out->weights_bytes = n * weight_bytes_per_param(m->precision);
    out->gradients_bytes = n * (double)gcsim_precision_grad_elem_bytes(m->precision);
    out->optimizer_bytes = n * state_bytes_per_param(m->optimizer);
    out->activation_bytes = m->activation_bytes_per_sample * (double)samples_per_gpu;
    out->total_bytes = out->weights_bytes + out->gradients_bytes + out->optimizer_bytes +
                       out->activation_bytes;
    out->capacity_bytes = pf ? pf->gpu.memory_bytes : 0.0;
}

void gcsim_memory_describe(const gcsim_model *m, const gcsim_memory *mem, char *buf,
                           size_t size)
{
    char act[160];
    if (mem->activation_bytes > 0.0)
        snprintf(act, sizeof act, "activations %.2f GB (%d samples x %.1f MB)",
                 mem->activation_bytes / 1e9, mem->samples_per_gpu,
                 m->activation_bytes_per_sample / 1e6);
    else
        snprintf(act, sizeof act, "activations not estimated (the model gives no "
                                  "activation_bytes_per_sample)");
    char cap[96];
    if (mem->capacity_bytes > 0.0)
        snprintf(cap, sizeof cap, "%s %.1f GB of gpu.memory",
                 mem->total_bytes > mem->capacity_bytes ? ">" : "<=", mem->capacity_bytes / 1e9);
    else
        snprintf(cap, sizeof cap, "not checked: the platform gives no gpu.memory");
    snprintf(buf, size,
             "%lld parameters x %.0f B (%s, %s: weights %.2f + gradients %.2f + optimizer "
             "%.2f GB) + %s = %.2f GB per GPU, %s",
             mem->params, gcsim_memory_bytes_per_param(m->precision, m->optimizer),
             gcsim_precision_name(m->precision), gcsim_optimizer_name(m->optimizer),
             mem->weights_bytes / 1e9, mem->gradients_bytes / 1e9, mem->optimizer_bytes / 1e9,
             act, mem->total_bytes / 1e9, cap);
}

int gcsim_memory_check(const gcsim_model *m, const gcsim_platform *pf, int samples_per_gpu,
                       gcsim_error *err)
{
    gcsim_memory mem;
    gcsim_memory_estimate(m, pf, samples_per_gpu, &mem);
    if (mem.capacity_bytes <= 0.0 || mem.total_bytes <= mem.capacity_bytes)
        return 0;
    char line[900];
    gcsim_memory_describe(m, &mem, line, sizeof line);
    return gcsim_fail(err, "does not fit in GPU memory: %s %s on %s (%s): %s", m->name,
                      m->source_path, pf->gpu.type, pf->source_path, line);
}
