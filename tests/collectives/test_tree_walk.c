/*
 * The pipelined trees' two preparations of one chunk count against each other, interval by
 * interval (sim/collectives/tree_walk.c and tree_steady.c, issue 47): above the trees'
 * deepest offset both apply, and the walk (tree_walk_prepare, which finds each interval's
 * distinct class values from a table, the value the flow kind before it took tried first)
 * must give the steady form's intervals (the same bounds) and in each the same set of
 * distinct classes (latency, bandwidth, share, sums: bit for bit; their order is free,
 * a step costs their maximum). At every chunk count, both forms' classes in an interval
 * are distinct and cover exactly its steps (and the phase says so: intervals_exact). Grid: a100-hdr (NVSwitch, rails),
 * cloud-v100-25gbe (one NIC), h100-ndr, dgc-fig6-10gbe; GPU counts with full and partly
 * filled last nodes from 2 to 256; tree and double tree; chunk counts 1 to 64.
 *   test_tree_walk SOURCE_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "tree_internal.h"
#include "catalog_platform.h"

static int class_cmp(const void *a, const void *b)
{
    const gcsim_flow_class *x = a, *y = b;
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
    CMP(latency_s);
    CMP(Bps);
    CMP(share);
    CMP(k0);
#undef CMP
    return 0;
}

/* Interval k's classes of s's phase, sorted, at out[0 ..); their count. */
static int sorted_interval(const gcsim_phase *ph, int k, gcsim_flow_class *out)
{
    int n = ph->interval_class[k + 1] - ph->interval_class[k];
    memcpy(out, ph->classes + ph->interval_class[k], sizeof *out * (size_t)n);
    qsort(out, (size_t)n, sizeof *out, class_cmp);
    return n;
}

/* Every interval's classes distinct and over exactly its steps; returns 1 when so. */
static int well_formed(const gcsim_schedule *s, gcsim_flow_class *buf)
{
    int before = check_failures;
    CHECK(s->n_phases == 1);
    const gcsim_phase *ph = &s->phases[0];
    CHECK(ph->n_intervals > 0 && ph->interval_class[ph->n_intervals] == ph->n_classes);
    /* what the closed form then takes without checking a class's window (schedule_cost.c) */
    CHECK(ph->intervals_exact);
    for (int k = 0; k < ph->n_intervals; k++) {
        CHECK(k == 0 ? ph->interval_from[k] == 0
                     : ph->interval_from[k] == ph->interval_to[k - 1] + 1);
        int n = sorted_interval(ph, k, buf);
        for (int c = 0; c < n; c++) {
            CHECK(buf[c].first == ph->interval_from[k] && buf[c].last == ph->interval_to[k]);
            CHECK(c == 0 || class_cmp(&buf[c - 1], &buf[c]) != 0);
        }
    }
    CHECK(ph->interval_to[ph->n_intervals - 1] == ph->steps - 1);
    return check_failures == before;
}

/* The walk's and the steady form's schedules of one chunk count: the same intervals and the
 * same class values in each; returns 1 when they are. */
static int same_schedule(const gcsim_schedule *w, const gcsim_schedule *sd, gcsim_flow_class *a,
                         gcsim_flow_class *b)
{
    int before = check_failures;
    const gcsim_phase *x = &w->phases[0], *y = &sd->phases[0];
    CHECK(x->steps == y->steps && x->n_intervals == y->n_intervals &&
          x->n_classes == y->n_classes && x->n_flows == y->n_flows);
    if (check_failures != before)
        return 0;
    for (int k = 0; k < x->n_intervals; k++) {
        CHECK(x->interval_from[k] == y->interval_from[k] && x->interval_to[k] == y->interval_to[k]);
        int na = sorted_interval(x, k, a), nb = sorted_interval(y, k, b);
        CHECK(na == nb);
        for (int c = 0; c < na && c < nb; c++)
            CHECK(memcmp(&a[c], &b[c], sizeof *a) == 0);
    }
    return check_failures == before;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_tree_walk SOURCE_DIR\n");
        return 2;
    }
    const char *names[] = {"a100-hdr", "cloud-v100-25gbe", "h100-ndr", "dgc-fig6-10gbe"};
    const int counts[] = {2, 3, 9, 17, 31, 48, 67, 100, 129, 250, 256};
    int walks = 0, pairs = 0;
    for (size_t pi = 0; pi < sizeof names / sizeof *names; pi++) {
        gcsim_platform p;
        if (catalog_platform(argv[1], names[pi], &p) != 0)
            return 1;
        p.nodes = (256 + p.gpus_per_node - 1) / p.gpus_per_node;
        for (size_t ni = 0; ni < sizeof counts / sizeof *counts; ni++) {
            gcsim_topology t;
            if (catalog_topology(&p, names[pi], counts[ni], &t) != 0) {
                CHECK(0);
                continue;
            }
            for (int dbl = 0; dbl < 2; dbl++) {
                gcsim_collective c = dbl ? COLLECTIVE_DOUBLE_TREE : COLLECTIVE_TREE;
                gcsim_tree_template *tt = gcsim_tree_template_new(&t, c);
                CHECK(tt != NULL);
                if (!tt)
                    continue;
                size_t room = (size_t)tt->n_sigs + 1;
                gcsim_flow_class *a = malloc(sizeof *a * room), *b = malloc(sizeof *b * room);
                CHECK(a && b);
                for (int chunks = 1; a && b && chunks <= GCSIM_PIPELINE_MAX_CHUNKS; chunks++) {
                    gcsim_schedule w;
                    int rc = tree_walk_prepare(tt, chunks, &w);
                    CHECK(rc >= 0);
                    if (rc != 0)
                        continue; /* 1: not windowed (one GPU per tree), nothing prepared */
                    walks += well_formed(&w, a);
                    if (chunks > tt->omax) {
                        gcsim_schedule sd;
                        CHECK(gcsim_tree_template_prepare(tt, chunks, &sd) == 0);
                        CHECK(well_formed(&sd, a));
                        if (same_schedule(&w, &sd, a, b))
                            pairs++;
                        else
                            fprintf(stderr, "%s, %d GPUs, %s, %d chunks: walk and steady form "
                                    "differ\n", names[pi], counts[ni],
                                    dbl ? "double tree" : "tree", chunks);
                        gcsim_schedule_free(&sd);
                    }
                    gcsim_schedule_free(&w);
                }
                free(a);
                free(b);
                gcsim_tree_template_free(tt);
            }
            gcsim_topology_free(&t);
        }
    }
    printf("%d walks well formed; %d chunk counts above the trees' depth the same in the walk "
           "and the steady form, interval by interval\n", walks, pairs);
    CHECK(walks > 4000);
    CHECK(pairs > 2000);
    CHECK_DONE();
}
