/*
 * tests/des/test_des_ps.c: the parameter server's push and pull solved outside SimGrid as
 * one max-min system each (des_ps.c, des_collectives.c's ps_phase) give what SimGrid gives
 * when it is sent every (GPU, shard) message (GCSIM_DES_REPLAY=1), to within 1e-6 relative,
 * count the same messages, and are taken (messages solved; none under the replay). Where
 * every shard ends its push at the same instant (symmetric platforms) the two differ by
 * rounding only (1e-14 and below when written); where shards end at different instants
 * (ECMP hashing flows unevenly onto spines) the solved pull starts when the last push flow
 * is done rather than per (shard, GPU) pair, which 1e-6 would catch if it mattered:
 * the largest difference is printed. Cases:
 *   - a bare 64 MiB exchange on a star of 1 GPU per node (10 Gb/s NICs) and of 4 GPUs per
 *     node on PCIe (des_test_platform.h) at 4, 16 and 64 GPUs, one shard per machine and
 *     two per machine;
 *   - the same on platforms/a100-hdr.json at 8, 16, 64 and 256 GPUs, and on it with the
 *     leaf links oversubscribed 4:1, 30% background load and ECMP over 4 spines at 256;
 *   - a ResNet-50 iteration (overlap: buckets start while backward runs) at 64 and 256
 *     GPUs on a100-hdr, and at 64 with QSGD (the shards decode, sum and re-encode between
 *     the solved push and pull: decode seconds alike, and more than none); in every
 *     iteration the solved path is taken and the replay solves nothing.
 * Not solved, every message replayed: 12 GPUs on 8-GPU nodes (a last node of 4) and 4
 * shards on 8 machines.
 * And a hand-computed case: 4 workers on 4 nodes of 1 GPU (NICs 1.25e9 B/s, 20 us), one
 * shard per machine, one bucket of B bytes: each GPU pushes B/4 to every shard; each NIC
 * carries 3 remote flows of B/4 out and 3 in, of equal latency, so they share it equally
 * and the push ends at 20 us + 3 (B/4) / 1.25e9 (the local flow, over the 100 GB/s host
 * link, ends long before); the pull mirrors it: 2 x (20e-6 + 3 B / (4 x 1.25e9)).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "codec.h"
#include "des.h"
#include "des_test_cases.h"
#include "des_test_platform.h"
#include "model.h"
#include "payload.h"
#include "platform.h"
#include "../resolved_predict.h"
#include "../bare_topology.h"

#define AGREE 1e-6

static double worst;

#define REPLAY "GCSIM_DES_REPLAY"

/* The exchange of `bytes` solved and replayed; returns the solved time. */
static double compare(const gcsim_platform *p, int gpus, int shards, double bytes)
{
    des_test_run r[2];
    CHECK(des_test_collective_both_ways(REPLAY, p, gpus, COLLECTIVE_PARAMETER_SERVER, bytes,
                                        shards, r) == 0);
    double rel = fabs(r[0].seconds / r[1].seconds - 1);
    if (rel > worst)
        worst = rel;
    printf("%-14s %5d GPUs %3d shards %9.0f B  replay %.17g s  solved %.17g s  %.2e  "
           "msgs %lld (%lld solved)\n",
           p->name, gpus, shards, bytes, r[1].seconds, r[0].seconds, rel, r[0].transfers,
           r[0].solved_transfers);
    CHECK_REL(r[0].seconds, r[1].seconds, AGREE);
    CHECK(r[0].transfers == r[1].transfers);
    CHECK(r[0].solved_transfers == r[0].transfers && r[0].solved_transfers > 0);
    CHECK(r[1].solved_transfers == 0);
    return r[0].seconds;
}

/* Where the shards are not alike (a last node of fewer GPUs, fewer shards than machines:
 * des_ps.c) every message is replayed. */
static void replayed(const gcsim_platform *p, int gpus, int shards)
{
    gcsim_error err;
    double t = 0;
    gcsim_des_details d = {0};
    CHECK(bare_des_collective_time(p, gpus, COLLECTIVE_PARAMETER_SERVER, 64.0 * 1024 * 1024,
                                   shards, NULL, &t, &d, &err) == 0);
    printf("%-14s %5d GPUs %3d shards: %lld msgs, %lld solved (replayed)\n", p->name, gpus,
           shards, d.transfers, d.solved_transfers);
    CHECK(d.transfers > 0 && d.solved_transfers == 0);
    gcsim_des_details_free(&d);
}

