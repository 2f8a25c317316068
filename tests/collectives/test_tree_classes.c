/*
 * The pipelined trees' template built by classes of nodes (sim/collectives/tree_classes.c,
 * issue 47: one node per role, one pass over the pairs that cross leaves) against the
 * template built sender by sender (every GPU's pairs and routes listed, tree_cost.c): every
 * array equal, element by element (so every cost prepared from them is the same bit for
 * bit), including each kind's first link and first pair (where tree_template_value finds
 * the numbers of another platform of the shape). The grid: the platforms of
 * test_tree_sender (NVSwitch with rails, NVLink pairs, PCIe, a fat tree of 20 nodes per
 * leaf and a star), each also with 4 GPUs and 2 NICs and with 2 GPUs and 1 NIC per node;
 * GPU counts 2 .. 131,072 with full and partly filled last nodes, node counts odd and even
 * (the second tree shifted or mirrored) and not powers of two; tree, double tree and
 * NVLS-tree where the platform has NVLS. The class-built template is taken alone
 * (gcsim_tree_template_new_by_classes), so a fallback to the per-sender build cannot pass
 * for it: the test counts the templates compared and fails on any NULL.
 *   test_tree_classes SOURCE_DIR */
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "tree_internal.h"
#include "catalog_platform.h"

#define SAME_INTS(a, b, n) CHECK((n) == 0 || memcmp((a), (b), sizeof(int) * (size_t)(n)) == 0)
#define SAME_DOUBLES(a, b, n)                                                                  \
    CHECK((n) == 0 || memcmp((a), (b), sizeof(double) * (size_t)(n)) == 0)

static int same_template(const gcsim_tree_template *x, const gcsim_tree_template *y)
{
    int before = check_failures;
    CHECK(x->gpus == y->gpus && x->rails == y->rails && x->per_rail == y->per_rail);
    CHECK(x->omax == y->omax && x->n_raw == y->n_raw);
    CHECK(x->n_kinds == y->n_kinds && x->n_kind_flows == y->n_kind_flows);
    CHECK(x->n_links == y->n_links && x->n_sigs == y->n_sigs);
    CHECK(memcmp(&x->port_scale, &y->port_scale, sizeof x->port_scale) == 0);
    if (check_failures != before)
        return 0;
    int nk = x->n_kinds, nl = x->n_links, ns = x->n_sigs;
    SAME_INTS(x->kind_first, y->kind_first, nk);
    SAME_INTS(x->kind_count, y->kind_count, nk);
    for (int f = 0; f < x->n_kind_flows; f++)
        CHECK(x->flows[f].o == y->flows[f].o && x->flows[f].k0 == y->flows[f].k0);
    SAME_DOUBLES(x->link_cap, y->link_cap, nl);
    SAME_INTS(x->link_rep, y->link_rep, nl);
    for (int l = 0; l < nl; l++)
        CHECK(x->link_scaled[l] == y->link_scaled[l]);
    SAME_INTS(x->link_first, y->link_first, nl + 1);
    SAME_INTS(x->link_seq, y->link_seq, x->link_first[nl]);
    SAME_DOUBLES(x->sig_lat, y->sig_lat, ns);
    SAME_INTS(x->sig_src, y->sig_src, ns);
    SAME_INTS(x->sig_dst, y->sig_dst, ns);
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_tree_classes SOURCE_DIR\n");
        return 2;
    }
    const char *names[] = {"a100-hdr", "cloud-v100-25gbe", "dgc-fig6-10gbe", "h100-ndr",
                           "terngrad-fig5b",
                           /* NVL72 racks: 15 channels on 18 rails, fewer channels than
                            * rails (gcsim_topology_net_channels) */
                           "gb200-nvl72"};
    const int counts[] = {2,    3,    5,    8,    9,    17,    31,    64,    100,   129,
                          257,  640,  1000, 1288, 4099, 8192,  12344, 20000, 32768};
    const int shapes[][2] = {{0, 0}, {4, 2}, {2, 1}};
    int templates = 0, sigs = 0;
    for (size_t pi = 0; pi < sizeof names / sizeof *names; pi++) {
        gcsim_platform base;
        gcsim_error err;
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
            p.nodes = 131072 / p.gpus_per_node + 1;
            for (size_t ni = 0; ni < sizeof counts / sizeof *counts + 1; ni++) {
                /* the last: 2^17 GPUs, on a100-hdr's own shape only (the per-sender build
                 * takes a second there) */
                int gpus = ni < sizeof counts / sizeof *counts ? counts[ni] : 131072;
                if (gpus == 131072 && (pi != 0 || si != 0))
                    continue;
                gcsim_topology t;
                if (gcsim_topology_init(&t, &p, gpus, &err) != 0) {
                    fprintf(stderr, "%s, %d GPUs: %s\n", names[pi], gpus, err.message);
                    CHECK(0);
                    continue;
                }
                /* the rack's own shape has the case this covers: fewer channels than
                 * rails (GB200: 15 on 18) */
                if (strcmp(names[pi], "gb200-nvl72") == 0 && si == 0 && gpus >= 144)
                    CHECK(t.net_channels == 15 && t.nics_per_node == 18);
                for (int ci = 0; ci < 3; ci++) {
                    gcsim_collective c = ci == 0   ? COLLECTIVE_TREE
                                         : ci == 1 ? COLLECTIVE_DOUBLE_TREE
                                                   : COLLECTIVE_NVLS_TREE;
                    if (c == COLLECTIVE_NVLS_TREE && !(p.intra.nvls_Bps > 0))
                        continue;
                    gcsim_tree_template *x = gcsim_tree_template_new_by_classes(&t, c);
                    gcsim_tree_template *y = gcsim_tree_template_new_per_sender(&t, c);
                    CHECK(x && y);
                    if (x && y && same_template(x, y)) {
                        templates++;
                        sigs += x->n_sigs;
                    } else {
                        fprintf(stderr, "%s (%d x %d), %d GPUs, collective %d: templates differ\n",
                                names[pi], p.gpus_per_node, p.nic.per_node, gpus, (int)c);
                    }
                    gcsim_tree_template_free(x);
                    gcsim_tree_template_free(y);
                }
                gcsim_topology_free(&t);
            }
        }
    }
    printf("%d templates the same array by array (%d flow kinds)\n", templates, sigs);
    CHECK(templates > 500);
    CHECK_DONE();
}
