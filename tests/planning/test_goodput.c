/* Goodput with failures, checkpoints and restarts (sim/planning/goodput.c, issue 41): the
 * formulas against values computed by hand, Daly's interval against the numeric optimum of
 * the goodput it maximises, and a 16,384-GPU Llama-class run with Llama 3's failure rate.
 *
 * The reference values were computed with Python's math module, written out here:
 *   Young  tau = sqrt(2 delta M)
 *   Daly   tau = sqrt(2 delta M) (1 + sqrt(x)/3 + x/9) - delta,  x = delta / (2M), delta < 2M
 *   f(tau) = tau / (M e^(R/M) (e^((tau+delta)/M) - 1))
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "goodput.h"
#include "memory.h"
#include "model.h"
#include "plan_rank.h"

/* The tau maximising f, by golden-section search (f is unimodal in tau). */
static double numeric_optimum(double delta, double restart, double mtbf)
{
    double a = 1e-6 * mtbf, b = 5.0 * mtbf, g = (sqrt(5.0) - 1.0) / 2.0;
    for (int i = 0; i < 300; i++) {
        double c = b - g * (b - a), e = a + g * (b - a);
        if (goodput_useful_fraction(c, delta, restart, mtbf) >
            goodput_useful_fraction(e, delta, restart, mtbf))
            b = e;
        else
            a = c;
    }
    return (a + b) / 2.0;
}

