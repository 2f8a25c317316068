/*
 * sim/cli/predict_exchange.h: `gcsim predict`'s look at the other exchanges.
 *
 * For every GPU count predict runs, the exchanges the payload allows are tried with the
 * analytic engine (sim/planning/exchange_best.h; the DES is too slow to run four times per
 * count, and the engines agree on the programs within a few percent): with `--exchange
 * best` predict then runs the fastest one; otherwise, for a compressed payload whose
 * collective neither the command line nor the platform names, it warns on standard error
 * and in a note when the exchange it runs is more than EXCHANGE_BEST_WARN_RATIO times
 * slower than the fastest.
 */
#ifndef GCSIM_CLI_PREDICT_EXCHANGE_H
#define GCSIM_CLI_PREDICT_EXCHANGE_H

#include <stdbool.h>

#include "exchange_best.h"
#include "report.h"

typedef struct {
    int gpus;
    bool searched;              /* more than one GPU, and at least one exchange ran */
    exchange_best_result res;
    int used;                   /* res.tried index of what predict runs; -1: that one could
                                   not run (predict itself reports why) */
} predict_exchange_count;

/* Searches each of the n counts with case c (its gpus and engine are set here). `asked` is
 * predict's --exchange (GCSIM_EXCHANGE_AUTO for the stack's own), `best` whether it was
 * "best". Fails only when gcsim itself fails or hits a limit of the machine (not
 * gcsim_error_skippable). */
int predict_exchange_search(const sweep_case *c, const int *counts, int n, gcsim_exchange asked,
                            bool best, predict_exchange_count *out, gcsim_error *err);

/* The used exchange's slowdown against the best (1: it is the best). */
double predict_exchange_slowdown(const predict_exchange_count *pc);

/* Writes "gcsim predict: warning: ..." lines for the counts where the used exchange is more
 * than EXCHANGE_BEST_WARN_RATIO times slower and, with --exchange best or a warning, a note
 * ("exchange search") giving every exchange's throughput at every count. */
void predict_exchange_report(report *r, const predict_exchange_count *pc, int n, bool best);

#endif
