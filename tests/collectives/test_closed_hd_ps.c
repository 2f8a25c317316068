/*
 * tests/collectives/test_closed_hd_ps.c: the flow-free classes of halving-doubling and the
 * parameter server (sim/collectives/closed_hd.c, closed_ps.c) against the classes
 * gcsim_schedule_prepare finds flow by flow on the grid of closed_compare.h, against
 * classes computed by hand, and at sizes whose flows would not fit in memory.
 */
#include <stdio.h>
#include <sys/resource.h>

#include "../check.h"
#include "closed_compare.h"
#include "test_platforms.h"

/* Every GPU count up to 40, then partly filled nodes and leaves up to 200. */
static const int sample_gpus[] = {45, 47, 48, 63, 64, 65, 71, 96, 97, 100, 127, 128, 129,
                                  143, 150, 160, 175, 191, 192, 193, 200};

/* Halving-doubling walks only some GPUs once the fold prefix or the rest hold ten leaves
 * (closed_hd.c): counts where both do, with partly filled nodes and leaves. Its flows are
 * few (N log N), so these cost little flow by flow. */
static const int hd_more_gpus[] = {401, 511, 767, 1000, 1537, 2047, 3071, 4095, 6143, 12000};

static int grid_agrees(gcsim_collective c, int shards_kind)
{
    int bad = 0, nsample = (int)(sizeof sample_gpus / sizeof sample_gpus[0]);
    int nmore = c == COLLECTIVE_HALVING_DOUBLING ? (int)(sizeof hd_more_gpus / sizeof(int)) : 0;
    for (int k = 0; k < CLOSED_GRID_PLATFORMS; k++) {
        for (int x = 0; x < 39 + nsample + nmore; x++) {
            int gpus = x < 39 ? x + 2
                     : x < 39 + nsample ? sample_gpus[x - 39] : hd_more_gpus[x - 39 - nsample];
            gcsim_platform p = closed_grid_platform(k, gpus);
            int nodes = (gpus + p.gpus_per_node - 1) / p.gpus_per_node;
            /* shards: 0 (one per node), 1, 3, or 2 x nodes + 1 */
            int shards = shards_kind == 0 ? 0 : shards_kind == 1 ? 1
                       : shards_kind == 2 ? 3 : 2 * nodes + 1;
            char why[2048];
            int rc = closed_compare(&p, gpus, c, shards, 0, why, sizeof why);
            if (rc != 0) {
                fprintf(stderr, "%s, grid platform %d, %d GPUs, shards %d: %s\n",
                        gcsim_collective_name(c), k, gpus, shards, why);
                bad++;
            }
        }
    }
    return bad;
}

/* The prepared schedule by the closed form; 0 when it covered the case. */
static int closed(const gcsim_platform *p, int gpus, gcsim_collective c, int shards,
                  gcsim_schedule *s)
{
    gcsim_topology t;
    gcsim_error err;
    if (gcsim_topology_init(&t, p, gpus, &err))
        return -1;
    return gcsim_closed_form_prepare(s, c, &t, shards, 0, &err);
}

static int has_class(const gcsim_phase *ph, double lat, double Bps, double share, double k0)
{
    gcsim_flow_class want = {lat, Bps, share, k0, 0, 0};
    for (int k = 0; k < ph->n_classes; k++)
        if (closed_class_near(&ph->classes[k], &want))
            return 1;
    return 0;
}

/* Platform U (4 GPUs per node on a 10 GB/s PCIe switch, 12.5 GB/s PCIe to the host, one
 * 125e6 B/s NIC, 5 us inside a node, 50 us between, no switch latency), 6 GPUs: node 0
 * holds 0-3, node 1 holds 4-5. pow2 = 4, r = 2: vranks 0..3 are ranks 1, 3, 4, 5.
 *   fold: 0->1, 2->3 inside node 0: {5 us, 10e9 B/s, share 1, k 1}
 *   halving D=2: 1<->4, 3<->5 cross; node 0's NIC carries 2 flows up (and node 1's 2
 *     down), each of share 1/2: min(12.5e9, 125e6 x 0.5/1.0) = 62.5e6 B/s, 50 us, k 6/4
 *   halving D=1: 1<->3, 4<->5 inside: {5 us, 10e9, 1/4, k 3}
 *   doubling D=1 then D=2: the same with k 6; unfold 1->0, 3->2: {5 us, 10e9, 1, k 6}. */
