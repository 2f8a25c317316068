/*
 * tests/collectives/closed_compare.h: compares a collective's flow-free classes
 * (closed_form.h) with the ones gcsim_schedule_prepare finds flow by flow, on a grid of
 * topologies that covers every situation the closed forms tell apart: PCIe switch, NVLink
 * and NVSwitch nodes; 1 to 8 GPUs per node and 1 to 8 NICs; a star and fat trees of 1, 2, 3
 * and 5 nodes per leaf, blocking and not; a partly filled last node and last leaf.
 *
 * Agreement means: the same phases (name, steps, dk, reduce), every class of either side
 * within CLOSED_REL_TOL of a class of the other, for windowed phases the same intervals of
 * steps each with the same classes, and the same prepared time for buckets of
 * every aggregation kind (dense, shared scale, sparse, per-worker scale with codec time)
 * within CLOSED_REL_TOL. The tolerance allows only the rounding of a link's load summed in
 * another order.
 */
#ifndef GCSIM_TEST_CLOSED_COMPARE_H
#define GCSIM_TEST_CLOSED_COMPARE_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../des/des_test_platform.h"
#include "closed_form.h"
#include "collectives.h"

#define CLOSED_REL_TOL 1e-12

static int closed_near(double a, double b)
{
    if (a == b)
        return 1;
    return fabs(a - b) <= CLOSED_REL_TOL * fmax(fabs(a), fabs(b));
}

static int closed_class_near(const gcsim_flow_class *x, const gcsim_flow_class *y)
{
    return x->first == y->first && x->last == y->last && closed_near(x->k0, y->k0) &&
           closed_near(x->share, y->share) && closed_near(x->latency_s, y->latency_s) &&
           closed_near(x->Bps, y->Bps);
}

/* Whether every class of a is near one of b. */
static int closed_classes_within(const gcsim_phase *a, const gcsim_phase *b)
{
    for (int i = 0; i < a->n_classes; i++) {
        int found = 0;
        for (int j = 0; j < b->n_classes && !found; j++)
            found = closed_class_near(&a->classes[i], &b->classes[j]);
        if (!found)
            return 0;
    }
    return 1;
}

/* Whether two windowed phases (n_intervals > 0 on either side) have the same intervals of
 * steps, each with the same set of classes (within CLOSED_REL_TOL, as above); two phases
 * without intervals pass. */
static int closed_intervals_match(const gcsim_phase *a, const gcsim_phase *b)
{
    if (a->n_intervals != b->n_intervals)
        return 0;
    for (int k = 0; k < a->n_intervals; k++) {
        if (a->interval_from[k] != b->interval_from[k] || a->interval_to[k] != b->interval_to[k])
            return 0;
        gcsim_phase x = *a, y = *b; /* interval k's classes as a phase's */
        x.classes = a->classes + a->interval_class[k];
        x.n_classes = a->interval_class[k + 1] - a->interval_class[k];
        y.classes = b->classes + b->interval_class[k];
        y.n_classes = b->interval_class[k + 1] - b->interval_class[k];
        if (!closed_classes_within(&x, &y) || !closed_classes_within(&y, &x))
            return 0;
    }
    return 1;
}

/* Buckets of every aggregation kind: 100 MB fp32 with payloads of a quarter. */
static int closed_buckets(gcsim_bucket_bytes *b)
{
    const gcsim_payload_aggregation kinds[4] = {PAYLOAD_DENSE_SUMMABLE, PAYLOAD_SHARED_SCALE,
                                                PAYLOAD_SPARSE, PAYLOAD_PER_WORKER_SCALE};
    b[0] = (gcsim_bucket_bytes){.dense_bytes = 1e8, .payload_bytes = 1e8,
                                .aggregation = PAYLOAD_DENSE_SUMMABLE};
    for (int k = 0; k < 4; k++)
        b[k + 1] = (gcsim_bucket_bytes){.dense_bytes = 1e8, .payload_bytes = 2.5e7,
                                        .fixed_bytes = 1e5, .aggregation = kinds[k],
                                        .compressed = true, .encode_s = 2e-3,
                                        .decode_s = 1e-3};
    return 5;
}

/* 0 when the closed form of c agrees with the flow-by-flow classes on p at `gpus` GPUs; 1
 * (with why filled) when not; -1 when either cannot be built. */
