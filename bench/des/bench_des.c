/*
 * bench/des/bench_des.c: cost of the SimGrid discrete-event engine (issue 14).
 *
 *  1. One lock-step ring all-reduce of 64 MiB over 256 GPUs (one per node, 10 Gb/s star),
 *     CPU seconds (user + system), every contender with the same network model (the DES's
 *     alpha-beta: SimGrid's CM02 without TCP window bound or cross-traffic, full max-min
 *     update). gcsim runs it as its hierarchical all-reduce, which on one GPU per node is
 *     the ring of 2(N-1) steps, each waiting for the last (SMPI's "lr"; same simulated
 *     time). Not `--collective ring`: gcsim's ring is NCCL's pipelined ring since issue 42
 *     (one chunk's route latency per phase, NCCL's per-hop costs), which even
 *     GCSIM_DES_FULL=1 coalesces, so it is not the program SMPI runs:
 *      - the DES through the library, simulation child only, coalesced (512 messages) and
 *        with every step simulated (GCSIM_DES_FULL=1, 130,560 messages, as SMPI sends);
 *      - `gcsim collective` as a user runs it, whole process (parent and child, from
 *        RUSAGE_CHILDREN), coalesced and with every step simulated;
 *      - a minimal SimGrid ring on the same generated platform (N actors passing 2(N-1)
 *        messages of S/N to their neighbour, nothing else), its child;
 *      - the same ring without actors, as an activity graph that maestro runs
 *        (host-to-host communications started when the ones they wait for are done,
 *        bench_graph_ring.cpp), its child: the cost of a message without the actors'
 *        simcalls and context switches (issue 28);
 *      - CPU per message of the two rings (each less the same program sending nothing) and
 *        of the DES with every step simulated (less its coalesced run);
 *      - SimGrid's MPI (smpirun, SMPI's ring all-reduce "lr", no-op reduction, shared
 *        buffers, no computation simulated: tests/des/smpi_allreduce.c compiled with
 *        smpicc), whole process, when smpicc and smpirun exist.
 *     SMPI's ratio is quoted against the whole gcsim process, coalesced and full apart.
 *  2. CPU seconds and peak memory of one training iteration (weak scaling, batch per GPU
 *     of the model file, fp32, 25 MiB buckets, overlap) on platforms/a100-hdr.json with
 *     its node count raised: ResNet-50 with the hierarchical and the ring all-reduce at
 *     1,024, 4,096 and 16,384 GPUs, BERT-base (hierarchical) at 4,096; the growth
 *     exponent fitted (least squares, log CPU s on log GPUs) from 1,024 to 16,384; and
 *     ResNet-50 with the parameter server at 1,024 GPUs (--no-ps leaves it out).
 * Targets (issue 28): 65,536 GPUs < 60 CPU s and < 4 GiB, 100,000 < 120 CPU s and < 6 GiB
 * (ResNet-50 hierarchical; --gpus 1024,4096,16384,65536,100000), exponent <= 1.2 from
 * 1,024 to 65,536; with every step simulated, >= 10x fewer CPU seconds than SMPI.
 * The iteration rows report the simulation child; the parent's share of a `gcsim predict`
 * is under 1% at 16,384 GPUs (perf).
 *
 * Usage: bench_des [--gpus N[,N...]] [--ring-gpus N] [--no-smpi] [--no-ps] [--ring-only]
 *                  [--collectives C[,C...]] [--no-bert] [--repeat K]
 * --collectives: the fitted rows' collectives (default hierarchical,ring; at most 4, e.g.
 * hierarchical,ring,double-tree for issue 47's exponents); --no-bert leaves BERT-base out.
 * The all-reduce comparison and the rows of the fitted exponent run K times (default 3):
 * the medians are printed and fitted, with their spread.
 * Default --gpus 1024,4096,16384 (docs/des.md "Scale" has the figures).
 */
#include <math.h>
#include <stdbool.h>
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

/* The DES on a scenario's step, resolved once (step.h): the engines take steps. */
static int des_predict_opts_s(const gcsim_scenario *s, const gcsim_des_options *o,
                              gcsim_prediction *out, gcsim_des_details *d, gcsim_error *err)
{
    gcsim_resolved_step st;
    gcsim_topology topo;
    if (gcsim_step_resolve(&st, s, err))
        return -1;
    if (gcsim_step_topology(&st, &topo, err)) {
        gcsim_step_release(&st);
        return -1;
    }
    int rc = gcsim_des_predict_opts(&st, &topo, o, out, d, err);
    gcsim_topology_free(&topo);
    gcsim_step_release(&st);
    return rc;
}


