/*
 * The pipelined trees' template built from the trees' shape in closed form, sender by
 * sender (sim/collectives/tree_sender.c, issue 47), against
 *   1. the template built from the raw flows of every tree, listed and sorted (the way it
 *      was built before): every array equal, element by element, on a grid of platforms
 *      (NVSwitch with rails, NVLink pairs, PCIe, a fat tree and a star, and those with 4 and
 *      2 GPUs per node and 2 or 1 NICs), GPU counts with full and partly filled last nodes
 *      from 2 to 4,099 GPUs, tree and double tree;
 *   2. the explicit schedule: gcsim_schedule_build with the same chunk count, costed flow by
 *      flow (gcsim_schedule_time_s), against the template prepared for it
 *      (gcsim_schedule_prepared_time_s) at chunk counts 1, 2, 3, 7, 16, 33 and 64 (below and
 *      above the trees' depth: the walk and the steady form) and four payload kinds: relative
 *      1e-9, and in fact bit for bit (counted and checked); and NVLS-tree's template
 *      (capacities scaled) against its built schedule (shares scaled) on h100-ndr:
 *      relative 1e-9.
 *   test_tree_sender SOURCE_DIR */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "tree_internal.h"
#include "catalog_platform.h"

#define SAME_INTS(a, b, n) CHECK((n) == 0 || memcmp((a), (b), sizeof(int) * (size_t)(n)) == 0)
#define SAME_DOUBLES(a, b, n)                                                                  \
    CHECK((n) == 0 || memcmp((a), (b), sizeof(double) * (size_t)(n)) == 0)

/* Every array of two templates equal; returns 1 when they are. */
static int same_template(const gcsim_tree_template *x, const gcsim_tree_template *y)
{
    int before = check_failures;
    CHECK(x->gpus == y->gpus && x->rails == y->rails && x->per_rail == y->per_rail);
    CHECK(x->omax == y->omax && x->n_raw == y->n_raw);
    CHECK(x->n_kinds == y->n_kinds && x->n_kind_flows == y->n_kind_flows);
    CHECK(x->n_links == y->n_links && x->n_sigs == y->n_sigs);
    if (check_failures != before)
        return 0;
    int nk = x->n_kinds, nl = x->n_links, ns = x->n_sigs;
    SAME_INTS(x->kind_first, y->kind_first, nk);
    SAME_INTS(x->kind_count, y->kind_count, nk);
    for (int f = 0; f < x->n_kind_flows; f++)
        CHECK(x->flows[f].o == y->flows[f].o && x->flows[f].k0 == y->flows[f].k0);
    SAME_DOUBLES(x->link_cap, y->link_cap, nl);
    SAME_INTS(x->link_first, y->link_first, nl + 1);
    SAME_INTS(x->link_seq, y->link_seq, x->link_first[nl]);
    SAME_DOUBLES(x->sig_lat, y->sig_lat, ns);
    SAME_INTS(x->sig_kind, y->sig_kind, ns);
    SAME_INTS(x->sig_nl, y->sig_nl, ns);
    for (int g = 0; g < ns; g++)
        SAME_INTS(x->sig_links + g * GCSIM_ROUTE_MAX_LINKS,
                  y->sig_links + g * GCSIM_ROUTE_MAX_LINKS, x->sig_nl[g]);
    SAME_INTS(x->kind_link_first, y->kind_link_first, nk + 1);
    SAME_INTS(x->kind_link, y->kind_link, x->kind_link_first[nk]);
    SAME_INTS(x->kind_sig_first, y->kind_sig_first, nk + 1);
    SAME_INTS(x->kind_sig, y->kind_sig, x->kind_sig_first[nk]);
    SAME_INTS(x->link_sig_first, y->link_sig_first, nl + 1);
    SAME_INTS(x->link_sig, y->link_sig, x->link_sig_first[nl]);
    SAME_INTS(x->kind_dep_first, y->kind_dep_first, nk + 1);
    SAME_INTS(x->kind_dep, y->kind_dep, x->kind_dep_first[nk]);
    return check_failures == before;
}

