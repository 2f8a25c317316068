/*
 * tests/des/test_des_shard.c: rings solved per flow outside SimGrid (des_shard.c) give the
 * iteration SimGrid gives when it is sent every message (GCSIM_DES_REPLAY=1, the path
 * before issue 47's change), to within 1e-9 relative (they differ by rounding only: a
 * flow's end is start + latency + bytes / capacity here, a sum of every event's delta in
 * SimGrid, which also drops a flow's last latency under 1 ns: see slack_s), with the same
 * message count; and the solved path is taken where no two pairs'
 * flows can fill a link (a100-hdr, whose leaf uplinks carry the rails' rings below their
 * capacity; a star of one GPU per node), none of it under the replay. Where flows could
 * share a link (a100-hdr with its leaf links oversubscribed 40:1: a leaf uplink of 4 NICs carries the 8 rails' ring hops between the two leaves) every phase is replayed:
 * the two runs are then the same path and nothing is solved.
 * The default path goes further where it can: no actor per GPU at all (des_shard_direct.c);
 * it is held to the replay too, on every output (iteration, exposed communication, compute
 * end, codec sums, every bucket's marks), as is the per-flow path with its actors.
 * Cases: FSDP (ZeRO-3) and HSDP iterations of ResNet-50 and Llama-2-7B, 8 to 256 GPUs, on
 * a100-hdr, a star, h100-ndr and cloud-v100-25gbe; data parallelism's ring and hierarchical
 * all-reduces and ZeRO-2 (no gate, one compute for every GPU), 8 to 128 GPUs, on the same,
 * a100-hdr-4hca and GB200 NVL72.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "des.h"
#include "des_test_platform.h"
#include "model.h"
#include "payload.h"
#include "platform.h"
#include "../resolved_predict.h"

#define AGREE 1e-9

/* The paths one iteration is run on: every message sent (GCSIM_DES_REPLAY=1), the rings
 * solved per flow with an actor per GPU (GCSIM_DES_ACTORS=1), and the default, which runs
 * no actor per GPU where it can (des_shard_direct.c; GCSIM_DES_DIRECT=require makes the
 * run fail where it cannot, so that a case that expects it knows it was taken). */
enum { REPLAY, ACTORS, DIRECT, PATHS };
static const char *path_name[PATHS] = {"replay", "actors", "direct"};

static void set_path(int path, bool require_direct)
{
    unsetenv("GCSIM_DES_REPLAY");
    unsetenv("GCSIM_DES_ACTORS");
    unsetenv("GCSIM_DES_DIRECT");
    if (path == REPLAY)
        setenv("GCSIM_DES_REPLAY", "1", 1);
    if (path == ACTORS)
        setenv("GCSIM_DES_ACTORS", "1", 1);
    if (path == DIRECT && require_direct)
        setenv("GCSIM_DES_DIRECT", "require", 1);
}

/* The largest relative difference of any compared output against the replay's, over
 * every case (printed at the end). */
static double worst = 0;

/* SimGrid drops what is left of a flow's latency once it falls under its timing precision
 * (1e-9 s, double_update), so a replayed flow can end up to 1 ns early: a data-parallel
 * ring of 8 GPUs on a100-hdr-4hca ends each phase 1 ns before the solved path does. An
 * output may differ from the replay's by 1 ns per message a GPU sends in the iteration
 * (set per case) when it differs by more than AGREE. */
static double slack_s = 0;

/* |a - b| relative to scale (the iteration time: bucket marks near 0 are compared on the
 * iteration's scale, not their own), recorded in worst. */
static bool agree(double a, double b, double scale)
{
    double d = fabs(a - b) / scale;
    if (d > worst)
        worst = d;
    return d <= AGREE || fabs(a - b) <= slack_s;
}

typedef struct {
    double iteration_s, exposed_s;
    gcsim_des_details d;
} run_out;

/* One iteration on every path; every output of the solved paths is held to the replay's.
 * direct: the case expects the path without actors (required, so the run fails if it is
 * not taken) or expects it refused (the run must then fail under the requirement).
 * Returns the messages solved (none under the replay). */
