/*
 * tests/collectives/test_nccl_env_channels.c: NCCL_MIN_CTAS / NCCL_MAX_CTAS (and the
 * _NCHANNELS names) as `gcsim collective --nccl-min-channels / --nccl-max-channels` set them
 * (gcsim_platform.nccl_env): NCCL's rule for the run-time channel count (connect.cc: at most
 * the maximum, then channels copied up to the minimum, at most 64) and what it changes in
 * gcsim, the tree's chunk and so the proxy's cap on a GPU's network traffic, by hand.
 */
#include <stdio.h>

#include "../check.h"
#include "protocol.h"
#include "tuner_model.h"
#include "test_platforms.h"

int main(void)
{
    /* The rule: unset (<= 0) keeps NCCL's count; a maximum cuts, a minimum copies; the
     * maximum first, then the minimum (connect.cc "combining max, then min"); at most 64. */
    CHECK(gcsim_nccl_env_channels(16, 0, 0) == 16);
    CHECK(gcsim_nccl_env_channels(16, 24, 0) == 24);
    CHECK(gcsim_nccl_env_channels(16, 8, 0) == 16);
    CHECK(gcsim_nccl_env_channels(16, 0, 8) == 8);
    CHECK(gcsim_nccl_env_channels(16, 0, 32) == 16);
    CHECK(gcsim_nccl_env_channels(16, 24, 8) == 24);
    CHECK(gcsim_nccl_env_channels(16, 4, 8) == 8);
    CHECK(gcsim_nccl_env_channels(16, 80, 0) == 64);
    CHECK(gcsim_nccl_env_channels(0, 0, 0) == 1);

    /* Platform R: 2 nodes of 8 NVSwitch GPUs, 8 NICs; NCCL's search 8 channels, run 16.
     * Tree LL128 chunks on 2 nodes of 8 (nsteps 1 + 1 + 0.8 = 2.8: 22.4 then 5.6 chunks a
     * channel): 576,000 -> 288,000 -> 144,000 -> 72,000 at these sizes, then
     *   8 MiB, 16 channels: 8,388,608 / (16 x 72,000) = 7 >= 5.6: 72,000 B, 72 GB/s;
     *   8 MiB, 24 channels: 4 < 5.6 -> 36,000 (9: stop): 36 GB/s;
     *   4 MiB, 16 channels: 3 < 5.6 -> 36,000 (7): 36 GB/s;
     *   4 MiB,  8 channels: 7 >= 5.6: 72,000 B, 72 GB/s.
     * A chunk per 1 us post (tuner_model.c gcsim_nccl_proxy_post_Bps). */
    const double mib = 1 << 20;
    gcsim_platform r = platform_r();
    CHECK_REL(gcsim_protocol_proxy_cap_Bps(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_TREE, 16,
                                           GCSIM_PROTO_LL128, 8 * mib),
              72e9, 1e-12);
    CHECK_REL(gcsim_protocol_proxy_cap_Bps(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_TREE, 16,
                                           GCSIM_PROTO_LL128, 4 * mib),
              36e9, 1e-12);
    gcsim_platform more = r;
    more.nccl_env.min_channels = 24;
    CHECK_REL(gcsim_protocol_proxy_cap_Bps(&more, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_TREE, 16,
                                           GCSIM_PROTO_LL128, 8 * mib),
              36e9, 1e-12);
    gcsim_platform fewer = r;
    fewer.nccl_env.max_channels = 8;
    CHECK_REL(gcsim_protocol_proxy_cap_Bps(&fewer, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_TREE, 16,
                                           GCSIM_PROTO_LL128, 4 * mib),
              72e9, 1e-12);
    /* a minimum at or below NCCL's own count changes nothing */
    gcsim_platform same = r;
    same.nccl_env.min_channels = 16;
    CHECK_REL(gcsim_protocol_proxy_cap_Bps(&same, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_TREE, 16,
                                           GCSIM_PROTO_LL128, 8 * mib),
              72e9, 1e-12);

    /* The tuner's platform, which both engines run, carries the setting's cap: a forced
     * double tree LL128 of 8 MiB on 16 GPUs, proxy link 72 GB/s, with 24 channels 36. */
    gcsim_tuned t;
    gcsim_error err = {0};
    CHECK(gcsim_tuner_choose(&r, 16, GCSIM_OP_ALLREDUCE, 8 * mib, COLLECTIVE_DOUBLE_TREE,
                             GCSIM_PROTO_LL128, &t, &err) == 0);
    CHECK_REL(t.platform.nic.proxy_Bps, 72e9, 1e-12);
    CHECK(gcsim_tuner_choose(&more, 16, GCSIM_OP_ALLREDUCE, 8 * mib, COLLECTIVE_DOUBLE_TREE,
                             GCSIM_PROTO_LL128, &t, &err) == 0);
    CHECK_REL(t.platform.nic.proxy_Bps, 36e9, 1e-12);
    CHECK_DONE();
}
