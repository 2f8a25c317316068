/*
 * tests/des/des_test_cases.h: the setup the DES's "two ways agree" tests share
 * (test_des_solo, test_des_ps, test_des_fastpath, test_des_parts): each runs the same
 * collective or iteration with a GCSIM_DES_* switch off and on and compares the two. Here
 * are the switch, the collective run both ways, the weak-scaling ResNet-class scenario and
 * the loaded variant of a fabric, so that a test only says what it compares and how close.
 */
#ifndef GCSIM_TESTS_DES_CASES_H
#define GCSIM_TESTS_DES_CASES_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "des.h"
#include "model.h"
#include "payload.h"
#include "platform.h"
/* after des.h: its DES helpers are defined only where des.h came first */
#include "../bare_topology.h"

/* Sets or clears an environment switch such as GCSIM_DES_REPLAY. */
static inline void des_test_switch(const char *name, bool on)
{
    if (on)
        setenv(name, "1", 1);
    else
        unsetenv(name);
}

/* One collective's DES time and message counts. */
typedef struct {
    double seconds;
    long long transfers;
    long long solved_transfers;
} des_test_run;

/* The collective of `bytes` over `gpus` GPUs of p with switch `name` off (run[0]) and on
 * (run[1]); the switch is left off. `shards` is the parameter server's (0: one per
 * machine). Returns 0, or -1 after printing the error of the run that failed. */
static inline int des_test_collective_both_ways(const char *name, const gcsim_platform *p,
                                                int gpus, gcsim_collective c, double bytes,
                                                int shards, des_test_run run[2])
{
    int failed = 0;
    for (int on = 0; on < 2; on++) {
        gcsim_error err;
        gcsim_des_details d = {0};
        des_test_switch(name, on == 1);
        run[on].seconds = 0;
        if (bare_des_collective_time(p, gpus, c, bytes, shards, NULL, &run[on].seconds, &d,
                                     &err) != 0) {
            fprintf(stderr, "%s %s %d GPUs (%s %s): %s\n", p->name, gcsim_collective_name(c),
                    gpus, name, on ? "on" : "off", err.message);
            failed = -1;
        }
        run[on].transfers = d.transfers;
        run[on].solved_transfers = d.solved_transfers;
        gcsim_des_details_free(&d);
    }
    des_test_switch(name, false);
    return failed;
}

/* Weak scaling of model m under collective c on `gpus` GPUs of p: the model's batch per
 * GPU, 25 MiB buckets (DDP's default) overlapped with backward. Returns 0 or the
 * placement's error. */
static inline int des_test_weak_scenario(const gcsim_platform *p, const gcsim_model *m,
                                         const gcsim_payload_plan *pay, int gpus,
                                         gcsim_collective c, gcsim_scenario *s,
                                         gcsim_error *err)
{
    memset(s, 0, sizeof *s);
    s->platform = p;
    s->model = m;
    s->payload = pay;
    s->scaling = SCALING_WEAK;
    s->collective = c;
    s->batch = m->batch_per_gpu;
    s->bucket_bytes = 25.0 * 1024 * 1024;
    s->overlap = true;
    return gcsim_platform_place(p, gpus, &s->placement, err);
}

/* base with what makes flows share links unevenly: leaf uplinks oversubscribed 4:1, a
 * background load of 30% on them and ECMP over 4 spines (seed 7). */
static inline gcsim_platform des_test_loaded_fabric(const gcsim_platform *base,
                                                    const char *name)
{
    gcsim_platform loaded = *base;
    snprintf(loaded.name, sizeof loaded.name, "%s", name);
    loaded.fabric.oversubscription = 4.0;
    loaded.background.fraction = 0.3;
    loaded.background.links = GCSIM_BACKGROUND_LEAF_UPLINKS;
    loaded.ecmp.spines = 4;
    loaded.ecmp.seed = 7;
    return loaded;
}

#endif
