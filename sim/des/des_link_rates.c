/*
 * sim/des/des_link_rates.c: which links of the DES's platform the timeline shows as shared
 * (des_link_rates.h), named as des_platform.c names them: "L<id>" for a topology link,
 * "S<leaf><u|d><spine>" for an ECMP spine link.
 */
#include "des_link_rates.h"

#include <stdlib.h>

#include "collectives.h"
#include "des_fabric.h"

/* A leaf's uplink (d 0) or downlink (d 1), as the topology numbers them (a node's leaf, or
 * a rail leaf of a rail-optimized tree). */
static int leaf_link(const gcsim_topology *t, int l, int d)
{
    return gcsim_topology_leaf_link(t, l, d);
}

/* Node k's NIC r link, out (d 0) or in (d 1): the first NIC link of the rail's first GPU's
 * route to another node's CPU, the last one back (des_platform.c, nic_link). */
static int nic_link(const gcsim_topology *t, int k, int r, int d)
{
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat;
    int other = t->gpus + (k + 1) % t->nodes;
    int gpu = k * t->gpus_per_node + r * (t->gpus_per_node / t->nics_per_node);
    if (gpu >= t->gpus)
        return -1;
    int n = d == 0 ? gcsim_topology_route(t, gpu, other, links, &lat)
                   : gcsim_topology_route(t, other, gpu, links, &lat);
    for (int x = 0; x < n; x++)
        if (gcsim_topology_is_nic_link(t, links[d == 0 ? x : n - 1 - x]))
            return links[d == 0 ? x : n - 1 - x];
    return -1;
}

static int add(des_shared_link **out, int *n, int *cap, const char *name, const char *label,
               double background_Bps)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        des_shared_link *p = realloc(*out, sizeof *p * (size_t)c);
        if (!p)
            return -1;
        *out = p;
        *cap = c;
    }
    des_shared_link *s = &(*out)[(*n)++];
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->label, sizeof s->label, "%s", label);
    s->background_Bps = background_Bps;
    return 0;
}

int des_shared_links(const void *topology, des_shared_link **out)
{
    const gcsim_topology *t = topology;
    const gcsim_platform *p = t->platform;
    double f = p->background.fraction > 0 && p->background.fraction < 1 ? p->background.fraction : 0;
    double f_leaf = p->background.links == GCSIM_BACKGROUND_LEAF_UPLINKS ? f : 0;
    double f_nic = p->background.links == GCSIM_BACKGROUND_NICS ? f : 0;
    int n = 0, cap = 0, spines = p->ecmp.spines;
    *out = NULL;
    char name[32], label[64];
    /* a fat tree's leaf links (a single leaf has no route across leaves: none) */
    for (int l = 0; t->leaves > 1 && l < t->leaves; l++)
        for (int d = 0; d < 2; d++) {
            int ll = leaf_link(t, l, d);
            double c = gcsim_topology_capacity_Bps(t, ll);
            if (spines > 0) {
                for (int s = 0; s < spines; s++) {
                    snprintf(name, sizeof name, "S%d%c%d", l, d ? 'd' : 'u', s);
                    if (d == 0)
                        snprintf(label, sizeof label, "leaf %d to spine %d", l, s);
                    else
                        snprintf(label, sizeof label, "spine %d to leaf %d", s, l);
                    if (add(out, &n, &cap, name, label, f_leaf * c / spines))
                        goto oom;
                }
            } else {
                snprintf(name, sizeof name, "L%d", ll);
                snprintf(label, sizeof label, "leaf %d %s", l, d ? "downlink" : "uplink");
                if (add(out, &n, &cap, name, label, f_leaf * c))
                    goto oom;
            }
        }
    /* the NICs, when the background load is on them */
    for (int k = 0; f_nic > 0 && k < t->nodes; k++)
        for (int r = 0; r < t->nics_per_node; r++)
            for (int d = 0; d < 2; d++) {
                int l = nic_link(t, k, r, d);
                if (l < 0)
                    continue;
                snprintf(name, sizeof name, "L%d", l);
                snprintf(label, sizeof label, "node %d NIC %d %s", k, r, d ? "in" : "out");
                if (add(out, &n, &cap, name, label, f_nic * gcsim_topology_capacity_Bps(t, l)))
                    goto oom;
            }
    return n;
oom:
    free(*out);
    *out = NULL;
    return -1;
}
