/*
 * sim/des/des_maxmin.h: the flows of a barrier-synchronised phase or block solved outside
 * SimGrid (issue 47): what SimGrid 3.32's CM02 network model with the DES's alpha-beta
 * settings (TCP-gamma 0, no cross-traffic, full max-min update) does with flows that all
 * start at one instant on links that nothing else crosses, computed without actors,
 * mailboxes or communications.
 *
 * The model reproduced (SimGrid 3.32, src/surf/network_cm02.cpp NetworkCm02Model::
 * communicate and update_actions_state_full, src/kernel/resource/NetworkModel.cpp
 * next_occurring_event_full, src/kernel/lmm/maxmin.cpp MaxMin::maxmin_solve):
 * - a flow first pays its route's latency without using bandwidth (its max-min variable
 *   has penalty 0), then shares its links max-min fairly with the penalty = its route
 *   latency (weight-S is 0 under CM02), i.e. with weight 1 / latency (a route of latency 0
 *   has penalty 1 from the start);
 * - every link is a SHARED constraint of its capacity; a flow's rate on a saturated link is
 *   (remaining capacity / sum of the unfixed flows' weights) / its penalty, progressive
 *   filling link by link;
 * - at each event (a latency paid, a flow done) every rate is solved again; the clock
 *   advances by the earliest of the latencies left and remaining bytes / rate; bytes left
 *   under 1e-14 count as done, latency left under 1e-9 s as paid (SimGrid's default
 *   maxmin/precision 1e-5 and precision/timing 1e-9, double_update).
 * Solved as parts (des_maxmin.c, docs/des.md step 21): links that cannot bind left out,
 * flows that then share no link solved as separate event loops, identical parts once.
 * The arithmetic follows SimGrid's order where it matters (the clock is a sum of the
 * events' deltas), not bit for bit everywhere (the solver's sums run over the flows in
 * another order), so results agree to rounding (docs/des.md, step 16).
 */
#ifndef GCSIM_DES_MAXMIN_H
#define GCSIM_DES_MAXMIN_H

typedef struct {
    double bytes;      /* what the flow moves (whole bytes, as the message carries) */
    double latency_s;  /* its route's latency, SimGrid's sum */
    double extra_s;    /* charged after its end (the other steps' latencies of a block) */
    int first_link;    /* its links: links[first_link .. first_link + n_links) */
    int n_links;
} des_mm_flow;

typedef struct {
    int n_links;
    const double *capacity_Bps;   /* per link */
    int n_flows;
    const des_mm_flow *flows;
    const int *links;             /* link indices of every flow's route */
} des_mm_problem;

/* Solves p from clock t0_s: the latest of every flow's end plus its extra_s, the clock as
 * SimGrid's would read it, in *end_s; each flow's end (without extra) in finish_s[i] when
 * finish_s is not NULL; the number of events (max-min solves) in *events when not NULL.
 * Returns 0, or -1 when out of memory. */
int des_mm_solve(const des_mm_problem *p, double t0_s, double *end_s, double *finish_s,
                 long *events);

#endif
