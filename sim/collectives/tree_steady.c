/*
 * sim/collectives/tree_steady.c: a tree template's steady form, every chunk count above
 * its deepest offset prepared from one walk (tree_internal.h).
 *
 * With C chunks, a flow at offset o is active over [o, o + C - 1]. Once C > omax every
 * flow starts (at most omax) before any ends (at least C), so the sorted bounds, the flows
 * active between them and how a pair's flows merge are the same for every such C; the
 * bounds from the first end on move with C. The numbers are functions of the share
 * 1 / (rails x trees x C) alone, each computed as the walk computes it:
 *   - a stretch of cnt merged flows carries run[cnt], the share added cnt times from 0;
 *   - a link's load is its active stretches' run[cnt] added in flow order from 0, so it is
 *     the sequence of those cnts (a load expression);
 *   - a class is (latency, min over its route of capacity x (run[cnt] / load), run[cnt],
 *     sums): the latency, cnt, sums and the route's capacities and load expressions.
 * Equal expressions (by content) are kept once, so a chunk count evaluates each load and
 * class once, then lists each interval's distinct values, as the walk does. Two classes
 * can have the same value only when their latency, cnt (share) and sums are the same, so
 * only their bandwidths are compared, with the classes kept before them that share those.
 * The costs are the walk's, bit for bit (tests/analytic/test_schedule_memo.c checks every
 * chunk count against the flow-by-flow form).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tree_internal.h"

struct tree_steady {
    int built_chunks;   /* bounds at or above it are ends: they move with the chunk count */
    bool windowed;      /* false: the walk's answer is "build the schedule" (1) */
    int n_st, max_cnt;
    int n_intervals;
    int *bound;         /* n_intervals + 1, at built_chunks */
    int n_loads;
    int *load_first, *load_cnt;
    int n_classes;
    double *cls_lat, *cls_k0, *cls_cap; /* cls_cap[c * GCSIM_ROUTE_MAX_LINKS + r] */
    int *cls_cnt, *cls_nl, *cls_load;   /* cls_load like cls_cap */
    /* the class before it with the same latency, cnt and sums, -1 when none: only its
     * bandwidth can make another the same value */
    int *cls_prev_same;
    int *iv_first, *iv_class;           /* interval i's classes: iv_class[iv_first[i] ..) */
};

void tree_steady_free(tree_steady *sd)
{
    if (!sd)
        return;
    free(sd->bound);
    free(sd->load_first);
    free(sd->load_cnt);
    free(sd->cls_lat);
    free(sd->cls_k0);
    free(sd->cls_cap);
    free(sd->cls_cnt);
    free(sd->cls_nl);
    free(sd->cls_load);
    free(sd->cls_prev_same);
    free(sd->iv_first);
    free(sd->iv_class);
    free(sd);
}

double tree_steady_bytes(const tree_steady *sd)
{
    if (!sd)
        return 0;
    if (!sd->windowed)
        return sizeof *sd;
    double ints = 2.0 * (sd->n_intervals + 1) + sd->n_loads + 1 + sd->load_first[sd->n_loads] +
                  sd->iv_first[sd->n_intervals];
    return sizeof *sd + sizeof(int) * ints +
           (2 * sizeof(double) + 3 * sizeof(int) +
            GCSIM_ROUTE_MAX_LINKS * (sizeof(double) + sizeof(int))) * (double)sd->n_classes;
}

/* Moves the interned loads and classes into sd's arrays; -1 when out of memory. */
static int keep_expressions(tree_steady *sd, const tree_intern *loads, const tree_intern *classes)
{
    int nl = loads->n, nc = classes->n;
    size_t route = (size_t)GCSIM_ROUTE_MAX_LINKS * (size_t)(nc > 0 ? nc : 1);
    sd->n_loads = nl;
    sd->load_first = malloc(sizeof(int) * ((size_t)nl + 1));
    sd->load_cnt = malloc(sizeof(int) * (loads->n_data + 1));
    sd->n_classes = nc;
    sd->cls_lat = malloc(sizeof(double) * ((size_t)nc + 1));
    sd->cls_k0 = malloc(sizeof(double) * ((size_t)nc + 1));
    sd->cls_cnt = malloc(sizeof(int) * ((size_t)nc + 1));
    sd->cls_nl = malloc(sizeof(int) * ((size_t)nc + 1));
    sd->cls_cap = malloc(sizeof(double) * route);
    sd->cls_load = malloc(sizeof(int) * route);
    sd->cls_prev_same = malloc(sizeof(int) * ((size_t)nc + 1));
    if (!sd->load_first || !sd->load_cnt || !sd->cls_lat || !sd->cls_k0 || !sd->cls_cnt ||
        !sd->cls_nl || !sd->cls_cap || !sd->cls_load || !sd->cls_prev_same)
        return -1;
    int w = 0;
    for (int l = 0; l < nl; l++) {
        sd->load_first[l] = w;
        if (loads->len[l] > 0) /* a link kind none of whose pairs is active: load 0 */
            memcpy(sd->load_cnt + w, loads->data + loads->off[l],
                   sizeof(int) * (size_t)loads->len[l]);
        w += loads->len[l];
    }
    sd->load_first[nl] = w;
    /* a class's key: latency (2 ints), cnt, sums (2), route length, then per link of the
     * route its capacity (2) and load expression */
    for (int c = 0; c < nc; c++) {
        const int *v = classes->data + classes->off[c];
        sd->cls_lat[c] = tree_get_double(v);
        sd->cls_cnt[c] = v[2];
        sd->cls_k0[c] = tree_get_double(v + 3);
        sd->cls_nl[c] = v[5];
        for (int r = 0; r < v[5]; r++) {
            sd->cls_cap[c * GCSIM_ROUTE_MAX_LINKS + r] = tree_get_double(v + 6 + 3 * r);
            sd->cls_load[c * GCSIM_ROUTE_MAX_LINKS + r] = v[8 + 3 * r];
        }
        sd->cls_prev_same[c] = -1;
        for (int j = c - 1; j >= 0 && sd->cls_prev_same[c] < 0; j--)
            if (memcmp(classes->data + classes->off[j], v, 5 * sizeof(int)) == 0)
                sd->cls_prev_same[c] = j;
    }
    return 0;
}

