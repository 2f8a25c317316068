/* The GPU counts of gcsim plan's default search (plan_search.h). */
#include "plan_search.h"

static int push(int *counts, int *n, int max_counts, long long g)
{
    if (*n >= max_counts)
        return -1;
    counts[(*n)++] = (int)g;
    return 0;
}

int plan_default_counts(long long capacity_gpus, int gpus_per_node, bool whole_nodes,
                        int *counts, int max_counts)
{
    if (capacity_gpus < 1 || gpus_per_node < 1)
        return 0;
    int n = 0;
    long long exact = capacity_gpus < PLAN_EXACT_GPUS ? capacity_gpus : PLAN_EXACT_GPUS;
    for (long long g = 1; g <= exact; g++)
        if (!whole_nodes || g <= gpus_per_node || g % gpus_per_node == 0)
            if (push(counts, &n, max_counts, g))
                return -1;
    /* The grid starts at the last whole-node count searched exactly. */
    long long g = exact / gpus_per_node * gpus_per_node;
    while (g < capacity_gpus) {
        long long step = (long long)((double)g * PLAN_GRID_REL);
        step = step / gpus_per_node * gpus_per_node;
        if (step < gpus_per_node)
            step = gpus_per_node;
        g = g + step < capacity_gpus ? g + step : capacity_gpus;
        if (g > exact && push(counts, &n, max_counts, g))
            return -1;
    }
    return n;
}
