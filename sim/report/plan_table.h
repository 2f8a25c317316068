/*
 * sim/report/plan_table.h: what `gcsim plan` prints (docs/planning.md): the ranked rows of a
 * plan_result (fitted to 100 columns: what to buy, how fast, what it costs first), the meta
 * (the model, the target, what was searched) and the notes plan_notes.h wrote.
 */
#ifndef GCSIM_REPORT_PLAN_TABLE_H
#define GCSIM_REPORT_PLAN_TABLE_H

#include "convergence.h"
#include "plan_notes.h"
#include "plan_run.h"
#include "report.h"

/* The rows (n of them, feasible or the closest); names: the compressors as the user wrote
 * them, one per pb->plans entry (the table's short form; CSV and JSON carry the full spec);
 * conv: each one's convergence factor, or NULL. */
report *plan_table_rows(const plan_problem *pb, const char *const *names,
                        const plan_candidate *rows, int n, bool feasible, const conv_factor *conv);
/* The meta of the plan (JSON, CSV header comments). */
void plan_table_meta(report *r, const plan_problem *pb, const plan_asked *a, long long evaluated);
/* The notes into the report, in order; the warnings on standard error too. */
void plan_table_notes(report *r, const plan_notes *n);

#endif
