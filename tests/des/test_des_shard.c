/*
 * tests/des/test_des_shard.c: sharded rings solved per flow outside SimGrid (des_shard.c)
 * give the iteration SimGrid gives when it is sent every message (GCSIM_DES_REPLAY=1, the
 * path before issue 47's change), to within 1e-9 relative (they differ by rounding only: a
 * flow's end is start + latency + bytes / capacity here, a sum of every event's delta in
 * SimGrid), with the same message count; and the solved path is taken where no two pairs'
 * flows can fill a link (a100-hdr, whose leaf uplinks carry the rails' rings below their
 * capacity; a star of one GPU per node), none of it under the replay. Where flows could
 * share a link (a100-hdr with its leaf links oversubscribed 40:1: a leaf uplink of 4 NICs carries the 8 rails' ring hops between the two leaves) every phase is replayed:
 * the two runs are then the same path and nothing is solved.
 * Cases: FSDP (ZeRO-3) and HSDP iterations of ResNet-50 and Llama-2-7B, 8 to 256 GPUs.
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

static void set_replay(bool replay)
{
    if (replay)
        setenv("GCSIM_DES_REPLAY", "1", 1);
    else
        unsetenv("GCSIM_DES_REPLAY");
}

/* One iteration solved and replayed; returns the messages solved (none under the replay). */
static long long compare(gcsim_platform *p, const gcsim_model *m, int gpus,
                         gcsim_shard_strategy strategy)
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
    s.collective = COLLECTIVE_RING;
    s.batch = m->batch_per_gpu;
    s.bucket_bytes = 25.0 * 1024 * 1024;
    s.overlap = true;
    s.sharding.strategy = strategy;
    CHECK(gcsim_platform_place(p, gpus, &s.placement, &err) == 0);
    double t[2] = {0, 0}, ex[2] = {0, 0};
    long long msgs[2] = {0, 0}, solved[2] = {0, 0};
    for (int replay = 0; replay < 2; replay++) {
        gcsim_prediction out;
        gcsim_des_details d = {0};
        set_replay(replay);
        int rc = des_predict_opts_s(&s, NULL, &out, &d, &err);
        CHECK(rc == 0);
        if (rc)
            fprintf(stderr, "%s %d: %s\n", p->name, gpus, err.message);
        t[replay] = out.iteration_s;
        ex[replay] = out.exposed_comm_s;
        msgs[replay] = d.transfers;
        solved[replay] = d.solved_transfers;
        gcsim_des_details_free(&d);
    }
    set_replay(false);
    printf("%-12s %-10s %-5s %4d GPUs  replay %.17g s  solved %.17g s  %.2e  msgs %lld / %lld "
           "(%lld solved)\n",
           p->name, m->name, strategy == GCSIM_SHARD_HSDP ? "hsdp" : "fsdp", gpus, t[1], t[0],
           fabs(t[0] / t[1] - 1), msgs[1], msgs[0], solved[0]);
    CHECK(t[1] > 0);
    CHECK_REL(t[0], t[1], AGREE);
    CHECK(fabs(ex[0] - ex[1]) <= AGREE * t[1]);
    CHECK(msgs[0] == msgs[1]);
    CHECK(solved[1] == 0);
    CHECK(solved[0] <= msgs[0]);
    gcsim_payload_plan_free(&pay);
    return solved[0];
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

    /* a100-hdr: every ring solved, every message */
    for (int n = 8; n <= 256; n *= 4) {
        long long solved = compare(&a100, &resnet, n, GCSIM_SHARD_ZERO3);
        CHECK(solved > 0);
    }
    CHECK(compare(&a100, &llama, 64, GCSIM_SHARD_ZERO3) > 0);
    CHECK(compare(&a100, &resnet, 64, GCSIM_SHARD_HSDP) >= 0);

    /* a star of one GPU per node (10 Gb/s Ethernet): each ring hop has its links */
    gcsim_platform star = des_test_platform(16, 1);
    CHECK(compare(&star, &resnet, 16, GCSIM_SHARD_ZERO3) > 0);

    /* oversubscribed leaf links: the rings' hops between leaves could fill them together,
     * so nothing is solved and both runs replay */
    gcsim_platform over = a100;
    snprintf(over.name, sizeof over.name, "a100-over40");
    over.fabric.oversubscription = 40.0;
    CHECK(compare(&over, &resnet, 256, GCSIM_SHARD_ZERO3) == 0);

    gcsim_model_free(&resnet);
    gcsim_model_free(&llama);
    CHECK_DONE();
}