/* The walk of tree_walk_prepare (tree_walk.c) at `chunks`, with expressions where it has
 * numbers. */
tree_steady *tree_steady_build(const gcsim_tree_template *tt, int chunks)
{
    int nlk = tt->n_links, ns = tt->n_sigs;
    size_t longest = (size_t)tt->link_first[nlk] + 1, key = 6 + 3 * GCSIM_ROUTE_MAX_LINKS;
    tree_walk w;
    tree_steady *sd = calloc(1, sizeof *sd);
    int *load_id = malloc(sizeof(int) * ((size_t)nlk + 1));
    int *sig_cls = malloc(sizeof(int) * ((size_t)ns + 1));
    int *seq = malloc(sizeof(int) * (longest > key ? longest : key));
    int *cstamp = NULL, *list = NULL, n_list = 0, cap_list = 0, cap_stamp = 0;
    tree_intern loads = {0}, classes = {0};
    bool ok = false;
    if (tree_walk_init(&w, tt, chunks) != 0 || !sd || !load_id || !sig_cls || !seq)
        goto done;
    sd->built_chunks = chunks;
    sd->n_st = w.n_st;
    for (int k = 0; k < w.n_st; k++)
        if (w.st[k].cnt > sd->max_cnt)
            sd->max_cnt = w.st[k].cnt;
    sd->windowed = w.windowed && w.n_st > 0;
    if (!sd->windowed) {
        ok = true;
        goto done;
    }
    int ni = w.n_intervals;
    sd->n_intervals = ni;
    sd->bound = malloc(sizeof(int) * ((size_t)ni + 1));
    sd->iv_first = malloc(sizeof(int) * ((size_t)ni + 1));
    if (!sd->bound || !sd->iv_first)
        goto done;
    memcpy(sd->bound, w.bound, sizeof(int) * ((size_t)ni + 1));
    for (int l = 0; l < nlk; l++)
        load_id[l] = -1;
    for (int g = 0; g < ns; g++)
        sig_cls[g] = -1;
    for (int i = 0; i < ni; i++) {
        tree_walk_interval(&w, i);
        for (int x = 0; x < w.n_dl; x++) {
            int l = w.dl[x], n = 0;
            for (int j = tt->link_first[l]; j < tt->link_first[l + 1]; j++) {
                int q = w.state[tt->link_seq[j]];
                if (q >= 0)
                    seq[n++] = w.st[q].cnt;
            }
            int id = tree_intern_id(&loads, seq, n);
            if (id < 0)
                goto done;
            if (id == load_id[l])
                continue; /* the same expression: its flow kinds' classes stay */
            load_id[l] = id;
            tree_walk_load_changed(&w, l, i);
        }
        for (int x = 0; x < w.n_dg; x++) {
            int g = w.dg[x], q = w.state[tt->sig_kind[g]], nl = tt->sig_nl[g];
            if (q < 0) {
                sig_cls[g] = -1;
                continue;
            }
            tree_put_double(seq, tt->sig_lat[g]);
            seq[2] = w.st[q].cnt;
            tree_put_double(seq + 3, w.st[q].k0);
            seq[5] = nl;
            for (int r = 0; r < nl; r++) {
                int l = tt->sig_links[g * GCSIM_ROUTE_MAX_LINKS + r];
                tree_put_double(seq + 6 + 3 * r, tt->link_cap[l]);
                seq[8 + 3 * r] = load_id[l];
            }
            if ((sig_cls[g] = tree_intern_id(&classes, seq, 6 + 3 * nl)) < 0)
                goto done;
        }
        /* the interval's distinct classes, in flow-kind order */
        if (classes.n > cap_stamp) {
            int cap = 2 * classes.n;
            int *grown = realloc(cstamp, sizeof(int) * (size_t)cap);
            if (!grown)
                goto done;
            cstamp = grown;
            for (int c = cap_stamp; c < cap; c++)
                cstamp[c] = -1;
            cap_stamp = cap;
        }
        sd->iv_first[i] = n_list;
        for (int g = 0; g < ns; g++) {
            int c = sig_cls[g];
            if (c < 0 || cstamp[c] == i)
                continue;
            cstamp[c] = i;
            if (n_list == cap_list) {
                cap_list = 2 * cap_list + 64;
                int *grown = realloc(list, sizeof(int) * (size_t)cap_list);
                if (!grown)
                    goto done;
                list = grown;
            }
            list[n_list++] = c;
        }
    }
    sd->iv_first[ni] = n_list;
    sd->iv_class = list;
    list = NULL;
    if (keep_expressions(sd, &loads, &classes) != 0)
        goto done;
    ok = true;
done:
    tree_walk_free(&w);
    free(load_id);
    free(sig_cls);
    free(seq);
    free(cstamp);
    free(list);
    tree_intern_free(&loads);
    tree_intern_free(&classes);
    if (!ok) {
        tree_steady_free(sd);
        return NULL;
    }
    return sd;
}