static void iteration(const gcsim_platform *p, const gcsim_model *m, const gcsim_payload_plan *pay,
                      const gcsim_codec *codec, int gpus)
{
    gcsim_error err;
    gcsim_scenario s;
    CHECK(des_test_weak_scenario(p, m, pay, gpus, COLLECTIVE_PARAMETER_SERVER, &s, &err) == 0);
    s.codec = codec;
    double t[2] = {0, 0}, ex[2] = {0, 0}, dec[2] = {0, 0};
    long long solved[2] = {0, 0};
    for (int replay = 0; replay < 2; replay++) {
        gcsim_prediction out;
        gcsim_des_details d = {0};
        des_test_switch(REPLAY, replay);
        CHECK(des_predict_opts_s(&s, NULL, &out, &d, &err) == 0);
        t[replay] = out.iteration_s;
        ex[replay] = out.exposed_comm_s;
        dec[replay] = out.decode_s;
        solved[replay] = d.solved_transfers;
        gcsim_des_details_free(&d);
    }
    /* the solved path is taken (and the replay solves nothing), and a compressed payload's
     * decode-sum-encode at the shards is charged alike */
    CHECK(solved[0] > 0 && solved[1] == 0);
    CHECK(fabs(dec[0] - dec[1]) <= AGREE * (dec[1] > 0 ? dec[1] : 1));
    if (codec)
        CHECK(dec[0] > 0);
    des_test_switch(REPLAY, false);
    double rel = fabs(t[0] / t[1] - 1);
    if (rel > worst)
        worst = rel;
    printf("%-14s %5d GPUs ps iteration: replay %.17g s  solved %.17g s  %.2e\n", p->name, gpus,
           t[1], t[0], rel);
    CHECK_REL(t[0], t[1], AGREE);
    CHECK(fabs(ex[0] - ex[1]) <= AGREE * t[1]);
}

int main(void)
{
    /* the hand-computed case */
    gcsim_platform four = des_test_platform(4, 1);
    const double B = 64.0 * 1024 * 1024;
    double t = compare(&four, 4, 0, B);
    double want = 2 * (four.nic.latency_s + 3 * (B / 4) / four.nic.bandwidth_Bps);
    printf("4 workers, 4 shards, %.0f B: %.9e s (closed %.9e)\n", B, t, want);
    CHECK_REL(t, want, 1e-3);

    gcsim_platform star = des_test_platform(64, 1), pcie = des_test_platform(16, 4);
    snprintf(pcie.name, sizeof pcie.name, "pcie-4");
    for (int n = 4; n <= 64; n *= 4)
        for (int per = 1; per <= 2; per++) {
            compare(&star, n, per * n, B);
            compare(&pcie, n, per * (n / 4), B);
        }
    gcsim_error err;
    gcsim_platform a100;
    CHECK(gcsim_platform_load(GCSIM_SOURCE_DIR "/platforms/a100-hdr.json", &a100, &err) == 0);
    a100.nodes = 32;
    for (int n = 8; n <= 256; n *= 2)
        if (n != 32 && n != 128)
            compare(&a100, n, 0, B);
    replayed(&a100, 12, 0);
    replayed(&a100, 64, 4);
    gcsim_platform loaded = des_test_loaded_fabric(&a100, "a100-loaded");
    compare(&loaded, 256, 0, B);
    gcsim_model model;
    gcsim_payload_plan pay;
    CHECK(gcsim_model_load(GCSIM_SOURCE_DIR "/models/resnet-50.json", &model, &err) == 0);
    CHECK(gcsim_payload_plan_build("none", &model, &pay, &err) == 0);
    iteration(&a100, &model, &pay, NULL, 64);
    iteration(&a100, &model, &pay, NULL, 256);
    gcsim_payload_plan_free(&pay);
    /* compressed: QSGD's payload, its codec on a100's model: the shards decode, sum and
     * re-encode between the solved push and pull */
    gcsim_codec qsgd;
    CHECK(gcsim_payload_plan_build("qsgd", &model, &pay, &err) == 0);
    CHECK(gcsim_codec_init(&qsgd, &a100, "qsgd", &err) == 0);
    iteration(&a100, &model, &pay, &qsgd, 64);
    gcsim_payload_plan_free(&pay);
    gcsim_model_free(&model);
    printf("largest relative difference, solved against replayed: %.2e\n", worst);
    CHECK_DONE();
}
