/* Background load and ECMP spines on the DES's links (des_fabric.h). */
#include "des_fabric.h"

#include <math.h>

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

/* splitmix64 (Steele, Lea, Flood 2014): a full-avalanche mix, so that consecutive endpoints
 * get independent, uniform spines. */
static unsigned long long mix64(unsigned long long z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

int des_fabric_spine(unsigned long long seed, int endpoint, int direction, int spines)
{
    if (spines <= 1)
        return 0;
    unsigned long long h = mix64(mix64(seed) ^ (2ULL * (unsigned long long)endpoint +
                                                (unsigned long long)direction));
    return (int)(h % (unsigned long long)spines);
}

double des_fabric_jitter_s(unsigned long long seed, double mean_s, int iteration, int endpoint,
                           int lane, long long k)
{
    if (!(mean_s > 0))
        return 0;
    unsigned long long h = mix64(seed);
    h = mix64(h ^ (unsigned long long)(unsigned)iteration);
    h = mix64(h ^ ((unsigned long long)(unsigned)endpoint << 20 ^ (unsigned long long)(unsigned)lane));
    h = mix64(h ^ (unsigned long long)k);
    double u = (double)(h >> 11) * 0x1.0p-53; /* [0, 1) */
    return -mean_s * log1p(-u);
}
