/*
 * sim/step/ecmp_law.c: the law of ECMP collisions (step.h, gcsim_ecmp_law): how many flows
 * the most loaded spine link carries when each endpoint's traffic between leaves is hashed
 * onto one of S spines (sim/analytic/fabric_expect.h gives the model and its
 * approximations). Here, below the engines, because the step is resolved once per fabric
 * of this law (step_fabrics.c); the analytic engine weighs its costs by it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "step.h"

/* log C(m, j) */
static double log_choose(int m, int j)
{
    return lgamma(m + 1.0) - lgamma(j + 1.0) - lgamma(m - j + 1.0);
}

double gcsim_ecmp_max_load_cdf(int balls, int bins, int c)
{
    if (balls <= 0)
        return 1;
    if (c < 0 || bins < 1 || (double)c * bins < balls)
        return 0;
    if (c >= balls)
        return 1;
    /* f[m]: P(m balls thrown into the s bins placed so far each hold <= c). Bins are added
     * one at a time: of m balls into s bins, Binomial(m, 1/s) fall into the new one. */
    double *f = calloc((size_t)balls + 1, sizeof *f), *g = calloc((size_t)balls + 1, sizeof *g);
    if (!f || !g) {
        free(f);
        free(g);
        return NAN;
    }
    for (int m = 0; m <= balls; m++)
        f[m] = m <= c ? 1.0 : 0.0; /* one bin */
    for (int s = 2; s <= bins; s++) {
        double lp = log(1.0 / s), lq = log1p(-1.0 / s);
        for (int m = 0; m <= balls; m++) {
            double sum = 0;
            for (int j = 0; j <= c && j <= m; j++)
                sum += exp(log_choose(m, j) + j * lp + (m - j) * lq) * f[m - j];
            g[m] = sum;
        }
        double *x = f;
        f = g;
        g = x;
    }
    double r = f[balls];
    free(f);
    free(g);
    return r > 1 ? 1 : r;
}

double gcsim_ecmp_expected_max_load(int balls, int bins)
{
    double e = 0;
    for (int c = 0; c < balls; c++) {
        double tail = 1.0 - gcsim_ecmp_max_load_cdf(balls, bins, c);
        if (tail < 1e-16)
            break;
        e += tail;
    }
    return e;
}

/* The leaf of e's NIC: its node's leaf, or its rail's leaf in its group (rail-optimized),
 * so that a flow between rails of one group climbs to the spines as the topology routes it. */
static int leaf_of_endpoint(const gcsim_topology *t, int e)
{
    return gcsim_topology_leaf_of(t, e);
}

int gcsim_ecmp_leaf_counts(const gcsim_schedule *s, const gcsim_topology *t, int *counts)
{
    int links = 2 * t->leaves, ne = gcsim_topology_endpoints(t);
    int *cur = calloc((size_t)(links > 0 ? links : 1), sizeof *cur);
    int *mark = malloc(sizeof(int) * 2 * (size_t)(ne > 0 ? ne : 1));
    if (!cur || !mark) {
        free(cur);
        free(mark);
        return -1;
    }
    memset(counts, 0, sizeof(int) * (size_t)links);
    long long best_total = 0;
    int best = 0;
    for (int p = 0; p < s->n_phases; p++) {
        const gcsim_phase *ph = &s->phases[p];
        memset(cur, 0, sizeof(int) * (size_t)links);
        for (int e = 0; e < 2 * ne; e++)
            mark[e] = 0;
        long long total = 0;
        for (int f = 0; f < ph->n_flows; f++) {
            int a = ph->flows[f].src, b = ph->flows[f].dst;
            int la = leaf_of_endpoint(t, a), lb = leaf_of_endpoint(t, b);
            if (la == lb)
                continue;
            if (!mark[2 * a]) { /* a's traffic up its leaf: one hashed spine */
                mark[2 * a] = 1;
                cur[2 * la]++;
                total++;
            }
            if (!mark[2 * b + 1]) {
                mark[2 * b + 1] = 1;
                cur[2 * lb + 1]++;
                total++;
            }
        }
        if (total > best_total) {
            best_total = total;
            memcpy(counts, cur, sizeof(int) * (size_t)links);
        }
    }
    for (int l = 0; l < links; l++)
        if (counts[l] > best)
            best = counts[l];
    free(cur);
    free(mark);
    return best;
}

