/*
 * sim/collectives/closed_form.c: which collectives have flow-free classes, and preparing
 * one (closed_form.h); the pieces the closed_*.c files share are closed_classes.c's.
 */
#include "closed_form.h"

bool gcsim_closed_form_covers(gcsim_collective c, int group)
{
    switch (c) {
    case COLLECTIVE_RING:
    case COLLECTIVE_HALVING_DOUBLING:
    case COLLECTIVE_HIERARCHICAL:
    case COLLECTIVE_PARAMETER_SERVER: return group == 0;
    case COLLECTIVE_ALLGATHER: return true; /* any group: the group builder delegates at 0 */
    case COLLECTIVE_REDUCE_SCATTER:
    case COLLECTIVE_HIER_REDUCE_SCATTER: return true;
    default: return false;
    }
}

bool gcsim_closed_form_preferred(gcsim_collective c, const gcsim_topology *t, int ps_shards,
                                 int group)
{
    if (!gcsim_closed_form_covers(c, group))
        return false;
    /* The classes here know the flat node only: transports' and PCIe topology's links are
     * costed flow by flow (topology.c). */
    if (gcsim_platform_has_transport_links(t->platform))
        return false;
    /* nor rail-optimized leaves (a leaf per NIC rail): costed flow by flow over the routes */
    if (gcsim_topology_rail_placed(t))
        return false;
    if (c != COLLECTIVE_PARAMETER_SERVER)
        return true;
    return gcsim_schedule_listed_flows(c, t, ps_shards, group) > GCSIM_CLOSED_FORM_PS_FLOWS_MIN;
}

int gcsim_closed_form_prepare(gcsim_schedule *s, gcsim_collective c, const gcsim_topology *t,
                              int ps_shards, int group, gcsim_error *err)
{
    bool grouped = c == COLLECTIVE_ALLGATHER || c == COLLECTIVE_REDUCE_SCATTER ||
                   c == COLLECTIVE_HIER_REDUCE_SCATTER;
    if (!gcsim_closed_form_covers(c, group) || (grouped && group != 0 && group != t->gpus) ||
        gcsim_platform_has_transport_links(t->platform) || gcsim_topology_rail_placed(t))
        return 1; /* groups smaller than all GPUs, transport links, rail leaves: flow by flow */
    gcsim_closed_init(s, c, t);
    int rc = 0;
    if (t->gpus > 1) {
        switch (c) {
        case COLLECTIVE_RING: rc = gcsim_closed_ring(s, t, GCSIM_RING_ALLREDUCE); break;
        case COLLECTIVE_ALLGATHER:
            s->decodes = t->gpus - 1;
            rc = gcsim_closed_ring(s, t, GCSIM_RING_ALLGATHER);
            break;
        case COLLECTIVE_REDUCE_SCATTER:
            rc = gcsim_closed_ring(s, t, GCSIM_RING_REDUCE_SCATTER);
            break;
        case COLLECTIVE_HALVING_DOUBLING: rc = gcsim_closed_halving_doubling(s, t); break;
        case COLLECTIVE_HIERARCHICAL: rc = gcsim_closed_hierarchical(s, t, false); break;
        case COLLECTIVE_HIER_REDUCE_SCATTER: rc = gcsim_closed_hierarchical(s, t, true); break;
        case COLLECTIVE_PARAMETER_SERVER: rc = gcsim_closed_ps(s, t, ps_shards); break;
        default: rc = 1; break;
        }
    }
    if (c == COLLECTIVE_PARAMETER_SERVER && t->gpus > 1)
        s->endpoints = t->gpus + t->nodes;
    if (c == COLLECTIVE_HIER_REDUCE_SCATTER || c == COLLECTIVE_REDUCE_SCATTER)
        s->group = group;
    if (rc != 0) {
        gcsim_schedule_free(s);
        if (rc < 0)
            return gcsim_fail(err, "out of memory preparing the %s schedule for %d GPUs",
                              gcsim_collective_name(c), t->gpus);
    }
    return rc;
}
