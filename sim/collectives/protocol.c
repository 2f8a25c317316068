/*
 * sim/collectives/protocol.c: NCCL's protocols as changes of a platform's link figures, and
 * the tuner that picks an algorithm and protocol per operation and size (protocol.h).
 *
 * Figures (facts) from NCCL's tuning model, src/graph/tuning.cc of NVIDIA/nccl (master of
 * 11 Jun 2026, commit 5067397): per-hop latencies in us, {LL, LL128, Simple}:
 *   NVLink: tree {0.6, 1.25, 4.0}, ring {0.6, 1.9, 3.4}
 *   PCIe:   tree {1.0, 1.9, 4.0},  ring {1.0, 2.5, 5.7}
 *   network: tree {5.0, 8.5, 14},  ring {2.7, 4.0, 14.0}
 * with LL's intra-node hop x1.8 when the collective spans nodes; bandwidth relative to
 * Simple: ring LL x0.5, ring LL128 x0.92 (120/128 data bytes per line), tree LL x1/3.8,
 * tree LL128 x7/9 on one node and x120/128 across nodes. gcsim keeps the ratios, not the
 * absolute latencies, and applies them only inside the node: a platform's intra-node
 * latency is what one hop of NCCL's Simple protocol costs there (a100-hdr's is fitted to an
 * nccl-tests log; the others are of the order of a copy's launch), so LL's hop is NCCL's
 * LL/Simple ratio of it; its network and switch latencies are the wire's (an InfiniBand
 * NIC's 1 us), which no protocol shortens, so they stay. The network hops' protocol
 * overheads in NCCL's table (2.7 to 14 us) are software gcsim's Simple does not charge
 * either. NCCL's per-call base latencies and its per-channel bandwidth caps are left out
 * (docs/collectives.md).
 */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "protocol.h"
#include "schedule_memo.h"

static const char *const names[GCSIM_PROTO_COUNT] = {"simple", "ll128", "ll"};

const char *gcsim_protocol_name(gcsim_protocol p)
{
    return (unsigned)p < GCSIM_PROTO_COUNT ? names[p] : "?";
}

int gcsim_protocol_parse(const char *text, gcsim_protocol *out)
{
    for (int k = 0; k < GCSIM_PROTO_COUNT; k++) {
        size_t n = strlen(names[k]), i = 0;
        while (i < n && text[i] && tolower((unsigned char)text[i]) == names[k][i])
            i++;
        if (i == n && text[i] == '\0') {
            *out = (gcsim_protocol)k;
            return 0;
        }
    }
    return -1;
}

static bool nvlink_node(const gcsim_platform *p)
{
    return p->intra.kind == INTRA_NVLINK || p->intra.kind == INTRA_NVSWITCH;
}

bool gcsim_protocol_available(const gcsim_platform *p, gcsim_protocol pr)
{
    return pr == GCSIM_PROTO_LL128 ? nvlink_node(p) : (unsigned)pr < GCSIM_PROTO_COUNT;
}

enum { HW_NVLINK, HW_PCI, HW_NET };

/* NCCL's per-hop latencies (us), [link class][tree 0 / ring 1][LL, LL128, Simple]. */
static const double hop_latency_us[3][2][GCSIM_PROTO_COUNT] = {
    /* gcsim's order: Simple, LL128, LL */
    [HW_NVLINK] = {{4.0, 1.25, 0.6}, {3.4, 1.9, 0.6}},
    [HW_PCI] = {{4.0, 1.9, 1.0}, {5.7, 2.5, 1.0}},
    [HW_NET] = {{14.0, 8.5, 5.0}, {14.0, 4.0, 2.7}},
};

static bool is_tree(gcsim_collective c)
{
    return c == COLLECTIVE_TREE || c == COLLECTIVE_DOUBLE_TREE;
}

