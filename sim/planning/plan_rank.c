/* Judging and ranking configurations for gcsim plan (plan_rank.h). */
#include "plan_rank.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void plan_evaluate(const plan_target *t, plan_candidate *c)
{
    c->tput = c->r.p.throughput_samples_per_s;
    c->efficiency = c->one_gpu_samples_per_s > 0 ? c->tput / (c->gpus * c->one_gpu_samples_per_s)
                                                 : NAN;
    bool priced = isfinite(c->price_per_gpu_hour_usd);
    c->usd_per_hour = priced ? c->price_per_gpu_hour_usd * c->gpus : NAN;
    c->tput_to_accuracy = c->conv_factor > 0 ? c->tput / c->conv_factor : c->tput;
    bool failures = c->useful_fraction > 0;
    if (failures)
        c->tput_to_accuracy *= c->useful_fraction;
    c->hours = t->work_samples > 0 ? t->work_samples / c->tput_to_accuracy / 3600.0 : NAN;
    c->total_usd = c->usd_per_hour * c->hours;
    c->shortfall = 0.0;
    c->why[0] = '\0';
    if (t->need_samples_per_s > 0) {
        c->shortfall = t->need_samples_per_s / c->tput_to_accuracy;
        if (c->tput_to_accuracy < t->need_samples_per_s)
            snprintf(c->why, sizeof c->why, "%.6g samples/s%s < %.6g needed",
                     c->tput_to_accuracy,
                     failures ? (c->conv_factor > 0 && c->conv_factor != 1.0
                                     ? " to accuracy after failures"
                                     : " after failures")
                     : c->tput_to_accuracy != c->tput ? " to accuracy"
                                                      : "",
                     t->need_samples_per_s);
    }
    if (t->budget_usd > 0) {
        double over = priced ? c->total_usd / t->budget_usd : INFINITY;
        if (over > c->shortfall)
            c->shortfall = over;
        size_t len = strlen(c->why);
        if (!priced)
            snprintf(c->why + len, sizeof c->why - len, "%sno price to hold to the budget",
                     len ? "; " : "");
        else if (c->total_usd > t->budget_usd)
            snprintf(c->why + len, sizeof c->why - len, "%s$%.2f > budget $%.2f",
                     len ? "; " : "", c->total_usd, t->budget_usd);
    }
    c->feasible = c->why[0] == '\0';
}

double plan_cost_key(const plan_candidate *c)
{
    double v = isfinite(c->total_usd) ? c->total_usd : c->usd_per_hour;
    return isfinite(v) ? v : INFINITY;
}

/* Equal up to rounding: costs computed in different orders (GPUs x price x hours) of
 * configurations with the same throughput per GPU differ in the last bits, and such a
 * difference must not outrank a real one (fewer GPUs). */
static bool same(double a, double b)
{
    return a == b || fabs(a - b) <= PLAN_SAME_REL * fmax(fabs(a), fabs(b));
}

int plan_better(const plan_candidate *a, const plan_candidate *b, bool by_time)
{
    double ca = plan_cost_key(a), cb = plan_cost_key(b);
    if (a->conv_tier != b->conv_tier) /* issue 43: unknown or missed after known factors */
        return a->conv_tier < b->conv_tier ? -1 : 1;
    if (by_time) {
        if (!same(a->tput_to_accuracy, b->tput_to_accuracy))
            return a->tput_to_accuracy > b->tput_to_accuracy ? -1 : 1;
        if (!same(ca, cb))
            return ca < cb ? -1 : 1;
    } else {
        if (!same(ca, cb))
            return ca < cb ? -1 : 1;
        if (a->gpus != b->gpus)
            return a->gpus < b->gpus ? -1 : 1;
        /* to accuracy (issue 43): without a price the costs tie, and the per-step throughput
         * would rank a compressor that needs 10x the iterations first; equal to tput when
         * convergence is not counted */
        if (!same(a->tput_to_accuracy, b->tput_to_accuracy))
            return a->tput_to_accuracy > b->tput_to_accuracy ? -1 : 1;
    }
    if (a->gpus != b->gpus)
        return a->gpus < b->gpus ? -1 : 1;
    if (a->platform != b->platform)
        return a->platform < b->platform ? -1 : 1;
    if (a->compressor != b->compressor)
        return a->compressor < b->compressor ? -1 : 1;
    if (a->stack != b->stack)
        return a->stack < b->stack ? -1 : 1;
    return a->collective < b->collective ? -1 : a->collective > b->collective;
}

/* Insertion sort: one row per (platform, compressor, stack, collective), a few hundred at most,
 * and unlike qsort it needs no comparator state for by_time. */
void plan_sort(plan_candidate *rows, int n, bool by_time, bool by_shortfall)
{
    for (int i = 1; i < n; i++) {
        plan_candidate key = rows[i];
        int j = i - 1;
        for (; j >= 0; j--) {
            int cmp;
            if (by_shortfall && rows[j].conv_tier == key.conv_tier &&
                rows[j].shortfall != key.shortfall)
                cmp = rows[j].shortfall < key.shortfall ? -1 : 1;
            else
                cmp = plan_better(&rows[j], &key, by_time);
            if (cmp <= 0)
                break;
            rows[j + 1] = rows[j];
        }
        rows[j + 1] = key;
    }
}
