/* sim/planning/sweep_run.c: a sweep's inputs loaded and its cases run (sweep_run.h). */
#include "sweep_run.h"

#include "schedule_memo.h"
#include "step.h"

int sweep_space_load(sweep_space *s, const sweep_inputs *in, sweep_cache *cache,
                     gcsim_error *err)
{
    int n_platforms = in->n_platforms ? in->n_platforms : 1;
    int n_models = in->n_models ? in->n_models : 1;
    int n_compressors = in->n_compressors ? in->n_compressors : 1;
    int n_stacks = in->n_stacks ? in->n_stacks : 1;
    if (sweep_space_alloc(s, n_platforms, n_models, n_compressors, n_stacks,
                          in->n_collectives ? in->n_collectives : 1,
                          in->n_scalings ? in->n_scalings : 1, in->n_batches ? in->n_batches : 1,
                          in->max_engines, in->max_gpu_counts))
        return gcsim_fail_internal(err, "out of memory");
    for (int p = 0; p < n_platforms; p++)
        if (!(s->platforms[p] = sweep_cache_platform(cache, in->n_platforms ? in->platforms[p] : NULL, err)))
            return -1;
    for (int m = 0; m < n_models; m++)
        if (!(s->models[m] = sweep_cache_model_as(cache, in->n_models ? in->models[m] : NULL,
                                                  in->precision, in->optimizer, err)))
            return -1;
    for (int m = 0; m < n_models; m++)
        for (int c = 0; c < n_compressors; c++)
            if (!(s->plans[m * n_compressors + c] = sweep_cache_payload(
                      cache, s->models[m], in->n_compressors ? in->compressors[c] : NULL, err)))
                return -1;
    for (int p = 0; p < n_platforms; p++)
        for (int t = 0; t < n_stacks; t++) {
            const char *name = in->n_stacks ? in->stacks[t] : gcsim_stack_choice(NULL, s->platforms[p]);
            if (!(s->stacks[p * n_stacks + t] = sweep_cache_stack(cache, name, err)) &&
                (gcsim_stack_blame_platform(in->n_stacks ? name : NULL, s->platforms[p], err), 1))
                return -1;
        }
    s->collectives[0] = COLLECTIVE_RING;
    s->scalings[0] = SCALING_WEAK;
    return 0;
}

long long sweep_run(const sweep_space *s, const sweep_run_options *o, sweep_case_done done,
                    void *ctx, bool *stopped)
{
    long long total = sweep_space_count(s);
    long long index = 0, n_done = 0;
    *stopped = false;
    for (int p = 0; p < s->n_platforms; p++) {
     /* Platforms come one after another: the schedules of one network (schedule_memo.h)
      * are of no use to the next, and dropping them keeps the memo from filling up and
      * starting over in the middle of a platform (whose schedules it then builds twice).
      * The trees' templates stay when the next network has the same shape (a what-if copy
      * of a platform with other bandwidths or latencies): each takes the new numbers
      * instead of being built again (3 such a100-hdr variants, double tree, 1-256 GPUs:
      * 1.7-2.3 CPU s -> 1.5-1.9). Otherwise they go too: the catalog's 9 networks are 9
      * shapes, and keeping the last one's templates cost 10% of the 307,200-case sweep.
      * Results are the same either way: a memo keeps numbers, it does not change them. */
     if (p > 0 && !gcsim_schedule_memo_same_network(s->platforms[p - 1], s->platforms[p])) {
         if (gcsim_schedule_memo_same_shape(s->platforms[p - 1], s->platforms[p]))
             gcsim_schedule_memo_drop_schedules();
         else
             gcsim_schedule_memo_clear();
     }
     for (int m = 0; m < s->n_models; m++)
      for (int c = 0; c < s->n_compressors; c++)
       for (int t = 0; t < s->n_stacks; t++)
        for (int k = 0; k < s->n_collectives; k++)
         for (int sc = 0; sc < s->n_scalings; sc++)
          for (int b = 0; b < s->n_batches; b++)
           for (int e = 0; e < s->n_engines; e++) {
            sweep_case cs = case_options_case(o->run, s->platforms[p], s->models[m],
                                              s->plans[m * s->n_compressors + c],
                                              s->stacks[p * s->n_stacks + t], 0);
            cs.collective = s->collectives[k];
            cs.scaling = s->scalings[sc];
            cs.engine = s->engines[e];
            cs.batch = s->batches[b];
            cs.label_tuned = true;
            /* The one-GPU run of this group, for speedups: computed once, and only when
             * this shard has a case of the group. */
            int one_state = 0; /* 0 not yet, 1 ok, -1 failed */
            double one_tput = 0.0;
            /* The stack's setup depends on none of the GPU counts: made once for the
             * group; when it fails, every case runs alone to report its own first error. */
            int setup_state = 0; /* 0 not yet, 1 made, -1 failed */
            gcsim_stack_setup setup;
            /* Everything but the GPU count stays in a group: its counts share the prices of
             * the stack's ops and the iteration's buckets (none kept when out of memory). */
            cs.case_memo = NULL;
            for (int g = 0; g < s->n_gpus[p]; g++, index++) {
                if (!sweep_shard_has(index, o->shard_k, o->shard_n))
                    continue;
                if (setup_state == 0) {
                    gcsim_error es;
                    setup_state = sweep_case_setup(&cs, &setup, &es) ? -1 : 1;
                    cs.case_memo = gcsim_case_memo_new();
                }
                const gcsim_stack_setup *ss = setup_state > 0 ? &setup : NULL;
                if (one_state == 0) {
                    sweep_case one = cs;
                    one.gpus = 1;
                    sweep_result r1;
                    gcsim_error e1;
                    one_state = sweep_case_run_with(&one, ss, &r1, &e1) ? -1 : 1;
                    one_tput = r1.p.throughput_samples_per_s;
                }
                cs.gpus = s->gpus[p][g];
                sweep_result r;
                gcsim_error err;
                int rc = sweep_case_run_with(&cs, ss, &r, &err);
                sweep_outcome outcome = {.index = index, .total = total, .c = &cs, .rc = rc,
                                         .r = &r, .err = &err,
                                         .has_one_gpu = one_state > 0 && one_tput > 0,
                                         .one_gpu_samples_per_s = one_tput,
                                         .unimplemented = ss && ss->unimplemented[0]
                                                              ? ss->unimplemented
                                                              : NULL};
                n_done++;
                if (done(ctx, &outcome)) {
                    gcsim_case_memo_free(cs.case_memo);
                    *stopped = true;
                    return n_done;
                }
            }
            gcsim_case_memo_free(cs.case_memo);
          }
    }
    return n_done;
}