static double latency_ratio(int hw, gcsim_collective c, gcsim_protocol pr)
{
    const double *l = hop_latency_us[hw][is_tree(c) ? 0 : 1];
    return l[pr] / l[GCSIM_PROTO_SIMPLE];
}

static double bandwidth_factor(gcsim_collective c, int nodes, gcsim_protocol pr)
{
    switch (pr) {
    case GCSIM_PROTO_LL: return is_tree(c) ? 1.0 / 3.8 : 0.5;
    case GCSIM_PROTO_LL128: return is_tree(c) ? (nodes > 1 ? 120.0 / 128 : 7.0 / 9) : 0.92;
    default: return 1.0;
    }
}

void gcsim_protocol_platform(const gcsim_platform *in, gcsim_collective c, int nodes,
                             gcsim_protocol pr, gcsim_platform *out)
{
    *out = *in;
    if (pr == GCSIM_PROTO_SIMPLE || (unsigned)pr >= GCSIM_PROTO_COUNT)
        return;
    double intra = latency_ratio(nvlink_node(in) ? HW_NVLINK : HW_PCI, c, pr);
    if (pr == GCSIM_PROTO_LL && nodes > 1)
        intra *= 1.8;
    double bw = bandwidth_factor(c, nodes, pr);
    out->intra.latency_s *= intra;
    out->intra.gpu_to_gpu_Bps *= bw;
    out->intra.gpu_to_host_Bps *= bw;
    out->intra.nvlink_link_Bps *= bw;
    out->nic.bandwidth_Bps *= bw;
    /* transports and PCIe topology (topology.c): the protocol's efficiency on every link */
    out->nic.connection_Bps *= bw;
    out->intra.host_memory_Bps *= bw;
    out->intra.socket_link_Bps *= bw;
}

static double closed_form_s(const gcsim_platform *p, int gpus, gcsim_op op, gcsim_collective c,
                            double bytes, gcsim_error *err)
{
    if (op == GCSIM_OP_ALLREDUCE) {
        /* Through the process's schedule memo: the same number as the schedule built here
         * (analytic.schedule_memo), from the ring's closed form and one tree template per
         * protocol platform, where each size and protocol built a listed schedule (issue
         * 45: 47 CPU-s at 2^20 GPUs before the DES's own guard could answer). */
        gcsim_bucket_bytes b = {.dense_bytes = bytes, .payload_bytes = bytes,
                                .aggregation = PAYLOAD_DENSE_SUMMABLE};
        double time_s;
        if (gcsim_schedule_memo_time_s(p, gpus, c, 0, gcsim_pipeline_chunks(c, bytes), 0, &b,
                                       &time_s, err))
            return NAN;
        if (!isfinite(time_s))
            gcsim_fail(err, "out of memory costing the %s schedule", gcsim_collective_name(c));
        return time_s;
    }
    gcsim_topology t;
    if (gcsim_topology_init(&t, p, gpus, err))
        return NAN;
    gcsim_schedule s;
    double payload = bytes;
    if (gcsim_op_schedule_build(&s, op, c, &t, bytes, &payload, err)) {
        gcsim_topology_free(&t);
        return NAN;
    }
    gcsim_bucket_bytes b = {.dense_bytes = payload, .payload_bytes = payload,
                            .aggregation = PAYLOAD_DENSE_SUMMABLE};
    double time_s = gcsim_schedule_time_s(&s, &t, &b);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
    if (!isfinite(time_s))
        gcsim_fail(err, "out of memory costing the %s schedule", gcsim_collective_name(c));
    return time_s;
}

double gcsim_tuner_rank_s(gcsim_collective c, int gpus, bool nvls_tree, double time_s,
                          double latency_s, double ring_time_s, double ring_latency_s)
{
    if (!is_tree(c) || nvls_tree || gpus < 2)
        return time_s;
    double ring_bandwidth_s = fmax(0, ring_time_s - ring_latency_s);
    double tree_over_ring = ((double)gpus / (2.0 * (gpus - 1))) / (0.92 * 0.5);
    return fmax(time_s, latency_s + ring_bandwidth_s * tree_over_ring);
}

