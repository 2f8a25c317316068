/* Compute-communication interference in the analytic timeline (sim/step/interference.c,
 * sim/analytic/timeline.c), against hand-computed iterations, and the derived default.
 *
 * The iteration: backward block A (1 s) fills bucket 0, whose one call lasts C; then
 * backward block B (W s). A call in flight takes x = min(s, 1/(k+1)) of the GPU from the k
 * pieces of work beside it, so B runs at 1 - x while the call (from t = 1 to 1 + C) is in
 * flight:
 *  1. s = 0.2, C = 1, W = 2: B does 0.8 s of work in [1, 2], the other 1.2 s alone: ends
 *     at 3.2 = 3 + s x C (the closed form: overlapped compute extended by s x the
 *     overlapped time); the iteration 3.2 s against 3.0 s without interference.
 *  2. s = 0.2, C = 2, W = 0.5: B ends inside the call at 1 + 0.5 / 0.8 = 1.625; the call
 *     ends at 3: the iteration stays 3 (comm-bound: compute slowed behind a longer call).
 *  3. s = 0.6 > 1/2, C = 1, W = 2: x = 1/2 (max-min: the call's share beside one piece
 *     of work is at most half): 0.5 s in [1, 2], 1.5 s after: 3.5.
 *  4. The call released 0.5 s after its bucket (Horovod's cycle, release_s): it runs from
 *     1.5 to 2.5, s = 0.2, W = 2: B alone in [1, 1.5] (0.5 s), at 0.8 in [1.5, 2.5] (0.8 s),
 *     the last 0.7 s alone: 3.2. The wait takes nothing.
 *  5. With a codec step of 1 s (encode, on the comm actor) before the call, s = 0.2, C = 1,
 *     W = 3: [1, 3] encode and B share the GPU (1 s of B done at 3), the call in [3, 4]
 *     takes 0.2 (B 0.8 s), B's last 1.2 s alone: 5.2 (without interference 5.0).
 *  6. s = 0: the timeline as before (case 1 ends at 3.0 exactly).
 *  7. Case 5 with the encode on the host's CPU (step on_host, BytePS): B runs alone at full
 *     speed in [1, 2] (1 s done), the call in [2, 3] takes 0.2 (0.8 s done), B's last 1.2 s
 *     alone: 4.2 (4.0 without interference); a GPU encode would have made it 5.2.
 *  8. A call whose reducing steps decode, sum and re-encode (hop_s H of its C): its transfers
 *     (C - H) run first, then H of codec on the GPU, still inside the call, sharing the GPU
 *     with B as the DES's per-step codec executions do:
 *     a. s = 0, C = 1, H = 0.4, W = 2: B alone in [1, 1.6] (0.6 s done), B and the codec at
 *        1/2 each in [1.6, 2.4] (0.4 s more), B's last 1.0 s alone: 3.4 (3.0 were the
 *        codec communication); comm_s 0.6 + 0.8 = 1.4, decode_s 0.4;
 *     b. s = 0.2, same: B at 0.8 in [1, 1.6] (0.48 s), then x = min(0.2, 1/3) and B and the
 *        codec at 0.4 each, the codec's 0.4 s in [1.6, 2.6] (B 0.4 s more), B's last 1.12 s
 *        alone: 3.72;
 *     c. b with a blocking call: B held through the whole call, the codec beside the call's
 *        share alone at 0.8 in [1.6, 2.1], then B's 2 s: 4.1;
 *     d. s = 0, C = 2, H = 1, W = 0.5: B done inside the transfers (1.5), the codec alone in
 *        [2, 3]: 3.0, as without the split.
 * The default: an H100 platform with 8 NICs per node has 2 x 8 = 16 CTAs of 132 SMs:
 * 16/132; one NIC per node, 2/132; a stated gpu.comm_interference is taken as it is; an
 * unknown GPU type has none; a parameter server's exchange and one GPU have none. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "codec.h"
#include "step.h"
#include "timeline.h"

static double run_hop(double s, double call_s1, double hop_s1, bool blocking, double w_s,
                      double release_s, double encode_s, bool encode_on_host,
                      gcsim_timeline *out)
{
    gcsim_step steps[2];
    int n = 0;
    if (encode_s > 0)
        steps[n++] = (gcsim_step){.kind = GCSIM_STEP_CODEC, .cls = GCSIM_CODEC_ENCODE,
                                  .codec_s = encode_s, .on_host = encode_on_host};
    steps[n++] = (gcsim_step){.kind = GCSIM_STEP_CALL, .call = 0};
    gcsim_bucket buckets[1] = {{.backward_s = 1.0, .first_step = 0, .n_steps = n,
                                .ready_block = 0}};
    gcsim_call calls[1] = {{.collective = COLLECTIVE_RING, .bucket = 0,
                            .release_s = release_s, .blocking = blocking}};
    gcsim_block blocks[2] = {{.kind = GCSIM_BLOCK_BACKWARD, .seconds = 1.0, .gate = -1},
                             {.kind = GCSIM_BLOCK_BACKWARD, .seconds = w_s, .gate = -1}};
    gcsim_iteration it = {.compute_s = 1.0 + w_s, .n_buckets = 1, .buckets = buckets,
                          .overlap = true, .n_steps = n, .n_calls = 1, .steps = steps,
                          .calls = calls, .n_blocks = 2, .blocks = blocks,
                          .comm_interference = s};
    double cs[1] = {call_s1}, hs[1] = {hop_s1};
    gcsim_timeline t;
    gcsim_error err;
    if (gcsim_timeline_run(&it, cs, hop_s1 >= 0 ? hs : NULL, &t, &err)) { /* -1: no array */
        fprintf(stderr, "timeline: %s\n", err.message);
        return NAN;
    }
    if (out)
        *out = t;
    return t.iteration_s;
}