static void hand_hd(void)
{
    gcsim_platform u = platform_u();
    gcsim_schedule s;
    CHECK(closed(&u, 6, COLLECTIVE_HALVING_DOUBLING, 0, &s) == 0);
    CHECK(s.n_phases == 6);
    if (s.n_phases != 6)
        return;
    const char *names[6] = {"fold", "halving", "halving", "doubling", "doubling", "unfold"};
    for (int k = 0; k < 6; k++) {
        CHECK(strcmp(s.phases[k].name, names[k]) == 0);
        CHECK(s.phases[k].n_classes == 1);
    }
    CHECK(has_class(&s.phases[0], 5e-6, 10e9, 1, 1));
    CHECK(has_class(&s.phases[1], 50e-6, 62.5e6, 0.5, 1.5));
    CHECK(has_class(&s.phases[2], 5e-6, 10e9, 0.25, 3));
    CHECK(has_class(&s.phases[3], 5e-6, 10e9, 0.25, 6));
    CHECK(has_class(&s.phases[4], 50e-6, 62.5e6, 0.5, 6));
    CHECK(has_class(&s.phases[5], 5e-6, 10e9, 1, 6));
    gcsim_schedule_free(&s);
}

/* Platform R (2 nodes of 8 GPUs on a 300 GB/s NVSwitch, 31.5 GB/s PCIe, one 25 GB/s NIC
 * per GPU, 1 us + 2 x 0.13 us between nodes, 5 us inside), 16 GPUs: a power of two, no
 * fold. Halving D=8 pairs GPU l of node 0 with GPU l of node 1: each NIC (rail) carries one
 * flow of 1/2 each way, min(31.5e9, 25e9) = 25e9 B/s, 1.26 us, k 1; D=4, 2, 1 stay inside
 * a node: 300e9 B/s, 5 us, shares 1/4, 1/8, 1/16, k 2, 4, 8; doubling: the same, k 16. */
static void hand_hd_rails(void)
{
    gcsim_platform rp = platform_r();
    gcsim_schedule s;
    CHECK(closed(&rp, 16, COLLECTIVE_HALVING_DOUBLING, 0, &s) == 0);
    CHECK(s.n_phases == 8);
    if (s.n_phases != 8)
        return;
    for (int d = 1; d <= 4; d++) {
        double share = 1.0 / (1 << d), lat = d == 1 ? 1.26e-6 : 5e-6;
        double Bps = d == 1 ? 25e9 : 300e9;
        CHECK(s.phases[d - 1].n_classes == 1 && s.phases[8 - d].n_classes == 1);
        CHECK(has_class(&s.phases[d - 1], lat, Bps, share, 1 << (d - 1)));
        CHECK(has_class(&s.phases[8 - d], lat, Bps, share, 16));
    }
    gcsim_schedule_free(&s);
}

/* Platform U, 8 GPUs (2 full nodes), 3 shards: CPU 0 holds shards 0 and 2 (share 2/3 of
 * each GPU's payload), CPU 1 shard 1 (1/3).
 *   node 0's GPU -> CPU 0: PCIe up alone (its shares sum to 1): 12.5e9 x 2/3 = 8.333e9
 *     B/s, 5 us; node 1's GPU -> CPU 1: 12.5e9 x 1/3 = 4.167e9 B/s, 5 us;
 *   node 0's GPU -> CPU 1 (1/3): node 0's NIC up carries 4 x 1/3, node 1's NIC down 4 x
 *     1/3: 125e6 x (1/3) / (4/3) = 31.25e6 B/s, 50 us;
 *   node 1's GPU -> CPU 0 (2/3): NIC loads 4 x 2/3: 125e6 x (2/3) / (8/3) = 31.25e6 B/s.
 * The pull crosses the same links the other way: the same classes with k 8. */
