/*
 * tests/des/test_ring_route.c: a ring's latency is one chunk's route, not a latency per
 * lock-step step (issue 42, h-ringlat; collectives.h, gcsim_ring_route_s; docs/collectives.md,
 * "A ring's latency"), in both engines.
 *
 * Platform (built here): 2 nodes x 8 GPUs on an NVSwitch (300 GB/s, 2 us a hop), 8 NICs of
 * 25 GB/s with 20 us, no switch latency. A ring all-reduce's phase has 15 steps on a cycle
 * of 16 hops: 14 inside the nodes (2 us) and 2 crossings (20 us); one chunk's route through
 * a phase is 15 consecutive hops, the worst start leaving out an NVLink hop:
 *   14 x 2 + 2 x 20 - 2 = 66 us a phase, 132 us an all-reduce of 8 B (the bytes: < 1 ns).
 * The lock-step ring paid every step its slowest hop: 30 x 20 = 600 us.
 * With NCCL's Simple ring on it (gcsim_protocol_platform, 30 steps): every intra-node hop at
 * least NCCL's net overhead x 3 = 3 us across nodes, and NCCL's per-call base 8.4 us plus
 * 2 (nodes - 1) network hops of 14 us (tuner_model.c, today's tables) = 36.4 us spread over
 * the 30 hops of the route (36.4 / 30 us on every hop's latency):
 *   2 x (14 x 3 + 2 x 20 - 3) + 36.4 = 158 + 36.4 = 194.4 us.
 * All-gather (one phase): 66 us. The DES takes the same within 1e-4 (the engines' agreement
 * tolerance is 1%: tests/des/test_des_collectives.c). With 20 us hops inside nodes too, the
 * route is the lock-step ring's 2 (16 x 20 - 20) = 600 us, in the closed form's count of the
 * hops (closed_ring.c) as in the walk over the listed rings (schedule.c).
 * Under network jitter (platform jitter.mean > 0) the ring stays lock-step in both engines.
 * Property: with no intra-node latency, a ring at 8 B on j nodes takes 2 j x 20 us whatever
 * the GPUs per node (2, 4, 8): its latency crosses the network 2 j times, not 2 (N - 1).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "analytic.h"
#include "des.h"
#include "des_test_platform.h"
#include "protocol.h"
#include "tuner_model.h"
#include "../bare_topology.h"

static gcsim_platform two_by_eight(int nodes, int per_node, double intra_latency_s)
{
    gcsim_platform p = des_test_platform(nodes, per_node);
    snprintf(p.name, sizeof p.name, "ring-route");
    p.intra.kind = INTRA_NVSWITCH;
    p.intra.gpu_to_gpu_Bps = 300e9;
    p.intra.gpu_to_host_Bps = 31.5e9;
    p.intra.latency_s = intra_latency_s;
    p.nic.kind = NIC_INFINIBAND;
    p.nic.bandwidth_Bps = 25e9;
    p.nic.latency_s = 20e-6;
    p.nic.per_node = per_node;
    return p;
}

/* Both engines' time of collective c (all-reduce) or op (all-gather) at `bytes`. */
static void both(const gcsim_platform *p, int gpus, gcsim_op op, double bytes, double *ana,
                 double *des)
{
    gcsim_error err;
    *ana = *des = NAN;
    if (op == GCSIM_OP_ALLREDUCE) {
        CHECK(bare_analytic_collective_time(p, gpus, COLLECTIVE_RING, bytes, 0, ana, &err) == 0);
        CHECK(bare_des_collective_time(p, gpus, COLLECTIVE_RING, bytes, 0, NULL, des, NULL,
                                       &err) == 0);
    } else {
        CHECK(bare_analytic_op_time(p, gpus, op, COLLECTIVE_RING, bytes, ana, &err) == 0);
        CHECK(bare_des_op_time(p, gpus, op, COLLECTIVE_RING, bytes, NULL, des, NULL, &err) == 0);
    }
}

