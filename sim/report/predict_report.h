/*
 * sim/report/predict_report.h: `gcsim predict`'s tables. The rows come from
 * sim/planning/predict_rows.h (one per GPU count and engine, or a count that cannot run);
 * the notes describe the case they were built from, the same option record every search
 * case comes from (case_build.h), so what is printed is what ran.
 */
#ifndef GCSIM_REPORT_PREDICT_REPORT_H
#define GCSIM_REPORT_PREDICT_REPORT_H

#include <stdbool.h>

#include "goodput.h"
#include "predict_rows.h"
#include "report.h"
#include "stack.h"
#include "sweep_case.h"

/* What predict's report shows beside the rows: the case (its platform, model, payload,
 * batch and options; its collective the one that ran), and whether the exchange was
 * searched per count (--exchange best) and came out different between counts. */
typedef struct {
    const sweep_case *c;
    bool exchange_best, exchange_mixed;
    const goodput_options *goodput; /* --goodput, or NULL */
} predict_view;

/* The notes and JSON meta of a run: platform, model, compressor, workload, compute, memory
 * (at max_gpus), sharding, MFU, engine, exchange, stack, codec cost. T1_s: one GPU's
 * forward and backward time for the batch; ss: the stack setup shown. */
void predict_report_describe(report *r, const predict_view *v, double T1_s,
                             const gcsim_stack_setup *ss, int max_gpus);

/* The GPU counts' table: the listed counts in their order, a skipped one's row or its
 * engines' rows (two per count when both engines ran), with goodput and variability
 * columns when asked. */
report *predict_report_rows(const predict_view *v, const predict_row *rows, int n_rows,
                            bool both, const int *listed, int n_listed,
                            const predict_skip *skips, int n_skips);

/* --buckets: the DES's gradient buckets for the scenario's GPU count (NULL with err when
 * the DES fails or this build has none). */
report *predict_report_buckets(const gcsim_scenario *s, gcsim_error *err);

/* --tensors: per layer, the codec model's figures both engines sum into a bucket's encode_s
 * and decode_s; no engine runs. */
report *predict_report_tensors(const gcsim_scenario *s, gcsim_error *err);

#endif
