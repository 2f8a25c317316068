/* gcsim plan's arithmetic (sim/planning/plan_rank.c) on hand-computed configurations. */
#include <math.h>

#include "check.h"
#include "plan_rank.h"

static plan_candidate make(int id, int gpus, double tput, double price)
{
    plan_candidate c;
    memset(&c, 0, sizeof c);
    c.platform = id;
    c.gpus = gpus;
    c.r.p.throughput_samples_per_s = tput;
    c.one_gpu_samples_per_s = 400.0;
    c.price_per_gpu_hour_usd = price;
    return c;
}

int main(void)
{
    /* Need 1000 samples/s; 3.6e6 samples of work; budget $8. Price $2 per GPU-hour. */
    plan_target t = {.need_samples_per_s = 1000.0, .work_samples = 3.6e6, .budget_usd = 8.0};
    plan_candidate a = make(0, 4, 1200.0, 2.0), b = make(1, 2, 700.0, 2.0),
                   c = make(2, 8, 2000.0, 2.0), d = make(3, 16, 3000.0, 2.0),
                   e = make(4, 4, 1500.0, NAN);
    plan_evaluate(&t, &a);
    plan_evaluate(&t, &b);
    plan_evaluate(&t, &c);
    plan_evaluate(&t, &d);
    plan_evaluate(&t, &e);

    /* a: efficiency 1200 / (4 x 400) = 0.75; $/h 4 x 2 = 8; hours 3.6e6 / 1200 / 3600 =
     * 5/6; total 8 x 5/6 = 6.667 <= 8; shortfall max(1000/1200, 6.667/8) = 5/6. */
    CHECK_REL(a.efficiency, 0.75, 1e-15);
    CHECK_REL(a.usd_per_hour, 8.0, 1e-15);
    CHECK_REL(a.hours, 5.0 / 6.0, 1e-15);
    CHECK_REL(a.total_usd, 20.0 / 3.0, 1e-15);
    CHECK(a.feasible && a.why[0] == '\0');
    CHECK_REL(a.shortfall, 5.0 / 6.0, 1e-15);

    /* b: 700 < 1000: too slow; total 4 x 3.6e6/700/3600 = 5.714; shortfall 1000/700. */
    CHECK(!b.feasible);
    CHECK_STR_CONTAINS(b.why, "700 samples/s < 1000 needed");
    CHECK_REL(b.total_usd, 4.0 * 3.6e6 / 700.0 / 3600.0, 1e-15);
    CHECK_REL(b.shortfall, 1000.0 / 700.0, 1e-15);

    /* c: $16/h for 0.5 h = $8, exactly the budget: feasible; shortfall max(0.5, 1) = 1. */
    CHECK_REL(c.total_usd, 8.0, 1e-15);
    CHECK(c.feasible);
    CHECK_REL(c.shortfall, 1.0, 1e-15);

    /* d: $32/h for 1/3 h = $10.67 > $8; shortfall 10.667 / 8 = 4/3. */
    CHECK(!d.feasible);
    CHECK_STR_CONTAINS(d.why, "$10.67 > budget $8.00");
    CHECK_REL(d.shortfall, 4.0 / 3.0, 1e-15);

    /* e: fast enough, but no price to hold to the budget. */
    CHECK(!e.feasible);
    CHECK_STR_CONTAINS(e.why, "no price");
    CHECK(isinf(e.shortfall));
    CHECK(isinf(plan_cost_key(&e)));

    /* By cost a ($6.67) before c ($8); by time c (2000/s) before a. */
    CHECK(plan_better(&a, &c, false) < 0);
    CHECK(plan_better(&c, &a, true) < 0);

    /* Closest first: a 5/6, c 1, d 4/3, b 10/7, e inf. */
    plan_candidate rows[5] = {e, b, d, c, a};
    plan_sort(rows, 5, false, true);
    int order[5] = {0, 2, 3, 1, 4};
    for (int k = 0; k < 5; k++)
        CHECK(rows[k].platform == order[k]);

    /* Without work, cost is per hour; equal costs go to fewer GPUs, then to higher
     * throughput. */
    plan_target rate_only = {.need_samples_per_s = 1000.0};
    plan_candidate p = make(0, 6, 1100.0, 2.0), q = make(1, 4, 1300.0, 3.0),
                   r = make(2, 4, 1200.0, 3.0);
    plan_evaluate(&rate_only, &p);
    plan_evaluate(&rate_only, &q);
    plan_evaluate(&rate_only, &r);
    CHECK(isnan(p.hours) && isnan(p.total_usd));
    CHECK_REL(plan_cost_key(&p), 12.0, 1e-15); /* 6 x $2 */
    CHECK_REL(plan_cost_key(&q), 12.0, 1e-15); /* 4 x $3 */
    CHECK(p.feasible && q.feasible && r.feasible);
    CHECK(plan_better(&q, &p, false) < 0);      /* same $12/h, 4 GPUs < 6 */
    CHECK(plan_better(&q, &r, false) < 0);      /* same cost and GPUs, 1300 > 1200 */
    plan_candidate three[3] = {p, r, q};
    plan_sort(three, 3, false, false);
    CHECK(three[0].platform == 1 && three[1].platform == 2 && three[2].platform == 0);

    /* Costs one rounding apart are a tie, which goes to fewer GPUs: 12 GPUs at 1200/s and
     * 13 at 1300/s cost the same per sample; make the 13-GPU one cheaper by 1e-13. */
    plan_target work = {.work_samples = 3.6e6};
    plan_candidate twelve = make(0, 12, 1200.0, 2.0), thirteen = make(1, 13, 1300.0, 2.0);
    plan_evaluate(&work, &twelve);
    plan_evaluate(&work, &thirteen);
    thirteen.total_usd = twelve.total_usd * (1.0 - 1e-13);
    CHECK(plan_better(&twelve, &thirteen, false) < 0);
    thirteen.total_usd = twelve.total_usd * (1.0 - 1e-6); /* a real saving wins */
    CHECK(plan_better(&thirteen, &twelve, false) < 0);
    /* Convergence factor (issue 26): a 1200 samples/s configuration whose compressor needs
     * 1.5x the iterations progresses at 800 samples/s toward fp32's accuracy: hours 3.6e6 /
     * 800 / 3600 = 1.25, total $8 x 1.25 = $10; it misses 1000 samples/s; ranked by time it
     * falls behind a 900 samples/s one with factor 1 (0 = unset counts as 1). */
    plan_candidate slow = make(5, 4, 1200.0, 2.0), plain = make(6, 4, 900.0, 2.0);
    slow.conv_factor = 1.5;
    plan_evaluate(&t, &slow);
    plan_evaluate(&t, &plain);
    CHECK_REL(slow.tput_to_accuracy, 800.0, 1e-15);
    CHECK_REL(slow.hours, 1.25, 1e-15);
    CHECK_REL(slow.total_usd, 10.0, 1e-15);
    CHECK(!slow.feasible);
    CHECK_STR_CONTAINS(slow.why, "800 samples/s to accuracy < 1000 needed");
    CHECK_REL(plain.tput_to_accuracy, 900.0, 1e-15);
    CHECK(plan_better(&plain, &slow, true) < 0);
    /* Issue 43: without a price, costs tie (INFINITY), and ranking by cost then goes by the
     * throughput to accuracy, not per step: slow (1200/s per step, 800 to accuracy) ranks
     * after plain (900). */
    plan_candidate slow_np = make(5, 4, 1200.0, NAN), plain_np = make(6, 4, 900.0, NAN);
    slow_np.conv_factor = 1.5;
    plan_evaluate(&work, &slow_np);
    plan_evaluate(&work, &plain_np);
    CHECK(plan_better(&plain_np, &slow_np, false) < 0);
    /* An unknown factor (tier 1) ranks after every known one, and a compressor that missed
     * the target in gcsim's own runs (tier 2) after both, whatever their throughput and
     * cost: a 3000 samples/s unknown falls behind a 900 samples/s known factor. */
    plan_candidate unknown = make(7, 4, 3000.0, 2.0), missed = make(8, 4, 5000.0, 2.0);
    unknown.conv_tier = 1;
    missed.conv_tier = 2;
    plan_evaluate(&work, &unknown);
    plan_evaluate(&work, &missed);
    CHECK(plan_better(&plain, &unknown, true) < 0 && plan_better(&plain, &unknown, false) < 0);
    CHECK(plan_better(&unknown, &missed, true) < 0 && plan_better(&unknown, &missed, false) < 0);
    plan_candidate tiers[3] = {missed, unknown, plain};
    plan_sort(tiers, 3, false, true); /* by shortfall too: the tier first */
    CHECK(tiers[0].platform == 6 && tiers[1].platform == 7 && tiers[2].platform == 8);
    CHECK_DONE();
}