int main(void)
{
    /* the route of a cycle's distinct hop latencies (any order), less its shortest */
    const double v[2] = {20e-6, 2e-6};
    const long long n[2] = {2, 14};
    CHECK_REL(gcsim_ring_route_s(v, n, 2), 66e-6, 1e-12);

    gcsim_platform p = two_by_eight(2, 8, 2e-6);
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    CHECK(gcsim_topology_init(&t, &p, 16, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_RING, &t, 0, 1, &err) == 0);
    CHECK(s.n_phases == 2);
    for (int k = 0; k < s.n_phases; k++) {
        CHECK(s.phases[k].pipelined);
        CHECK_REL(s.phases[k].route_latency_s, 66e-6, 1e-12);
    }
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
    /* under network jitter both engines keep the ring lock-step (gcsim_ring_pipelined) */
    gcsim_platform jit = p;
    jit.jitter.mean_s = 1e-6;
    CHECK(gcsim_topology_init(&t, &jit, 16, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_RING, &t, 0, 1, &err) == 0);
    for (int k = 0; k < s.n_phases; k++)
        CHECK(!s.phases[k].pipelined);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);

    double ana, des;
    both(&p, 16, GCSIM_OP_ALLREDUCE, 8, &ana, &des);
    printf("bare ring 8 B: analytic %.3f us, DES %.3f us (hand 132)\n", ana * 1e6, des * 1e6);
    CHECK_REL(ana, 132e-6, 1e-6);
    CHECK_REL(des, ana, 1e-4);
    both(&p, 16, GCSIM_OP_ALLGATHER, 8, &ana, &des);
    printf("bare all-gather 8 B: analytic %.3f us, DES %.3f us (hand 66)\n", ana * 1e6,
           des * 1e6);
    CHECK_REL(ana, 66e-6, 1e-6);
    CHECK_REL(des, ana, 1e-4);

    /* Hops of equal latency inside and between nodes (20 us both): the closed form's count
     * (closed_ring.c, through the schedule memo as `gcsim collective` costs it) and the
     * listed rings' walk (schedule.c) give the lock-step figure, 2 (16 x 20 - 20) = 600 us */
    gcsim_platform e = two_by_eight(2, 8, 20e-6);
    double memo = 0;
    CHECK(bare_analytic_op_time(&e, 16, GCSIM_OP_ALLREDUCE, COLLECTIVE_RING, 8, &memo, &err) == 0);
    both(&e, 16, GCSIM_OP_ALLREDUCE, 8, &ana, &des);
    printf("equal hops 8 B: closed form %.3f us, listed %.3f us, DES %.3f us (hand 600)\n",
           memo * 1e6, ana * 1e6, des * 1e6);
    CHECK_REL(memo, 600e-6, 1e-6);
    CHECK_REL(ana, 600e-6, 1e-6);
    CHECK_REL(des, ana, 1e-4);

    /* NCCL's Simple ring: its overheads once along the route */
    CHECK_REL(gcsim_protocol_overhead_s(&p, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 16,
                                        GCSIM_PROTO_SIMPLE),
              36.4e-6, 1e-12);
    gcsim_platform q;
    gcsim_protocol_platform(&p, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 16, GCSIM_PROTO_SIMPLE, 30,
                            &q);
    both(&q, 16, GCSIM_OP_ALLREDUCE, 8, &ana, &des);
    printf("Simple ring 8 B: analytic %.3f us, DES %.3f us (hand 194.4)\n", ana * 1e6, des * 1e6);
    CHECK_REL(ana, 194.4e-6, 1e-6);
    CHECK_REL(des, ana, 1e-4);

    /* the network crossings per phase do not grow with the GPUs per node */
    for (int j = 2; j <= 4; j += 2)
        for (int i = 2; i <= 8; i *= 2) {
            gcsim_platform r = two_by_eight(j, i, 0);
            both(&r, j * i, GCSIM_OP_ALLREDUCE, 8, &ana, &des);
            printf("%d nodes x %d GPUs, no NVLink latency, 8 B: analytic %.3f us, DES %.3f us "
                   "(2 j x 20 = %d)\n", j, i, ana * 1e6, des * 1e6, 40 * j);
            CHECK_REL(ana, 2 * j * 20e-6, 1e-5); /* the bytes: < 1 ns */
            CHECK_REL(des, ana, 1e-4);
        }
    CHECK_DONE();
}
