/*
 * sim/analytic/fabric_expect.h: the analytic engine's expected effect of ECMP collisions
 * and network jitter (issue 41; docs/des.md, "Shared fabric"), so that it answers the same
 * question as the DES (sim/des/des_fabric.h) averaged over seeds.
 *
 * ECMP (--ecmp-spines S): the DES hashes each endpoint's traffic between leaves onto one of
 * S spine links of U / S per leaf and direction; k flows on one spine link share it, U/(S k)
 * each. The closed form's step lasts as long as its slowest flow, so where those links set
 * the time a step is set by K, the largest count of flows on any spine link: its flows move
 * at U/(S K) against U/n on the aggregate uplink of n flows (the closed form without ECMP).
 * The hash is per endpoint, fixed for the whole run, so every step and call of a run sees
 * the same K. The expected time is therefore
 *     E[T] = sum over k of P(K = k) T(uplinks of capacity U n / (S k)),
 * T the engine's own closed form (the collective, or the whole iteration), K's law the
 * balls-into-bins maximum: P(K <= c) = prod over loaded links l of P(max load of n_l balls
 * in S bins <= c) (links are hashed independently: different endpoints or directions).
 * Approximations (stated in the output's note): n is the largest count of one leaf link in
 * the phase with the most flows between leaves, and every link is scaled as if it had n
 * flows (exact for the symmetric schedules of a full fat tree); phases with other flows
 * than that one see the same scale.
 *
 * Jitter (--jitter-us M): every message is delayed by an Exp(mean M) draw. The closed form's
 * steps are barriers, so each step waits for the largest delay among its n_s messages,
 * expected M H(n_s) (H the harmonic number): the schedule's time grows by
 *     M x sum over its phases' steps of H(n_s).
 * Exact where a step's messages all synchronise (one step, e.g. a 2-GPU all-gather:
 * T0 + 1.5 M); an upper estimate for chains of steps, where the DES only waits along the
 * dependencies (a ring's receiver waits for its own message, whose sender waited for its
 * own: the slowest path, not the sum of every step's slowest message).
 */
#ifndef GCSIM_ANALYTIC_FABRIC_EXPECT_H
#define GCSIM_ANALYTIC_FABRIC_EXPECT_H

#include "collectives.h"
#include "step.h" /* the law of ECMP collisions (gcsim_ecmp_law, sim/step/ecmp_law.c) */

/* H(n) = 1 + 1/2 + ... + 1/n (0 for n <= 0); the sum up to 1000, the asymptotic series
 * above (error under 1e-14). */
double gcsim_harmonic(long long n);

/* The messages of each step of schedule s: M x sum over steps of H(messages of the step)
 * is the expected extra time of jitter of mean M (one message per flow and active step). */
double gcsim_jitter_harmonic_steps(const gcsim_schedule *s);

/* One closed-form evaluation on topology tq (the caller's links on platform tq->platform,
 * its ECMP fields cleared), to be added into the caller's ctx with this weight (the weights
 * of one expectation sum to 1). */
typedef int (*gcsim_fabric_cost_fn)(const gcsim_topology *tq, double weight, void *ctx,
                                    gcsim_error *err);

/* The expectation over ECMP collisions of cost (see above), for a bare collective (a step's
 * fabrics are resolved with it, sim/step/step_fabrics.c): schedule s on topology t (of p,
 * with p->ecmp.spines > 1) gives the flows per leaf link; cost is evaluated at each case of
 * gcsim_ecmp_law (k with P(K = k) > 1e-15) on t's links over a copy of p whose
 * oversubscription is scaled by S k / n and whose ecmp is cleared (its jitter kept). Without
 * flows between leaves (or S = 1) it is cost on that copy unscaled. */
int gcsim_ecmp_expect(const gcsim_platform *p, const gcsim_schedule *s,
                      const gcsim_topology *t, gcsim_fabric_cost_fn cost, void *ctx,
                      gcsim_error *err);

#endif
