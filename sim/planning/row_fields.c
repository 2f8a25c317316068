/* predict's per-row fields (row_fields.h). */
#include "row_fields.h"

#include <math.h>

#include "memory.h"
#include "mfu.h"

double row_tokens_per_s(const gcsim_model *m, double samples_per_s)
{
    return m->tokens_per_sample > 0 ? samples_per_s * m->tokens_per_sample : NAN;
}

double row_mfu_pct(const gcsim_model *m, const gcsim_platform *pf, double samples_per_s,
                   int gpus)
{
    return 100.0 * gcsim_model_train_flops_per_sample(m) * samples_per_s /
           ((double)gpus * gcsim_mfu_peak_flops(m, pf));
}

double sweep_case_memory_bytes(const sweep_case *c, int gpus)
{
    gcsim_memory mem;
    gcsim_memory_estimate_sharded(c->model, c->platform, &c->sharding, gpus,
                                  gcsim_samples_per_gpu(c->scaling, sweep_case_batch(c), gpus),
                                  c->act_ckpt ? &c->act_ckpt_policy : NULL, c->bucket_bytes,
                                  &mem);
    return mem.total_bytes;
}
