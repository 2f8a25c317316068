/* sim/planning/plan_notes.c: the sentences around plan's table (plan_notes.h). */
#include "plan_notes.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange_best.h"
#include "plan_answer.h"

void plan_notes_free(plan_notes *n)
{
    for (int k = 0; k < n->n; k++)
        free(n->v[k].text);
    free(n->v);
    memset(n, 0, sizeof *n);
}

static void add_note(plan_notes *n, const char *key, bool warn, const char *fmt, va_list ap)
{
    char text[2048];
    vsnprintf(text, sizeof text, fmt, ap);
    if (n->n == n->cap) {
        int cap = n->cap ? 2 * n->cap : 16;
        plan_note *v = realloc(n->v, (size_t)cap * sizeof *v);
        if (!v) {
            n->failed = true;
            return;
        }
        n->v = v;
        n->cap = cap;
    }
    plan_note *note = &n->v[n->n];
    snprintf(note->key, sizeof note->key, "%s", key);
    note->warn = warn;
    if (!(note->text = strdup(text))) {
        n->failed = true;
        return;
    }
    n->n++;
}

void plan_notes_add(plan_notes *n, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_note(n, key, false, fmt, ap);
    va_end(ap);
}

static void add_warning(plan_notes *n, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add_warning(plan_notes *n, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_note(n, key, true, fmt, ap);
    va_end(ap);
}

void plan_notes_describe(plan_notes *n, const plan_problem *pb, const plan_asked *o,
                         long long evaluated, long long skipped)
{
    const gcsim_model *m = pb->model;
    int batch = o->batch;
    char buf[1400];
    snprintf(buf, sizeof buf, "%s (%s), %s scaling, %s %d, engine %s", m->name, m->source_path,
             gcsim_scaling_name(pb->scaling),
             pb->scaling == SCALING_STRONG ? "global mini-batch" : "mini-batch per GPU", batch,
             o->engine);
    plan_notes_add(n, "model", "%s", buf);
    /* with --exchange best no collective is searched: each exchange takes its schedule */
    size_t len = 0;
    buf[0] = '\0';
    if (o->target_tput > 0)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "at least %.6g samples/s",
                                o->target_tput);
    if (pb->target.work_samples > 0) {
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%strain %.6g samples", len ? "; " : "",
                                pb->target.work_samples);
        if (o->epochs > 0)
            len += (size_t)snprintf(buf + len, sizeof buf - len, " (%.6g epochs of %.6g)",
                                    o->epochs, o->dataset_size);
    }
    if (o->deadline_h > 0)
        len += (size_t)snprintf(buf + len, sizeof buf - len, " within %.6g h (%.6g samples/s)",
                                o->deadline_h, pb->target.work_samples / (o->deadline_h * 3600.0));
    if (o->budget_usd > 0)
        snprintf(buf + len, sizeof buf - len, "%sbudget $%.2f", len ? "; " : "", o->budget_usd);
    plan_notes_add(n, "target", "%s", buf);
    char counts[600];
    snprintf(counts, sizeof counts, "%.400s, %s",
             o->gpus ? o->gpus : pb->whole_nodes ? "1..one node, then whole nodes"
                                                : "1..platform size",
             pb->search == PLAN_SEARCH_EXHAUSTIVE
                 ? "every count (--search exhaustive)"
                 : "searched on a grid of 2 counts per doubling refined around the best "
                   "(--search bounded)");
    char shape[160];
    if (pb->exchange_best)
        snprintf(shape, sizeof shape, "%d stack%s x the best of %d exchanges (the stack's own, "
                 "allreduce, allgather, ps)",
                 pb->n_stacks, pb->n_stacks == 1 ? "" : "s", EXCHANGE_BEST_TRIES);
    else
        snprintf(shape, sizeof shape, "%d stack%s x %d collectives", pb->n_stacks,
                 pb->n_stacks == 1 ? "" : "s", pb->n_collectives);
    int n_var = plan_problem_n_variants(pb);
    if (n_var > 1) /* a sharded variant runs its own exchange, under no collective */
        snprintf(shape + strlen(shape), sizeof shape - strlen(shape), " (ddp) or %d variants "
                 "(%ssharding x act ckpt x micro-batch)", n_var,
                 pb->n_precisions > 1 ? "precision x " : "");
    snprintf(buf, sizeof buf,
             "%lld configurations (%d platforms x %d compressors x %s x GPU counts %s); best "
             "GPU count per platform, compressor, stack and %s, ranked by %s",
             evaluated, pb->n_platforms, pb->n_compressors, shape, counts,
             pb->exchange_best ? "exchange" : "collective",
             pb->rank_by_time ? "time (throughput)" : pb->target.work_samples > 0 ? "total cost" : "cost per hour");
    if (skipped > 0) /* the configurations tried, not only those that ran */
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "; %lld more could not run "
                 "(skipped, below)", skipped);
    plan_notes_add(n, "searched", "%s", buf);
    /* which stack each platform ran: the rows name theirs, this says where it came from */
    size_t at = 0;
    buf[0] = '\0';
    for (int p = 0; p < pb->n_platforms && at < sizeof buf; p++)
        for (int t = 0; t < pb->n_stacks && at < sizeof buf; t++) {
            const gcsim_stack *st = pb->stacks[p * pb->n_stacks + t];
            int w = snprintf(buf + at, sizeof buf - at, "%s%s: %s (%s)", at ? "; " : "",
                             pb->platforms[p]->name, st->name, st->path);
            at += w > 0 ? (size_t)w : 0;
        }
    plan_notes_add(n, "stacks", "%s", buf);
    if (pb->goodput) {
        goodput_result g;
        gcsim_error err;
        const gcsim_platform *pf = pb->platforms[0];
        if (!goodput_evaluate(pb->goodput, m, pf->gpus_per_node, pf->gpus_per_node, 0.0, &g,
                              &err)) {
            goodput_describe(pb->goodput, &g, buf, sizeof buf);
            size_t at2 = strlen(buf);
            snprintf(buf + at2, sizeof buf - at2, "; hours, cost, feasibility and ranking count "
                     "goodput, per-step hours failures but not convergence");
            plan_notes_add(n, "goodput", "%s", buf);
        }
    }
}