/* Runs of each timed case: medians are quoted (this is a shared machine). */
#define MAX_REPEAT 9

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

/* The same ring as an activity graph run by maestro, no actors (bench_graph_ring.cpp);
 * returns the simulated time. */
double bench_graph_ring(int n, int rounds, long bytes, const char *const *host_names);

/* Runs in a child; returns the wall time fork to result, or -1; *cpu_s: the child's CPU
 * time (user + system), which other load on the machine does not inflate. graph: the
 * ring as an activity graph (no actors) instead of one actor per member. */
static double minimal_ring(const char *platform_xml, int n, int rounds, long bytes, bool graph,
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
        /* the DES's alpha-beta model and stack settings (sim/des/des_sim.c) */
        char *argv[] = {"ring", "--cfg=network/model:CM02", "--cfg=network/TCP-gamma:0",
                        "--cfg=network/crosstraffic:0", "--cfg=network/optim:Full",
                        "--log=root.thres:critical", "--cfg=contexts/stack-size:512",
                        "--cfg=contexts/guard-size:0", NULL};
        int argc = 8;
        simgrid_init(&argc, argv);
        simgrid_load_platform(platform_xml);
        if (graph) {
            char **names = calloc((size_t)n, sizeof *names);
            for (int k = 0; k < n; k++) {
                names[k] = malloc(16);
                snprintf(names[k], 16, "g%d", k);
            }
            double sim = bench_graph_ring(n, rounds, bytes, (const char *const *)names);
            struct rusage ru;
            getrusage(RUSAGE_SELF, &ru);
            double t[2] = {sim,
                           (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                               (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec};
            ssize_t w = write(fds[1], t, sizeof t);
            _exit(w == (ssize_t)sizeof t ? 0 : 1);
        }
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

/* CPU seconds of the gcsim command timing the all-reduce as a user runs it (parent and
 * simulation child), or -1; full: with GCSIM_DES_FULL=1. The platform file describes the
 * same star as uniform_star. */
static double gcsim_cpu_s(const char *dir, int ranks, long bytes, bool full)
{
#ifdef GCSIM_BINARY
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "%s %s collective --platform %s/star.json --gpus %d --sizes %ldB --collective hierarchical "
             "--protocol simple --engine des --format csv >/dev/null 2>&1",
             full ? "GCSIM_DES_FULL=1" : "GCSIM_DES_FULL=0", GCSIM_BINARY, dir, ranks, bytes);
    struct rusage before, after;
    getrusage(RUSAGE_CHILDREN, &before);
    if (system(cmd) != 0)
        return -1;
    getrusage(RUSAGE_CHILDREN, &after);
    return (double)(after.ru_utime.tv_sec - before.ru_utime.tv_sec) +
           1e-6 * (double)(after.ru_utime.tv_usec - before.ru_utime.tv_usec) +
           (double)(after.ru_stime.tv_sec - before.ru_stime.tv_sec) +
           1e-6 * (double)(after.ru_stime.tv_usec - before.ru_stime.tv_usec);
#else
    (void)dir, (void)ranks, (void)bytes, (void)full;
    return -1;
#endif
}

/* The platform file of uniform_star for the gcsim command. */
static int write_star_json(const char *dir, int nodes)
{
    char path[600];
    snprintf(path, sizeof path, "%s/star.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\"name\": \"uniform-star\", \"description\": \"bench_des: one GPU per node, "
               "10 Gb/s star\", \"nodes\": %d, \"gpus_per_node\": 1,\n"
               " \"gpu\": {\"type\": \"bench\", \"speed\": \"1Tflops\", \"memory\": \"16GB\"},\n"
               " \"intra_node\": {\"kind\": \"pcie-switch\", \"gpu_to_host\": \"100GBps\", "
               "\"gpu_to_gpu\": \"100GBps\", \"latency\": \"1us\"},\n"
               " \"nic\": {\"kind\": \"ethernet\", \"bandwidth\": \"10Gbps\", \"latency\": "
               "\"20us\", \"per_node\": 1},\n \"fabric\": {\"topology\": \"star\"}}\n", nodes);
    return fclose(f);
}

/* CPU seconds of smpirun running the compiled all-reduce (its children's rusage), or -1. */
static double smpi_cpu_s(const char *xml_dir, int ranks, long bytes, double *sim_s)
{
    char cmd[2048], path[600];
    snprintf(path, sizeof path, "%s/hosts", xml_dir);
    FILE *h = fopen(path, "w");
    if (!h)
        return -1;
    for (int g = 0; g < ranks; g++)
        fprintf(h, "g%d\n", g);
    fclose(h);
    snprintf(cmd, sizeof cmd, "smpicc -O1 -o %s/smpi_allreduce %s/tests/des/smpi_allreduce.c >/dev/null 2>&1",
             xml_dir, GCSIM_SOURCE_DIR);
    if (system(cmd) != 0)
        return -1;
    struct rusage before, after;
    getrusage(RUSAGE_CHILDREN, &before);
    snprintf(cmd, sizeof cmd,
             "smpirun -np %d -platform %s/p.xml -hostfile %s/hosts -no-privatize "
             "--cfg=network/model:CM02 --cfg=network/TCP-gamma:0 --cfg=network/crosstraffic:0 "
             "--cfg=smpi/simulate-computation:no --cfg=smpi/allreduce:lr "
             "--cfg=contexts/stack-size:512 --log=root.thres:critical %s/smpi_allreduce %ld 2>/dev/null",
             ranks, xml_dir, xml_dir, xml_dir, bytes);
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    double v = -1;
    if (fscanf(f, "%lf", &v) != 1)
        v = -1;
    if (pclose(f) != 0 || v < 0)
        return -1;
    getrusage(RUSAGE_CHILDREN, &after);
    *sim_s = v;
    return (double)(after.ru_utime.tv_sec - before.ru_utime.tv_sec) +
           1e-6 * (double)(after.ru_utime.tv_usec - before.ru_utime.tv_usec) +
           (double)(after.ru_stime.tv_sec - before.ru_stime.tv_sec) +
           1e-6 * (double)(after.ru_stime.tv_usec - before.ru_stime.tv_usec);
}

typedef struct {
    const char *model;        /* file under models/ */
    gcsim_collective collective;
    int gpus;
    double cpu_s, peak_mib;
} bench_row;

static int iteration(const char *model_path, gcsim_platform *plat, bench_row *row,
                     gcsim_error *err)
{
    gcsim_model model;
    gcsim_payload_plan pay;
    if (gcsim_model_load(model_path, &model, err) != 0)
        return -1;
    if (gcsim_payload_plan_build("none", &model, &pay, err) != 0) {
        gcsim_model_free(&model);
        return -1;
    }
    plat->nodes = (row->gpus + plat->gpus_per_node - 1) / plat->gpus_per_node;
    gcsim_scenario s;
    memset(&s, 0, sizeof s);
    s.platform = plat;
    s.model = &model;
    s.payload = &pay;
    s.scaling = SCALING_WEAK;
    s.collective = row->collective;
    s.batch = model.batch_per_gpu;
    s.bucket_bytes = 25.0 * 1024 * 1024;
    s.overlap = true;
    gcsim_prediction out;
    gcsim_des_details d = {0};
    int rc = gcsim_platform_place(plat, row->gpus, &s.placement, err);
    if (rc == 0)
        rc = des_predict_opts_s(&s, NULL, &out, &d, err);
    if (rc == 0) {
        row->cpu_s = d.cpu_s;
        row->peak_mib = d.peak_rss_kib / 1024.0;
        printf("%-10s %-13s %6d %12lld %10.2f %10.2f %10.1f %12.6f %10.2f %10.1f\n", model.name,
               gcsim_collective_name(row->collective), row->gpus, d.transfers, d.wall_s, d.cpu_s,
               row->peak_mib, out.iteration_s, d.estimated_cpu_s, d.estimated_peak_mib);
        fflush(stdout);
        gcsim_des_details_free(&d);
    }
    gcsim_payload_plan_free(&pay);
    gcsim_model_free(&model);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n); sorts v, so v[0] and v[n - 1] are then its extremes. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Least-squares slope of log(cpu) on log(gpus) over the rows of one model and collective. */
static double exponent(const bench_row *rows, int n, const char *model, gcsim_collective c)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int r = 0; r < n; r++) {
        if (strcmp(rows[r].model, model) || rows[r].collective != c || !(rows[r].cpu_s > 0))
            continue;
        double x = log((double)rows[r].gpus), y = log(rows[r].cpu_s);
        sx += x, sy += y, sxx += x * x, sxy += x * y, k++;
    }
    if (k < 2)
        return NAN;
    return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

int main(int argc, char **argv)
{
    int gpu_counts[8] = {1024, 4096, 16384}, n_counts = 3, ring_gpus = 256;
    bool smpi = true, with_ps = true, iterations = true, with_bert = true;
    int repeat = 3;
    /* the collectives of the fitted rows (--collectives; issue 47 adds double-tree) */
    gcsim_collective cs[4] = {COLLECTIVE_HIERARCHICAL, COLLECTIVE_RING};
    int n_cs = 2;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--ring-gpus") && k + 1 < argc)
            ring_gpus = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--no-smpi"))
            smpi = false;
        else if (!strcmp(argv[k], "--no-ps"))
            with_ps = false;
        else if (!strcmp(argv[k], "--no-bert"))
            with_bert = false;
        else if (!strcmp(argv[k], "--ring-only"))
            iterations = false;
        else if (!strcmp(argv[k], "--collectives") && k + 1 < argc) {
            n_cs = 0;
            for (char *tok = strtok(argv[++k], ","); tok && n_cs < 4; tok = strtok(NULL, ","))
                if (gcsim_collective_parse(tok, &cs[n_cs++]) != 0) {
                    fprintf(stderr, "%s: --collectives: unknown collective '%s'\n", argv[0], tok);
                    return 2;
                }
        } else if (!strcmp(argv[k], "--repeat") && k + 1 < argc)
            repeat = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--gpus") && k + 1 < argc) {
            n_counts = 0;
            for (char *tok = strtok(argv[++k], ","); tok && n_counts < 8; tok = strtok(NULL, ","))
                gpu_counts[n_counts++] = atoi(tok);
        } else {
            fprintf(stderr, "usage: %s [--gpus N[,N...]] [--ring-gpus N] [--no-smpi] [--no-ps] "
                            "[--collectives C[,C...]] [--no-bert] [--repeat K]\n", argv[0]);
            return 2;
        }
    }
    if (repeat < 1 || repeat > MAX_REPEAT) {
        fprintf(stderr, "%s: --repeat: between 1 and %d\n", argv[0], MAX_REPEAT);
        return 2;
    }
    gcsim_error err;

    /* 1. one all-reduce: DES, minimal SimGrid ring, SMPI */
    if (ring_gpus >= 2) {
        gcsim_platform star = uniform_star(ring_gpus);
        char dir[] = "/tmp/gcsim-bench-XXXXXX", xml[64];
        if (!mkdtemp(dir))
            return 1;
        snprintf(xml, sizeof xml, "%s/p.xml", dir);
        gcsim_topology star_topo; /* one GPU per node: ring_gpus nodes */
        if (gcsim_topology_init(&star_topo, &star, ring_gpus, &err) != 0 ||
            gcsim_des_write_topology(&star_topo, xml, &err) != 0) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        long bytes = 64L << 20;
        int rounds = 2 * (ring_gpus - 1);
        bool have_json = write_star_json(dir, ring_gpus) == 0;
        /* Each measured `repeat` times, in turn: the medians are quoted, the ratios to SMPI
         * taken run by run (a gcsim run against the SMPI run next to it). */
        enum { LIB, LIB_FULL, CMD, CMD_FULL, MINIMAL, GRAPH, SMPI, N_KINDS };
        static const char *label[N_KINDS] = {
            "DES, library, coalesced (child)", "DES, library, every step (child)",
            "gcsim collective, coalesced", "gcsim collective, every step",
            "minimal SimGrid ring, actors (child)", "minimal SimGrid ring, graph (child)",
            "SMPI (smpirun, lr)"};
        double cpu[N_KINDS][MAX_REPEAT], ratio[2][MAX_REPEAT], base[2][MAX_REPEAT];
        int got[N_KINDS] = {0}, n_ratio = 0, got_base[2] = {0, 0};
        double sim_min = 0, sim_graph = 0, t_ours = 0, t_full = 0, sim_smpi = 0;
        long long transfers = 0, transfers_full = 0;
        for (int k = 0; k < repeat; k++) {
            double c = -1;
            if (minimal_ring(xml, ring_gpus, rounds, bytes / ring_gpus, false, &sim_min, &c) > 0)
                cpu[MINIMAL][got[MINIMAL]++] = c;
            if (minimal_ring(xml, ring_gpus, rounds, bytes / ring_gpus, true, &sim_graph, &c) > 0)
                cpu[GRAPH][got[GRAPH]++] = c;
            /* the same two programs sending nothing: start-up and platform, to take out */
            double ignored;
            for (int g = 0; g < 2; g++)
                if (minimal_ring(xml, ring_gpus, 0, bytes / ring_gpus, g, &ignored, &c) > 0)
                    base[g][got_base[g]++] = c;
            for (int full = 0; full < 2; full++) {
                gcsim_des_details d = {0};
                if (full)
                    setenv("GCSIM_DES_FULL", "1", 1);
                int rc = gcsim_des_collective_time(&star_topo, COLLECTIVE_HIERARCHICAL, (double)bytes, 0,
                                                   NULL, full ? &t_full : &t_ours, &d, &err);
                unsetenv("GCSIM_DES_FULL");
                if (rc != 0) {
                    fprintf(stderr, "%s\n", err.message);
                    return 1;
                }
                cpu[full ? LIB_FULL : LIB][got[full ? LIB_FULL : LIB]++] = d.cpu_s;
                *(full ? &transfers_full : &transfers) = d.transfers;
                gcsim_des_details_free(&d);
            }
            double cmd[2] = {-1, -1};
            for (int full = 0; full < 2 && have_json; full++)
                if ((cmd[full] = gcsim_cpu_s(dir, ring_gpus, bytes, full)) > 0)
                    cpu[full ? CMD_FULL : CMD][got[full ? CMD_FULL : CMD]++] = cmd[full];
            c = smpi ? smpi_cpu_s(dir, ring_gpus, bytes, &sim_smpi) : -1;
            if (c > 0) {
                cpu[SMPI][got[SMPI]++] = c;
                if (cmd[0] > 0 && cmd[1] > 0) {
                    ratio[0][n_ratio] = c / cmd[0];
                    ratio[1][n_ratio++] = c / cmd[1];
                }
            }
        }
        char path[128];
        const char *tmp[] = {"hosts", "smpi_allreduce", "star.json"};
        for (size_t t = 0; t < sizeof tmp / sizeof *tmp; t++) {
            snprintf(path, sizeof path, "%s/%s", dir, tmp[t]);
            unlink(path);
        }
        unlink(xml);
        rmdir(dir);
        gcsim_topology_free(&star_topo);
        printf("lock-step ring all-reduce (gcsim: --collective hierarchical, one GPU per node) "
               "of %ld B over %d GPUs (1 per node, 10 Gb/s star), alpha-beta "
               "network model everywhere, CPU seconds (user + system), median of %d runs\n",
               bytes, ring_gpus, repeat);
        long long msgs[N_KINDS] = {transfers, transfers_full, transfers, transfers_full,
                                   (long long)ring_gpus * rounds, (long long)ring_gpus * rounds,
                                   (long long)ring_gpus * rounds};
        double simulated[N_KINDS] = {t_ours, t_full, t_ours, t_full, sim_min, sim_graph, sim_smpi};
        /* The comparison is like with like only while the full run sends SMPI's messages. */
        if (got[LIB_FULL] && transfers_full != (long long)ring_gpus * rounds)
            printf("  WARNING: gcsim's every-step run sent %lld messages, not the ring's %lld: "
                   "its 'every step' rows are not the program SMPI runs\n",
                   transfers_full, (long long)ring_gpus * rounds);
        for (int k = 0; k < N_KINDS; k++) {
            if (got[k] == 0) {
                printf("  %-38s: not run (%s)\n", label[k],
                       k == SMPI && !smpi ? "--no-smpi" : "missing or failed");
                continue;
            }
            double m = median(cpu[k], got[k]);
            printf("  %-38s: %8.3f CPU s (%.3f-%.3f), %7lld messages, simulated %.6f s\n",
                   label[k], m, cpu[k][0], cpu[k][got[k] - 1], msgs[k], simulated[k]);
        }
        /* CPU per message: each program's median less that of the same program sending
         * nothing (the minimal rings), or less its coalesced run (the DES: 512 messages) */
        if (got[MINIMAL] && got[GRAPH] && got_base[0] && got_base[1] && got[LIB] && got[LIB_FULL] &&
            transfers_full > transfers) {
            double n_msgs = (double)ring_gpus * rounds;
            double us_actor = 1e6 * (median(cpu[MINIMAL], got[MINIMAL]) -
                                     median(base[0], got_base[0])) / n_msgs;
            double us_graph = 1e6 * (median(cpu[GRAPH], got[GRAPH]) -
                                     median(base[1], got_base[1])) / n_msgs;
            double us_des = 1e6 * (median(cpu[LIB_FULL], got[LIB_FULL]) - median(cpu[LIB], got[LIB])) /
                            (double)(transfers_full - transfers);
            printf("  CPU per message: minimal ring, actors %.2f us, graph %.2f us (start-up %.3f "
                   "and %.3f s taken out); DES every step %.2f us (its coalesced run taken out); "
                   "actors / graph %.2fx, DES / graph %.2fx\n",
                   us_actor, us_graph, median(base[0], got_base[0]), median(base[1], got_base[1]),
                   us_des, us_actor / us_graph, us_des / us_graph);
        }
        if (n_ratio > 0) {
            for (int full = 0; full < 2; full++) {
                double m = median(ratio[full], n_ratio); /* pairs were formed before sorting */
                printf("  SMPI / gcsim collective (%s, whole process): %.1fx (median of %d paired "
                       "runs; %.1f-%.1fx)\n", full ? "every step" : "coalesced", m, n_ratio,
                       ratio[full][0], ratio[full][n_ratio - 1]);
            }
        }
    }

    /* 2. training iterations */
    if (!iterations)
        return 0;
    gcsim_platform plat;
    if (gcsim_platform_load(GCSIM_SOURCE_DIR "/platforms/a100-hdr.json", &plat, &err) != 0) {
        fprintf(stderr, "%s\n", err.message);
        return 2;
    }
    const char *env_model = getenv("GCSIM_DES_NETWORK_MODEL");
    printf("one iteration on %s (%s), weak scaling, fp32, 25 MiB buckets, overlap%s\n", plat.name,
           env_model && *env_model ? env_model : gcsim_des_default_network_model(&plat),
           getenv("GCSIM_DES_FULL") ? ", GCSIM_DES_FULL set" : "");
    printf("%-10s %-13s %6s %12s %10s %10s %10s %12s %10s %10s\n", "model", "collective", "GPUs",
           "messages", "wall_s", "cpu_s", "peak_MiB", "iter_s", "est_cpu_s", "est_MiB");
    bench_row rows[40];
    int n_rows = 0;
    for (int c = 0; c < n_cs; c++)
        for (int k = 0; k < n_counts; k++)
            rows[n_rows++] = (bench_row){"resnet-50", cs[c], gpu_counts[k], 0, 0};
    if (with_bert)
        rows[n_rows++] = (bench_row){"bert-base", COLLECTIVE_HIERARCHICAL, 4096, 0, 0};
    /* the parameter server at 1,024 GPUs (128 x 1,024 = 131,072 flows a phase; issue 14) */
    if (with_ps)
        rows[n_rows++] = (bench_row){"resnet-50", COLLECTIVE_PARAMETER_SERVER, 1024, 0, 0};
    for (int r = 0; r < n_rows; r++) {
        char path[512];
        snprintf(path, sizeof path, "%s/models/%s.json", GCSIM_SOURCE_DIR, rows[r].model);
        /* the rows of the fitted exponent `repeat` times, their median CPU s kept */
        bool fitted = !strcmp(rows[r].model, "resnet-50") &&
                      rows[r].collective != COLLECTIVE_PARAMETER_SERVER;
        int runs = fitted ? repeat : 1, ok = 0;
        double cpu[MAX_REPEAT];
        for (int k = 0; k < runs; k++) {
            if (iteration(path, &plat, &rows[r], &err) != 0) {
                printf("%-10s %-13s %6d failed: %s\n", rows[r].model,
                       gcsim_collective_name(rows[r].collective), rows[r].gpus, err.message);
                fflush(stdout);
                break;
            }
            cpu[ok++] = rows[r].cpu_s;
        }
        if (ok == runs && runs > 1) {
            rows[r].cpu_s = median(cpu, ok);
            printf("%-10s %-13s %6d median cpu_s %.2f of %d runs (%.2f-%.2f)\n", rows[r].model,
                   gcsim_collective_name(rows[r].collective), rows[r].gpus, rows[r].cpu_s, ok,
                   cpu[0], cpu[ok - 1]);
        } else if (ok < runs) {
            rows[r].cpu_s = 0; /* left out of the fit */
        }
    }
    for (int c = 0; c < n_cs; c++)
        printf("growth exponent, ResNet-50 %s, CPU s ~ GPUs^x over %d..%d GPUs: x = %.2f\n",
               gcsim_collective_name(cs[c]), gpu_counts[0], gpu_counts[n_counts - 1],
               exponent(rows, n_rows, "resnet-50", cs[c]));
    return 0;
}
