/*
 * tests/des/test_des_smpi.c: validation (2) of issue 5. The engine's ring and recursive
 * halving-doubling all-reduce agree within 5% with SimGrid's own MPI (SMPI) running its
 * algorithms "lr" (logical ring: reduce-scatter then all-gather, SimGrid's
 * src/smpi/colls/allreduce/allreduce-lr.cpp) and "rab_rdb" (Rabenseifner: recursive halving
 * reduce-scatter then recursive doubling all-gather, allreduce-rab-rdb.cpp) on the same
 * generated platform, at 16 and 64 ranks, 1 MiB to 256 MiB.
 *
 * Both sides use the same network model: smpirun's default network/model:SMPI (with its
 * piecewise smpi/bw-factor and smpi/lat-factor) is overridden with the engine's default
 * "alpha-beta" model (CM02 without TCP window bound or cross-traffic), so that both see
 * the platform's figures unchanged;
 * smpi/simulate-computation:no keeps host CPU time of the MPI code out of the simulated time.
 *
 * 1 MiB: a tiny MPI program (smpi_allreduce.c) compiled with smpicc now, at test time.
 * 256 MiB: SMPI's time-independent trace replay (one "allreduce BYTES" action per
 * rank; smpirun -replay, same collective code) because the compiled program would make SMPI
 * copy and page in gigabytes of buffers (64 ranks x 256 MiB), which takes minutes and
 * memory this shared machine does not have. docs/des.md explains.
 *
 * Usage: test_des_smpi SOURCE.c WORKDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "des.h"
#include "des_test_platform.h"
#include "../bare_topology.h"

static char dir[512];

/* Runs a shell command, returns the first number after `marker` in its output (or the
 * last line's number when marker is NULL); -1 on failure. */
static double run_and_read(const char *cmd, const char *marker)
{
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    char line[1024];
    double value = -1;
    while (fgets(line, sizeof line, f)) {
        if (marker) {
            const char *m = strstr(line, marker);
            if (m)
                value = atof(m + strlen(marker));
        } else {
            char *end;
            double v = strtod(line, &end);
            if (end != line)
                value = v;
        }
    }
    int status = pclose(f);
    return status == 0 ? value : -1;
}

static double smpi_compiled(int ranks, const char *alg, long bytes)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "smpirun -np %d -platform %s/platform.xml -hostfile %s/hosts -no-privatize "
             "--cfg=network/model:CM02 --cfg=network/TCP-gamma:0 --cfg=network/crosstraffic:0 --cfg=smpi/simulate-computation:no "
             "--cfg=smpi/allreduce:%s --log=root.thres:critical %s/smpi_allreduce %ld 2>/dev/null",
             ranks, dir, dir, alg, dir, bytes);
    return run_and_read(cmd, NULL);
}

static double smpi_replay(int ranks, const char *alg, long bytes)
{
    char path[700], cmd[2048];
    snprintf(path, sizeof path, "%s/index%d", dir, ranks);
    FILE *index = fopen(path, "w");
    if (!index)
        return -1;
    for (int r = 0; r < ranks; r++) {
        snprintf(path, sizeof path, "%s/trace%d_%d", dir, ranks, r);
        FILE *t = fopen(path, "w");
        if (!t) {
            fclose(index);
            return -1;
        }
        /* counts are bytes: the replay's default datatype is MPI_BYTE */
        fprintf(t, "%d init\n%d allreduce %ld 0\n%d finalize\n", r, r, bytes, r);
        fclose(t);
        fprintf(index, "%s\n", path);
    }
    fclose(index);
    snprintf(cmd, sizeof cmd,
             "smpirun -np %d -platform %s/platform.xml -hostfile %s/hosts -no-privatize "
             "--cfg=network/model:CM02 --cfg=network/TCP-gamma:0 --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:%s --log=root.thres:critical "
             "--log=smpi_replay.thres:verbose --log=root.fmt:%%m%%n -replay %s/index%d 2>&1",
             ranks, dir, dir, alg, dir, ranks);
    return run_and_read(cmd, "Simulation time ");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s SOURCE.c WORKDIR\n", argv[0]);
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[2]);
    gcsim_platform p = des_test_platform(64, 1);
    gcsim_error err;
    char path[700], cmd[2048];
    snprintf(path, sizeof path, "%s/platform.xml", dir);
    CHECK(bare_des_write_platform(&p, 64, path, &err) == 0);
    snprintf(path, sizeof path, "%s/hosts", dir);
    FILE *hosts = fopen(path, "w");
    CHECK(hosts != NULL);
    if (!hosts)
        CHECK_DONE();
    for (int g = 0; g < 64; g++)
        fprintf(hosts, "g%d\n", g);
    fclose(hosts);
    snprintf(cmd, sizeof cmd, "smpicc -O1 -o %s/smpi_allreduce %s 2>&1", dir, argv[1]);
    int rc = system(cmd);
    CHECK(rc == 0);
    if (rc != 0)
        CHECK_DONE();

    const int ranks[] = {16, 64};
    const struct {
        long bytes;
        int replay;
    } sizes[] = {{1L << 20, 0}, {256L << 20, 1}};
    const struct {
        gcsim_collective ours;
        const char *smpi;
    } algs[] = {{COLLECTIVE_RING, "lr"}, {COLLECTIVE_HALVING_DOUBLING, "rab_rdb"}};

    for (size_t ri = 0; ri < 2; ri++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            for (size_t ai = 0; ai < 2; ai++) {
                double ours = -1;
                CHECK(bare_des_collective_time(&p, ranks[ri], algs[ai].ours,
                                               (double)sizes[si].bytes, 0, NULL, &ours, NULL,
                                               &err) == 0);
                double smpi = sizes[si].replay
                                  ? smpi_replay(ranks[ri], algs[ai].smpi, sizes[si].bytes)
                                  : smpi_compiled(ranks[ri], algs[ai].smpi, sizes[si].bytes);
                printf("%2d ranks %10ld B %-8s gcsim %.6e s  SMPI %.6e s (%s)  diff %+.2f%%\n",
                       ranks[ri], sizes[si].bytes, algs[ai].smpi, ours, smpi,
                       sizes[si].replay ? "replay" : "smpicc", 100 * (ours - smpi) / smpi);
                CHECK(smpi > 0);
                CHECK_REL(ours, smpi, 0.05);
            }
        }
    CHECK_DONE();
}