static void hand_ps(void)
{
    gcsim_platform u = platform_u();
    gcsim_schedule s;
    CHECK(closed(&u, 8, COLLECTIVE_PARAMETER_SERVER, 3, &s) == 0);
    CHECK(s.n_phases == 2 && s.endpoints == 10);
    if (s.n_phases != 2)
        return;
    for (int k = 0; k < 2; k++) {
        double k0 = k == 0 ? 1 : 8;
        CHECK(s.phases[k].n_classes == 4);
        CHECK(has_class(&s.phases[k], 5e-6, 12.5e9 * 2 / 3, 2.0 / 3, k0));
        CHECK(has_class(&s.phases[k], 5e-6, 12.5e9 / 3, 1.0 / 3, k0));
        CHECK(has_class(&s.phases[k], 50e-6, 31.25e6, 1.0 / 3, k0));
        CHECK(has_class(&s.phases[k], 50e-6, 31.25e6, 2.0 / 3, k0));
    }
    gcsim_schedule_free(&s);
}

static int max_classes(const gcsim_schedule *s)
{
    int m = 0;
    for (int k = 0; k < s->n_phases; k++)
        if (s->phases[k].n_classes > m)
            m = s->phases[k].n_classes;
    return m;
}

/* Sizes whose flows would not fit: 2^22 GPUs in halving-doubling are 88 million flows; the
 * parameter server at 100,000 GPUs on 12,500 nodes is 1.25e9 flows per phase. The closed
 * forms finish with a few classes and no per-GPU memory. */
static void large(void)
{
    int sizes[3] = {1 << 22, 100000, 1 << 22};
    gcsim_collective cs[3] = {COLLECTIVE_HALVING_DOUBLING, COLLECTIVE_PARAMETER_SERVER,
                              COLLECTIVE_PARAMETER_SERVER};
    for (int x = 0; x < 3; x++) {
        /* grid platform 8: 8 GPUs on NVSwitch, 8 NICs, fat tree of 2 nodes per leaf */
        gcsim_platform p = closed_grid_platform(8, sizes[x] / 8 + 1);
        gcsim_schedule s;
        CHECK(closed(&p, sizes[x], cs[x], 0, &s) == 0);
        int levels = 0;
        while ((2 << levels) <= sizes[x])
            levels++;
        CHECK(s.n_phases == (cs[x] == COLLECTIVE_PARAMETER_SERVER ? 2 : 2 * levels));
        CHECK(max_classes(&s) >= 1 && max_classes(&s) <= 8);
        gcsim_bucket_bytes b = {.dense_bytes = 1e8, .payload_bytes = 1e8};
        double time = gcsim_schedule_prepared_time_s(&s, &b);
        CHECK(time > 0 && isfinite(time));
        gcsim_schedule_free(&s);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    /* Run first, so the process's peak is theirs: ru_maxrss is in KiB on Linux; the flows
     * alone would take gigabytes. Under AddressSanitizer (tests/sanitize.sh) the shadow
     * memory and quarantine are counted too: allow it 4 times as much. */
#if defined(__SANITIZE_ADDRESS__)
    CHECK(ru.ru_maxrss < 4 * 64 * 1024);
#else
    CHECK(ru.ru_maxrss < 64 * 1024);
#endif
}

int main(void)
{
    large();
    hand_hd();
    hand_hd_rails();
    hand_ps();
    CHECK(grid_agrees(COLLECTIVE_HALVING_DOUBLING, 0) == 0);
    for (int sk = 0; sk < 4; sk++)
        CHECK(grid_agrees(COLLECTIVE_PARAMETER_SERVER, sk) == 0);
    CHECK_DONE();
}
