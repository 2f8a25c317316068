/* The convergence factor library (sim/convergence/convergence.h): values computed by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "convergence.h"

static const char *write_tmp(const char *name, const char *text)
{
    static char path[4][256];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, 256, "/tmp/gcsim_conv_%d_%s", (int)getpid(), name);
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
    return p;
}

#define HDR "id\tpaper\tquoted_in\tmodel\tdataset\tworkers\tmethod\tspec\tef\tbudget\tmetric\t" \
            "higher_better\tfp32\tcompressed\tgap\tsource\tholdout\n"

static void test_row_factor(void)
{
    /* ORQ Table 5: fp32 75.82% top-1, TernGrad 72.62%: errors 24.18 and 27.38, ratio
     * 1.13234..., iterations (ratio)^(1/0.5) = 1.28220, ^(1/0.25) = 1.64403, ^(1/1) = 1.13234. */
    conv_outcome o = {.higher_better = true, .fp32 = 75.82, .compressed = 72.62};
    strcpy(o.metric, "top1");
    CHECK_REL(conv_row_factor(&o, 0.5), 1.2821956363939873, 1e-12);
    CHECK_REL(conv_row_factor(&o, 0.25), 1.6440256499877821, 1e-12);
    CHECK_REL(conv_row_factor(&o, 1.0), 1.1323407775020677, 1e-12);
    /* Lower is better (perplexity): 72.24 vs 72.30 is the error itself. */
    conv_outcome p = {.higher_better = false, .fp32 = 72.30, .compressed = 72.24};
    strcpy(p.metric, "perplexity");
    CHECK_REL(conv_row_factor(&p, 1.0), 72.24 / 72.30, 1e-12);
    /* A gap-only row has no factor. */
    conv_outcome g = {.higher_better = true, .fp32 = NAN, .compressed = NAN, .gap = -0.3};
    strcpy(g.metric, "bleu");
    CHECK(isnan(conv_row_factor(&g, 0.5)));
}

