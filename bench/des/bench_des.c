/*
 * bench/des/bench_des.c: speed of the SimGrid discrete-event engine.
 *
 *  1. Simulated transfers per wall-clock second of the engine's ring all-reduce, against a
 *     minimal SimGrid ring (N actors passing messages to their neighbour, mailboxes resolved
 *     once, nothing else) measured in the same run, on the same generated platform, with the
 *     same number of transfers; both run in a forked child and are timed fork to result.
 *  2. Wall time and peak memory of one ResNet-50 iteration (weak scaling, batch 32 per GPU,
 *     fp32 gradients, 25 MiB buckets, overlap) with hierarchical ring all-reduce on
 *     128 x 8 and 512 x 8 GPUs (targets, issue 5: < 10 s and < 60 s).
 *
 * Usage: bench_des [--model FILE] [--platform FILE] [--nodes N[,N...]] [--ring-gpus N]
 * Defaults: models/resnet-50.json and platforms/a100-hdr.json of the source tree (its node
 * count is overridden), nodes 128,512, ring over 256 GPUs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#include "des.h"
#include "model.h"
#include "payload.h"
#include "platform.h"

#ifndef GCSIM_SOURCE_DIR
#define GCSIM_SOURCE_DIR "."
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the minimal SimGrid ring ---- */

typedef struct {
    sg_mailbox_t mine, next;
    int rounds;
    long bytes;
} ring_actor;

static void ring_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    ring_actor *a = sg_actor_self_get_data();
    for (int r = 0; r < a->rounds; r++) {
        sg_comm_t send = sg_mailbox_put_async(a->next, a, a->bytes);
        sg_mailbox_get(a->mine);
        sg_comm_wait(send);
    }
}

/* Runs in a child; returns the wall time fork to result, or -1; *cpu_s: the child's CPU
 * time (user + system), which other load on the machine does not inflate. */
static double minimal_ring(const char *platform_xml, int n, int rounds, long bytes,
                           double *sim_time_s, double *cpu_s)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(stdout);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        char *argv[] = {"ring", "--cfg=network/model:LV08", "--log=root.thres:critical",
                        "--cfg=contexts/stack-size:512", NULL};
        int argc = 4;
        simgrid_init(&argc, argv);
        simgrid_load_platform(platform_xml);
        ring_actor *actors = calloc((size_t)n, sizeof *actors);
        char name[32];
        for (int k = 0; k < n; k++) {
            snprintf(name, sizeof name, "ring%d", k);
            actors[k].mine = sg_mailbox_by_name(name);
        }
        for (int k = 0; k < n; k++) {
            actors[k].next = actors[(k + 1) % n].mine;
            actors[k].rounds = rounds;
            actors[k].bytes = bytes;
            snprintf(name, sizeof name, "g%d", k);
            sg_actor_t a = sg_actor_init("ring", sg_host_by_name(name));
            sg_actor_set_data(a, &actors[k]);
            sg_actor_start(a, ring_main, 0, NULL);
        }
        simgrid_run();
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double t[2] = {simgrid_get_clock(),
                       (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec};
        ssize_t w = write(fds[1], t, sizeof t);
        _exit(w == (ssize_t)sizeof t ? 0 : 1);
    }
    close(fds[1]);
    double t[2] = {-1, -1};
    ssize_t r = read(fds[0], t, sizeof t);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    double wall = now_s() - t0;
    *sim_time_s = t[0];
    *cpu_s = t[1];
    return r == (ssize_t)sizeof t && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? wall : -1;
}

static gcsim_platform uniform_star(int nodes)
{
    gcsim_platform p;
    memset(&p, 0, sizeof p);
    strcpy(p.name, "uniform-star");
    strcpy(p.source_path, "<bench>");
    p.nodes = nodes;
    p.gpus_per_node = 1;
    p.gpu.speed_flops = 1e12;
    p.intra.kind = INTRA_PCIE_SWITCH;
    p.intra.gpu_to_host_Bps = p.intra.gpu_to_gpu_Bps = 100e9;
    p.intra.latency_s = 1e-6;
    p.nic.kind = NIC_ETHERNET;
    p.nic.bandwidth_Bps = 1.25e9;
    p.nic.latency_s = 20e-6;
    p.nic.per_node = 1;
    p.fabric.topology = FABRIC_STAR;
    return p;
}