static int closed_compare(const gcsim_platform *p, int gpus, gcsim_collective c, int shards,
                          int group, char *why, size_t why_len)
{
    gcsim_topology t;
    gcsim_error err;
    gcsim_schedule ref, cf;
    if (gcsim_topology_init(&t, p, gpus, &err) != 0) {
        snprintf(why, why_len, "topology: %s", err.message);
        return -1;
    }
    if (gcsim_schedule_build_for_cost(&ref, c, &t, shards, 1, group, &err) != 0) {
        snprintf(why, why_len, "build: %s", err.message);
        return -1;
    }
    if (gcsim_schedule_prepare(&ref, &t) != 0)
        return -1;
    int rc = gcsim_closed_form_prepare(&cf, c, &t, shards, group, &err);
    if (rc != 0) {
        snprintf(why, why_len, "closed form: %s", rc > 0 ? "not covered" : err.message);
        gcsim_schedule_free(&ref);
        return -1;
    }
    int bad = 0;
    if (cf.n_phases != ref.n_phases || cf.endpoints != ref.endpoints ||
        cf.decodes != ref.decodes) {
        snprintf(why, why_len, "phases %d vs %d, endpoints %d vs %d, decodes %d vs %d",
                 cf.n_phases, ref.n_phases, cf.endpoints, ref.endpoints, cf.decodes,
                 ref.decodes);
        bad = 1;
    }
    for (int k = 0; k < ref.n_phases && !bad; k++) {
        const gcsim_phase *a = &cf.phases[k], *b = &ref.phases[k];
        if (strcmp(a->name, b->name) != 0 || a->steps != b->steps || a->dk != b->dk ||
            a->reduce != b->reduce || a->fixed_k != b->fixed_k) {
            snprintf(why, why_len, "phase %d: %s/%d steps vs %s/%d steps", k, a->name,
                     a->steps, b->name, b->steps);
            bad = 1;
        } else if (!closed_intervals_match(a, b)) {
            snprintf(why, why_len, "phase %d (%s): intervals differ (%d vs %d flow by flow)",
                     k, a->name, a->n_intervals, b->n_intervals);
            bad = 1;
        } else if (!closed_classes_within(a, b) || !closed_classes_within(b, a)) {
            int n = snprintf(why, why_len, "phase %d (%s): classes differ; closed form:", k,
                             a->name);
            for (int i = 0; i < a->n_classes && n < (int)why_len; i++)
                n += snprintf(why + n, why_len - (size_t)n, " [%g s %g B/s %g k%g]",
                              a->classes[i].latency_s, a->classes[i].Bps,
                              a->classes[i].share, a->classes[i].k0);
            n += snprintf(why + n, why_len > (size_t)n ? why_len - (size_t)n : 0, "; flows:");
            for (int i = 0; i < b->n_classes && n < (int)why_len; i++)
                n += snprintf(why + n, why_len - (size_t)n, " [%g s %g B/s %g k%g]",
                              b->classes[i].latency_s, b->classes[i].Bps,
                              b->classes[i].share, b->classes[i].k0);
            bad = 1;
        }
    }
    gcsim_bucket_bytes bk[5];
    int nb = closed_buckets(bk);
    for (int k = 0; k < nb && !bad; k++) {
        double x = gcsim_schedule_prepared_time_s(&cf, &bk[k]);
        double y = gcsim_schedule_prepared_time_s(&ref, &bk[k]);
        if (!closed_near(x, y)) {
            snprintf(why, why_len, "bucket %d: %.17g s vs %.17g s flow by flow", k, x, y);
            bad = 1;
        }
    }
    gcsim_schedule_free(&cf);
    gcsim_schedule_free(&ref);
    return bad;
}

/* The grid's platform number k (0 .. CLOSED_GRID_PLATFORMS-1), big enough for `nodes`. */
enum { CLOSED_GRID_PLATFORMS = 14 };
static gcsim_platform closed_grid_platform(int k, int nodes)
{
    static const struct {
        gcsim_intra_kind intra;
        int gpn, nics, per_leaf;
        double oversub;
    } g[CLOSED_GRID_PLATFORMS] = {
        {INTRA_PCIE_SWITCH, 1, 1, 0, 1}, {INTRA_PCIE_SWITCH, 4, 1, 0, 1},
        {INTRA_PCIE_SWITCH, 4, 2, 2, 1}, {INTRA_PCIE_SWITCH, 3, 1, 3, 2},
        {INTRA_NVLINK, 4, 1, 0, 1},      {INTRA_NVLINK, 8, 1, 2, 1},
        {INTRA_NVLINK, 2, 2, 5, 3},      {INTRA_NVSWITCH, 8, 8, 0, 1},
        {INTRA_NVSWITCH, 8, 8, 2, 1},    {INTRA_NVSWITCH, 8, 4, 3, 2},
        {INTRA_NVSWITCH, 8, 2, 1, 1},    {INTRA_NVSWITCH, 6, 3, 5, 1.5},
        {INTRA_PCIE_SWITCH, 2, 1, 1, 4}, {INTRA_NVSWITCH, 4, 4, 2, 1},
    };
    gcsim_platform p = des_test_platform(nodes, g[k].gpn);
    p.intra.kind = g[k].intra;
    p.intra.gpu_to_gpu_Bps = g[k].intra == INTRA_PCIE_SWITCH ? 12e9 : 300e9;
    p.intra.gpu_to_host_Bps = 31.5e9;
    p.intra.latency_s = 5e-6;
    p.nic.per_node = g[k].nics;
    p.nic.bandwidth_Bps = 25e9;
    p.nic.latency_s = 1e-6;
    if (g[k].per_leaf > 0) {
        p.fabric.topology = FABRIC_FAT_TREE;
        p.fabric.nodes_per_leaf = g[k].per_leaf;
        p.fabric.oversubscription = g[k].oversub;
        p.fabric.switch_latency_s = 0.13e-6;
    }
    return p;
}

#endif
