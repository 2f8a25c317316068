/*
 * sim/des/des_maxmin.c: SimGrid's CM02 max-min sharing of flows that start together, as an
 * event loop over one phase's or block's flows (des_maxmin.h has the model and its
 * sources).
 */
#include <stdbool.h>
#include <stdlib.h>

#include "des_maxmin.h"

/* SimGrid 3.32's defaults: maxmin/precision and precision/timing (surf/precision). */
#define MM_PRECISION 1e-5
#define SURF_PRECISION 1e-9

/* SimGrid's double_update: subtract, and snap what falls under the precision to 0. */
static void double_update(double *v, double by, double precision)
{
    *v -= by;
    if (*v < precision)
        *v = 0.0;
}

typedef struct {
    /* per flow */
    double *remains, *latency_left, *penalty, *rate, *finish;
    bool *done, *fixed;
    /* per link */
    double *remaining, *usage;
    int *light, *light_pos;    /* links still to saturate, and their positions (-1: none) */
    int *link_first, *link_flows; /* the flows of each link (CSR) */
    int *saturated;
} mm_state;

static void light_remove(mm_state *s, int *n_light, int l)
{
    int at = s->light_pos[l];
    if (at < 0)
        return;
    int last = s->light[--*n_light];
    s->light[at] = last;
    s->light_pos[last] = at;
    s->light_pos[l] = -1;
}

/* One max-min solve: the rate of every flow past its latency (penalty > 0), by progressive
 * filling (MaxMin::maxmin_solve, no bounds: TCP-gamma 0 leaves the flows unbounded). */
static void solve(const des_mm_problem *p, mm_state *s)
{
    int n_light = 0;
    for (int l = 0; l < p->n_links; l++) {
        s->usage[l] = 0;
        s->remaining[l] = p->capacity_Bps[l];
        s->light_pos[l] = -1;
    }
    for (int i = 0; i < p->n_flows; i++) {
        s->rate[i] = 0;
        s->fixed[i] = true;
        if (s->done[i] || !(s->penalty[i] > 0))
            continue;
        s->fixed[i] = false;
        const des_mm_flow *f = &p->flows[i];
        for (int k = 0; k < f->n_links; k++)
            s->usage[p->links[f->first_link + k]] += 1.0 / s->penalty[i];
    }
    for (int l = 0; l < p->n_links; l++)
        if (s->usage[l] > 0 && s->remaining[l] > p->capacity_Bps[l] * MM_PRECISION) {
            s->light_pos[l] = n_light;
            s->light[n_light++] = l;
        }
    while (n_light > 0) {
        double min_usage = -1;
        int n_sat = 0;
        for (int x = 0; x < n_light; x++) {
            int l = s->light[x];
            double r = s->remaining[l] / s->usage[l];
            if (min_usage < 0 || r < min_usage) {
                min_usage = r;
                n_sat = 0;
                s->saturated[n_sat++] = l;
            } else if (r == min_usage) {
                s->saturated[n_sat++] = l;
            }
        }
        for (int y = 0; y < n_sat; y++) {
            int l = s->saturated[y];
            for (int z = s->link_first[l]; z < s->link_first[l + 1]; z++) {
                int i = s->link_flows[z];
                if (s->fixed[i])
                    continue;
                s->fixed[i] = true;
                double value = min_usage / s->penalty[i];
                s->rate[i] = value;
                const des_mm_flow *f = &p->flows[i];
                for (int k = 0; k < f->n_links; k++) {
                    int m = p->links[f->first_link + k];
                    double_update(&s->remaining[m], value, p->capacity_Bps[m] * MM_PRECISION);
                    double_update(&s->usage[m], 1.0 / s->penalty[i], MM_PRECISION);
                    if (!(s->usage[m] > MM_PRECISION) ||
                        !(s->remaining[m] > p->capacity_Bps[m] * MM_PRECISION))
                        light_remove(s, &n_light, m);
                }
            }
            light_remove(s, &n_light, l);
        }
    }
}

