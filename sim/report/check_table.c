/* gcsim check's table; see check_table.h. */
#include "check_table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "baseline_check.h"
#include "engine.h"

/* The typed facts of the check (docs/schema.md), beside the free-text notes. */
static void describe(report *r, const check_outcome *o, const baseline *b, bool rewritten)
{
    const unsigned char *evaluated = o->evaluated;
    report_meta_str(r, "baseline.file", b->path);
    report_meta_str(r, "baseline.format", BASELINE_FORMAT);
    report_meta_num(r, "baseline.tolerance_pct", b->tolerance_pct >= 0 ? b->tolerance_pct : NAN);
    /* What a case without its own tolerance is held to. */
    baseline_case plain = {.tolerance_pct = -1.0};
    report_meta_num(r, "tolerance_pct",
                    baseline_tolerance_pct(b, &plain, o->tolerance_pct, o->default_tolerance_pct));
    /* The engine of every case evaluated, when they share one (null: both engines). */
    int engine = -1;
    for (int k = 0; k < b->n_cases; k++)
        if (evaluated[k])
            engine = engine == -1 || engine == (int)b->cases[k].engine ? (int)b->cases[k].engine : -2;
    report_meta_str(r, "engine", engine >= 0 ? engine_name((gcsim_engine)engine) : NULL);
    report_meta_str(r, "engine_filter", o->engine_filter >= 0 ? engine_name((gcsim_engine)o->engine_filter) : NULL);
    report_meta_bool(r, "update", o->update);
    report_meta_int(r, "cases", b->n_cases);
    report_meta_int(r, "cases_evaluated", o->n_evaluated);
    report_meta_int(r, "cases_drifted", o->n_drifted);
    if (o->n_infeasible) /* only then, so that other checks print as before */
        report_meta_int(r, "cases_infeasible", o->n_infeasible);
    report_meta_int(r, "cases_recorded", o->n_new);
    report_meta_int(r, "stacks_pinned", o->n_pinned);
    report_meta_bool(r, "baseline_rewritten", rewritten);
}

report *check_table_rows(const baseline *b, const check_outcome *o)
{
    report *r = report_new_for_file("check");
    int c_name = report_column(r, "name", "case", 0);
    int c_engine = report_column(r, "engine", "engine", 0);
    int c_gpus = report_column(r, "gpus", "GPUs", 0);
    int c_exp = report_column(r, "expected_samples_per_s", "expected", 2);
    int c_pred = report_column(r, "predicted_samples_per_s", "predicted", 2);
    int c_drift = report_column(r, "drift_pct", "drift %", 3);
    int c_tol = report_column(r, "tolerance_pct", "tol %", 2);
    int c_status = report_column(r, "status", "status", 0);
    int c_stack = report_column(r, "stack", "stack", 0); /* last: readers by position */
    /* only when a case could not run, so that other checks print as before */
    int c_why = o->n_infeasible ? report_column(r, "why", "why", 0) : -1;
    /* the text table in 100 columns (issue 46): the verdict beside the case */
    {
        const int lead[] = {c_name, c_engine, c_gpus, c_status, c_drift, c_exp, c_pred, c_tol,
                            c_stack};
        report_table_lead(r, 2, lead, (int)(sizeof lead / sizeof lead[0]));
    }
    for (int k = 0; k < b->n_cases; k++) {
        const baseline_case *bc = &b->cases[k];
        if (!o->evaluated[k] && o->why && o->why[k][0]) { /* could not run: the reason */
            report_row(r);
            report_str(r, c_name, bc->name);
            report_str(r, c_engine, engine_name(bc->engine));
            report_int(r, c_gpus, bc->gpus);
            if (bc->has_expected)
                report_num(r, c_exp, bc->expected_samples_per_s);
            report_num(r, c_tol, o->tolerance[k]);
            report_str(r, c_status, "infeasible");
            if (o->stacks[k])
                report_str(r, c_stack, o->stacks[k]->name);
            report_str(r, c_why, o->why[k]);
            continue;
        }
        if (!o->evaluated[k])
            continue;
        report_row(r);
        report_str(r, c_name, bc->name);
        report_str(r, c_engine, engine_name(bc->engine));
        report_int(r, c_gpus, bc->gpus);
        report_num(r, c_pred, o->predicted[k]);
        report_num(r, c_tol, o->tolerance[k]);
        report_str(r, c_stack, o->stacks[k]->name);
        if (!bc->has_expected) { /* new: no expected value, no drift (empty cells) */
            report_str(r, c_status, "recorded");
            continue;
        }
        report_num(r, c_exp, bc->expected_samples_per_s);
        report_num(r, c_drift, o->drift_pct[k]);
        bool drifted = !baseline_within_tolerance(o->drift_pct[k], o->tolerance[k]);
        report_str(r, c_status, drifted ? (o->update ? "updated" : "DRIFT") : "ok");
    }
    return r;
}

void check_table_finish(report *r, const baseline *b, const check_outcome *o)
{
    describe(r, o, b, o->update && o->n_changed);
    char note[1024];
    report_note(r, "baseline", b->path);
    char recorded[128] = "";
    if (o->n_new)
        snprintf(recorded, sizeof recorded, "; %d new case%s recorded", o->n_new, o->n_new == 1 ? "" : "s");
    if (o->n_pinned)
        snprintf(recorded + strlen(recorded), sizeof recorded - strlen(recorded),
                 "; the stack of %d case%s pinned", o->n_pinned, o->n_pinned == 1 ? "" : "s");
    if (o->n_infeasible)
        snprintf(recorded + strlen(recorded), sizeof recorded - strlen(recorded),
                 "; %d could not run (status infeasible)", o->n_infeasible);
    snprintf(note, sizeof note, "%d of %d cases evaluated%s; %d beyond tolerance%s%s", o->n_evaluated,
             b->n_cases, o->engine_filter >= 0 ? " (--engine filter)" : "", o->n_drifted, recorded,
             !o->update ? "" : o->n_changed ? "; baseline rewritten with the predicted values"
                                        : "; baseline already up to date");
    report_note(r, "result", note);
}