int gcsim_tuner_choose(const gcsim_platform *p, int gpus, gcsim_op op, double bytes,
                       gcsim_collective collective, gcsim_protocol protocol,
                       gcsim_tuned *out, gcsim_error *err)
{
    int nodes = (gpus + p->gpus_per_node - 1) / p->gpus_per_node;
    gcsim_collective algos[3] = {COLLECTIVE_RING, COLLECTIVE_DOUBLE_TREE, COLLECTIVE_NVLS};
    int n_algos = op != GCSIM_OP_ALLREDUCE ? 1 : nodes == 1 && p->intra.nvls_Bps > 0 ? 3 : 2;
    if (collective != COLLECTIVE_COUNT) {
        algos[0] = collective;
        n_algos = 1;
    }
    /* NCCL turns LL128 on only where the GPUs of a node talk over NVLink (tuning.cc, commit
     * 5067397: pEnable &= typeIntra <= PATH_NVB, "other cases are not tested and may cause
     * silent data corruption"); its tuner here never picks it on PCIe either. Forcing it
     * there (NCCL_PROTO=LL128) runs an untested protocol: refused rather than timed. */
    if (protocol != GCSIM_PROTO_COUNT && !gcsim_protocol_available(p, protocol))
        return gcsim_fail(err, "--protocol %s: %s: $.intra_node.kind is pcie-switch, and NCCL "
                               "enables LL128 only where a node's GPUs talk over NVLink (on "
                               "PCIe it is untested and may corrupt data, NCCL's tuning.cc); "
                               "give simple or ll",
                          gcsim_protocol_name(protocol), p->source_path);
    if (collective == COLLECTIVE_NVLS && protocol != GCSIM_PROTO_COUNT &&
        protocol != GCSIM_PROTO_SIMPLE)
        return gcsim_fail(err, "collective nvls runs the Simple protocol only (as NCCL's)");
    bool found = false, nvls_tree = nodes > 1 && p->intra.nvls_Bps > 0;
    for (int a = 0; a < n_algos; a++)
        for (int pr = 0; pr < GCSIM_PROTO_COUNT; pr++) {
            if (protocol != GCSIM_PROTO_COUNT ? pr != (int)protocol
                                              : !gcsim_protocol_available(p, (gcsim_protocol)pr))
                continue;
            if (algos[a] == COLLECTIVE_NVLS && pr != GCSIM_PROTO_SIMPLE)
                continue;
            gcsim_platform q;
            gcsim_protocol_platform(p, algos[a], nodes, (gcsim_protocol)pr, &q);
            double t = closed_form_s(&q, gpus, op, algos[a], bytes, err), rank = t;
            if (isnan(t))
                return -1;
            if (is_tree(algos[a]) && !nvls_tree && op == GCSIM_OP_ALLREDUCE) {
                gcsim_platform r;
                gcsim_protocol_platform(p, COLLECTIVE_RING, nodes, (gcsim_protocol)pr, &r);
                double lat = closed_form_s(&q, gpus, op, algos[a], 8, err);
                double ring = closed_form_s(&r, gpus, op, COLLECTIVE_RING, bytes, err);
                double ring_lat = closed_form_s(&r, gpus, op, COLLECTIVE_RING, 8, err);
                if (isnan(lat) || isnan(ring) || isnan(ring_lat))
                    return -1;
                rank = gcsim_tuner_rank_s(algos[a], gpus, nvls_tree, t, lat, ring, ring_lat);
            }
            if (!found || rank < out->rank_s) {
                out->collective = algos[a];
                out->protocol = (gcsim_protocol)pr;
                out->time_s = t;
                out->rank_s = rank;
                out->platform = q;
                found = true;
            }
        }
    return found ? 0 : gcsim_fail(err, "unknown protocol");
}
