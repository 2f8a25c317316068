/* The GPU counts gcsim plan evaluates per group: domain, grid and refinement (plan_search.h). */
#include "plan_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

long long plan_domain_size(const plan_domain *d)
{
    if (d->list)
        return d->n_list;
    if (d->capacity < 1 || d->gpus_per_node < 1)
        return 0;
    if (!d->whole_nodes || d->capacity <= d->gpus_per_node)
        return d->capacity;
    return d->gpus_per_node + d->capacity / d->gpus_per_node - 1;
}

int plan_domain_count(const plan_domain *d, long long i)
{
    if (d->list)
        return d->list[i];
    if (!d->whole_nodes || i < d->gpus_per_node)
        return (int)(i + 1);
    return (int)((i - d->gpus_per_node + 2) * d->gpus_per_node);
}

/* The first index whose count is at least gpus (the size when none is). */
static long long lower_bound(const plan_domain *d, long long gpus)
{
    long long n = plan_domain_size(d), i;
    if (d->list) {
        long long lo = 0, hi = n;
        while (lo < hi) {
            long long mid = lo + (hi - lo) / 2;
            if (d->list[mid] < gpus)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }
    if (gpus <= 1)
        return 0;
    if (!d->whole_nodes || gpus <= d->gpus_per_node)
        i = gpus - 1;
    else
        i = (gpus + d->gpus_per_node - 1) / d->gpus_per_node - 2 + d->gpus_per_node;
    return i < n ? i : n;
}

int plan_grid(const plan_domain *d, long long *idx, int max)
{
    long long n = plan_domain_size(d);
    int k = 0;
    if (n < 1)
        return 0;
    long long last = plan_domain_count(d, n - 1);
    for (int step = 0;; step++) {
        /* 2^(step / steps) as an integer target, exact at every doubling */
        double v = ldexp(pow(2.0, (double)(step % PLAN_GRID_STEPS_PER_DOUBLING) /
                                      PLAN_GRID_STEPS_PER_DOUBLING),
                         step / PLAN_GRID_STEPS_PER_DOUBLING);
        if (v > (double)last)
            break;
        long long i = lower_bound(d, (long long)ceil(v - 1e-9));
        if (i >= n)
            break;
        if (k == 0 || i > idx[k - 1]) {
            if (k >= max)
                return -1;
            idx[k++] = i;
        }
    }
    if (k == 0 || idx[k - 1] != n - 1) {
        if (k >= max)
            return -1;
        idx[k++] = n - 1;
    }
    return k;
}

long long plan_grid_size(const plan_domain *d)
{
    long long idx[256];
    int n = plan_grid(d, idx, 256);
    return n > 0 ? n : 0;
}

/* One evaluated count of the bounded search: its index in the skeleton (below), or -1 for
 * a count of the window around the skeleton's answer. */
typedef struct {
    int gpus;
    long long idx;
    bool ran;
    plan_candidate c;
} point;

typedef struct {
    point *p; /* ascending gpus */
    int n, cap;
} point_set;

/* Position of gpus in s, or where it would go. */
static int position(const point_set *s, int gpus)
{
    int lo = 0, hi = s->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (s->p[mid].gpus < gpus)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Evaluates gpus into s unless it is there. Returns 1 when added, 0 when it was there,
 * -1 out of memory. */
static int add(point_set *s, int gpus, long long idx, plan_eval_fn eval, void *ctx,
               long long *evaluated, long long *skipped)
{
    int at = position(s, gpus);
    if (at < s->n && s->p[at].gpus == gpus)
        return 0;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        point *p = realloc(s->p, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        s->p = p;
        s->cap = cap;
    }
    point pt = {.gpus = gpus, .idx = idx};
    pt.ran = eval(ctx, gpus, &pt.c) == 0;
    if (pt.ran)
        (*evaluated)++;
    else
        (*skipped)++;
    memmove(&s->p[at + 1], &s->p[at], (size_t)(s->n - at) * sizeof *s->p);
    s->p[at] = pt;
    s->n++;
    return 1;
}

/* What decides the plan's answer (plan_keep.h): the best feasible count of the group;
 * and, while none is feasible, the closest count, the fastest and the cheapest fast
 * enough (the rows and the sentence of a plan with nothing feasible). */
typedef enum { OBJ_BEST, OBJ_CLOSEST, OBJ_FASTEST, OBJ_CHEAPEST_FAST } objective;

static bool eligible(objective o, const plan_target *t, const plan_candidate *c)
{
    if (o == OBJ_BEST)
        return c->feasible;
    if (o == OBJ_CHEAPEST_FAST)
        return c->tput >= t->need_samples_per_s;
    return true;
}

/* Whether a is strictly better than b for o: the first of equals wins, as in plan_keep. */
static bool better(objective o, bool by_time, const plan_candidate *a, const plan_candidate *b)
{
    switch (o) {
    case OBJ_BEST:
        return plan_better(a, b, by_time) < 0;
    case OBJ_CLOSEST:
        return a->shortfall < b->shortfall ||
               (a->shortfall == b->shortfall && plan_better(a, b, by_time) < 0);
    case OBJ_FASTEST:
        return a->tput > b->tput;
    case OBJ_CHEAPEST_FAST:
        return plan_cost_key(a) < plan_cost_key(b);
    }
    return false;
}

static int best_position(const point_set *s, objective o, const plan_target *t, bool by_time)
{
    int best = -1;
    for (int k = 0; k < s->n; k++)
        if (s->p[k].ran && eligible(o, t, &s->p[k].c) &&
            (best < 0 || better(o, by_time, &s->p[k].c, &s->p[best].c)))
            best = k;
    return best;
}

/* The objectives that matter now: the best while anything is feasible, else the three
 * that a plan with nothing feasible prints. Returns how many, written to objs. */
static int objectives(const point_set *s, objective objs[3])
{
    for (int k = 0; k < s->n; k++)
        if (s->p[k].ran && s->p[k].c.feasible) {
            objs[0] = OBJ_BEST;
            return 1;
        }
    objs[0] = OBJ_CLOSEST;
    objs[1] = OBJ_FASTEST;
    objs[2] = OBJ_CHEAPEST_FAST;
    return 3;
}

/* Appends to out (holding n) PLAN_REFINE_POINTS indices strictly inside the gap between
 * the evaluated points lo_at < hi_at; returns the new count. */
static int refine_gap(const point_set *s, int lo_at, int hi_at, long long *out, int n, int max)
{
    long long lo = s->p[lo_at].idx, hi = s->p[hi_at].idx;
    for (int j = 1; j <= PLAN_REFINE_POINTS && hi - lo > 1; j++) {
        long long i = lo + (hi - lo) * j / (PLAN_REFINE_POINTS + 1);
        if (i > lo && i < hi && n < max)
            out[n++] = i;
    }
    return n;
}

/* The position of the smallest evaluated feasible count, or -1. */
static int first_feasible(const point_set *s)
{
    for (int k = 0; k < s->n; k++)
        if (s->p[k].ran && s->p[k].c.feasible)
            return k;
    return -1;
}

/* The skeleton indices to evaluate next: PLAN_REFINE_POINTS in each gap beside each
 * objective's best, and in the gap below the smallest feasible count (every point of s is
 * a skeleton point here). */
static int next_indices(const point_set *s, const plan_target *t, bool by_time, long long *out,
                        int max)
{
    objective objs[3];
    int n_objs = objectives(s, objs), n = 0;
    for (int o = 0; o < n_objs; o++) {
        int at = best_position(s, objs[o], t, by_time);
        if (at < 0)
            continue;
        for (int side = 0; side < 2; side++) {
            int nb = side ? at + 1 : at - 1;
            if (nb >= 0 && nb < s->n)
                n = refine_gap(s, side ? at : nb, side ? nb : at, out, n, max);
        }
        /* The feasibility boundary: the smallest feasible count often costs least (cost
         * per sample grows with the count where scaling is sublinear), and a count just
         * above an infeasible grid point can be cheaper than every feasible grid point
         * when the curve dips between them (a collective that favours powers of two). */
        if (objs[o] == OBJ_BEST) {
            int first = first_feasible(s);
            if (first > 0 && first != at)
                n = refine_gap(s, first - 1, first, out, n, max);
        }
    }
    return n;
}

/* Whether gpus is a whole-node count (up to one node, or a multiple of it). */
static bool whole(const plan_domain *d, long long gpus)
{
    return gpus <= d->gpus_per_node || gpus % d->gpus_per_node == 0;
}

int plan_search_group(const plan_domain *d, plan_search_mode mode, const plan_target *t,
                      bool by_time, plan_eval_fn eval, void *ctx, plan_group *grp,
                      plan_extremes *x, long long *evaluated, long long *skipped)
{
    long long n = plan_domain_size(d);
    if (mode == PLAN_SEARCH_EXHAUSTIVE) {
        for (long long i = 0; i < n; i++) {
            plan_candidate c;
            if (eval(ctx, plan_domain_count(d, i), &c)) {
                (*skipped)++;
                continue;
            }
            (*evaluated)++;
            plan_keep(t, by_time, &c, grp, x);
        }
        return 0;
    }
    /* The skeleton: the domain's whole-node counts. Partly filled nodes pay a whole node's
     * communication, so throughput saw-tooths between nodes; the grid and its refinement
     * run on whole nodes, then every count of the domain within a node of each objective's
     * best is evaluated (the window). */
    plan_domain sk = *d;
    int *kept = NULL;
    bool windowed = false;
    if (!d->list && !d->whole_nodes && d->gpus_per_node > 1 && d->capacity > d->gpus_per_node) {
        sk.whole_nodes = true;
        windowed = true;
    } else if (d->list) {
        long long m = 0;
        for (long long i = 0; i < n; i++)
            m += whole(d, d->list[i]);
        if (m > 0 && m < n) {
            if (!(kept = malloc((size_t)m * sizeof *kept)))
                return -1;
            m = 0;
            for (long long i = 0; i < n; i++)
                if (whole(d, d->list[i]))
                    kept[m++] = d->list[i];
            sk.list = kept;
            sk.n_list = m;
            windowed = true;
        }
    }
    point_set s = {0};
    long long grid[256], next[3 * 3 * PLAN_REFINE_POINTS];
    int n_grid = plan_grid(&sk, grid, 256), rc = -1;
    for (int k = 0; k < n_grid; k++)
        if (add(&s, plan_domain_count(&sk, grid[k]), grid[k], eval, ctx, evaluated, skipped) < 0)
            goto done;
    for (;;) {
        int n_next = next_indices(&s, t, by_time, next, (int)(sizeof next / sizeof *next));
        int added = 0;
        for (int k = 0; k < n_next && s.n < PLAN_MAX_BOUNDED_EVALUATIONS; k++) {
            int a = add(&s, plan_domain_count(&sk, next[k]), next[k], eval, ctx, evaluated,
                        skipped);
            if (a < 0)
                goto done;
            added += a;
        }
        if (!added)
            break;
    }
    if (windowed) {
        objective objs[3];
        int n_objs = objectives(&s, objs), centre[3];
        for (int o = 0; o < n_objs; o++) {
            int at = best_position(&s, objs[o], t, by_time);
            centre[o] = at < 0 ? -1 : s.p[at].gpus;
        }
        for (int o = 0; o < n_objs; o++) {
            if (centre[o] < 0)
                continue;
            long long from = centre[o] - d->gpus_per_node + 1, to = centre[o] + d->gpus_per_node;
            for (long long i = lower_bound(d, from > 1 ? from : 1); i < n; i++) {
                int g = plan_domain_count(d, i);
                if (g >= to)
                    break;
                if (add(&s, g, -1, eval, ctx, evaluated, skipped) < 0)
                    goto done;
            }
        }
    }
    for (int k = 0; k < s.n; k++)
        if (s.p[k].ran)
            plan_keep(t, by_time, &s.p[k].c, grp, x);
    rc = 0;
done:
    free(s.p);
    free(kept);
    return rc;
}