int des_mm_solve(const des_mm_problem *p, double t0_s, double *end_s, double *finish_s,
                 long *events)
{
    int n = p->n_flows, L = p->n_links;
    mm_state s;
    size_t nf = (size_t)(n > 0 ? n : 1), nl = (size_t)(L > 0 ? L : 1);
    s.remains = malloc(nf * sizeof(double));
    s.latency_left = malloc(nf * sizeof(double));
    s.penalty = malloc(nf * sizeof(double));
    s.rate = malloc(nf * sizeof(double));
    s.finish = malloc(nf * sizeof(double));
    s.done = malloc(nf * sizeof(bool));
    s.fixed = malloc(nf * sizeof(bool));
    s.remaining = malloc(nl * sizeof(double));
    s.usage = malloc(nl * sizeof(double));
    s.light = malloc(nl * sizeof(int));
    s.light_pos = malloc(nl * sizeof(int));
    s.saturated = malloc(nl * sizeof(int));
    s.link_first = calloc(nl + 1, sizeof(int));
    long total = 0;
    for (int i = 0; i < n; i++)
        total += p->flows[i].n_links;
    s.link_flows = malloc((size_t)(total > 0 ? total : 1) * sizeof(int));
    int rc = -1;
    if (!s.remains || !s.latency_left || !s.penalty || !s.rate || !s.finish || !s.done ||
        !s.fixed || !s.remaining || !s.usage || !s.light || !s.light_pos || !s.saturated ||
        !s.link_first || !s.link_flows)
        goto out;
    /* the flows of each link, in flow order */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p->flows[i].n_links; k++)
            s.link_first[p->links[p->flows[i].first_link + k] + 1]++;
    for (int l = 0; l < L; l++)
        s.link_first[l + 1] += s.link_first[l];
    {
        int *fill = s.light; /* scratch: next free slot per link */
        for (int l = 0; l < L; l++)
            fill[l] = s.link_first[l];
        for (int i = 0; i < n; i++)
            for (int k = 0; k < p->flows[i].n_links; k++) {
                int l = p->links[p->flows[i].first_link + k];
                s.link_flows[fill[l]++] = i;
            }
    }
    int left = 0;
    for (int i = 0; i < n; i++) {
        const des_mm_flow *f = &p->flows[i];
        s.remains[i] = f->bytes;
        s.latency_left[i] = f->latency_s;
        /* CM02: penalty 0 while the latency is paid, then the latency; 1 without any */
        s.penalty[i] = f->latency_s > 0 ? 0.0 : 1.0;
        s.done[i] = false;
        s.finish[i] = t0_s;
        left++;
    }
    double now = t0_s;
    long n_events = 0;
    while (left > 0) {
        solve(p, &s);
        n_events++;
        double delta = -1;
        for (int i = 0; i < n; i++) {
            if (s.done[i])
                continue;
            if (s.rate[i] > 0) {
                double v = s.remains[i] > 0 ? s.remains[i] / s.rate[i] : 0.0;
                if (delta < 0 || v < delta)
                    delta = v;
            }
        }
        for (int i = 0; i < n; i++)
            if (!s.done[i] && s.latency_left[i] > 0)
                delta = delta < 0 ? s.latency_left[i]
                                  : (s.latency_left[i] < delta ? s.latency_left[i] : delta);
        if (delta < 0) /* nothing can progress: a flow without links */
            goto out;
        now += delta;
        for (int i = 0; i < n; i++) {
            if (s.done[i])
                continue;
            if (s.latency_left[i] > 0) {
                if (s.latency_left[i] > delta)
                    double_update(&s.latency_left[i], delta, SURF_PRECISION);
                else
                    s.latency_left[i] = 0.0;
                if (s.latency_left[i] <= 0.0)
                    s.penalty[i] = p->flows[i].latency_s;
            }
            double_update(&s.remains[i], s.rate[i] * delta, MM_PRECISION * SURF_PRECISION);
            if (s.remains[i] <= 0 && s.penalty[i] > 0) {
                s.done[i] = true;
                s.finish[i] = now;
                left--;
            }
        }
    }
    double end = t0_s;
    for (int i = 0; i < n; i++) {
        double t = s.finish[i] + p->flows[i].extra_s;
        if (t > end)
            end = t;
        if (finish_s)
            finish_s[i] = s.finish[i];
    }
    *end_s = end;
    if (events)
        *events = n_events;
    rc = 0;
out:
    free(s.remains);
    free(s.latency_left);
    free(s.penalty);
    free(s.rate);
    free(s.finish);
    free(s.done);
    free(s.fixed);
    free(s.remaining);
    free(s.usage);
    free(s.light);
    free(s.light_pos);
    free(s.saturated);
    free(s.link_first);
    free(s.link_flows);
    return rc;
}
