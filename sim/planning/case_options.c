/* The one option record of every case; see case_options.h. */
#include "case_options.h"

#include "roofline.h"

void case_options_init(case_options *o)
{
    *o = (case_options){.scaling = SCALING_WEAK, .engine = ENGINE_ANALYTIC,
                        .collective = COLLECTIVE_TERNGRAD, .overlap = true, .precision = -1,
                        .optimizer = -1};
}

int case_options_model(const case_options *o, const gcsim_platform *pf, gcsim_model *m,
                       gcsim_error *err)
{
    if (o->precision >= 0)
        gcsim_model_set_precision(m, (gcsim_precision)o->precision);
    if (o->optimizer >= 0)
        m->optimizer = (gcsim_optimizer)o->optimizer;
    int batch = o->batch ? (int)o->batch : m->batch_per_gpu;
    if ((o->mfu > 0 || o->step_time_s > 0) &&
        gcsim_compute_override(m, pf, batch, o->mfu, o->step_time_s, err))
        return -1;
    return 0;
}

sweep_case case_options_case(const case_options *o, const gcsim_platform *pf,
                             const gcsim_model *m, const gcsim_payload_plan *pl,
                             const gcsim_stack *st, int gpus)
{
    return (sweep_case){.platform = pf, .model = m, .payload = pl, .stack = st,
                        .collective = o->collective, .collective_given = o->collective_given,
                        .exchange = o->exchange, .scaling = o->scaling, .engine = o->engine,
                        .batch = o->batch ? (int)o->batch : m->batch_per_gpu, .gpus = gpus,
                        .ps_shards = (int)o->ps_shards, .bucket_bytes = o->bucket_bytes,
                        .overlap = o->overlap, .sharding = o->sharding,
                        .grad_accum = (int)o->grad_accum, .act_ckpt = o->act_ckpt,
                        .act_ckpt_policy = o->act_ckpt_policy,
                        .no_memory_check = o->no_memory_check,
                        .des_max_messages = o->des_max_messages,
                        .variability = o->variability.on ? &o->variability : NULL};
}
