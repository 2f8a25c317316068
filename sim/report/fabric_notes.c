/* The shared fabric's notes; see fabric_notes.h. */
#include "fabric_notes.h"

#include <stdio.h>

#include "step.h"

/* What is loaded, that only the DES simulates it, the bound. */
static void background_note(const gcsim_platform *p, char *buf, size_t size)
{
    double f = p->background.fraction;
    snprintf(buf, size, "%.4g of the capacity of every %s taken by other traffic at a constant "
             "rate, each direction: simulated by the DES only; the analytic engine does not "
             "include it (its rows are the unloaded fabric, so DES vs analytic is the slowdown, "
             "at most 1 / (1 - %.4g) = %.4gx where those links set the time)",
             f, p->background.links == GCSIM_BACKGROUND_NICS ? "NIC" : "leaf uplink and downlink",
             f, 1.0 / (1.0 - f));
}

/* The spines, the hash, what each engine does. */
static void ecmp_note(const gcsim_platform *p, char *buf, size_t size)
{
    snprintf(buf, size, "every leaf's uplink and downlink split over %d spine links of 1/%d of "
             "their capacity, each endpoint's traffic between leaves hashed onto one: flows "
             "that hash to one spine share its link. The DES simulates one hash (seed %llu); "
             "the analytic engine gives the expectation over hashes: its closed form with the "
             "flows of the most loaded spine link K at U/(S K), weighted by K's "
             "balls-into-bins law over the leaf links (the flow counts of the phase with most "
             "flows between leaves; docs/des.md, \"Shared fabric\")",
             p->ecmp.spines, p->ecmp.spines, p->ecmp.seed);
}

/* The jitter's distribution, what each engine does. */
static void jitter_note(const gcsim_platform *p, char *buf, size_t size)
{
    snprintf(buf, size, "every message delayed by an extra latency drawn from an exponential "
             "distribution of mean %.4g us, each step waiting for its last message. The DES "
             "simulates one draw (seed %llu), step by step, no coalesced phases; the analytic "
             "engine adds the expected largest delay of each step's n messages, M H(n) "
             "(harmonic number), as if every step were a barrier: exact for one step, an "
             "upper estimate for chains of steps (docs/des.md, \"Shared fabric\")",
             p->jitter.mean_s * 1e6, p->jitter.seed);
}

void fabric_notes_report(report *r, const gcsim_platform *p)
{
    char msg[1024];
    if (p->background.fraction > 0) {
        background_note(p, msg, sizeof msg);
        report_note(r, "background load", msg);
        report_meta_num(r, "background_load", p->background.fraction);
    }
    if (p->ecmp.spines > 0) {
        ecmp_note(p, msg, sizeof msg);
        report_note(r, "ecmp", msg);
        report_meta_int(r, "ecmp_spines", p->ecmp.spines);
        report_meta_int(r, "ecmp_seed", (long long)p->ecmp.seed);
    }
    if (p->jitter.mean_s > 0) {
        jitter_note(p, msg, sizeof msg);
        report_note(r, "network jitter", msg);
        report_meta_num(r, "jitter_mean_s", p->jitter.mean_s);
    }
}

void interference_note_report(report *r, const gcsim_platform *p, gcsim_collective c)
{
    double share = gcsim_platform_interference(p);
    /* the papers' patterns and a parameter server copy through the host (interference.c) */
    if (!(share > 0) || gcsim_collective_exchange(c) == GCSIM_EXCHANGE_PATTERN ||
        gcsim_collective_exchange(c) == GCSIM_EXCHANGE_PS)
        return;
    char msg[512];
    snprintf(msg, sizeof msg,
             "a collective in flight takes %.3g of the GPU from the compute it overlaps (%s; "
             "docs/formats.md, \"Compute-communication interference\"): both engines run "
             "overlapped compute slower while a call is in flight; gpu.comm_interference 0 "
             "turns it off",
             share, p->gpu.comm_interference >= 0
                        ? "stated by the platform's gpu.comm_interference"
                        : "derived: NCCL's CTAs, 2 per NIC, over the GPU type's SMs");
    report_note(r, "interference", msg);
}
