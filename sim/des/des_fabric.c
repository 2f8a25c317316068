/* Background load on the DES's links (des_fabric.h). */
#include "des_fabric.h"

double des_fabric_capacity_Bps(const gcsim_topology *t, int l, bool nic)
{
    double c = gcsim_topology_capacity_Bps(t, l);
    const gcsim_platform *p = t->platform;
    double f = p->background.fraction;
    int cls = nic ? GCSIM_BACKGROUND_NICS : GCSIM_BACKGROUND_LEAF_UPLINKS;
    if (f > 0 && f < 1 && p->background.links == cls)
        c *= 1.0 - f;
    return c;
}