int main(int argc, char **argv)
{
    /* Young: sqrt(2 x 60 x 3600) = sqrt(432000) = 657.2670690061993 */
    CHECK_REL(goodput_young_interval_s(60.0, 3600.0), 657.2670690061993, 1e-14);
    /* Daly: x = 60 / 7200 = 1/120; 657.26707 x (1 + 0.0912871/3 + 0.0083333/9) - 60 */
    CHECK_REL(goodput_daly_interval_s(60.0, 3600.0), 617.8756496256495, 1e-13);
    CHECK_REL(goodput_daly_interval_s(600.0, 3600.0), 1697.7059780556401, 1e-13);
    /* delta = M/2: x = 1/4, 3600 x (1 + 1/6 + 1/36) - 1800 = 2500 exactly */
    CHECK_REL(goodput_daly_interval_s(1800.0, 3600.0), 2500.0, 1e-14);
    /* delta >= 2M: Daly's estimate is M */
    CHECK(goodput_daly_interval_s(7200.0, 3600.0) == 3600.0);
    CHECK(goodput_daly_interval_s(9000.0, 3600.0) == 3600.0);

    /* f(600; delta 60, R 300, M 3600) = 600 / (3600 e^(1/12) (e^(660/3600) - 1)) */
    CHECK_REL(goodput_useful_fraction(600.0, 60.0, 300.0, 3600.0), 0.7620750397993328, 1e-13);
    /* no failures (M -> infinity): f -> tau / (tau + delta) */
    CHECK_REL(goodput_useful_fraction(600.0, 60.0, 300.0, 1e15), 600.0 / 660.0, 1e-9);
    /* first order: f ~ 1 - delta/tau - tau/(2M) - R/M when all three are small */
    {
        double tau = 100.0, delta = 0.1, restart = 10.0, mtbf = 1e6;
        double first = 1.0 - delta / tau - tau / (2.0 * mtbf) - restart / mtbf;
        CHECK(fabs(goodput_useful_fraction(tau, delta, restart, mtbf) - first) < 1e-5);
    }

    /* Daly's interval maximises f to within 1e-6 of the numeric optimum, and never does
     * worse than Young's (which ignores the higher-order terms). */
    static const double cases[][3] = {{60, 300, 3600},    {600, 300, 3600}, {0.5, 150, 11135},
                                      {10, 150, 11135},   {1800, 600, 3600}, {5, 0, 1e5}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        double d = cases[k][0], r = cases[k][1], m = cases[k][2];
        double best = goodput_useful_fraction(numeric_optimum(d, r, m), d, r, m);
        double daly = goodput_useful_fraction(goodput_daly_interval_s(d, m), d, r, m);
        double young = goodput_useful_fraction(goodput_young_interval_s(d, m), d, r, m);
        CHECK(daly <= best * (1.0 + 1e-12));
        /* his expansion is in delta / M: 1e-6 while delta < M / 5, 1e-5 at delta = M / 2 */
        CHECK_REL(daly, best, d < m / 5 ? 1e-6 : 2e-5);
        CHECK(daly >= young);
    }

    /* Checkpoint bytes as gcsim's memory model counts weights and optimizer state. */
    gcsim_model m;
    gcsim_error err;
    char path[4096];
    snprintf(path, sizeof path, "%s/models/llama-3-70b.json", argc > 1 ? argv[1] : ".");
    CHECK(gcsim_model_load(path, &m, &err) == 0);
    gcsim_model_set_precision(&m, GCSIM_PREC_BF16);
    m.optimizer = GCSIM_OPT_ADAM;
    long long params = gcsim_model_params(&m);
    CHECK(params == 70553706496LL);
    /* bf16 + Adam: 2 (working) + 4 (master) + 8 (two moments) = 14 B per parameter */
    CHECK(goodput_checkpoint_bytes(&m) == 14.0 * (double)params);

    /* Done-when of issue 41: Llama-class (70.6 B parameters) on 16,384 GPUs with Llama 3's
     * failure rate and storage: M = 54 x 24 x 3600 / 419 = 11135.08353221957 s, delta =
     * 987751890944 B / 2e12 B/s = 0.493875945472 s, R = 150 + delta, Daly's tau =
     * 104.54569403152931 s (Young's 104.87468624396107), useful 0.9773128156838614. */
    goodput_options o;
    goodput_options_init(&o);
    o.on = true;
    goodput_result g;
    CHECK(goodput_evaluate(&o, &m, 16384, 8, 1000.0, &g, &err) == 0);
    CHECK_REL(g.job_mtbf_s, 11135.08353221957, 1e-13);
    CHECK_REL(g.checkpoint_write_s, 0.493875945472, 1e-13);
    CHECK_REL(g.restart_s, 150.493875945472, 1e-13);
    CHECK_REL(g.interval_s, 104.54569403152931, 1e-12);
    CHECK_REL(g.young_interval_s, 104.87468624396107, 1e-12);
    CHECK_REL(g.useful_fraction, 0.9773128156838614, 1e-12);
    CHECK_REL(g.goodput_samples_per_s, 977.3128156838614, 1e-12);
    CHECK(strcmp(g.rule_name, "daly") == 0);

    /* Young's rule and a given interval */
    o.rule = GOODPUT_INTERVAL_YOUNG;
    CHECK(goodput_evaluate(&o, &m, 16384, 8, 1000.0, &g, &err) == 0);
    CHECK(g.interval_s == g.young_interval_s);
    o.rule = GOODPUT_INTERVAL_FIXED;
    o.interval_s = 3600.0;
    CHECK(goodput_evaluate(&o, &m, 16384, 8, 1000.0, &g, &err) == 0);
    CHECK_REL(g.useful_fraction,
              goodput_useful_fraction(3600.0, g.checkpoint_write_s, g.restart_s, g.job_mtbf_s),
              1e-15);
    CHECK(g.useful_fraction < 0.9773128156838614); /* an hour is far from the optimum */

    /* Per node: 100,000 node-hours over 2,048 nodes = 175781.25 s; given storage and restart */
    goodput_options_init(&o);
    o.on = true;
    o.node_mtbf_h = 100000.0;
    o.storage_bytes_per_s = 1e12;
    o.restart_s = 0.0;
    CHECK(goodput_evaluate(&o, &m, 16384, 8, 1.0, &g, &err) == 0);
    CHECK(g.job_mtbf_s == 175781.25);
    CHECK_REL(g.checkpoint_write_s, 0.987751890944, 1e-13);
    CHECK(g.restart_s == g.checkpoint_write_s);
    /* 16,383 GPUs still take 2,048 nodes */
    goodput_result g2;
    CHECK(goodput_evaluate(&o, &m, 16383, 8, 1.0, &g2, &err) == 0);
    CHECK(g2.job_mtbf_s == 175781.25);

    /* Refusals */
    CHECK(goodput_evaluate(&o, &m, 0, 8, 1.0, &g, &err) == -1);
    CHECK(goodput_evaluate(&o, &m, 8, 8, NAN, &g, &err) == -1);

    /* plan's arithmetic with goodput: progress = throughput x useful fraction, so 1000
     * samples/s at 0.8 useful take 3.6e6 / 800 / 3600 = 1.25 h, and 900 needed is not met */
    plan_target t = {.need_samples_per_s = 900.0, .work_samples = 3.6e6};
    plan_candidate c;
    memset(&c, 0, sizeof c);
    c.gpus = 8;
    c.r.p.throughput_samples_per_s = 1000.0;
    c.price_per_gpu_hour_usd = NAN;
    c.useful_fraction = 0.8;
    plan_evaluate(&t, &c);
    CHECK(c.tput == 1000.0);
    CHECK_REL(c.hours, 1.25, 1e-15);
    CHECK(!c.feasible);
    CHECK_STR_CONTAINS(c.why, "800 samples/s after failures < 900 needed");

    gcsim_model_free(&m);
    CHECK_DONE();
}
