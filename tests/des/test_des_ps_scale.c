/*
 * tests/des/test_des_ps_scale.c: the parameter server at 512 GPUs (64 DGX A100 nodes, the
 * stock platforms/a100-hdr.json, fat tree of 20-node leaves): N x j = 32,768 flows a phase.
 *
 * Before the group routes had a helper link per child, every flow between two nodes of a
 * leaf crossed the leaf's one helper link: as a FATPIPE link SimGrid 3.32's max-min solver
 * rescanned it for each flow it fixed (quadratic: a 448-GPU all-reduce had not finished
 * after 60 s), and as a shared link the sum of 1/latency over its flows rounded past the
 * solver's absolute precision and SimGrid aborted (signal 11 at 448 GPUs). Here the DES
 * must finish and agree with the closed form within 0.5% (it takes about 3 s).
 */
#include <stdio.h>

#include "../check.h"
#include "analytic.h"
#include "des.h"
#include "platform.h"
#include "../bare_topology.h"

#ifndef GCSIM_SOURCE_DIR
#define GCSIM_SOURCE_DIR "."
#endif

int main(void)
{
    gcsim_platform p;
    gcsim_error err;
    CHECK(gcsim_platform_load(GCSIM_SOURCE_DIR "/platforms/a100-hdr.json", &p, &err) == 0);
    const int gpus = 512;
    const double bytes = 100.0 * 1024 * 1024;
    double t = 0, closed = 0;
    gcsim_des_details d = {0};
    int rc = bare_des_collective_time(&p, gpus, COLLECTIVE_PARAMETER_SERVER, bytes, 0, NULL, &t,
                                      &d, &err);
    if (rc)
        fprintf(stderr, "des: %s\n", err.message);
    CHECK(rc == 0);
    CHECK(bare_analytic_collective_time(&p, gpus, COLLECTIVE_PARAMETER_SERVER, bytes, 0, &closed,
                                        &err) == 0);
    printf("ps, %d GPUs, 100 MiB: DES %.9f s, closed form %.9f s, %lld transfers, %.2f CPU s\n",
           gpus, t, closed, d.transfers, d.cpu_s);
    CHECK_REL(t, closed, 0.005);
    /* every GPU pushes to and pulls from each of the 64 nodes' shards */
    CHECK(d.transfers == 2LL * gpus * 64);
    gcsim_des_details_free(&d);
    CHECK_DONE();
}