/* The template's costs against the built schedule's, flow by flow. */
static void check_costs(gcsim_tree_template *tt, const gcsim_topology *t, gcsim_collective c,
                        size_t n_buckets, int *compared, int *bitwise)
{
    const int chunk_counts[] = {1, 2, 3, 7, 16, 33, 64};
    for (size_t ci = 0; ci < sizeof chunk_counts / sizeof *chunk_counts; ci++) {
        int chunks = chunk_counts[ci];
        gcsim_schedule built, prepared;
        gcsim_error err;
        CHECK(gcsim_schedule_build(&built, c, t, 0, chunks, &err) == 0);
        int rc = gcsim_tree_template_prepare(tt, chunks, &prepared);
        CHECK(rc >= 0);
        if (rc == 1) { /* not windowed: the memo builds the schedule itself */
            CHECK(built.n_phases == 1 && built.phases[0].steps == chunks + tt->omax);
            gcsim_schedule_free(&built);
            continue;
        }
        for (size_t bi = 0; bi < n_buckets; bi++) {
            double want = gcsim_schedule_time_s(&built, t, &test_payload_kinds[bi]);
            double got = gcsim_schedule_prepared_time_s(&prepared, &test_payload_kinds[bi]);
            CHECK(want > 0);
            CHECK_REL(got, want, 1e-9);
            (*compared)++;
            *bitwise += got == want;
        }
        gcsim_schedule_free(&built);
        gcsim_schedule_free(&prepared);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_tree_sender SOURCE_DIR\n");
        return 2;
    }
    const char *names[] = {"a100-hdr", "cloud-v100-25gbe", "dgc-fig6-10gbe", "h100-ndr",
                           "terngrad-fig5b"};
    const int counts[] = {2, 3, 5, 8, 9, 15, 17, 31, 48, 67, 100, 129, 257, 1000, 4099};
    /* per node: the platform's own, then 4 GPUs with 2 NICs, then 2 GPUs with 1 NIC */
    const int shapes[][2] = {{0, 0}, {4, 2}, {2, 1}};
    int templates = 0, compared = 0, bitwise = 0, nvls_compared = 0;
    for (size_t pi = 0; pi < sizeof names / sizeof *names; pi++) {
        gcsim_platform base;
        if (catalog_platform(argv[1], names[pi], &base) != 0)
            return 1;
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
            gcsim_platform p = base;
            if (shapes[si][0] > 0) {
                if (p.gpus_per_node < shapes[si][0])
                    continue;
                p.gpus_per_node = shapes[si][0];
                if (p.nic.per_node > shapes[si][1])
                    p.nic.per_node = shapes[si][1];
            }
            p.nodes = (4099 + p.gpus_per_node - 1) / p.gpus_per_node;
            for (size_t ni = 0; ni < sizeof counts / sizeof *counts; ni++) {
                gcsim_topology t;
                if (catalog_topology(&p, names[pi], counts[ni], &t) != 0) {
                    CHECK(0);
                    continue;
                }
                for (int dbl = 0; dbl < 2; dbl++) {
                    gcsim_collective c = dbl ? COLLECTIVE_DOUBLE_TREE : COLLECTIVE_TREE;
                    gcsim_tree_template *x = gcsim_tree_template_new(&t, c);
                    gcsim_tree_template *y = gcsim_tree_template_new_from_flows(&t, c);
                    CHECK(x && y);
                    if (x && y && same_template(x, y))
                        templates++;
                    else
                        fprintf(stderr, "%s (%d x %d), %d GPUs, %s: templates differ\n",
                                names[pi], p.gpus_per_node, p.nic.per_node, counts[ni],
                                dbl ? "double tree" : "tree");
                    if (x && counts[ni] <= 257)
                        check_costs(x, &t, c, TEST_PAYLOAD_KINDS, &compared,
                                    &bitwise);
                    gcsim_tree_template_free(x);
                    gcsim_tree_template_free(y);
                }
                /* NVLS-tree (tree_nvls.c): the template scales the capacity of the links
                 * flows inside a node cross, the built schedule those flows' shares; the
                 * same time to rounding (not bit for bit: cap x s x share / (s x load)
                 * against cap x (share / s) / load), for the payloads whose time does not
                 * depend on a flow's share otherwise: not the per-worker scale's
                 * re-encode, charged on a step's largest share, which NVLS-tree (dense
                 * calls only: the tuner's pick) never carries */
                if (p.intra.nvls_Bps > 0 && counts[ni] <= 257 && t.nodes > 1) {
                    gcsim_tree_template *x = gcsim_tree_template_new(&t, COLLECTIVE_NVLS_TREE);
                    int unused = 0;
                    CHECK(x != NULL);
                    if (x)
                        check_costs(x, &t, COLLECTIVE_NVLS_TREE, 3, &nvls_compared, &unused);
                    gcsim_tree_template_free(x);
                }
                gcsim_topology_free(&t);
            }
        }
    }
    printf("%d templates the same array by array; %d costs against the built schedule, %d bit "
           "for bit\n", templates, compared, bitwise);
    CHECK(templates > 300);
    CHECK(compared > 2000);
    CHECK(bitwise == compared);
    printf("%d NVLS-tree costs against the built schedule (relative 1e-9)\n", nvls_compared);
    CHECK(nvls_compared > 100);
    CHECK_DONE();
}