/* --exchange best: which exchange won where, and by how much over the stack's own (the
 * rows have it per configuration; this is the sentence a reader looks for). */
static void exchange_search(plan_notes *notes, const plan_problem *pb,
                            const plan_candidate *rows, int n)
{
    int moved = 0;
    const plan_candidate *most = NULL;
    for (int k = 0; k < n; k++) {
        const plan_candidate *c = &rows[k];
        if (c->own_samples_per_s > 0 && c->r.exchange == c->own_exchange &&
            c->tput <= c->own_samples_per_s)
            continue;
        moved++;
        if (!most || (c->own_samples_per_s > 0 &&
                      (most->own_samples_per_s <= 0 ||
                       c->tput / c->own_samples_per_s > most->tput / most->own_samples_per_s)))
            most = c;
    }
    char line[768];
    if (!most) {
        snprintf(line, sizeof line, "every configuration shown is fastest with its stack's own "
                                    "exchange");
    } else if (most->own_samples_per_s > 0) {
        snprintf(line, sizeof line, "%d of %d configurations shown are faster with another "
                 "exchange than their stack's own; the most: %s, %d GPUs, %s under %s runs %.3gx "
                 "faster by %s (%s) than by the stack's %s", moved, n,
                 pb->platforms[most->platform]->name, most->gpus,
                 pb->plans[most->compressor]->spec, most->r.stack->name,
                 most->tput / most->own_samples_per_s, gcsim_exchange_name(most->r.exchange),
                 gcsim_collective_name(most->r.collective),
                 gcsim_exchange_name(most->own_exchange));
    } else {
        snprintf(line, sizeof line, "%d of %d configurations shown are faster with another "
                 "exchange than their stack's own; %s, %d GPUs, %s under %s runs only by %s (the "
                 "stack's own exchange cannot run it)", moved, n,
                 pb->platforms[most->platform]->name, most->gpus,
                 pb->plans[most->compressor]->spec, most->r.stack->name,
                 gcsim_exchange_name(most->r.exchange));
    }
    plan_notes_add(notes, "exchange", "%s", line);
}

