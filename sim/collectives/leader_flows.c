/*
 * sim/collectives/leader_flows.c: all-to-all flows among every GPU or one GPU per machine
 * (leader_flows.h).
 */
#include "leader_flows.h"

#include <limits.h>
#include <stdlib.h>

int gcsim_strided_all_to_all_flows(int members, int stride, gcsim_flow **out, int *n)
{
    int j = members;
    /* j (j - 1) flows: past 46,341 members that is more than a phase's int count
     * (gcsim_schedule_size_check refuses such schedules first; this keeps the product
     * from wrapping if a caller did not ask) */
    size_t flows = (size_t)j * (size_t)(j > 0 ? j - 1 : 0);
    if (flows > INT_MAX)
        return -1;
    gcsim_flow *v = malloc(sizeof *v * (flows > 0 ? flows : 1));
    if (!v)
        return -1;
    int c = 0;
    for (int a = 0; a < j; a++)
        for (int b = 0; b < j; b++)
            if (a != b)
                v[c++] = (gcsim_flow){a * stride, b * stride, 1.0 / j, 1, 0, 0};
    *out = v;
    *n = c;
    return 0;
}

int gcsim_leader_all_to_all_flows(const gcsim_topology *t, gcsim_flow **out, int *n)
{
    return gcsim_strided_all_to_all_flows(t->nodes, t->gpus_per_node, out, n);
}
