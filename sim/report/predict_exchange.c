/* sim/cli/predict_exchange.c: predict's exchange search, printed (predict_exchange.h). */
#include "predict_exchange.h"

#include <stdio.h>
#include <string.h>

/* What a try is called in the note and the warning: the stack's own by the exchange it
 * resolved to, the others by what was asked. */
static const char *try_label(const exchange_try *t)
{
    return t->asked == GCSIM_EXCHANGE_AUTO && t->rc == 0
               ? gcsim_exchange_name(t->r.exchange)
               : exchange_try_name(t);
}

/* "allgather 1234 samples/s", or "ps: <reason>" for one that could not run. */
static int describe_try(char *buf, size_t size, const exchange_try *t)
{
    if (t->unimplemented)
        return snprintf(buf, size, "%s not in the stack", exchange_try_name(t));
    if (t->rc)
        return snprintf(buf, size, "%s cannot run", exchange_try_name(t));
    if (t->asked == GCSIM_EXCHANGE_AUTO)
        return snprintf(buf, size, "the stack's own (%s) %.6g", gcsim_exchange_name(t->r.exchange),
                        t->r.p.throughput_samples_per_s);
    return snprintf(buf, size, "%s %.6g", exchange_try_name(t), t->r.p.throughput_samples_per_s);
}

void predict_exchange_report(report *r, const exchange_search_count *pc, int n, bool best)
{
    char note[4096] = "";
    size_t len = 0;
    bool warned = false;
    for (int k = 0; k < n && len < sizeof note; k++) {
        const exchange_search_count *c = &pc[k];
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
        double slow = exchange_search_slowdown(c);
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
