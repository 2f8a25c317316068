/* sim/planning/plan_variant.c: the training choices plan searches (plan_variant.h). */
#include "plan_variant.h"

#include <stdio.h>
#include <string.h>

int plan_ckpt_parse(const char *text, plan_ckpt *out, char *why, int why_len)
{
    memset(out, 0, sizeof *out);
    if (strcmp(text, "none") == 0)
        return 0;
    out->on = true;
    return gcsim_act_ckpt_parse(text, &out->policy, why, why_len);
}

void plan_ckpt_format(const plan_ckpt *c, char *buf, int len)
{
    if (!c->on)
        snprintf(buf, (size_t)len, "none");
    else
        gcsim_act_ckpt_format(&c->policy, buf, len);
}

int plan_ckpt_all(plan_ckpt *out, int max)
{
    static const plan_ckpt all[] = {
        {.on = false},
        {.on = true, .policy = {.mode = GCSIM_CKPT_OP}},
        {.on = true, .policy = {.mode = GCSIM_CKPT_EVERY, .every = 2}},
        {.on = true, .policy = {.mode = GCSIM_CKPT_FULL}}};
    int n = (int)(sizeof all / sizeof *all);
    for (int k = 0; k < n && k < max; k++)
        out[k] = all[k];
    return n;
}

/* Adds s unless an equal one is there. */
static void add_unique(gcsim_sharding *out, int *n, int max, gcsim_sharding s)
{
    for (int k = 0; k < *n; k++)
        if (memcmp(&out[k], &s, sizeof s) == 0)
            return;
    if (*n < max)
        out[(*n)++] = s;
}

int plan_sharding_all(const gcsim_platform *const *platforms, int n_platforms, int max_gpus,
                      gcsim_sharding *out, int max)
{
    int n = 0;
    gcsim_sharding s;
    memset(&s, 0, sizeof s); /* padding too: add_unique compares bytes */
    const gcsim_shard_strategy plain[] = {GCSIM_SHARD_DDP, GCSIM_SHARD_ZERO1, GCSIM_SHARD_ZERO2,
                                          GCSIM_SHARD_ZERO3};
    for (int k = 0; k < 4; k++) {
        s.strategy = plain[k];
        add_unique(out, &n, max, s);
    }
    s.fsdp = true;
    add_unique(out, &n, max, s);
    /* ZeRO++ (DeepSpeed): each option alone, then all three as the paper runs them */
    s.fsdp = false;
    for (int k = 0; k < 4; k++) {
        s.qwz = k == 0 || k == 3;
        s.hpz = k == 1 || k == 3;
        s.qgz = k == 2 || k == 3;
        add_unique(out, &n, max, s);
    }
    s.qwz = s.hpz = s.qgz = false;
    s.strategy = GCSIM_SHARD_HSDP;
    s.fsdp = true;
    s.group = 0; /* one node */
    add_unique(out, &n, max, s);
    for (int p = 0; p < n_platforms; p++) {
        int node = platforms[p]->gpus_per_node;
        long long cap = (long long)platforms[p]->nodes * node;
        long long top = max_gpus > 0 && max_gpus < cap ? max_gpus : cap;
        for (long long g = 2LL * node; node > 0 && g <= top / 2; g *= 2) {
            s.group = (int)g;
            add_unique(out, &n, max, s);
        }
    }
    return n;
}

int plan_variants_cross(const gcsim_sharding *shardings, int n_shardings, const plan_ckpt *ckpts,
                        int n_ckpts, const int *micro_batches, int n_micro, plan_variant *out,
                        int max)
{
    static const gcsim_sharding ddp = {.strategy = GCSIM_SHARD_DDP};
    static const plan_ckpt off = {.on = false};
    static const int zero = 0;
    if (!shardings || n_shardings < 1)
        shardings = &ddp, n_shardings = 1;
    if (!ckpts || n_ckpts < 1)
        ckpts = &off, n_ckpts = 1;
    if (!micro_batches || n_micro < 1)
        micro_batches = &zero, n_micro = 1;
    long long total = (long long)n_shardings * n_ckpts * n_micro;
    if (total > max)
        return -1;
    int n = 0;
    for (int s = 0; s < n_shardings; s++)
        for (int c = 0; c < n_ckpts; c++)
            for (int m = 0; m < n_micro; m++)
                out[n++] = (plan_variant){.sharding = shardings[s], .ckpt = ckpts[c],
                                          .micro_batch = micro_batches[m]};
    return n;
}

int plan_grad_accum_for(long long global_batch, int gpus, int micro_batch, char *why,
                        int why_len)
{
    long long per_step = (long long)gpus * micro_batch;
    if (per_step < 1 || global_batch % per_step != 0) {
        snprintf(why, (size_t)why_len, "the global batch of %lld samples is not a whole number "
                 "of micro-batches of %d on %d GPUs (%lld samples each)", global_batch,
                 micro_batch, gpus, per_step);
        return 0;
    }
    long long k = global_batch / per_step;
    if (k > GCSIM_MAX_GRAD_ACCUM) {
        snprintf(why, (size_t)why_len, "the global batch of %lld samples needs %lld "
                 "micro-batches of %d on %d GPUs per step, over the %d gcsim runs",
                 global_batch, k, micro_batch, gpus, GCSIM_MAX_GRAD_ACCUM);
        return 0;
    }
    return (int)k;
}
