/*
 * tests/collectives/test_mpi_host_allgather.c: Horovod's all-gather staged through host
 * memory and run by OpenMPI (sim/collectives/mpi_host_allgather.c) against hand-computed
 * costs on platform U (4 nodes x 4 GPUs; PCIe to host memory 12.5 GB/s, 5 us; one
 * 125e6 B/s NIC per node, 50 us; test_platforms.h), for a payload of 1e6 B per GPU:
 *   - every GPU copies its payload to host memory: 5 us + 1e6 / 12.5e9 = 85 us;
 *   - OpenMPI's neighbor exchange among 16 ranks (8 steps; ranks 4m .. 4m + 3 on machine
 *     m): step 0 and the even steps pair 2k with 2k + 1, inside a machine (shared memory,
 *     not charged); the 4 odd steps pair 2k - 1 with 2k, so ranks 4m + 3 and 4m send 2
 *     blocks each to the next and the previous machine: 4e6 B through each NIC a step,
 *     50 us + 4e6 / 125e6 = 32.05 ms, 4 times;
 *   - every GPU copies the 16 gathered payloads back: 5 us + 16e6 / 12.5e9 = 1.285 ms.
 * An odd rank count runs the ring (5 ranks, 4 steps: rank 3 to 4 and 4 to 0 cross, one
 * block each, 50 us + 8 ms a step); one machine copies only.
 */
#include <string.h>

#include "../check.h"
#include "collectives.h"
#include "mpi_host_allgather.h"
#include "test_platforms.h"

static gcsim_bucket_bytes bucket(void)
{
    return (gcsim_bucket_bytes){.dense_bytes = 1e6, .payload_bytes = 1e6,
                                .aggregation = PAYLOAD_DENSE_SUMMABLE};
}

static double cost(const gcsim_platform *p, int gpus, int phases)
{
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    gcsim_bucket_bytes b = bucket();
    CHECK(gcsim_topology_init(&t, p, gpus, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_MPI_HOST_ALLGATHER, &t, 0, 1, &err) == 0);
    CHECK(s.n_phases == phases && s.decodes == gpus - 1 && s.endpoints == gpus + t.nodes);
    double a = gcsim_schedule_time_s(&s, &t, &b);
    CHECK(gcsim_schedule_prepare(&s, &t) == 0);
    CHECK_REL(gcsim_schedule_prepared_time_s(&s, &b), a, 1e-12);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
    return a;
}

int main(void)
{
    gcsim_platform p = platform_u();
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    CHECK(strcmp(gcsim_collective_name(COLLECTIVE_MPI_HOST_ALLGATHER), "mpi-host-allgather") == 0);
    CHECK(gcsim_collective_exchange(COLLECTIVE_MPI_HOST_ALLGATHER) == GCSIM_EXCHANGE_ALLGATHER);
    CHECK(gcsim_mpi_host_allgather_steps(2) == 1 && gcsim_mpi_host_allgather_steps(16) == 8 &&
          gcsim_mpi_host_allgather_steps(5) == 4 && gcsim_mpi_host_allgather_steps(1) == 0);
    CHECK(gcsim_topology_init(&t, &p, 16, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_MPI_HOST_ALLGATHER, &t, 0, 1, &err) == 0);
    CHECK(s.n_phases == 3);
    if (s.n_phases == 3) {
        const char *names[3] = {"copy to host", "mpi all-gather", "copy to device"};
        for (int ph = 0; ph < 3; ph++)
            CHECK(strcmp(s.phases[ph].name, names[ph]) == 0 && !s.phases[ph].reduce);
        CHECK(s.phases[1].steps == 8 && s.phases[1].n_flows == 4 * 2 * 4);
        for (int f = 0; f < s.phases[0].n_flows; f++) {
            const gcsim_flow *d2h = &s.phases[0].flows[f], *h2d = &s.phases[2].flows[f];
            CHECK(d2h->src < 16 && d2h->dst == 16 + d2h->src / 4 && d2h->share == 1.0);
            CHECK(h2d->dst < 16 && h2d->src == 16 + h2d->dst / 4 && h2d->share == 16.0);
        }
        for (int f = 0; f < s.phases[1].n_flows; f++) {
            const gcsim_flow *x = &s.phases[1].flows[f];
            int a = x->src - 16, b = x->dst - 16;
            CHECK(x->src >= 16 && x->dst >= 16 && x->share == 2.0 && x->k0 == 1);
            CHECK(x->first_step == x->last_step && x->first_step % 2 == 1);
            CHECK(b == (a + 1) % 4 || b == (a + 3) % 4);
        }
    }
    CHECK(gcsim_schedule_listed_flows(COLLECTIVE_MPI_HOST_ALLGATHER, &t, 0, 0) >= 64);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);

    double copies = 5e-6 + 1e6 / 12.5e9;
    CHECK_REL(cost(&p, 16, 3), copies + 4 * (50e-6 + 4e6 / 125e6) + 5e-6 + 16e6 / 12.5e9, 1e-12);
    /* 5 ranks, the ring: 4 steps of one block out of each machine */
    CHECK_REL(cost(&p, 5, 3), copies + 4 * (50e-6 + 1e6 / 125e6) + 5e-6 + 5e6 / 12.5e9, 1e-12);
    /* one machine: the copies only (the exchange is shared memory) */
    CHECK_REL(cost(&p, 4, 2), copies + 5e-6 + 4e6 / 12.5e9, 1e-12);
    CHECK_DONE();
}
