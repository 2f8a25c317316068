/*
 * tests/collectives/test_nvls_tree_chunks.c: NVLS-tree's pipeline chunk count
 * (tree_nvls.c gcsim_nvls_tree_chunks, NCCL v2.26.2-1 src/enqueue.cc calcCollChunking and
 * src/transport/nvls.cc) against hand-computed values.
 *
 * Platform R (test_platforms.h: 8 GPUs per node on NVSwitch, 8 NICs) given NVLS at
 * 274 GB/s and an H100: 16 channels x 8 heads = 128 concurrent (channel, head) pipelines.
 */
#include <string.h>

#include "../check.h"
#include "collectives.h"
#include "protocol.h"
#include "test_platforms.h"

int main(void)
{
    const double mib = 1048576.0;
    gcsim_platform p = platform_r();
    p.intra.nvls_Bps = 274e9;
    strcpy(p.gpu.type, "h100");

    /* 8 nodes (64 GPUs): chunk min(128 KiB, 64 KiB on 4+ nodes) = 64 KiB; a loop moves
     * 128 x 64 KiB = 8 MiB. 16 MiB: 2 loops; 64 MiB: 8; 4 MiB < 8 MiB halves the chunk to
     * 32 KiB: one 4 MiB loop; 8 GiB: 1024 loops, gcsim's 64-chunk cap. */
    CHECK(gcsim_nvls_tree_chunks(&p, 64, 16 * mib) == 2);
    CHECK(gcsim_nvls_tree_chunks(&p, 64, 64 * mib) == 8);
    CHECK(gcsim_nvls_tree_chunks(&p, 64, 4 * mib) == 1);
    CHECK(gcsim_nvls_tree_chunks(&p, 64, 8192 * mib) == GCSIM_PIPELINE_MAX_CHUNKS);
    CHECK(gcsim_pipeline_chunks_on(&p, 64, COLLECTIVE_NVLS_TREE, 16 * mib) == 2);

    /* 2 nodes: the chunk stays 128 KiB while S >= 4 x 128 x 128 KiB = 64 MiB: 256 MiB is
     * 16 loops of 16 MiB; below 64 MiB it is 64 KiB: 32 MiB is 4 loops of 8 MiB. */
    CHECK(gcsim_nvls_tree_chunks(&p, 16, 256 * mib) == 16);
    CHECK(gcsim_nvls_tree_chunks(&p, 16, 32 * mib) == 4);

    /* NCCL_MIN_CTAS=24 raises NVLS's channels to 24 (nvls.cc line 178): 192 pipelines of
     * 64 KiB, 12 MiB a loop: 64 MiB takes ceil(5.33) = 6 loops. */
    p.nccl_env.min_channels = 24;
    CHECK(gcsim_nvls_tree_chunks(&p, 64, 64 * mib) == 6);
    p.nccl_env.min_channels = 0;

    /* Blackwell: 32 channels (nvls.cc line 145): 256 x 64 KiB = 16 MiB a loop. */
    strcpy(p.gpu.type, "b200");
    CHECK(gcsim_nvls_tree_chunks(&p, 64, 64 * mib) == 4);
    strcpy(p.gpu.type, "h100");

    /* Where NVLS-tree does not run: one node, no NVLS; other collectives keep the tree's
     * 512 KiB chunks per tree (16 MiB double tree: 8 MiB / 512 KiB = 16). */
    CHECK(gcsim_nvls_tree_chunks(&p, 8, 16 * mib) == 0);
    CHECK(gcsim_pipeline_chunks_on(&p, 64, COLLECTIVE_DOUBLE_TREE, 16 * mib) == 16);
    gcsim_platform no_nvls = p;
    no_nvls.intra.nvls_Bps = 0;
    CHECK(gcsim_nvls_tree_chunks(&no_nvls, 64, 16 * mib) == 0);
    CHECK(gcsim_pipeline_chunks_on(&no_nvls, 64, COLLECTIVE_NVLS_TREE, 16 * mib) ==
          gcsim_pipeline_chunks(COLLECTIVE_NVLS_TREE, 16 * mib));
    CHECK_DONE();
}
