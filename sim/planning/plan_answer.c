/* sim/planning/plan_answer.c: the plan's answer per platform (plan_answer.h). */
#include "plan_answer.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mfu.h"

int plan_sharding_is_zeropp(const gcsim_sharding *s)
{
    return s->qwz || s->hpz || s->qgz;
}

/* The first (best ranked) row of platform p for which pick says yes, or NULL. */
static const plan_candidate *first(const plan_problem *pb, const plan_candidate *rows, int n,
                                   int p, int (*pick)(const plan_problem *, const plan_candidate *),
                                   int want)
{
    for (int k = 0; k < n; k++)
        if (rows[k].platform == p && (!pick || (pick(pb, &rows[k]) != 0) == (want != 0)))
            return &rows[k];
    return NULL;
}

static int compressed(const plan_problem *pb, const plan_candidate *c)
{
    return strcmp(pb->plans[c->compressor]->spec, "none") != 0;
}

static int zeropp(const plan_problem *pb, const plan_candidate *c)
{
    plan_variant v = plan_problem_variant(pb, c->variant);
    return plan_sharding_is_zeropp(&v.sharding);
}

/* "zero3+hpz, act ckpt full, micro-batch 2 x 1" */
static void label(const plan_problem *pb, const plan_candidate *c, char *out, size_t size)
{
    plan_variant v = plan_problem_variant(pb, c->variant);
    char sh[48], ck[48];
    gcsim_sharding_format(&v.sharding, sh, sizeof sh);
    plan_ckpt_format(&v.ckpt, ck, sizeof ck);
    int n = snprintf(out, size, "%s, %s, act ckpt %s, micro-batch %d x %d",
                     pb->plans[c->compressor]->spec, sh, ck, c->micro_batch, c->grad_accum);
    if (pb->n_precisions > 1 && n > 0 && (size_t)n < size) /* --precision LIST searched */
        snprintf(out + n, size - (size_t)n, ", %s",
                 gcsim_precision_name((gcsim_precision)pb->precisions[v.precision]));
}

/* "+1.2%" of a over b in throughput */
static double gain_pct(const plan_candidate *a, const plan_candidate *b)
{
    return 100.0 * (a->tput / b->tput - 1.0);
}

int plan_answer_platform(const plan_problem *pb, const plan_candidate *rows, int n, int p,
                         char *out, size_t size)
{
    out[0] = '\0';
    const plan_candidate *best = first(pb, rows, n, p, NULL, 0);
    if (!best)
        return -1;
    plan_variant bv = plan_problem_variant(pb, best->variant);
    const gcsim_model *m = plan_variant_model(pb, &bv); /* its precision's */
    const gcsim_platform *pf = pb->platforms[p];
    char what[400];
    label(pb, best, what, sizeof what);
    double mfu = 100.0 * gcsim_model_train_flops_per_sample(m) * best->tput /
                 ((double)best->gpus * gcsim_mfu_peak_flops(m, pf));
    size_t at = (size_t)snprintf(out, size, "%d GPUs, %s: %.0f %s (MFU %.1f%%, %.1f GB per GPU)",
                                 best->gpus, what,
                                 m->tokens_per_sample > 0 ? best->tput * m->tokens_per_sample
                                                          : best->tput,
                                 m->tokens_per_sample > 0 ? "tokens/s" : "samples/s", mfu,
                                 plan_candidate_memory_bytes(pb, best) * 1e-9);
    const plan_candidate *with = first(pb, rows, n, p, compressed, 1);
    const plan_candidate *without = first(pb, rows, n, p, compressed, 0);
    if (with && without && at < size)
        at += (size_t)snprintf(out + at, size - at, "; compression: the best compressed row "
                               "(%s, %s) %+.2f%% against the best uncompressed",
                               pb->plans[with->compressor]->spec,
                               with == best ? "ranked first" : "not first", gain_pct(with, without));
    const plan_candidate *zpp = first(pb, rows, n, p, zeropp, 1);
    const plan_candidate *plain = first(pb, rows, n, p, zeropp, 0);
    if (zpp && plain && at < size) {
        char a[48], b[48];
        plan_variant va = plan_problem_variant(pb, zpp->variant);
        plan_variant vb = plan_problem_variant(pb, plain->variant);
        gcsim_sharding_format(&va.sharding, a, sizeof a);
        gcsim_sharding_format(&vb.sharding, b, sizeof b);
        snprintf(out + at, size - at, "; ZeRO++: the best with it (%s) %+.2f%% against the best "
                 "without (%s)", a, gain_pct(zpp, plain), b);
    }
    return 0;
}

int plan_keys_parse(const char *text, unsigned *mask, char *why, size_t why_len)
{
    static const struct { const char *name; unsigned bit; } keys[] = {
        {"platform", PLAN_KEY_PLATFORM}, {"compressor", PLAN_KEY_COMPRESSOR},
        {"stack", PLAN_KEY_STACK},       {"sharding", PLAN_KEY_SHARDING},
        {"act-ckpt", PLAN_KEY_CKPT},     {"micro-batch", PLAN_KEY_MICRO},
        {"precision", PLAN_KEY_PRECISION}};
    *mask = 0;
    const char *s = text;
    for (;;) {
        size_t len = strcspn(s, ",");
        unsigned bit = 0;
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            if (strlen(keys[k].name) == len && strncmp(s, keys[k].name, len) == 0)
                bit = keys[k].bit;
        if (!bit) {
            snprintf(why, why_len, "unknown key \"%.*s\" (platform, compressor, stack, "
                     "sharding, act-ckpt, micro-batch, precision)", (int)(len < 60 ? len : 60), s);
            return -1;
        }
        *mask |= bit;
        if (!s[len])
            return 0;
        s += len + 1;
    }
}

/* Whether a and b have the same values for the keys of mask. */
static bool same_keys(const plan_problem *pb, const plan_candidate *a, const plan_candidate *b,
                      unsigned mask)
{
    plan_variant va = plan_problem_variant(pb, a->variant);
    plan_variant vb = plan_problem_variant(pb, b->variant);
    char x[48], y[48];
    if ((mask & PLAN_KEY_PLATFORM) && a->platform != b->platform)
        return false;
    if ((mask & PLAN_KEY_COMPRESSOR) && a->compressor != b->compressor)
        return false;
    if ((mask & PLAN_KEY_STACK) && a->stack != b->stack)
        return false;
    if (mask & PLAN_KEY_SHARDING) {
        gcsim_sharding_format(&va.sharding, x, sizeof x);
        gcsim_sharding_format(&vb.sharding, y, sizeof y);
        if (strcmp(x, y))
            return false;
    }
    if (mask & PLAN_KEY_CKPT) {
        plan_ckpt_format(&va.ckpt, x, sizeof x);
        plan_ckpt_format(&vb.ckpt, y, sizeof y);
        if (strcmp(x, y))
            return false;
    }
    if ((mask & PLAN_KEY_MICRO) && a->micro_batch != b->micro_batch)
        return false;
    return !(mask & PLAN_KEY_PRECISION) || va.precision == vb.precision;
}

int plan_rows_best_per(const plan_problem *pb, plan_candidate *rows, int n, unsigned mask)
{
    int kept = 0;
    for (int k = 0; k < n; k++) {
        bool seen = false;
        for (int j = 0; j < kept && !seen; j++)
            seen = same_keys(pb, &rows[j], &rows[k], mask);
        if (!seen)
            rows[kept++] = rows[k];
    }
    return kept;
}
