/*
 * sim/collectives/schedule_size.c: how many flows a schedule lists, and whether this
 * process can hold them, asked before building it (collectives.h).
 *
 * A listed schedule costs memory in proportion to its flows: the trees' template, the DES's
 * plan, the grouped collectives. Past what the process may allocate, building it would end
 * in "out of memory" after seconds of work, or push the machine into swap. So the builders
 * estimate first and refuse at once, naming the size and the limit.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "collectives.h"
#include "bagua_leader.h"
#include "onebit_alltoall.h"
#include "byteps_ps.h"
#include "mpi_host_allgather.h"
#include "ring_rail.h"

/* Bytes per listed flow while a schedule is built and prepared: the flow (32 B), its copy
 * while sorted or merged, its route (44 B) and the per-endpoint lists the DES reads.
 * Measured: ring 69 B, tree template 77 B, double-tree template 70 B per flow at 262,144
 * GPUs (h100-ndr with 2^20 nodes, peak RSS / flows, docs/reliability.md); rounded up. */
#define GCSIM_BYTES_PER_LISTED_FLOW 96.0

static double log2_ceil(double x)
{
    return x > 1 ? ceil(log2(x)) : 0;
}

double gcsim_schedule_listed_flows(gcsim_collective c, const gcsim_topology *t, int ps_shards,
                                   int group)
{
    double n = t->gpus, j = t->nodes, i = t->gpus_per_node;
    double rails = t->nodes > 1 ? t->nics_per_node : 1;
    double g = group > 0 ? group : n;
    if (n < 2)
        return 0;
    /* rail-aligned rings: at most one PXN relay flow more per ring and node (ring_rail.c) */
    double relays = gcsim_ring_rail_aligned(t) ? j : 0;
    switch (c) {
    case COLLECTIVE_RING: return 2 * rails * (n + relays);
    case COLLECTIVE_ALLGATHER:
    case COLLECTIVE_REDUCE_SCATTER: return g <= i ? n : rails * (n + relays);
    case COLLECTIVE_HALVING_DOUBLING: return 2 * n + 2 * n * log2_ceil(n);
    case COLLECTIVE_TREE: return 2 * rails * n;
    case COLLECTIVE_DOUBLE_TREE:
    case COLLECTIVE_NVLS_TREE: return 4 * rails * n;
    case COLLECTIVE_HIERARCHICAL: return 4 * n;
    case COLLECTIVE_HIER_REDUCE_SCATTER:
    case COLLECTIVE_CROSS_GROUP_RING: return 2 * n;
    case COLLECTIVE_PARAMETER_SERVER: return 2 * n * (ps_shards > 0 ? ps_shards : j);
    case COLLECTIVE_TERNGRAD:
    case COLLECTIVE_DGC_PAPER: return n * log2_ceil(i) + j + j * log2_ceil(j);
    case COLLECTIVE_NVLS: return n;
    case COLLECTIVE_BAGUA_LEADER: return gcsim_bagua_leader_flows(t);
    case COLLECTIVE_BYTEPS_PS: return gcsim_byteps_ps_flows(t);
    case COLLECTIVE_MPI_HOST_ALLGATHER: return gcsim_mpi_host_allgather_flows(t);
    case COLLECTIVE_ONEBIT_ALLTOALL: return gcsim_onebit_alltoall_flows(t) + rails * (n + relays);
    case COLLECTIVE_COUNT: break;
    }
    return n;
}

/* What the process may still allocate: physical memory less what it holds (resident), or
 * less under an address-space limit (ulimit -v) once what it maps already is taken off.
 * What it holds counts: the schedule memo keeps a tree template (2 GiB at 2^20 GPUs) while
 * another is built (issue 45). */
static double allocatable_bytes(const char **what)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double mapped = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long vm_pages, rss_pages;
    if (f && fscanf(f, "%lu %lu", &vm_pages, &rss_pages) == 2 && page > 0) {
        mapped = (double)vm_pages * (double)page;
        resident = (double)rss_pages * (double)page;
    }
    if (f)
        fclose(f);
    double budget = pages > 0 && page > 0 ? (double)pages * (double)page - resident : INFINITY;
    if (budget < 0)
        budget = 0;
    *what = "the machine's memory less what gcsim holds already";
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        double left = (double)rl.rlim_cur - mapped;
        if (left < budget) {
            budget = left > 0 ? left : 0;
            *what = "the address-space limit (ulimit -v) less what gcsim maps already";
        }
    }
    return budget;
}

int gcsim_schedule_size_check(gcsim_collective c, const gcsim_topology *t, int ps_shards,
                              int group, gcsim_error *err)
{
    double flows = gcsim_schedule_listed_flows(c, t, ps_shards, group);
    /* a phase counts its flows in an int: more than that is refused whatever the memory
     * (a host with 200+ GiB free would otherwise build past the count) */
    if (flows > INT_MAX)
        return gcsim_fail_limit(err, "%s: the %s schedule of %d GPUs lists about %.3g flows, "
                                "more than one schedule can index (%d); the analytic engine "
                                "costs ring, all-gather, halving-doubling, hierarchical and "
                                "ps without listing flows",
                                t->platform->source_path, gcsim_collective_name(c), t->gpus,
                                flows, INT_MAX);
    double need = flows * GCSIM_BYTES_PER_LISTED_FLOW;
    const char *what;
    double budget = allocatable_bytes(&what);
    if (need <= budget)
        return 0;
    return gcsim_fail_limit(err, "%s: the %s schedule of %d GPUs lists about %.3g flows, about %.1f GiB "
                           "while it is built, more than the %.1f GiB this process may allocate "
                           "(%s); the analytic engine costs ring, all-gather, halving-doubling, "
                           "hierarchical and ps without listing flows",
                      t->platform->source_path, gcsim_collective_name(c), t->gpus, flows,
                      need / 1073741824.0, budget / 1073741824.0, what);
}
