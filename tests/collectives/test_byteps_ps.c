/*
 * tests/collectives/test_byteps_ps.c: BytePS's push/pull of compressed partitions
 * (sim/collectives/byteps_ps.c) against hand-computed costs on platform U (4 nodes x 4
 * GPUs; GPU ports 10 GB/s, 5 us; one 125e6 B/s NIC per node, 50 us; test_platforms.h):
 * the fp32 ring reduce-scatter and all-gather in the machine, the compressed payload only
 * on push and pull, the servers' hop codec on the push alone; one machine.
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
    CHECK(s.n_phases == 4 && s.decodes == 1);
    if (s.n_phases == 4) {
        const char *names[4] = {"machine reduce-scatter", "push", "pull", "machine all-gather"};
        for (int ph = 0; ph < 4; ph++) {
            CHECK(strcmp(s.phases[ph].name, names[ph]) == 0);
            CHECK(s.phases[ph].n_flows == 16 || s.phases[ph].n_flows == 12);
            CHECK(s.phases[ph].uncompressed == (ph == 0 || ph == 3));
        }
        CHECK(s.phases[0].steps == 3 && s.phases[1].steps == 1);
        gcsim_bucket_bytes c = bucket();
        /* ring in the machine: 3 steps of 1e8 / 4 over a 10 GB/s port: 3 x (5 us + 2.5 ms),
         * twice; push and pull: each machine sends 3 chunks of 25e6 / 4 through its NIC:
         * 50 us + 3 x 6.25e6 / 125e6 = 150.05 ms, twice; the servers decode, sum and
         * re-encode a quarter: 0.25 x 6 ms = 1.5 ms. */
        CHECK_REL(gcsim_hop_codec_s(&s.phases[1], &c, 0.25), 1.5e-3, 1e-15);
        CHECK(gcsim_hop_codec_s(&s.phases[2], &c, 0.25) == 0);
        double expect = 2 * 3 * (5e-6 + 2.5e7 / 10e9) + 2 * (50e-6 + 3 * 6.25e6 / 125e6) + 1.5e-3;
        CHECK_REL(gcsim_schedule_time_s(&s, &t, &c), expect, 1e-12);
        CHECK(gcsim_schedule_prepare(&s, &t) == 0);
        CHECK_REL(gcsim_schedule_prepared_time_s(&s, &c), expect, 1e-12);
    }
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);

    /* one machine: the fp32 ring alone, no compressed byte moves */
    CHECK(gcsim_topology_init(&t, &p, 4, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_BYTEPS_PS, &t, 0, 1, &err) == 0);
    CHECK(s.n_phases == 2);
    gcsim_bucket_bytes c = bucket();
    CHECK_REL(gcsim_schedule_time_s(&s, &t, &c), 2 * 3 * (5e-6 + 2.5e7 / 10e9), 1e-12);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
    CHECK_DONE();
}
