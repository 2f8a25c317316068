/*
 * sim/report/predict_exchange.h: `gcsim predict`'s look at the other exchanges, printed.
 *
 * The search itself is sim/planning/exchange_search.h: for every GPU count predict runs,
 * the exchanges the payload allows, tried with the analytic engine on copies of predict's
 * own case. With `--exchange best` predict runs the fastest and notes every try; otherwise,
 * for a compressed payload whose collective neither the command line nor the platform
 * names, it warns on standard error and in a note when the exchange it runs is more than
 * EXCHANGE_BEST_WARN_RATIO times slower than the fastest.
 */
#ifndef GCSIM_REPORT_PREDICT_EXCHANGE_H
#define GCSIM_REPORT_PREDICT_EXCHANGE_H

#include <stdbool.h>

#include "exchange_search.h"
#include "report.h"

/* Writes "gcsim predict: warning: ..." lines for the counts where the used exchange is more
 * than EXCHANGE_BEST_WARN_RATIO times slower and, with --exchange best or a warning, a note
 * ("exchange search") giving every exchange's throughput at every count. */
void predict_exchange_report(report *r, const exchange_search_count *pc, int n, bool best);

#endif
