/* sim/planning/breakeven.c: break-even bandwidth of a compressor (breakeven.h). */
#include "breakeven.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"

const char *gcsim_breakeven_status_name(gcsim_breakeven_status s)
{
    switch (s) {
    case BREAKEVEN_FOUND: return "found";
    case BREAKEVEN_NEVER: return "never";
    case BREAKEVEN_ALWAYS: return "always";
    case BREAKEVEN_SINGLE_NODE: return "single-node";
    case BREAKEVEN_REFUSED: return "refused";
    }
    return "?";
}

/* Both predictions on a copy of the platform whose NICs run at nic_Bps. */
static int at(const gcsim_scenario *dense, const gcsim_scenario *comp, double nic_Bps,
              gcsim_prediction *pd, gcsim_prediction *pc, gcsim_error *err)
{
    gcsim_platform p = *dense->platform;
    p.nic.bandwidth_Bps = nic_Bps;
    gcsim_scenario d = *dense, c = *comp;
    d.platform = c.platform = &p;
    /* each step built on this platform (engine_run): NCCL's tuner may pick otherwise there */
    if (engine_run(ENGINE_ANALYTIC, &d, pd, err) || engine_run(ENGINE_ANALYTIC, &c, pc, err))
        return -1;
    return 0;
}

int gcsim_breakeven_find(const gcsim_scenario *dense, const gcsim_scenario *comp,
                         gcsim_breakeven *out, gcsim_error *err)
{
    return gcsim_breakeven_find_factor(dense, comp, 1.0, out, err);
}

int gcsim_breakeven_find_factor(const gcsim_scenario *dense, const gcsim_scenario *comp,
                                double f, gcsim_breakeven *out, gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    out->own_Bps = dense->platform->nic.bandwidth_Bps;
    gcsim_prediction pd, pc;
    if (at(dense, comp, out->own_Bps, &pd, &pc, err))
        return -1;
    out->none_tput = pd.throughput_samples_per_s;
    out->comp_tput = pc.throughput_samples_per_s;
    out->codec_s = pc.compress_s;
    if (dense->placement.machines < 2) {
        out->status = BREAKEVEN_SINGLE_NODE;
        snprintf(out->reason, sizeof out->reason,
                 "%d GPUs fit one node: the NIC carries nothing", dense->placement.gpus);
        return 0;
    }
    /* wins(B): the compressor's throughput is above fp32's at NIC bandwidth B */
    double lo = out->own_Bps / GCSIM_BREAKEVEN_SPAN, hi = out->own_Bps * GCSIM_BREAKEVEN_SPAN;
    gcsim_prediction dlo, clo, dhi, chi;
    if (at(dense, comp, lo, &dlo, &clo, err) || at(dense, comp, hi, &dhi, &chi, err))
        return -1;
    bool win_lo = clo.throughput_samples_per_s / f > dlo.throughput_samples_per_s;
    bool win_hi = chi.throughput_samples_per_s / f > dhi.throughput_samples_per_s;
    if (!win_lo) {
        out->status = BREAKEVEN_NEVER;
        if (f > 1 && clo.comm_s < dlo.comm_s &&
            clo.throughput_samples_per_s > dlo.throughput_samples_per_s)
            snprintf(out->reason, sizeof out->reason,
                     "faster per step at %.3g Gb/s (%.6g vs %.6g samples/s), but its %.3gx "
                     "iterations to accuracy outweigh it", lo * 8 / 1e9,
                     clo.throughput_samples_per_s, dlo.throughput_samples_per_s, f);
        else if (clo.comm_s >= dlo.comm_s)
            snprintf(out->reason, sizeof out->reason,
                     "moves more over the network than fp32 even at %.3g Gb/s (%.3f vs %.3f ms "
                     "of exchange per iteration)",
                     lo * 8 / 1e9, clo.comm_s * 1e3, dlo.comm_s * 1e3);
        else
            snprintf(out->reason, sizeof out->reason,
                     "codec time alone (%.3f ms per iteration) exceeds the saving (%.3f ms of "
                     "exchange) even at %.3g Gb/s",
                     clo.compress_s * 1e3, (dlo.comm_s - clo.comm_s) * 1e3, lo * 8 / 1e9);
        return 0;
    }
    if (win_hi) {
        out->status = BREAKEVEN_ALWAYS;
        snprintf(out->reason, sizeof out->reason, "beats fp32 at every bandwidth up to %.3g Gb/s",
                 hi * 8 / 1e9);
        return 0;
    }
    /* Bisection in log bandwidth to 0.1%: throughput moves monotonically with bandwidth
     * for both, the sign of their difference changes once in the cases searched; where
     * it changes more than once this finds one crossing. */
    while (hi / lo > 1.001) {
        double mid = sqrt(lo * hi);
        if (at(dense, comp, mid, &dlo, &clo, err))
            return -1;
        if (clo.throughput_samples_per_s / f > dlo.throughput_samples_per_s)
            lo = mid;
        else
            hi = mid;
    }
    out->status = BREAKEVEN_FOUND;
    out->breakeven_Bps = sqrt(lo * hi);
    snprintf(out->reason, sizeof out->reason, "beats fp32 below %.4g Gb/s per NIC",
             out->breakeven_Bps * 8 / 1e9);
    return 0;
}
