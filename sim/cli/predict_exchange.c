/* sim/cli/predict_exchange.c: predict's exchange search and warning (predict_exchange.h). */
#include "predict_exchange.h"

#include <stdio.h>
#include <string.h>

/* The try predict runs when --exchange is `asked`: the stack's own for auto, else the
 * exchange of that name. */
static int used_try(const exchange_best_result *res, gcsim_exchange asked, bool best)
{
    if (best)
        return res->best;
    for (int k = 0; k < res->n_tried; k++)
        if (!res->tried[k].pattern && res->tried[k].asked == asked)
            return res->tried[k].rc == 0 ? k : -1;
    return -1;
}

int predict_exchange_search(const sweep_case *c, const int *counts, int n, gcsim_exchange asked,
                            bool best, predict_exchange_count *out, gcsim_error *err)
{
    for (int k = 0; k < n; k++) {
        predict_exchange_count *pc = &out[k];
        memset(pc, 0, sizeof *pc);
        pc->gpus = counts[k];
        pc->used = -1;
        if (counts[k] < 2)
            continue; /* one GPU exchanges nothing */
        sweep_case one = *c;
        one.gpus = counts[k];
        one.engine = ENGINE_ANALYTIC;
        gcsim_error e = {.internal = 0};
        if (exchange_best_run(&one, &pc->res, &e)) {
            if (!gcsim_error_skippable(&e)) {
                *err = e;
                return -1;
            }
            continue; /* nothing runs at this count: predict's own run says why */
        }
        pc->searched = true;
        pc->used = used_try(&pc->res, asked, best);
    }
    return 0;
}

double predict_exchange_slowdown(const predict_exchange_count *pc)
{
    if (!pc->searched || pc->used < 0)
        return 1.0;
    return pc->res.best_samples_per_s / pc->res.tried[pc->used].r.p.throughput_samples_per_s;
}

/* What a try is called in the note and the warning: the stack's own by the exchange it
 * resolved to, the others by what was asked. */
static const char *try_label(const exchange_try *t)
{
    return t->asked == GCSIM_EXCHANGE_AUTO && !t->pattern && t->rc == 0
               ? gcsim_exchange_name(t->r.exchange)
               : exchange_try_name(t);
}

/* "allgather 1234 samples/s", or "ps: <reason>" for one that could not run. */
static int describe_try(char *buf, size_t size, const exchange_try *t)
{
    if (t->rc)
        return snprintf(buf, size, "%s cannot run", exchange_try_name(t));
    if (t->asked == GCSIM_EXCHANGE_AUTO && !t->pattern)
        return snprintf(buf, size, "the stack's own (%s) %.6g", gcsim_exchange_name(t->r.exchange),
                        t->r.p.throughput_samples_per_s);
    return snprintf(buf, size, "%s %.6g", exchange_try_name(t), t->r.p.throughput_samples_per_s);
}

void predict_exchange_report(report *r, const predict_exchange_count *pc, int n, bool best)
{
    char note[4096] = "";
    size_t len = 0;
    bool warned = false;
    for (int k = 0; k < n && len < sizeof note; k++) {
        const predict_exchange_count *c = &pc[k];
        if (!c->searched)
            continue;
        const exchange_try *winner = &c->res.tried[c->res.best];
        len += (size_t)snprintf(note + len, sizeof note - len, "%s%d GPUs: ", len ? "; " : "",
                                c->gpus);
        for (int t = 0; t < c->res.n_tried && len < sizeof note; t++) {
            len += (size_t)snprintf(note + len, sizeof note - len, "%s", t ? ", " : "");
            if (len < sizeof note)
                len += (size_t)describe_try(note + len, sizeof note - len, &c->res.tried[t]);
        }
        double slow = predict_exchange_slowdown(c);
        if (len < sizeof note)
            len += (size_t)snprintf(note + len, sizeof note - len, " samples/s; %s %s",
                                    best ? "runs" : "fastest", try_label(winner));
        if (!best && slow > EXCHANGE_BEST_WARN_RATIO) {
            const exchange_try *used = &c->res.tried[c->used];
            warned = true;
            fprintf(stderr,
                    "gcsim predict: warning: at %d GPUs the exchange used (%s) is %.2fx slower "
                    "than %s, the fastest this stack and payload allow (analytic engine; "
                    "--exchange best runs it)\n",
                    c->gpus, try_label(used), slow, try_label(winner));
            if (len < sizeof note)
                len += (size_t)snprintf(note + len, sizeof note - len,
                                        ", %.2fx the one used: WARNING", slow);
        }
    }
    if (len >= sizeof note)
        strcpy(note + sizeof note - 5, "...");
    if (note[0] && (best || warned))
        report_note(r, "exchange search", note);
}