int tree_steady_prepare(const tree_steady *sd, const gcsim_tree_template *tt, int chunks,
                        gcsim_schedule *s)
{
    if (!sd->windowed)
        return 1;
    int ni = sd->n_intervals, shift = chunks - sd->built_chunks, n_list = sd->iv_first[ni];
    double share = 1.0 / ((double)tt->rails * tt->per_rail * chunks);
    double *run = malloc(sizeof(double) * ((size_t)sd->max_cnt + 1));
    double *load = malloc(sizeof(double) * ((size_t)sd->n_loads + 1));
    int *value = malloc(sizeof(int) * ((size_t)sd->n_classes + 1));
    int *stamp = malloc(sizeof(int) * ((size_t)sd->n_classes + 1));
    double *bws = malloc(sizeof(double) * ((size_t)sd->n_classes + 1));
    int *from = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    int *to = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    int *start = malloc(sizeof(int) * (size_t)(ni + 1));
    gcsim_flow_class *all = malloc(sizeof *all * (size_t)(n_list > 0 ? n_list : 1));
    int rc = -1, total = 0;
    if (!run || !load || !value || !stamp || !bws || !from || !to || !start || !all)
        goto done;
    run[0] = 0;
    for (int c = 1; c <= sd->max_cnt; c++)
        run[c] = run[c - 1] + share;
    for (int l = 0; l < sd->n_loads; l++) {
        double sum = 0;
        for (int j = sd->load_first[l]; j < sd->load_first[l + 1]; j++)
            sum += run[sd->load_cnt[j]];
        load[l] = sum;
    }
    /* each class's bandwidth, and the first class of the same value (tree_same_value) */
    for (int c = 0; c < sd->n_classes; c++) {
        double part = run[sd->cls_cnt[c]], bw = INFINITY;
        const double *cap = sd->cls_cap + c * GCSIM_ROUTE_MAX_LINKS;
        const int *lid = sd->cls_load + c * GCSIM_ROUTE_MAX_LINKS;
        for (int r = 0; r < sd->cls_nl[c]; r++)
            bw = tree_fmin_as_libm(bw, cap[r] * (part / load[lid[r]]));
        bws[c] = bw;
        value[c] = c;
        for (int j = sd->cls_prev_same[c]; j >= 0; j = sd->cls_prev_same[j])
            if (bws[j] == bw) {
                value[c] = value[j];
                break;
            }
        stamp[c] = -1;
    }
    for (int i = 0; i < ni; i++) {
        int b0 = sd->bound[i], b1 = sd->bound[i + 1];
        from[i] = b0 >= sd->built_chunks ? b0 + shift : b0;
        to[i] = (b1 >= sd->built_chunks ? b1 + shift : b1) - 1;
        start[i] = total;
        for (int j = sd->iv_first[i]; j < sd->iv_first[i + 1]; j++) {
            int v = value[sd->iv_class[j]];
            if (stamp[v] == i)
                continue;
            stamp[v] = i;
            all[total++] = (gcsim_flow_class){sd->cls_lat[v], bws[v], run[sd->cls_cnt[v]],
                                              sd->cls_k0[v], from[i], to[i]};
        }
    }
    start[ni] = total;
    if (tree_schedule_fill(s, tt, chunks, sd->n_st, &all, total, ni, &from, &to, &start) != 0)
        goto done;
    rc = 0;
done:
    free(run);
    free(load);
    free(value);
    free(stamp);
    free(bws);
    free(from);
    free(to);
    free(start);
    free(all);
    return rc;
}
