/*
 * tests/des/test_des_cost.c: the size guard's cost model (des_plan_estimate, docs/des.md
 * "Size guard") against what the simulation child then costs, as the kernel accounted it
 * (its rusage, fork to exit: CPU time user + system, peak resident memory). Four sizes of
 * a ResNet-50 iteration with the hierarchical all-reduce on platforms/a100-hdr.json (64,
 * 256, 1,024 and 4,096 GPUs), the parameter server at 128 and 256 GPUs, and FSDP at 1,024
 * GPUs (its all-gathers and reduce-scatters per unit, gates and a compute actor per GPU).
 *  - Peak memory: the estimate within a factor 2 of the measurement, always.
 *  - CPU time: the least of three runs (other load inflates CPU time, never deflates it)
 *    printed beside the estimate, not asserted. It was asserted within a factor 2 on a
 *    quiet machine for estimates of at least MIN_CHECKED_CPU_S, until the virtual
 *    machine's host moved under it: on 28 Nov 2026, quiet (load 1.7), the same runs took
 *    half the CPU time they took on 25 Nov (hierarchical 1,024 GPUs 0.077-0.080 s against
 *    0.155, estimate 0.238), at 3c2fbbb as at the commit after it, and the check failed on
 *    an idle machine while it passed on a loaded one. CPU seconds are the host's, so the
 *    estimate's accuracy is a benchmark's figure (bench/des, `bench_des`, which prints
 *    estimated and measured side by side), as the project's rule for speed says. On this project's 2-core virtual machine a load of 8 made the
 *    same runs take 1.0-3.3x the CPU time they take alone, the larger runs (more memory
 *    touched) the more, so not even the ratios between sizes hold under such load. Below
 *    a fifth of a second the fork, SimGrid's start and the first touch of memory decide,
 *    and they drift with the virtual machine's host: the 64-GPU run took 7 ms on 25 Nov
 *    2026 at 09:53 UTC (estimate 33 ms, fitted on the same machine in earlier sessions)
 *    while 1,024 to 4,096 GPUs stayed within 0.7-1.6x. Checked: the hierarchical
 *    all-reduce at 1,024 and 4,096 GPUs, the parameter server at 256, FSDP at 1,024.
 * Not built with the sanitizers (they multiply both).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "des.h"
#include "model.h"
#include "payload.h"
#include "platform.h"
#include "../resolved_predict.h"

/* Estimates below this are printed, not checked (above). */
#define MIN_CHECKED_CPU_S 0.2

static bool within_2x(double estimate, double measured)
{
    double r = estimate / measured;
    return r >= 0.5 && r <= 2.0;
}

/* Runs one iteration three times: *cpu_s the least CPU time, *est_cpu_s its estimate; checks
 * the memory estimate. */
static void iteration(gcsim_platform *p, const gcsim_model *m, gcsim_collective c, int gpus,
                      gcsim_shard_strategy sharding, double *cpu_s, double *est_cpu_s)
{
    gcsim_error err;
    gcsim_payload_plan pay;
    CHECK(gcsim_payload_plan_build("none", m, &pay, &err) == 0);
    p->nodes = (gpus + p->gpus_per_node - 1) / p->gpus_per_node;
    gcsim_scenario s;
    memset(&s, 0, sizeof s);
    s.platform = p;
    s.model = m;
    s.payload = &pay;
    s.scaling = SCALING_WEAK;
    s.collective = c;
    s.batch = m->batch_per_gpu;
    s.bucket_bytes = 25.0 * 1024 * 1024;
    s.overlap = true;
    s.sharding.strategy = sharding;
    CHECK(gcsim_platform_place(p, gpus, &s.placement, &err) == 0);
    gcsim_prediction out;
    *cpu_s = *est_cpu_s = 0;
    for (int run = 0; run < 3; run++) {
        gcsim_des_details d = {0};
        int rc = des_predict_opts_s(&s, NULL, &out, &d, &err);
        CHECK(rc == 0);
        if (rc != 0) {
            printf("%s\n", err.message);
            break;
        }
        if (run == 0 || d.cpu_s < *cpu_s)
            *cpu_s = d.cpu_s;
        *est_cpu_s = d.estimated_cpu_s;
        if (run == 2) {
            double mib = d.peak_rss_kib / 1024.0;
            printf("%-9s %-12s %-4s %5d GPUs %6lld messages: CPU s estimated %.3f, measured %.3f "
                   "(least of 3; ratio %.2f); peak MiB estimated %.1f, measured %.1f (ratio %.2f)\n",
                   m->name, gcsim_collective_name(c),
                   sharding == GCSIM_SHARD_ZERO3 ? "fsdp" : "ddp", gpus, d.transfers, *est_cpu_s, *cpu_s,
                   *est_cpu_s / *cpu_s, d.estimated_peak_mib, mib, d.estimated_peak_mib / mib);
            CHECK(within_2x(d.estimated_peak_mib, mib));
        }
        gcsim_des_details_free(&d);
    }
    gcsim_payload_plan_free(&pay);
}

int main(void)
{
    gcsim_error err;
    gcsim_platform p;
    gcsim_model m;
    CHECK(gcsim_platform_load(GCSIM_SOURCE_DIR "/platforms/a100-hdr.json", &p, &err) == 0);
    CHECK(gcsim_model_load(GCSIM_SOURCE_DIR "/models/resnet-50.json", &m, &err) == 0);
    double load = 0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1)
            load = 0;
        fclose(f);
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    bool quiet = f && load <= (double)cpus;
    printf("load average %.2f on %ld CPUs: CPU estimates of %g s and more compared%s\n", load,
           cpus, MIN_CHECKED_CPU_S, quiet ? "" : " (oversubscribed: CPU times inflated)");

    struct {
        gcsim_collective c;
        int gpus;
        gcsim_shard_strategy sharding;
    } runs[] = {{COLLECTIVE_HIERARCHICAL, 64, GCSIM_SHARD_DDP},
                {COLLECTIVE_HIERARCHICAL, 256, GCSIM_SHARD_DDP},
                {COLLECTIVE_HIERARCHICAL, 1024, GCSIM_SHARD_DDP},
                {COLLECTIVE_HIERARCHICAL, 4096, GCSIM_SHARD_DDP},
                {COLLECTIVE_PARAMETER_SERVER, 128, GCSIM_SHARD_DDP},
                {COLLECTIVE_PARAMETER_SERVER, 256, GCSIM_SHARD_DDP},
                {COLLECTIVE_HIERARCHICAL, 1024, GCSIM_SHARD_ZERO3}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        double cpu_s = 0, est_s = 0;
        iteration(&p, &m, runs[k].c, runs[k].gpus, runs[k].sharding, &cpu_s, &est_s);
        if (!(cpu_s > 0 && est_s > 0)) {
            CHECK(0);
            continue;
        }
        if (quiet && est_s >= MIN_CHECKED_CPU_S && !within_2x(est_s, cpu_s))
            printf("  note: the CPU estimate is %.2fx the measurement on this host (printed, "
                   "not asserted: the header says why)\n", est_s / cpu_s);
    }
    gcsim_model_free(&m);
    CHECK_DONE();
}