static void test_catalog_levels(void)
{
    /* Two qsgd:s=4 rows on model m (errors 10 -> 20: factor 4; 10 -> 10: factor 1), one
     * qsgd:s=2 row on model m (factor 4), one held-out qsgd:s=4 row on model x
     * (10 -> 40: factor 16). */
    const char *path = write_tmp("cat.tsv", HDR
        "1\tp\t-\tm\td\t4\tQ\tqsgd:s=4\tno\t1 epochs\ttop1\t1\t90\t80\t-10\tT\t0\n"
        "2\tp\t-\tm\td\t4\tQ\tqsgd:s=4\tno\t1 epochs\ttop1\t1\t90\t90\t0\tT\t0\n"
        "3\tp\t-\tm\td\tNA\tQ\tqsgd:s=2\tno\t1 epochs\ttop1\t1\t90\t80\t-10\tT\t0\n"
        "4\tp\t-\tx\td\t4\tQ\tqsgd:s=8\tno\t1 epochs\ttop1\t1\t90\t60\t-30\tT\t1\n");
    conv_catalog c;
    char err[512];
    CHECK(conv_catalog_load(path, &c, err, sizeof err) == 0);
    CHECK(c.n == 4);
    CHECK(c.rows[2].workers == 0);
    CHECK(c.rows[3].holdout);
    /* Same settings, same model: geometric mean of 4 and 1 = 2; interval over rows and
     * exponents 0.25..1: 1 (row 2) .. 2^4 = 16 (row 1 at a = 0.25). */
    conv_factor f = conv_catalog_factor(&c, "m", "qsgd:s=4", false);
    CHECK_REL(f.factor, 2.0, 1e-12);
    CHECK_REL(f.lo, 1.0, 1e-12);
    CHECK_REL(f.hi, 16.0, 1e-12);
    CHECK_STR_CONTAINS(f.how, "2 rows, same settings, same model");
    /* Same settings on another model. */
    f = conv_catalog_factor(&c, "other", "qsgd:s=2", false);
    CHECK_REL(f.factor, 4.0, 1e-12);
    CHECK_STR_CONTAINS(f.how, "same settings, other models");
    /* Family only, same model: rows 1..3, (4 * 1 * 4)^(1/3). */
    f = conv_catalog_factor(&c, "m", "qsgd:s=16", false);
    CHECK_REL(f.factor, cbrt(16.0), 1e-12);
    CHECK_STR_CONTAINS(f.how, "same family, same model");
    /* qsgd:s=8 on x is held out: with skip_holdout it falls back to the family anywhere. */
    f = conv_catalog_factor(&c, "x", "qsgd:s=8", false);
    CHECK_REL(f.factor, 16.0, 1e-12);
    f = conv_catalog_factor(&c, "x", "qsgd:s=8", true);
    CHECK_REL(f.factor, cbrt(16.0), 1e-12);
    CHECK_STR_CONTAINS(f.how, "same family, other models");
    /* Nothing of the family: not covered, and said so. */
    f = conv_catalog_factor(&c, "m", "powersgd:rank=1", false);
    CHECK(isnan(f.factor));
    CHECK_STR_CONTAINS(f.how, "no published outcome of powersgd");
    conv_catalog_free(&c);

    /* Bad input names the line and the field. */
    path = write_tmp("bad.tsv", HDR
        "1\tp\t-\tm\td\t4\tQ\tqsgd:s=4\tmaybe\t1 epochs\ttop1\t1\t90\t80\t-10\tT\t0\n");
    CHECK(conv_catalog_load(path, &c, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "line 2: field ef: expected yes or no");
    path = write_tmp("bad2.tsv", HDR
        "1\tp\t-\tm\td\t4\tQ\tnosuch:x=1\tno\t1 epochs\ttop1\t1\t90\t80\t-10\tT\t0\n");
    CHECK(conv_catalog_load(path, &c, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "line 2: field spec");
}

static void test_shipped_catalog(void)
{
    conv_catalog c;
    char err[512];
    CHECK(conv_catalog_load(GCSIM_SOURCE_DIR "/models/convergence/outcomes.tsv", &c, err,
                            sizeof err) == 0);
    /* The minimum: 30 outcomes from 6 papers; a third held out by id % 3 == 0. */
    CHECK(c.n >= 30);
    int papers = 0, held = 0;
    for (int i = 0; i < c.n; i++) {
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen = seen || strcmp(c.rows[i].paper, c.rows[j].paper) == 0;
        papers += !seen;
        held += c.rows[i].holdout;
        CHECK(c.rows[i].holdout == (c.rows[i].id % 3 == 0));
        CHECK(c.rows[i].id == i + 1);
        /* gap agrees with the two values where both are published (to the 0.01 rounding). */
        if (!isnan(c.rows[i].fp32)) {
            double d = c.rows[i].higher_better ? c.rows[i].compressed - c.rows[i].fp32
                                               : c.rows[i].fp32 - c.rows[i].compressed;
            CHECK(fabs(d - c.rows[i].gap) <= 1e-3 * fmax(1.0, fabs(d)));
        }
    }
    CHECK(papers >= 6);
    CHECK(held == c.n / 3);
    /* ResNet-50 with TernGrad at bucket 512 is ORQ Table 5's row: 1.2822 (above). */
    conv_factor f = conv_catalog_factor(&c, "resnet-50", "terngrad:bucket=512", false);
    CHECK_REL(f.factor, 1.2821956363939873, 1e-9);
    /* DGC 99.9% on ResNet-50 (DGC Table 3): 75.96 -> 76.15, errors 24.04 -> 23.85,
     * (23.85 / 24.04)^2 = 0.984256... */
    f = conv_catalog_factor(&c, "resnet-50", "dgc:ratio=0.001", false);
    CHECK_REL(f.factor, pow(23.85 / 24.04, 2), 1e-9);
    conv_catalog_free(&c);
}

static void test_train_table(void)
{
    const char *path = write_tmp("train.tsv",
        "task\tspec\tworkers\tseeds\treached\tfactor\tlo\thi\n"
        "t\tqsgd:s=4\t4\t5\t5\t1.2\t1.1\t1.3\n"
        "t\tqsgd:s=4\t8\t5\t5\t1.4\t1.2\t1.6\n"
        "t\tsignsgd\t4\t5\t3\tNA\tNA\tNA\n");
    conv_train_table t;
    char err[512];
    CHECK(conv_train_load(path, &t, err, sizeof err) == 0);
    CHECK(t.n == 3);
    conv_factor f = conv_train_factor(&t, "qsgd:s=4", 4);
    CHECK_REL(f.factor, 1.2, 1e-12);
    CHECK_REL(f.hi, 1.3, 1e-12);
    f = conv_train_factor(&t, "qsgd:s=4", 6); /* the largest count not above 6: 4 */
    CHECK_REL(f.factor, 1.2, 1e-12);
    f = conv_train_factor(&t, "qsgd:s=4", 32);
    CHECK_REL(f.factor, 1.4, 1e-12);
    f = conv_train_factor(&t, "signsgd", 4);
    CHECK(isnan(f.factor));
    CHECK_STR_CONTAINS(f.how, "3 of 5 seeds");
    f = conv_train_factor(&t, "terngrad", 4);
    CHECK(isnan(f.factor));
    conv_train_free(&t);

    /* Several proxy tasks: the geometric mean of their factors, the interval from the
     * lowest CI bound to the highest; one task that missed the target in a seed makes the
     * spec not covered; a spec without runs falls back to its family, and says so. */
    path = write_tmp("train2.tsv",
        "task\tspec\tworkers\tseeds\treached\tfactor\tlo\thi\n"
        "a\tqsgd:s=2\t4\t5\t5\t1.2\t1.1\t1.3\n"
        "b\tqsgd:s=2\t4\t10\t10\t1.8\t1.5\t2.2\n"
        "a\tef+signsgd\t4\t5\t5\t1.5\t1.4\t1.6\n"
        "b\tef+signsgd\t4\t10\t9\tNA\tNA\tNA\n");
    CHECK(conv_train_load(path, &t, err, sizeof err) == 0);
    f = conv_train_factor(&t, "qsgd:s=2", 4);
    CHECK_REL(f.factor, sqrt(1.2 * 1.8), 1e-12);
    CHECK_REL(f.lo, 1.1, 1e-12);
    CHECK_REL(f.hi, 2.2, 1e-12);
    CHECK_STR_CONTAINS(f.how, "2 tasks (a 1.2, b 1.8), 4 workers, 5-10 seeds");
    f = conv_train_factor(&t, "ef+signsgd", 4);
    CHECK(isnan(f.factor));
    CHECK_STR_CONTAINS(f.how, "9 of 10 seeds reached fp32's target on b");
    f = conv_train_factor(&t, "qsgd:s=8", 4); /* no run of s=8: the qsgd rows */
    CHECK_REL(f.factor, sqrt(1.2 * 1.8), 1e-12);
    CHECK_STR_CONTAINS(f.how, "same family, other settings");
    conv_train_free(&t);
}

static void test_bound(void)
{
    const char *trace[] = {GCSIM_SOURCE_DIR
                           "/traces/data/fmnist_lenet/lenet_step000200_rank0.safetensors"};
    conv_factor coarse, fine, sign, efsign;
    char err[512];
    CHECK(conv_bound_factor("qsgd:s=1", trace, 1, 3, &coarse, err, sizeof err) == 0);
    CHECK(conv_bound_factor("qsgd:s=16", trace, 1, 3, &fine, err, sizeof err) == 0);
    /* Unbiased: omega > 0, fewer levels more variance; factor at N is 1 + s omega / N, at
     * most 1 + omega / N (the interval's upper end). */
    CHECK(coarse.omega > fine.omega);
    CHECK(fine.omega > 0);
    conv_factor at4 = conv_factor_at(&coarse, 4);
    CHECK_REL(at4.factor, conv_bound_at(coarse.omega, 4), 1e-12);
    CHECK_REL(at4.hi, 1.0 + coarse.omega_hi / 4, 1e-12);
    CHECK(CONV_BOUND_SHARE > 0 && CONV_BOUND_SHARE <= 1);
    CHECK(!coarse.no_guarantee);
    /* Biased without error feedback: no factor, flagged; with it: SGD's rate (1). */
    CHECK(conv_bound_factor("signsgd", trace, 1, 2, &sign, err, sizeof err) == 0);
    CHECK(isnan(sign.factor) && sign.no_guarantee);
    CHECK_STR_CONTAINS(sign.how, "no guarantee");
    CHECK(conv_bound_factor("ef+signsgd", trace, 1, 2, &efsign, err, sizeof err) == 0);
    CHECK_REL(efsign.factor, 1.0, 0);
    const char *missing[] = {"/nonexistent/trace.safetensors"};
    CHECK(conv_bound_factor("qsgd", missing, 1, 2, &sign, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "/nonexistent/trace.safetensors");
}

static void test_choice(void)
{
    const char *path = write_tmp("cat2.tsv", HDR
        "1\tp\t-\tm\td\t4\tQ\tqsgd:s=4\tno\t1 epochs\ttop1\t1\t90\t80\t-10\tT\t0\n");
    conv_catalog c;
    char err[512];
    CHECK(conv_catalog_load(path, &c, err, sizeof err) == 0);
    conv_sources s = {.catalog = &c};
    conv_factor f;
    /* fp32 and fp16 are the reference; none gives 1 for all. */
    CHECK(conv_factor_for(&s, CONV_SOURCE_BEST, "m", "none", 4, &f, err, sizeof err) == 0);
    CHECK(f.factor == 1 && f.source == CONV_SOURCE_REFERENCE);
    CHECK(conv_factor_for(&s, CONV_SOURCE_NONE, "m", "qsgd:s=4", 4, &f, err, sizeof err) == 0);
    CHECK(f.factor == 1 && f.source == CONV_SOURCE_NONE);
    CHECK(conv_factor_for(&s, CONV_SOURCE_BEST, "m", "qsgd:s=4", 4, &f, err, sizeof err) == 0);
    CHECK_REL(f.factor, 4.0, 1e-12);
    CHECK(f.source == CONV_SOURCE_CATALOG);
    /* Nothing covers topk here (no train table, no trace): NAN, and the message says so. */
    CHECK(conv_factor_for(&s, CONV_SOURCE_BEST, "m", "topk", 4, &f, err, sizeof err) == 0);
    CHECK(isnan(f.factor));
    CHECK_STR_CONTAINS(f.how, "unknown:");
    CHECK(f.evidence == CONV_EVIDENCE_UNKNOWN && conv_rank_tier(&f) == 1);
    conv_source src;
    CHECK(conv_source_parse("bound", &src) == 0 && src == CONV_SOURCE_BOUND);
    CHECK(conv_source_parse("reference", &src) == -1);
    conv_catalog_free(&c);
}

/* The bound past the fitted variance (issue 43): 1 + (s min(omega, W) + max(0, omega - W)) / N
 * with s = 0.055, W = 11.5. */
static void test_bound_extrapolation(void)
{
    CHECK(CONV_BOUND_SHARE == 0.055 && CONV_BOUND_FIT_MAX == 11.5);
    CHECK_REL(conv_bound_at(4.0, 4), 1.0 + 0.055 * 4.0 / 4, 1e-12);          /* 1.055 */
    CHECK_REL(conv_bound_at(11.5, 1), 1.0 + 0.055 * 11.5, 1e-12);            /* 1.6325 */
    CHECK_REL(conv_bound_at(91.5, 8), 1.0 + (0.6325 + 80.0) / 8, 1e-12);     /* 11.0790625 */
    /* Random-k at 1% without error feedback on the proxy trace is far noisier than any
     * fitted quantizer: at 8 workers its factor is several times the iterations, above
     * QSGD's and never nearly free; with error feedback it keeps SGD's rate. */
    const char *trace[] = {GCSIM_SOURCE_DIR
                           "/traces/data/fmnist_resnet20/resnet20_step000200_rank0.safetensors"};
    conv_factor rk, q, efrk;
    char err[512];
    CHECK(conv_bound_factor("randomk:ratio=0.01", trace, 1, 2, &rk, err, sizeof err) == 0);
    CHECK(conv_bound_factor("qsgd:s=4", trace, 1, 2, &q, err, sizeof err) == 0);
    CHECK(rk.omega > 50); /* 1/p - 1 = 99 for every tensor it sparsifies */
    conv_factor rk8 = conv_factor_at(&rk, 8), q8 = conv_factor_at(&q, 8);
    CHECK(rk8.factor > 5.0);
    CHECK(rk8.factor > q8.factor);
    CHECK(rk8.hi >= rk8.factor);
    CHECK(conv_bound_factor("ef+randomk:ratio=0.01", trace, 1, 2, &efrk, err, sizeof err) == 0);
    CHECK(efrk.factor == 1.0 && efrk.omega < 0); /* biased with error feedback: SGD's rate */
}

/* Evidence order (issue 43): catalog rows of the model's class, then the bound, then rows of
 * other classes, then the proxies; a compressor that missed the target in gcsim's own runs is
 * flagged with its gap and ranked after every known factor. */
static void test_evidence_order(void)
{
    CHECK_STR_CONTAINS(conv_model_class("resnet-50"), "cnn");
    CHECK_STR_CONTAINS(conv_model_class("alexnet-terngrad-fitted"), "cnn");
    CHECK_STR_CONTAINS(conv_model_class("llama-2-7b"), "transformer");
    CHECK_STR_CONTAINS(conv_model_class("logistic-regression"), "linear");
    CHECK(conv_model_class("mystery") == NULL);
    const char *path = write_tmp("cat3.tsv", HDR
        /* qsgd:s=4 on a CNN: error 10 -> 12, factor 1.2^2 = 1.44 */
        "1\tp\t-\tresnet-56\tcifar\t1\tQ\tqsgd:s=4\tno\t1 epochs\ttop1\t1\t90\t88\t-2\tT\t0\n"
        /* onebit on logistic regression only (loss 0.5 -> 0.55: factor 1.1^2 = 1.21) */
        "2\tp\t-\tlogistic-regression\tg\tNA\tO\tonebit\tyes\t1k\tloss\t0\t0.5\t0.55\t-0.05\tT\t0\n"
        /* signsgd on a CNN: error 10 -> 10 (factor 1) */
        "3\tp\t-\tgooglenet\tcifar\t1\tS\tsignsgd\tno\t1 epochs\ttop1\t1\t90\t90\t0\tT\t0\n");
    conv_catalog c;
    char err[512];
    CHECK(conv_catalog_load(path, &c, err, sizeof err) == 0);
    const char *train_path = write_tmp("train3.tsv",
        "task\tspec\tworkers\tseeds\treached\tfactor\tlo\thi\ttarget\treached_accuracy\n"
        "a\tonebit\t4\t5\t5\t1.9\t1.5\t2.3\t0.84\t0.85\n"
        "a\tsignsgd\t4\t5\t0\tNA\tNA\tNA\t0.84\t0.8014\n"
        "a\ttopk:ratio=0.01\t4\t5\t1\tNA\tNA\tNA\t0.84\t0.8163\n"
        "a\tpowersgd:rank=1\t4\t5\t4\tNA\tNA\tNA\t0.84\t0.8367\n");
    conv_train_table tr;
    CHECK(conv_train_load(train_path, &tr, err, sizeof err) == 0);
    CHECK_REL(tr.rows[1].target, 0.84, 1e-12);
    CHECK_REL(tr.rows[1].final_accuracy, 0.8014, 1e-12);
    const char *trace[] = {GCSIM_SOURCE_DIR
                           "/traces/data/fmnist_resnet20/resnet20_step000200_rank0.safetensors"};
    conv_sources s = {.catalog = &c, .train = &tr, .trace_files = trace, .n_traces = 1};
    conv_factor f;
    /* same class first: qsgd:s=4 on resnet-50 from the resnet-56 row, not the bound */
    CHECK(conv_factor_for(&s, CONV_SOURCE_BEST, "resnet-50", "qsgd:s=4", 8, &f, err,
                          sizeof err) == 0);
    CHECK_REL(f.factor, 1.44, 1e-12);
    CHECK(f.evidence == CONV_EVIDENCE_SAME_CLASS && !f.missed && conv_rank_tier(&f) == 0);
    CHECK_STR_CONTAINS(f.how, "same model class (resnet-56)");
    /* qsgd:s=2 has only a same-class row with other settings (s=4): the bound, measured at
     * s=2, comes before it */
    CHECK(conv_factor_for(&s, CONV_SOURCE_BEST, "resnet-50", "qsgd:s=2", 8, &f, err,
                          sizeof err) == 0);
    CHECK(f.evidence == CONV_EVIDENCE_BOUND && f.omega > 0);
    /* without a trace, the family row of the class is next */
    conv_sources s0 = {.catalog = &c};
    CHECK(conv_factor_for(&s0, CONV_SOURCE_BEST, "resnet-50", "qsgd:s=2", 8, &f, err,
                          sizeof err) == 0);
    CHECK_REL(f.factor, 1.44, 1e-12);
    CHECK(f.evidence == CONV_EVIDENCE_SAME_CLASS);
    CHECK_STR_CONTAINS(f.how, "same family, same model class");
    /* the bound before another class's rows: onebit (error feedback) gets SGD's rate from
     * the bound, not 1.21 from logistic regression nor 1.9 from the proxy */
    CHECK(conv_factor_for(&s, CONV_SOURCE_BEST, "resnet-50", "onebit", 8, &f, err,
                          sizeof err) == 0);
    CHECK(f.evidence == CONV_EVIDENCE_BOUND && f.factor == 1.0);
    /* on logistic regression itself the row is the same class */
    CHECK(conv_factor_for(&s, CONV_SOURCE_BEST, "logistic-regression", "onebit", 8, &f, err,
                          sizeof err) == 0);
    CHECK_REL(f.factor, 1.21, 1e-12);
    CHECK(f.evidence == CONV_EVIDENCE_SAME_CLASS);
    /* without a trace, other classes' rows come before the proxies */
    conv_sources s2 = {.catalog = &c, .train = &tr};
    CHECK(conv_factor_for(&s2, CONV_SOURCE_BEST, "resnet-50", "onebit", 8, &f, err,
                          sizeof err) == 0);
    CHECK_REL(f.factor, 1.21, 1e-12);
    CHECK(f.evidence == CONV_EVIDENCE_OTHER_CLASS);
    CHECK_STR_CONTAINS(f.how, "other model classes (logistic-regression)");
    /* signsgd: factor 1 from a CNN row, but it never reached the target in gcsim's runs:
     * flagged with the gap, tier 2, so it never ranks as if it reached fp32's accuracy */
    CHECK(conv_factor_for(&s, CONV_SOURCE_BEST, "resnet-50", "signsgd", 8, &f, err,
                          sizeof err) == 0);
    CHECK_REL(f.factor, 1.0, 1e-12);
    CHECK(f.missed && conv_rank_tier(&f) == 2);
    CHECK_REL(f.missed_target - f.missed_reached, 0.84 - 0.8014, 1e-12);
    CHECK(f.missed_seeds_reached == 0 && f.missed_seeds == 5);
    CHECK_STR_CONTAINS(f.missed_task, "a");
    /* topk: no factor anywhere and 1 of 5 seeds reached: unknown and missed */
    CHECK(conv_factor_for(&s, CONV_SOURCE_BEST, "resnet-50", "topk:ratio=0.01", 8, &f, err,
                          sizeof err) == 0);
    CHECK(isnan(f.factor) && f.evidence == CONV_EVIDENCE_UNKNOWN && f.missed);
    CHECK(conv_rank_tier(&f) == 2);
    /* powersgd: 4 of 5 seeds reached (most did): not missed */
    CHECK(conv_factor_for(&s, CONV_SOURCE_BEST, "resnet-50", "powersgd:rank=1", 8, &f, err,
                          sizeof err) == 0);
    CHECK(!f.missed);
    /* another topk density: no run of it, so the family's miss is reported */
    CHECK(conv_factor_for(&s, CONV_SOURCE_BEST, "resnet-50", "topk:ratio=0.001", 8, &f, err,
                          sizeof err) == 0);
    CHECK(f.missed);
    conv_train_free(&tr);
    conv_catalog_free(&c);
}

int main(void)
{
    test_bound_extrapolation();
    test_evidence_order();
    test_row_factor();
    test_catalog_levels();
    test_shipped_catalog();
    test_train_table();
    test_bound();
    test_choice();
    CHECK_DONE();
}
