/*
 * tests/collectives/test_byteps_ps.c: BytePS's push/pull of compressed partitions
 * (sim/collectives/byteps_ps.c) against hand-computed costs on platform U (4 nodes x 4
 * GPUs; GPU ports 10 GB/s, 5 us; one 125e6 B/s NIC per node, 50 us; test_platforms.h):
 * the fp32 ring reduce-scatter and all-gather in the machine, each GPU's fp32 share copied
 * to host memory and back over its PCIe link (12.5 GB/s), the compressed payload only on
 * push and pull, the servers' hop codec on the push alone; one machine.
 */
#include <string.h>

#include "../check.h"
#include "collectives.h"
#include "test_platforms.h"

/* A 100 MB fp32 partition as an 8-bit per-worker-scale payload of 25 MB, codec 4 + 2 ms. */
static gcsim_bucket_bytes bucket(void)
{
    return (gcsim_bucket_bytes){.dense_bytes = 1e8, .payload_bytes = 2.5e7,
                                .aggregation = PAYLOAD_PER_WORKER_SCALE, .compressed = true,
                                .encode_s = 4e-3, .decode_s = 2e-3};
}

int main(void)
{
    gcsim_platform p = platform_u();
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    CHECK(gcsim_topology_init(&t, &p, 16, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_BYTEPS_PS, &t, 0, 1, &err) == 0);
    CHECK(s.n_phases == 6 && s.decodes == 1 && s.endpoints == 20);
    if (s.n_phases == 6) {
        const char *names[6] = {"machine reduce-scatter", "copy to host", "push", "pull",
                                "copy to device", "machine all-gather"};
        for (int ph = 0; ph < 6; ph++) {
            CHECK(strcmp(s.phases[ph].name, names[ph]) == 0);
            CHECK(s.phases[ph].n_flows == 16 || s.phases[ph].n_flows == 12);
            CHECK(s.phases[ph].uncompressed == (ph != 2 && ph != 3));
        }
        CHECK(s.phases[0].steps == 3 && s.phases[1].steps == 1 && s.phases[2].steps == 1);
        /* the copies: every GPU and its machine's host memory (endpoint 16 + machine) */
        for (int f = 0; f < s.phases[1].n_flows; f++) {
            const gcsim_flow *d2h = &s.phases[1].flows[f], *h2d = &s.phases[4].flows[f];
            CHECK(d2h->src < 16 && d2h->dst == 16 + d2h->src / 4 && d2h->share == 0.25);
            CHECK(h2d->dst < 16 && h2d->src == 16 + h2d->dst / 4 && h2d->share == 0.25);
        }
        gcsim_bucket_bytes c = bucket();
        /* ring in the machine: 3 steps of 1e8 / 4 over a 10 GB/s port: 3 x (5 us + 2.5 ms),
         * twice; each GPU's quarter to the host and back: 5 us + 2.5e7 / 12.5e9, twice;
         * push and pull: each machine sends 3 chunks of 25e6 / 4 through its NIC:
         * 50 us + 3 x 6.25e6 / 125e6 = 150.05 ms, twice; the servers decode, sum and
         * re-encode a quarter: 0.25 x 6 ms = 1.5 ms. */
        CHECK_REL(gcsim_hop_codec_s(&s.phases[2], &c, 0.25), 1.5e-3, 1e-15);
        CHECK(gcsim_hop_codec_s(&s.phases[1], &c, 0.25) == 0);
        CHECK(gcsim_hop_codec_s(&s.phases[3], &c, 0.25) == 0);
        double expect = 2 * 3 * (5e-6 + 2.5e7 / 10e9) + 2 * (5e-6 + 2.5e7 / 12.5e9) +
                        2 * (50e-6 + 3 * 6.25e6 / 125e6) + 1.5e-3;
        CHECK_REL(gcsim_schedule_time_s(&s, &t, &c), expect, 1e-12);
        CHECK(gcsim_schedule_prepare(&s, &t) == 0);
        CHECK_REL(gcsim_schedule_prepared_time_s(&s, &c), expect, 1e-12);
    }
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);

    /* one machine: the fp32 ring alone, no compressed byte moves, nothing to the host */
    CHECK(gcsim_topology_init(&t, &p, 4, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_BYTEPS_PS, &t, 0, 1, &err) == 0);
    CHECK(s.n_phases == 2);
    gcsim_bucket_bytes c = bucket();
    CHECK_REL(gcsim_schedule_time_s(&s, &t, &c), 2 * 3 * (5e-6 + 2.5e7 / 10e9), 1e-12);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
    CHECK_DONE();
}
