/* The platform as `gcsim collective` costs it; see platform_cost.h. */
#include "platform_cost.h"

#include <stdio.h>

#include "analytic.h"
#include "scenario.h"

const char *calib_knob_path(const gcsim_platform *p, calib_knob k)
{
    switch (k) {
    case CALIB_KNOB_NIC_BW: return "nic.bandwidth";
    case CALIB_KNOB_INTRA_BW:
        return p->intra.kind == INTRA_NVLINK ? "intra_node.link_bandwidth"
                                             : "intra_node.gpu_to_gpu";
    case CALIB_KNOB_NVLS_BW: return "intra_node.nvls_bandwidth";
    case CALIB_KNOB_NIC_LAT: return "nic.latency";
    case CALIB_KNOB_INTRA_LAT: return "intra_node.latency";
    default: return "?";
    }
}

bool calib_knob_is_bandwidth(calib_knob k)
{
    return k == CALIB_KNOB_NIC_BW || k == CALIB_KNOB_INTRA_BW || k == CALIB_KNOB_NVLS_BW;
}

bool calib_knob_present(const gcsim_platform *p, calib_knob k)
{
    return k != CALIB_KNOB_NVLS_BW || p->intra.nvls_Bps > 0;
}

double calib_knob_get(const gcsim_platform *p, calib_knob k)
{
    switch (k) {
    case CALIB_KNOB_NIC_BW: return p->nic.bandwidth_Bps;
    case CALIB_KNOB_INTRA_BW:
        return p->intra.kind == INTRA_NVLINK ? p->intra.nvlink_link_Bps : p->intra.gpu_to_gpu_Bps;
    case CALIB_KNOB_NVLS_BW: return p->intra.nvls_Bps;
    case CALIB_KNOB_NIC_LAT: return p->nic.latency_s;
    case CALIB_KNOB_INTRA_LAT: return p->intra.latency_s;
    default: return 0;
    }
}

void calib_knob_set(gcsim_platform *p, calib_knob k, double v)
{
    switch (k) {
    case CALIB_KNOB_NIC_BW: p->nic.bandwidth_Bps = v; break;
    case CALIB_KNOB_INTRA_BW:
        if (p->intra.kind == INTRA_NVLINK) {
            /* as the loader derives it (sim/config/platform.c) */
            p->intra.nvlink_link_Bps = v;
            p->intra.gpu_to_gpu_Bps = p->intra.nvlink_links_per_pair * v;
        } else {
            p->intra.gpu_to_gpu_Bps = v;
        }
        break;
    case CALIB_KNOB_NVLS_BW: p->intra.nvls_Bps = v; break;
    case CALIB_KNOB_NIC_LAT: p->nic.latency_s = v; break;
    case CALIB_KNOB_INTRA_LAT: p->intra.latency_s = v; break;
    default: break;
    }
}

/* The calls of cmd_collective.c's time_sizes (analytic engine, default options): keep the
 * two in step. */
int calib_platform_op_time_s(const gcsim_platform *p, int gpus, gcsim_op op, double bytes,
                             gcsim_collective collective, gcsim_protocol protocol,
                             calib_cost *out, gcsim_error *err)
{
    gcsim_collective forced = op == GCSIM_OP_ALLREDUCE ? collective : COLLECTIVE_COUNT;
    gcsim_collective c;
    if (forced == COLLECTIVE_COUNT && op == GCSIM_OP_ALLREDUCE && p->collective[0] &&
        gcsim_platform_default_algorithm(p, &c))
        forced = c; /* a paper's pattern is no NCCL algorithm: the tuner's pick then */
    gcsim_tuned tuned;
    if (gcsim_tuner_choose(p, gpus, op, bytes, forced, protocol, &tuned, err))
        return -1;
    out->collective = tuned.collective;
    out->protocol = tuned.protocol;
    gcsim_topology topo;
    if (gcsim_topology_init(&topo, &tuned.platform, gpus, err))
        return -1;
    int rc = gcsim_analytic_op_time(&topo, op, tuned.collective, bytes, &out->time_s, err);
    gcsim_topology_free(&topo);
    return rc;
}

void calib_cost_text(gcsim_op op, const calib_cost *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s",
             op == GCSIM_OP_ALLREDUCE   ? gcsim_collective_name(c->collective)
             : op == GCSIM_OP_BROADCAST ? "chain-and-tree"
                                        : "ring",
             gcsim_protocol_name(c->protocol));
}
