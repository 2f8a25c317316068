/*
 * sim/planning/plan_notes.h: the sentences `gcsim plan` prints around its table, made from
 * the problem and the result: what was searched, the target, which stack each platform ran,
 * goodput's inputs; why candidates were skipped (by reason), which groups the stacks cannot
 * run, the result, the exchange search and each platform's answer. The command puts them
 * into its report in order.
 */
#ifndef GCSIM_PLANNING_PLAN_NOTES_H
#define GCSIM_PLANNING_PLAN_NOTES_H

#include <stdbool.h>

#include "plan_setup.h"

typedef struct {
    char key[192];
    char *text;
    bool warn; /* also a warning on standard error */
} plan_note;

typedef struct {
    plan_note *v;
    int n, cap;
    bool failed; /* out of memory: some notes are missing */
} plan_notes;

void plan_notes_free(plan_notes *n);
/* Appends a note (printf-style text). */
void plan_notes_add(plan_notes *n, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* What the person asked for that the problem does not hold. */
typedef struct {
    double target_tput, epochs, dataset_size, deadline_h, budget_usd;
    const char *gpus;   /* --gpus as written, or NULL */
    int batch;          /* the batch the plan ran (--batch or the model's) */
    const char *engine; /* its name */
} plan_asked;

/* model, target, searched (evaluated candidates, and skipped ones when any), stacks (and
 * goodput when on). */
void plan_notes_describe(plan_notes *n, const plan_problem *pb, const plan_asked *a,
                         long long evaluated, long long skipped);
/* sharding (when widened), skipped (and by reason), not in the stack, what-if (warn),
 * result; with exchange_best the exchange search over the rows shown. n_rows: rows shown,
 * n_shown: rows left by --best-per (res->n_rows without it). */
void plan_notes_outcome(plan_notes *n, const plan_problem *pb, const plan_result *res,
                        plan_widening widened, int n_rows, int n_shown);
/* answer.PLATFORM for each platform with a feasible row, where variants were searched
 * (plan_answer.h), from every row of res (call before --best-per). */
void plan_notes_answers(plan_notes *n, const plan_problem *pb, const plan_result *res);

#endif