void plan_notes_outcome(plan_notes *n, const plan_problem *pb, const plan_result *res,
                        plan_widening widened, int n_rows, int n_shown)
{
    if (widened != PLAN_WIDENED_NO)
        plan_notes_add(n, "sharding", "%s", widened == PLAN_WIDENED_CKPT
                                       ? "plain data parallelism (ddp) fits at no GPU count "
                                         "searched, nor does any sharded strategy without "
                                         "activation checkpointing: searched ddp, zero1, zero2, "
                                         "fsdp and hsdp with --act-ckpt (--sharding, --act-ckpt)"
                                       : "plain data parallelism (ddp) fits at no GPU count "
                                         "searched: searched zero1, zero2, fsdp and hsdp as "
                                         "well (--sharding)");
    if (res->skipped > 0) {
        plan_notes_add(n, "skipped", "%lld candidate(s) skipped; the first: %s", res->skipped,
                       res->first_error);
        /* by reason, when there is more than one kind (issue 46: a row or a count each) */
        const struct { long long n; const char *key, *what, *first; } by[] = {
            {res->skipped_memory, "skipped.memory", "do not fit in GPU memory", res->first_memory},
            {res->skipped_sharding, "skipped.sharding", "the sharding refuses",
             res->first_sharding},
            {res->skipped_batch, "skipped.batch", "the global batch does not divide",
             res->first_batch},
            {res->skipped_other, "skipped.other", "cannot run", res->first_other},
            {res->skipped_precision, "skipped.precision", "have no compute at their precision",
             res->first_precision}};
        int kinds = 0;
        for (int k = 0; k < 5; k++)
            kinds += by[k].n > 0;
        /* a precision the model cannot run is always named (--precision LIST) */
        for (int k = 0; (kinds > 1 || res->skipped_precision) && k < 5; k++)
            if (by[k].n > 0)
                plan_notes_add(n, by[k].key, "%lld %s; the first: %s", by[k].n, by[k].what,
                               by[k].first);
    }
    if (res->n_unimplemented > 0)
        plan_notes_add(n, "not in the stack", "%d (platform, compressor, stack, collective) "
                       "combination(s) not searched: the stack does not implement their exchange "
                       "(give --collectives to run them as a what-if); the first: %s",
                       res->n_unimplemented, res->first_unimplemented);
    if (res->n_whatif > 0)
        add_warning(n, "what-if", "%d (platform, compressor, stack, collective) combination(s) "
                    "searched as named, though the stack does not implement their exchange; the "
                    "first: %s", res->n_whatif, res->first_whatif);
    if (res->feasible)
        plan_notes_add(n, "result",
                       "%d of %d (platform, compressor, stack, %s%s) combinations meet the "
                       "target%s",
                       res->n_rows, res->n_combinations - res->n_unimplemented,
                       pb->exchange_best ? "best exchange" : "collective",
                       plan_problem_n_variants(pb) > 1 ? " or sharding, act ckpt, micro-batch"
                                                       : "",
                       n_rows < n_shown          ? " (the best shown; --top 0 for all)"
                       : n_shown < res->n_rows ? " (the best per --best-per shown)"
                                               : "");
    else
        plan_notes_add(n, "result", "no feasible configuration: %s; the closest follow",
                       res->why);
    if (pb->exchange_best)
        exchange_search(n, pb, res->rows, n_rows);
}

void plan_notes_answers(plan_notes *n, const plan_problem *pb, const plan_result *res)
{
    /* only where training variants were searched: a plan of platforms and compressors
     * answers in its first rows */
    if (!res->feasible || plan_problem_n_variants(pb) <= 1)
        return;
    for (int p = 0; p < pb->n_platforms; p++) {
        char text[1200], key[160];
        if (plan_answer_platform(pb, res->rows, res->n_rows, p, text, sizeof text))
            continue;
        snprintf(key, sizeof key, "answer.%s", pb->platforms[p]->name);
        plan_notes_add(n, key, "%s", text);
    }
}
