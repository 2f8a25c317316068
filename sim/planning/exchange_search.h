/*
 * sim/planning/exchange_search.h: `gcsim predict`'s look at the other exchanges, per GPU
 * count.
 *
 * For every GPU count predict runs, the exchanges the payload allows are tried with the
 * analytic engine (exchange_best.h; the DES is too slow to run four times per count, and
 * the engines agree on the programs within a few percent), each try a copy of predict's
 * own case record (case_build.h) with only the exchange, collective and GPU count changed:
 * the training options reach every try. With `--exchange best` predict then runs the
 * winner's case as its row, so the row is what `gcsim predict --exchange X` (X the winner)
 * prints; otherwise sim/cli/predict_exchange.c warns when the exchange predict runs is
 * more than EXCHANGE_BEST_WARN_RATIO times slower than the fastest.
 */
#ifndef GCSIM_PLANNING_EXCHANGE_SEARCH_H
#define GCSIM_PLANNING_EXCHANGE_SEARCH_H

#include <stdbool.h>

#include "exchange_best.h"

typedef struct {
    int gpus;
    bool searched;              /* more than one GPU, and at least one exchange ran */
    exchange_best_result res;
    int used;                   /* res.tried index of what predict runs; -1: that one could
                                   not run (predict itself reports why) */
} exchange_search_count;

/* Searches each of the n counts with case c (its gpus and engine are set here: the
 * analytic engine). `asked` is predict's --exchange (GCSIM_EXCHANGE_AUTO for the stack's
 * own), `best` whether it was "best". Fails only when gcsim itself fails (err->internal). */
int exchange_search_run(const sweep_case *c, const int *counts, int n, gcsim_exchange asked,
                        bool best, exchange_search_count *out, gcsim_error *err);

/* The case the count's search found fastest (exchange_best.h: the record that try ran, at
 * the count's GPUs), for predict to run with its own engine. NULL when the count was
 * not searched. */
const sweep_case *exchange_search_winner(const exchange_search_count *pc);

/* The used exchange's slowdown against the best (1: it is the best). */
double exchange_search_slowdown(const exchange_search_count *pc);

/* The count whose winner stands for all of them in predict's notes (the last count
 * searched when every searched count has the same winner), or -1 when they differ. */
int exchange_search_uniform_winner(const exchange_search_count *search, int n);

#endif