static double run_on(double s, double call_s1, double w_s, double release_s, double encode_s,
                     bool encode_on_host)
{
    return run_hop(s, call_s1, -1, false, w_s, release_s, encode_s, encode_on_host, NULL);
}

static double run(double s, double call_s1, double w_s, double release_s, double encode_s)
{
    return run_on(s, call_s1, w_s, release_s, encode_s, false);
}

int main(void)
{
    CHECK_REL(run(0.2, 1.0, 2.0, 0, 0), 3.2, 1e-12);
    CHECK_REL(run(0.2, 2.0, 0.5, 0, 0), 3.0, 1e-12);
    CHECK_REL(run(0.6, 1.0, 2.0, 0, 0), 3.5, 1e-12);
    CHECK_REL(run(0.2, 1.0, 2.0, 0.5, 0), 3.2, 1e-12);
    CHECK_REL(run(0.2, 1.0, 3.0, 0, 1.0), 5.2, 1e-12);
    CHECK_REL(run(0.0, 1.0, 3.0, 0, 1.0), 5.0, 1e-12);
    CHECK(run(0.0, 1.0, 2.0, 0, 0) == 3.0);
    CHECK_REL(run_on(0.2, 1.0, 3.0, 0, 1.0, true), 4.2, 1e-12);
    CHECK_REL(run_on(0.0, 1.0, 3.0, 0, 1.0, true), 4.0, 1e-12);
    /* 8: a call's reducing steps' codec as GPU work inside the call */
    gcsim_timeline t8;
    CHECK_REL(run_hop(0.0, 1.0, 0.4, false, 2.0, 0, 0, false, &t8), 3.4, 1e-12);
    CHECK_REL(t8.comm_s, 1.4, 1e-12);
    CHECK_REL(t8.decode_s, 0.4, 1e-12);
    CHECK_REL(run_hop(0.2, 1.0, 0.4, false, 2.0, 0, 0, false, NULL), 3.72, 1e-12);
    CHECK_REL(run_hop(0.2, 1.0, 0.4, true, 2.0, 0, 0, false, NULL), 4.1, 1e-12);
    CHECK_REL(run_hop(0.0, 2.0, 1.0, false, 0.5, 0, 0, false, NULL), 3.0, 1e-12);
    /* a call without a codec part (hop 0 in the array): the same bits as without hop_s */
    CHECK(run_hop(0.2, 1.0, 0, false, 2.0, 0, 0, false, NULL) == run(0.2, 1.0, 2.0, 0, 0));
    /* compute-bound with a longer overlap: the extension is s x the overlapped time */
    for (double s = 0.05; s < 0.5; s += 0.05)
        CHECK_REL(run(s, 1.5, 4.0, 0, 0) - 5.0, s * 1.5, 1e-9);

    gcsim_platform p;
    memset(&p, 0, sizeof p);
    strcpy(p.gpu.type, "h100");
    p.gpu.comm_interference = -1;
    p.nic.per_node = 8;
    CHECK_REL(gcsim_platform_interference(&p), 16.0 / 132, 1e-15);
    p.nic.per_node = 1;
    CHECK_REL(gcsim_platform_interference(&p), 2.0 / 132, 1e-15);
    p.gpu.comm_interference = 0.3;
    CHECK(gcsim_platform_interference(&p) == 0.3);
    p.gpu.comm_interference = 0;
    CHECK(gcsim_platform_interference(&p) == 0);
    p.gpu.comm_interference = -1;
    strcpy(p.gpu.type, "some-new-gpu");
    CHECK(gcsim_platform_interference(&p) == 0);
    strcpy(p.gpu.type, "v100");
    p.nic.per_node = 4;
    gcsim_scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.platform = &p;
    sc.collective = COLLECTIVE_RING;
    sc.placement.gpus = 16;
    CHECK_REL(gcsim_step_interference(&sc), 8.0 / 80, 1e-15);
    sc.collective = COLLECTIVE_PARAMETER_SERVER;
    CHECK(gcsim_step_interference(&sc) == 0);
    sc.collective = COLLECTIVE_RING;
    sc.placement.gpus = 1;
    CHECK(gcsim_step_interference(&sc) == 0);

    /* One table of GPU types (sim/codec/gpu_params.c): every type it knows has an SM count,
     * and the default is 2 CTAs per NIC over that count (4 NICs: 8 CTAs) for each; the
     * whitepapers' figures of the two most used types by hand. */
    const gcsim_gpu_params *g;
    gcsim_error err;
    CHECK(gcsim_gpu_params_find("a100", &g, &err) == 0 && g->sms == 108);
    CHECK(gcsim_gpu_params_find("h200", &g, &err) == 0 && g->sms == 132);
    p.nic.per_node = 4;
    for (const char *const *t = gcsim_gpu_types(); *t; t++) {
        CHECK(gcsim_gpu_params_find(*t, &g, &err) == 0 && g->sms > 8);
        strcpy(p.gpu.type, *t);
        CHECK_REL(gcsim_platform_interference(&p), 8.0 / g->sms, 1e-15);
    }
    CHECK_DONE();
}