/* P(K <= c) = product over loaded links of the balls-into-bins law, distinct counts once. */
static double max_cdf(const int *counts, int links, int spines, int c)
{
    enum { DISTINCT = 16 };
    int seen_n[DISTINCT], seen_k[DISTINCT], nd = 0;
    for (int l = 0; l < links; l++) {
        if (counts[l] <= 0)
            continue;
        int d = 0;
        while (d < nd && seen_n[d] != counts[l])
            d++;
        if (d == nd && nd < DISTINCT) {
            seen_n[nd] = counts[l];
            seen_k[nd++] = 0;
        }
        if (d < nd)
            seen_k[d]++;
        else { /* more than DISTINCT different counts: this one on its own */
            seen_n[DISTINCT - 1] = counts[l];
            seen_k[DISTINCT - 1] = 1;
        }
    }
    double p = 1;
    for (int d = 0; d < nd; d++)
        p *= pow(gcsim_ecmp_max_load_cdf(seen_n[d], spines, c), seen_k[d]);
    return p;
}

int gcsim_ecmp_law(const gcsim_platform *p, const gcsim_schedule *s, const gcsim_topology *t,
                   gcsim_ecmp_case **cases, int *n_cases, gcsim_error *err)
{
    *cases = NULL;
    *n_cases = 0;
    int S = p->ecmp.spines;
    gcsim_ecmp_case *one = malloc(sizeof *one);
    if (!one)
        return gcsim_fail(err, "out of memory for the law of ECMP collisions");
    *one = (gcsim_ecmp_case){.weight = 1.0, .oversubscription = p->fabric.oversubscription};
    if (S <= 1 || t->leaves < 2) {
        *cases = one;
        *n_cases = 1;
        return 0;
    }
    /* as the DES: a spine link is at least one uplink port of one NIC's rate */
    double over0 = p->fabric.oversubscription >= 1 ? p->fabric.oversubscription : 1;
    int ports = (int)floor(gcsim_topology_leaf_nics(t) / over0 * (1 + 1e-9));
    if (S > ports) {
        free(one);
        return gcsim_fail(err, "%s: --ecmp-spines %d: a %sleaf has %d uplink ports of one NIC's "
                               "rate (nodes_per_leaf%s / oversubscription): at most that "
                               "many spines",
                          p->source_path, S, gcsim_topology_rail_placed(t) ? "rail " : "", ports,
                          gcsim_topology_rail_placed(t) ? "" : " x NICs");
    }
    int links = 2 * t->leaves;
    int *counts = calloc((size_t)links, sizeof *counts);
    if (!counts) {
        free(one);
        return gcsim_fail(err, "out of memory counting the flows of %d leaf links", links);
    }
    int n = gcsim_ecmp_leaf_counts(s, t, counts);
    if (n < 0) {
        free(one);
        free(counts);
        return gcsim_fail(err, "out of memory counting the flows between leaves");
    }
    if (n == 0) {
        free(counts);
        *cases = one;
        *n_cases = 1;
        return 0;
    }
    free(one);
    /* K's law from ceil(n / S) (below it P = 0) until the tail is under 1e-12 */
    int kmin = (n + S - 1) / S;
    double *pk = calloc((size_t)n + 1, sizeof *pk);
    gcsim_ecmp_case *out = calloc((size_t)n + 1, sizeof *out);
    if (!pk || !out) {
        free(pk);
        free(out);
        free(counts);
        return gcsim_fail(err, "out of memory for the law of %d flows on %d spines", n, S);
    }
    double prev = 0;
    int kmax = kmin;
    for (int k = kmin; k <= n; k++) {
        double c = max_cdf(counts, links, S, k);
        if (!isfinite(c)) {
            free(pk);
            free(out);
            free(counts);
            return gcsim_fail(err, "out of memory for the law of %d flows on %d spines", n, S);
        }
        pk[k] = c - prev > 0 ? c - prev : 0;
        prev = c;
        kmax = k;
        if (1.0 - c < 1e-12)
            break;
    }
    /* the ECMP fields cleared, the oversubscription of p kept as the base */
    double over = p->fabric.oversubscription >= 1 ? p->fabric.oversubscription : 1;
    int m = 0;
    for (int k = kmin; k <= kmax; k++) {
        if (!(pk[k] > 1e-15))
            continue;
        /* every flow of a link of n at U / (S k): the aggregate uplink at U n / (S k) */
        out[m++] = (gcsim_ecmp_case){.weight = pk[k] / prev,
                                     .oversubscription = over * (double)S * k / n};
    }
    free(pk);
    free(counts);
    *cases = out;
    *n_cases = m;
    return 0;
}