static long long compare(gcsim_platform *p, const gcsim_model *m, int gpus,
                         gcsim_shard_strategy strategy, gcsim_collective collective, bool direct)
{
    gcsim_error err;
    gcsim_payload_plan pay;
    CHECK(gcsim_payload_plan_build("none", m, &pay, &err) == 0);
    gcsim_scenario s;
    memset(&s, 0, sizeof s);
    s.platform = p;
    s.model = m;
    s.payload = &pay;
    s.scaling = SCALING_WEAK;
    s.collective = collective;
    s.batch = m->batch_per_gpu;
    s.bucket_bytes = 25.0 * 1024 * 1024;
    s.overlap = true;
    s.sharding.strategy = strategy;
    CHECK(gcsim_platform_place(p, gpus, &s.placement, &err) == 0);
    run_out r[PATHS];
    memset(r, 0, sizeof r);
    for (int path = 0; path < PATHS; path++) {
        gcsim_prediction out;
        set_path(path, direct);
        int rc = des_predict_opts_s(&s, NULL, &out, &r[path].d, &err);
        CHECK(rc == 0);
        if (rc) {
            fprintf(stderr, "%s %d %s: %s\n", p->name, gpus, path_name[path], err.message);
            set_path(-1, false);
            for (int k = 0; k < path; k++)
                gcsim_des_details_free(&r[k].d);
            gcsim_payload_plan_free(&pay);
            return -1;
        }
        r[path].iteration_s = out.iteration_s;
        r[path].exposed_s = out.exposed_comm_s;
    }
    if (!direct) { /* refused under the requirement: the run fails, naming it */
        gcsim_prediction out;
        gcsim_des_details d = {0};
        set_path(DIRECT, true);
        CHECK(des_predict_opts_s(&s, NULL, &out, &d, &err) != 0);
        CHECK(strstr(err.message, "GCSIM_DES_DIRECT") != NULL);
        gcsim_des_details_free(&d);
    }
    set_path(-1, false);
    const run_out *ref = &r[REPLAY];
    double t = ref->iteration_s;
    slack_s = 1e-9 * (double)ref->d.transfers / (gpus > 1 ? gpus : 1);
    CHECK(t > 0);
    for (int path = ACTORS; path < PATHS; path++) {
        const run_out *o = &r[path];
        double before = worst;
        CHECK(agree(o->iteration_s, t, t));
        CHECK(agree(o->exposed_s, ref->exposed_s, t));
        CHECK(agree(o->d.compute_end_s, ref->d.compute_end_s, t));
        CHECK(agree(o->d.encode_s, ref->d.encode_s, t));
        CHECK(agree(o->d.decode_s, ref->d.decode_s, t));
        CHECK(o->d.transfers == ref->d.transfers);
        CHECK(o->d.solved_transfers <= o->d.transfers);
        CHECK(o->d.n_buckets == ref->d.n_buckets);
        for (int b = 0; b < o->d.n_buckets && b < ref->d.n_buckets; b++) {
            const gcsim_des_bucket *x = &o->d.buckets[b], *y = &ref->d.buckets[b];
            CHECK(agree(x->ready_s, y->ready_s, t));
            CHECK(agree(x->exchange_start_s, y->exchange_start_s, t));
            CHECK(agree(x->exchange_end_s, y->exchange_end_s, t));
            CHECK(agree(x->decode_s, y->decode_s, t));
        }
        if (worst > before && worst > AGREE)
            fprintf(stderr, "%s %d %s: differs from the replay by %.3g\n", p->name, gpus,
                    path_name[path], worst);
    }
    CHECK(ref->d.solved_transfers == 0);
    /* the two solved paths solve the same messages */
    CHECK(r[DIRECT].d.solved_transfers == r[ACTORS].d.solved_transfers);
    printf("%-16s %-10s %-5s %-12s %4d GPUs  replay %.17g s  actors %.3e  direct %.3e  msgs "
           "%lld (%lld solved)%s\n",
           p->name, m->name,
           strategy == GCSIM_SHARD_HSDP    ? "hsdp"
           : strategy == GCSIM_SHARD_ZERO3 ? "fsdp"
           : strategy == GCSIM_SHARD_ZERO2 ? "zero2"
                                           : "ddp",
           gcsim_collective_name(collective), gpus, t,
           fabs(r[ACTORS].iteration_s / t - 1), fabs(r[DIRECT].iteration_s / t - 1),
           ref->d.transfers, r[DIRECT].d.solved_transfers, direct ? "  no actors" : "");
    long long solved = r[DIRECT].d.solved_transfers;
    for (int path = 0; path < PATHS; path++)
        gcsim_des_details_free(&r[path].d);
    gcsim_payload_plan_free(&pay);
    return solved;
}

