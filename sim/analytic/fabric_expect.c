/* The analytic engine's expected ECMP collisions and network jitter (fabric_expect.h). */
#include "fabric_expect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double gcsim_harmonic(long long n)
{
    if (n <= 0)
        return 0;
    if (n <= 1000) {
        double h = 0;
        for (long long k = n; k >= 1; k--) /* smallest terms first */
            h += 1.0 / (double)k;
        return h;
    }
    /* ln n + gamma + 1/(2n) - 1/(12 n^2): error below 1/(120 n^4), under 1e-14 here */
    double x = (double)n;
    return log(x) + 0.57721566490153286061 + 0.5 / x - 1.0 / (12.0 * x * x);
}

double gcsim_jitter_harmonic_steps(const gcsim_schedule *s)
{
    double sum = 0;
    for (int p = 0; p < s->n_phases; p++) {
        const gcsim_phase *ph = &s->phases[p];
        if (ph->steps <= 0 || ph->n_flows <= 0)
            continue;
        /* messages per step: +1 at a flow's first step, -1 after its last */
        long long *d = calloc((size_t)ph->steps + 1, sizeof *d);
        if (!d)
            return NAN;
        for (int f = 0; f < ph->n_flows; f++) {
            int a = ph->flows[f].first_step, b = ph->flows[f].last_step;
            if (a < 0)
                a = 0;
            if (b >= ph->steps)
                b = ph->steps - 1;
            if (a > b)
                continue;
            d[a]++;
            d[b + 1]--;
        }
        long long n = 0, last_n = -1;
        double last_h = 0;
        for (int k = 0; k < ph->steps; k++) {
            n += d[k];
            if (n != last_n) { /* most phases have as many messages in every step */
                last_n = n;
                last_h = gcsim_harmonic(n);
            }
            sum += last_h;
        }
        free(d);
    }
    return sum;
}

int gcsim_ecmp_expect(const gcsim_platform *p, const gcsim_schedule *s,
                      const gcsim_topology *t, gcsim_fabric_cost_fn cost, void *ctx,
                      gcsim_error *err)
{
    gcsim_ecmp_case *cases;
    int n;
    if (gcsim_ecmp_law(p, s, t, &cases, &n, err) != 0)
        return -1;
    gcsim_platform q = *p;
    memset(&q.ecmp, 0, sizeof q.ecmp);
    /* t's links on q: every field of a topology comes from the platform's shape (GPUs,
     * nodes, NICs, leaves, transports), none from its ECMP, jitter or oversubscription,
     * and capacities are read from the platform (gcsim_topology_capacity_Bps); the scaled
     * oversubscription stays >= p's (S k >= n), so q passes gcsim_topology_init as p does */
    gcsim_topology tq = *t;
    tq.platform = &q;
    int rc = 0;
    for (int k = 0; k < n && rc == 0; k++) {
        q.fabric.oversubscription = cases[k].oversubscription;
        rc = cost(&tq, cases[k].weight, ctx, err);
    }
    free(cases);
    return rc;
}
