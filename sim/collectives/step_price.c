/*
 * sim/collectives/step_price.c: a flow's rate in one step of a schedule, as the closed form
 * prices it (collectives.h, gcsim_flow_rate_Bps): the one definition that the closed form's
 * classes of flows (schedule_cost.c) and the DES's choice of a pipelined phase's blocks
 * (sim/des/des_blocks.c: a block grows only while one message per run keeps the time its
 * steps take priced so) both use, so the two cannot drift apart (issues 42, 47).
 */
#include <math.h>

#include "collectives.h"

double gcsim_flow_rate_Bps(const gcsim_topology *t, const int *links, int n_links,
                           const double *load, double share)
{
    double rate_Bps = INFINITY;
    for (int k = 0; k < n_links; k++)
        rate_Bps = fmin(rate_Bps,
                        gcsim_topology_capacity_Bps(t, links[k]) * (share / load[links[k]]));
    return rate_Bps;
}