int main(void)
{
    gcsim_error err;
    gcsim_model resnet, llama;
    CHECK(gcsim_model_load(GCSIM_SOURCE_DIR "/models/resnet-50.json", &resnet, &err) == 0);
    CHECK(gcsim_model_load(GCSIM_SOURCE_DIR "/models/llama-2-7b.json", &llama, &err) == 0);
    gcsim_platform a100;
    CHECK(gcsim_platform_load(GCSIM_SOURCE_DIR "/platforms/a100-hdr.json", &a100, &err) == 0);
    a100.nodes = 32;

    /* a100-hdr: every ring solved, every message, with no actor per GPU */
    for (int n = 8; n <= 256; n *= 2)
        CHECK(compare(&a100, &resnet, n, GCSIM_SHARD_ZERO3, COLLECTIVE_RING, true) > 0);
    CHECK(compare(&a100, &llama, 64, GCSIM_SHARD_ZERO3, COLLECTIVE_RING, true) > 0);
    for (int n = 16; n <= 256; n *= 4)
        CHECK(compare(&a100, &resnet, n, GCSIM_SHARD_HSDP, COLLECTIVE_RING, true) > 0);

    /* a star of one GPU per node (10 Gb/s Ethernet): each ring hop has its links */
    gcsim_platform star = des_test_platform(16, 1);
    CHECK(compare(&star, &resnet, 16, GCSIM_SHARD_ZERO3, COLLECTIVE_RING, true) > 0);

    /* other fabrics: NDR H100 nodes, 25 GbE cloud V100s */
    const char *more[] = {"h100-ndr", "cloud-v100-25gbe"};
    for (size_t k = 0; k < sizeof more / sizeof *more; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/platforms/%s.json", GCSIM_SOURCE_DIR, more[k]);
        gcsim_platform q;
        CHECK(gcsim_platform_load(path, &q, &err) == 0);
        if (q.nodes < 16)
            q.nodes = 16;
        CHECK(compare(&q, &resnet, 32, GCSIM_SHARD_ZERO3, COLLECTIVE_RING, true) > 0);
        if (k == 0) /* 25 GbE's HSDP at 128 GPUs: its rings share links, all replayed */
            CHECK(compare(&q, &llama, 128, GCSIM_SHARD_HSDP, COLLECTIVE_RING, true) > 0);
    }

    /* Data parallelism (no gate): its all-reduces' rings solved per flow too, and run with
     * no actor per GPU (identical GPUs: GPU 0's compute, slowed by GPU 0's calls, stands
     * for every GPU's, as des_sim.c's one compute actor does): the ring and hierarchical
     * all-reduces of ResNet-50 and ZeRO-2's reduce-scatters and all-gathers of Llama-2-7B,
     * on a100-hdr, the star, h100-ndr, 25 GbE V100s and a100-hdr with 4 HCAs a node (whose
     * 8-GPU ring takes the slack above). */
    for (int n = 8; n <= 256; n *= 4) {
        CHECK(compare(&a100, &resnet, n, GCSIM_SHARD_DDP, COLLECTIVE_RING, true) > 0);
        CHECK(compare(&a100, &resnet, n, GCSIM_SHARD_DDP, COLLECTIVE_HIERARCHICAL, true) > 0);
    }
    CHECK(compare(&a100, &llama, 64, GCSIM_SHARD_ZERO2, COLLECTIVE_RING, true) > 0);
    CHECK(compare(&star, &resnet, 16, GCSIM_SHARD_DDP, COLLECTIVE_RING, true) > 0);
    /* (GB200 NVL72's 16-GPU ring inside one NVLink domain takes it too: its path without
     * actors ends 3.2 ns after the replay, which the actors match.) */
    const char *ddp[] = {"platforms/h100-ndr", "platforms/cloud-v100-25gbe",
                         "tests/validation/platforms/a100-hdr-4hca", "platforms/gb200-nvl72"};
    const int ddp_gpus[] = {32, 32, 8, 16};
    for (size_t k = 0; k < sizeof ddp / sizeof *ddp; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.json", GCSIM_SOURCE_DIR, ddp[k]);
        gcsim_platform q;
        CHECK(gcsim_platform_load(path, &q, &err) == 0);
        CHECK(compare(&q, &resnet, ddp_gpus[k], GCSIM_SHARD_DDP, COLLECTIVE_RING, true) > 0);
    }

    /* oversubscribed leaf links: the rings' hops between leaves could fill them together,
     * so nothing is solved and every path replays (the direct one refused) */
    gcsim_platform over = a100;
    snprintf(over.name, sizeof over.name, "a100-over40");
    over.fabric.oversubscription = 40.0;
    CHECK(compare(&over, &resnet, 256, GCSIM_SHARD_ZERO3, COLLECTIVE_RING, false) == 0);

    printf("largest relative difference from the replay: %.3g (bound %g, or 1 ns per message "
           "a GPU sends)\n", worst, AGREE);
    gcsim_model_free(&resnet);
    gcsim_model_free(&llama);
    CHECK_DONE();
}
