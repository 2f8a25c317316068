/*
 * sim/collectives/ring_route.c: a ring's latency, one chunk's route (collectives.h,
 * gcsim_ring_route_s; docs/collectives.md, "A ring's latency").
 *
 * NCCL's ring keeps NCCL_STEPS (8) slots in flight per connection (src/include/device.h),
 * so a rank forwards a chunk as soon as it has arrived and does not wait for the latency
 * of its previous send: a small message takes the latency of one chunk's route around the
 * ring, and a large one the bandwidth-bound occupancy of its steps. NCCL's own model says
 * the same: a ring's latency is its base plus one latency per hop of the route, nsteps of
 * them, nInterSteps of them across nodes (v2.21.5-1 src/graph/tuning.cc, the ring entry
 * of ncclTopoTuneModel), not a network latency per step. A chunk of a ring phase of N - 1
 * steps crosses N - 1 consecutive hops of the N-hop cycle: the cycle less one hop, the
 * worst start leaving out the shortest.
 */
#include "collectives.h"

int gcsim_ring_route_add(double *value_s, long long *count, int *n, double x, long long times)
{
    for (int k = 0; k < *n; k++)
        if (value_s[k] == x) {
            count[k] += times;
            return 0;
        }
    if (*n >= GCSIM_RING_ROUTE_VALUES)
        return -1;
    value_s[*n] = x;
    count[*n] = times;
    (*n)++;
    return 0;
}

double gcsim_ring_route_s(const double *value_s, const long long *count, int n)
{
    /* ascending order of value, by selection: at most GCSIM_RING_ROUTE_VALUES values */
    bool used[GCSIM_RING_ROUTE_VALUES] = {false};
    double total = 0, smallest = 0;
    for (int done = 0; done < n; done++) {
        int m = -1;
        for (int k = 0; k < n; k++)
            if (!used[k] && count[k] > 0 && (m < 0 || value_s[k] < value_s[m]))
                m = k;
        if (m < 0)
            break;
        used[m] = true;
        if (done == 0)
            smallest = value_s[m];
        total = gcsim_add_repeated(total, value_s[m], count[m]);
    }
    return total - smallest;
}

bool gcsim_ring_pipelined(const gcsim_topology *t)
{
    /* Under network jitter both engines keep a ring lock-step: the DES draws a delay per
     * message and step, a step's receivers waiting for their last message (docs/des.md,
     * "Network jitter"), and the analytic engine adds the expected largest draw per step
     * (fabric_expect.h); a pipelined ring's draws would need NCCL's slices as messages. */
    return !(t->platform->jitter.mean_s > 0);
}
