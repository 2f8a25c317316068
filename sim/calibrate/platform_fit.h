/*
 * sim/calibrate/platform_fit.h: platform fields searched so that the platform, run as
 * `gcsim collective` runs it (platform_cost.h), reproduces a log's rows.
 *
 * The error of a row is that of busbw: predicted / measured - 1 = t_measured / t_pred - 1
 * (positive: the platform is too fast). Rows fall in two regimes, told by the log itself
 * (calib_classify): bandwidth-bound where the measured busbw is at least half the log's
 * highest, latency-bound below. The bandwidth knob is set so that the median error over
 * the bandwidth-bound rows is zero, the latency knob so that the median over the
 * latency-bound rows is zero (a sign change found on a log grid over [1/CALIB_FIT_RANGE,
 * CALIB_FIT_RANGE] times the starting value, the one nearest it, then bisected: the
 * tuner's pick may change with a knob, so the median need not be monotone in it),
 * CALIB_FIT_ROUNDS times in turn as each knob moves the other regime a little; then
 * each knob is scanned about that value for the smallest worse-regime median |error|
 * (polish), then both together on a small grid. A regime without rows leaves its knob unchanged.
 * Several bandwidth knobs may be candidates (the NIC, the intra-node links, NVLS): each is
 * fitted from the same start; of those that meet CALIB_FIT_TARGET in both regimes, kept
 * is the first whose link the search moved (a link the log does not depend on is no fit),
 * preferring one whose bandwidth stays within [CALIB_FIT_BAND, 1] of its start (the base's
 * line rate); when none meets the target, the one whose worse regime median |error| is
 * lowest (ties within 0.1 point: the earlier).
 *
 * A second latency (lat2_knob): a multi-node log's smallest rows are NCCL's
 * per-call floor, where the node's hop latency (intra_node.latency, an assumption in most
 * bases) is paid on every step as much as nic.latency; with the node's latency fixed, a
 * log whose floor sits below the model's drove nic.latency to ~0 and left the 1-16 MiB rows
 * too fast (issue 42: the nccl-tests 309 logs). When a multi-node log is fitted without a
 * single-node one, the node's latency is polished (coarse and fine), the zero-median rounds
 * rerun from there, the three knobs polished once more, and the state of lowest worse-regime
 * median seen is kept: it cannot make the fit worse on the rows used.
 */
#ifndef GCSIM_CALIBRATE_PLATFORM_FIT_H
#define GCSIM_CALIBRATE_PLATFORM_FIT_H

#include <stdbool.h>

#include "platform_cost.h"

#define CALIB_FIT_RANGE 1000.0
#define CALIB_FIT_POINTS 31    /* samples of the wide search, 1.58x apart */
#define CALIB_FIT_ROUNDS 3
#define CALIB_FIT_BISECTIONS 20
#define CALIB_FIT_POLISH_WIDE 1.0 /* polish: x e^+-1 around the zero-median value, */
#define CALIB_FIT_POLISH 0.1   /* then +-10% around the best of that */
#define CALIB_FIT_POLISH_STEPS 12
#define CALIB_FIT_POLISH2 0.10 /* then both knobs together, +-10% */
#define CALIB_FIT_GRID2 5
#define CALIB_REGIME_SPLIT 0.5 /* bandwidth-bound: busbw >= half the log's highest */
#define CALIB_FIT_TARGET 0.05 /* median |error| a regime should meet */
#define CALIB_FIT_BAND 0.5    /* a bandwidth kept within [0.5, 1] x its start is preferred */

typedef enum { CALIB_REGIME_LATENCY, CALIB_REGIME_BANDWIDTH } calib_regime;

typedef struct {
    int gpus;
    gcsim_op op;
    const double *size_bytes;
    const double *time_s; /* measured */
    const bool *use;      /* rows taking part in the fit */
    const calib_regime *regime;
    int n;
    gcsim_collective collective; /* forced by the log's run, or COLLECTIVE_COUNT */
    gcsim_protocol protocol;     /* forced by the log's run, or GCSIM_PROTO_COUNT */
} calib_fit_data;

typedef struct {
    calib_knob bw_knob, lat_knob;
    calib_knob lat2_knob;           /* a second latency polished with the others, or
                                       CALIB_KNOB_COUNT (none) */
    bool bw_fitted, lat_fitted;     /* false: the search left the value where it was (no
                                       row it moves) */
    bool lat2_fitted;
    bool bw_at_bound, lat_at_bound; /* the bisection ended at the end of its range: the
                                       median error could not be brought to zero */
    double bw_value, lat_value, lat2_value;
    int n_latency, n_bandwidth;     /* rows used in each regime */
    double median_latency, median_bandwidth; /* median |error| of the rows used, each regime */
} calib_fit_result;

/* Errors of every row (used or not) on p; cost (may be NULL): what each row ran. */
int calib_fit_errors(const gcsim_platform *p, const calib_fit_data *d, double *error,
                     calib_cost *cost, gcsim_error *err);
/* Each row's regime from its measured busbw: bandwidth-bound from CALIB_REGIME_SPLIT of the
 * highest busbw among the rows used, and above ll_cap_Bps (> 0: the bus bandwidth the
 * tuner lets LL reach, NCCL's llMaxBw: such a row runs LL128 or Simple, paced by the links'
 * rate, whatever the latency), latency-bound below. ll_cap_Bps 0: no cap. */
void calib_classify(const double *busbw_Bps, const bool *use, int n, double ll_cap_Bps,
                    calib_regime *regime);

/* Fits p in place: one of the n_bw bandwidth candidates and lat_knob; lat2_knob (or
 * CALIB_KNOB_COUNT: none) is a second latency the polish may move too (above). */
int calib_platform_fit(gcsim_platform *p, const calib_fit_data *d, const calib_knob *bw_cands,
                       int n_bw, calib_knob lat_knob, calib_knob lat2_knob,
                       calib_fit_result *out, gcsim_error *err);

double calib_median(double *v, int n); /* sorts v */

#endif
