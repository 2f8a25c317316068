/*
 * sim/planning/exchange_best.h: the fastest exchange for a case (`--exchange best`).
 *
 * A stack runs each compressor with one exchange of its own (pytorch-ddp all-gathers QSGD
 * payloads; the fused stack all-reduces summable payloads and all-gathers the others), but
 * the payload often allows others: an all-reduce with the payload class's hop rule (partial
 * sums re-encoded at every hop), an all-gather, a parameter server that decodes, sums and
 * re-encodes. Which one is fastest depends on the GPU count and the network: an all-gather
 * moves and decodes N payloads per worker, so on many GPUs a parameter server can be
 * several times faster. exchange_best_run asks the model every question `gcsim predict
 * --exchange X` answers and keeps the fastest, with the stack's own for comparison.
 *
 * The papers' patterns (TernGrad's and DGC's parameter-server schedules, `--collective
 * terngrad` or `dgc-paper`) are not tried (issue 45): they are the papers' model of a whole
 * step, not an exchange a stack runs, and they do not compete on equal terms: they charge
 * no codec time and take one GPU's gradient copy to the host out of the compute, so under
 * the fused stack they won by accounting (gpt2-small, QSGD, 16 A100s: 102% efficiency;
 * llama-2-13b: 223% MFU), and they refuse sharding, accumulation and checkpointing (a
 * search that dropped those options picked them and printed 398% efficiency). They run
 * when named: --collective, or a platform whose collective is one (the stack's own
 * exchange is then the pattern).
 *
 * Only the exchanges the case's stack implements for the payload are tried (issue 43:
 * gcsim_stack_implements, the stack file's "exchanges"): Horovod cannot all-reduce a QSGD
 * payload nor run a parameter server, and recommending either turned right signs of
 * "compressed faster than fp32" into wrong ones. The others stay in tried[], not run, with
 * the reason. The stack's own is always tried (it may be one the user named, a what-if).
 *
 * Every try is a copy of the case with only .exchange changed, run through the one case
 * builder (case_build.h), so every training option of the case reaches every try.
 *
 * For `gcsim predict --exchange best` (exchange_search.h) and `gcsim plan
 * --exchange best` (plan_run.h). The caller builds the sweep_case as predict builds its scenario
 * (platform, model, payload, stack from gcsim_stack_choice, GPUs, ...) and leaves
 * collective_given false: with a collective given, the exchanges it does not fit (an
 * all-reduce algorithm for allgather or ps) cannot run and are skipped, so the search is
 * then between the stack's own and allreduce only.
 */
#ifndef GCSIM_PLANNING_EXCHANGE_BEST_H
#define GCSIM_PLANNING_EXCHANGE_BEST_H

#include <stdbool.h>

#include "gcsim_error.h"
#include "sweep_case.h"

/* The exchanges tried, in this order: GCSIM_EXCHANGE_AUTO (the stack's own: what the
 * stack does with the compressor, the platform's collective included), then
 * GCSIM_EXCHANGE_ALLREDUCE, GCSIM_EXCHANGE_ALLGATHER and GCSIM_EXCHANGE_PS. */
#define EXCHANGE_BEST_TRIES 4

/* `gcsim predict --exchange best` warns when the stack's own exchange is more than this
 * many times slower than the best (a configuration worth changing, not a rounding). */
#define EXCHANGE_BEST_WARN_RATIO 1.5

typedef struct {
    gcsim_exchange asked;   /* what case.exchange was set to */
    int rc;                 /* 0: it ran; -1: it could not (why_not says why) */
    bool unimplemented;     /* not run: the stack does not implement it (why_not says so) */
    sweep_result r;         /* when it ran: r.exchange and r.collective say what ran */
    char why_not[512];      /* e.g. the stack refuses PowerSGD by all-gather */
    sweep_case c;           /* the case it ran: the searched case with .exchange changed,
                               nothing else */
} exchange_try;

typedef struct {
    int n_tried;                            /* EXCHANGE_BEST_TRIES */
    exchange_try tried[EXCHANGE_BEST_TRIES];
    int best;                               /* index into tried of the fastest */
    bool has_own;                           /* the stack's own (tried[0]) ran */
    double best_samples_per_s;              /* tried[best]'s throughput */
    double own_samples_per_s;               /* tried[0]'s; 0 when it could not run */
} exchange_best_result;

/* Runs case c once per exchange (a copy of c with .exchange set; c->exchange itself is
 * ignored: the comparison is always with the stack's own, GCSIM_EXCHANGE_AUTO) and keeps
 * the fastest; a tie goes to the earlier exchange, so the stack's own wins when nothing is
 * strictly faster. Exchanges that cannot run are skipped and kept in tried[] with the
 * reason. Returns 0 when at least one ran; -1 with err when none could (err: the stack's
 * own exchange's reason, e.g. more GPUs than the platform holds), or at once when a run
 * fails inside gcsim (err->internal, e.g. a DES simulation that died) or hits a limit of
 * the machine (err->limit: gcsim_error_skippable). */
int exchange_best_run(const sweep_case *c, exchange_best_result *out, gcsim_error *err);

/* What a try is called in output: "auto" for the stack's own, else the exchange asked
 * for. */
const char *exchange_try_name(const exchange_try *t);

/* The best over the stack's own throughput (>= 1); INFINITY when the own could not run. */
double exchange_best_gain(const exchange_best_result *r);

/* Whether the stack's own exchange is more than EXCHANGE_BEST_WARN_RATIO times slower than
 * the best (or could not run at all while another could): what predict warns about. */
bool exchange_best_warns(const exchange_best_result *r);

/* Parses an --exchange value that may be "best": auto, allreduce, allgather or ps set *out
 * (and *best = false); "best" sets *best = true and *out = GCSIM_EXCHANGE_AUTO. Returns
 * -1 for anything else. */
int exchange_option_parse(const char *text, gcsim_exchange *out, bool *best);

#endif