int main(int argc, char **argv)
{
    const char *model_path = GCSIM_SOURCE_DIR "/models/resnet-50.json";
    const char *platform_path = GCSIM_SOURCE_DIR "/platforms/a100-hdr.json";
    int node_counts[8] = {128, 512}, n_counts = 2, ring_gpus = 256;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--model") && k + 1 < argc)
            model_path = argv[++k];
        else if (!strcmp(argv[k], "--platform") && k + 1 < argc)
            platform_path = argv[++k];
        else if (!strcmp(argv[k], "--ring-gpus") && k + 1 < argc)
            ring_gpus = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--nodes") && k + 1 < argc) {
            n_counts = 0;
            for (char *tok = strtok(argv[++k], ","); tok && n_counts < 8; tok = strtok(NULL, ","))
                node_counts[n_counts++] = atoi(tok);
        } else {
            fprintf(stderr, "usage: %s [--model FILE] [--platform FILE] [--nodes N[,N...]] [--ring-gpus N]\n",
                    argv[0]);
            return 2;
        }
    }
    gcsim_error err;

    /* 1. transfers per second */
    if (ring_gpus >= 2) {
        gcsim_platform star = uniform_star(ring_gpus);
        char dir[] = "/tmp/gcsim-bench-XXXXXX", xml[64];
        if (!mkdtemp(dir))
            return 1;
        snprintf(xml, sizeof xml, "%s/p.xml", dir);
        if (gcsim_des_write_platform(&star, ring_gpus, xml, &err) != 0) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        long bytes = 64L << 20;
        int rounds = 2 * (ring_gpus - 1);
        long long transfers = (long long)ring_gpus * rounds;
        double sim_min = 0, t_ours = 0, cpu_min = 0;
        double wall_min = minimal_ring(xml, ring_gpus, rounds, bytes / ring_gpus, &sim_min, &cpu_min);
        gcsim_des_details d = {0};
        if (gcsim_des_collective_time(&star, ring_gpus, COLLECTIVE_RING, (double)bytes, 0, NULL,
                                      &t_ours, &d, &err) != 0) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        unlink(xml);
        rmdir(dir);
        printf("transfers per wall second, ring of %d GPUs, %lld transfers of %ld B (same platform, LV08)\n",
               ring_gpus, transfers, bytes / ring_gpus);
        printf("  minimal SimGrid ring : %9.0f transfers/wall s, %9.0f /CPU s (wall %.3f s, CPU %.3f s, simulated %.6f s)\n",
               transfers / wall_min, transfers / cpu_min, wall_min, cpu_min, sim_min);
        printf("  gcsim DES ring       : %9.0f transfers/wall s, %9.0f /CPU s (wall %.3f s, CPU %.3f s, simulated %.6f s, %lld transfers)\n",
               d.transfers / d.wall_s, d.transfers / d.cpu_s, d.wall_s, d.cpu_s, t_ours, d.transfers);
        printf("  ratio gcsim / minimal: %.3f (wall), %.3f (CPU)\n",
               (d.transfers / d.wall_s) / (transfers / wall_min), (d.transfers / d.cpu_s) / (transfers / cpu_min));
        gcsim_des_details_free(&d);
    }

    /* 2. ResNet-50 iterations */
    gcsim_platform plat;
    gcsim_model model;
    gcsim_payload_plan pay;
    if (gcsim_platform_load(platform_path, &plat, &err) != 0 ||
        gcsim_model_load(model_path, &model, &err) != 0 ||
        gcsim_payload_plan_build("none", &model, &pay, &err) != 0) {
        fprintf(stderr, "%s\n", err.message);
        return 2;
    }
    const char *env_model = getenv("GCSIM_DES_NETWORK_MODEL");
    printf("ResNet-50 iteration, hierarchical ring, %s (%s), %s, weak scaling, batch %d per GPU, fp32, 25 MiB buckets, overlap\n",
           plat.name, env_model && *env_model ? env_model : gcsim_des_default_network_model(&plat),
           model.name, model.batch_per_gpu);
    printf("%6s %6s %12s %10s %10s %12s %12s %12s %14s\n", "nodes", "GPUs", "transfers", "wall_s",
           "cpu_s", "peak_MiB", "iter_s", "exposed_s", "samples/s");
    for (int c = 0; c < n_counts; c++) {
        plat.nodes = node_counts[c];
        gcsim_scenario s;
        memset(&s, 0, sizeof s);
        s.platform = &plat;
        s.model = &model;
        s.payload = &pay;
        s.scaling = SCALING_WEAK;
        s.collective = COLLECTIVE_HIERARCHICAL;
        s.batch = model.batch_per_gpu;
        s.bucket_bytes = 25.0 * 1024 * 1024;
        s.overlap = true;
        if (gcsim_platform_place(&plat, plat.nodes * plat.gpus_per_node, &s.placement, &err) != 0) {
            fprintf(stderr, "%s\n", err.message);
            return 2;
        }
        gcsim_prediction out;
        gcsim_des_details d = {0};
        if (gcsim_des_predict(&s, &out, &d, &err) != 0) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        printf("%6d %6d %12lld %10.2f %10.2f %12.1f %12.6f %12.6f %14.0f\n", plat.nodes,
               s.placement.gpus, d.transfers, d.wall_s, d.cpu_s, d.peak_rss_kib / 1024.0, out.iteration_s,
               out.exposed_comm_s, out.throughput_samples_per_s);
        fflush(stdout);
        gcsim_des_details_free(&d);
    }
    gcsim_payload_plan_free(&pay);
    gcsim_model_free(&model);
    return 0;
}
