/* The ring all-reduce fit: the model by hand, exact recovery of alpha and B from logs
 * generated with them (both layouts), the clamp of a negative alpha, rows of one size. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nccl_log.h"
#include "ring_fit.h"
#include "synth_log.h"

static void test_model_by_hand(void)
{
    /* n = 4, S = 4 MB, alpha = 10 us, B = 1 GB/s: 6 x 10 us + 1.5 x 4e6 / 1e9 s = 6.06 ms. */
    CHECK_REL(ring_allreduce_time_s(4, 4e6, 10e-6, 1e9), 6.06e-3, 1e-15);
    /* Two GPUs: 2 steps of alpha + S/2/B. */
    CHECK_REL(ring_allreduce_time_s(2, 1e6, 1e-6, 1e9), 2e-6 + 1e-3, 1e-15);
}

/* Generates a log in memory, reads it back and fits the in-place times. */
static int fit_synthetic(const synth_spec *s, double min_size, ring_fit *fit)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return -1;
    synth_log_write(f, s);
    fclose(f);
    nccl_log log;
    gcsim_error err = {{0}, 0, 0};
    int rc = nccl_log_parse(text, len, "synthetic.log", &log, &err);
    free(text);
    if (rc) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    rc = nccl_log_check_busbw(&log, s->gpus, &err);
    double *size = malloc((size_t)log.n_rows * sizeof *size);
    double *time = malloc((size_t)log.n_rows * sizeof *time);
    for (int i = 0; i < log.n_rows; i++) {
        size[i] = log.rows[i].size_bytes;
        time[i] = log.rows[i].in_place.time_s;
    }
    if (rc == 0)
        rc = ring_fit_allreduce("synthetic.log", s->gpus, size, time, log.n_rows, min_size,
                                1e-6, fit, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.message);
    free(size);
    free(time);
    nccl_log_free(&log);
    return rc;
}

static void test_exact_recovery(void)
{
    static const struct {
        int gpus, columns;
        double alpha_s, B_Bps;
    } cases[] = {{8, 13, 7.5e-6, 187.3e9}, {8, 12, 7.5e-6, 187.3e9}, {2, 13, 2e-6, 11.28e9},
                 {16, 12, 21e-6, 43.1e9},  {512, 13, 3e-6, 25e9}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        synth_spec s = {cases[k].gpus, 1, cases[k].alpha_s, cases[k].B_Bps, cases[k].columns,
                        true, true, 8, 8.0 * (1 << 30), 0};
        ring_fit fit;
        CHECK(fit_synthetic(&s, 1 << 20, &fit) == 0);
        CHECK_REL(fit.alpha_s, cases[k].alpha_s, 1e-6);
        CHECK_REL(fit.B_Bps, cases[k].B_Bps, 1e-6);
        CHECK(fit.alpha_fitted && !fit.alpha_clamped);
        CHECK(fit.rows_used == 14); /* 1 MiB, 2 MiB, ..., 8 GiB */
        CHECK(fit.max_abs_rel_error < 1e-6 && fit.rms_rel_error <= fit.max_abs_rel_error);
    }
}

/* Rows below --min-size take no part: here they are 3x slower than the line (as NCCL's
 * small-message protocols are off it), and the fit still recovers alpha and B exactly. */
static void test_min_size_excludes(void)
{
    double size[16], time[16];
    for (int i = 0; i < 16; i++) {
        size[i] = 1024.0 * (1 << i); /* 1 KiB ... 32 MiB */
        time[i] = ring_allreduce_time_s(8, size[i], 5e-6, 200e9) * (size[i] < (1 << 20) ? 3 : 1);
    }
    ring_fit fit;
    gcsim_error err = {{0}, 0, 0};
    CHECK(ring_fit_allreduce("x", 8, size, time, 16, 1 << 20, 0, &fit, &err) == 0);
    CHECK(fit.rows_used == 6);
    CHECK_REL(fit.alpha_s, 5e-6, 1e-9);
    CHECK_REL(fit.B_Bps, 200e9, 1e-9);
    CHECK(ring_fit_allreduce("x", 8, size, time, 16, 0, 0, &fit, &err) == 0);
    CHECK(fit.rows_used == 16 && fit.max_abs_rel_error > 0.1);
    CHECK(ring_fit_allreduce("x", 8, size, time, 3, 1 << 20, 0, &fit, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "x: no row with size >= 1048576 bytes");
}

/* Times that fall below the line through the origin want a negative alpha: it is clamped
 * to 0 and B refitted, B = sum v / sum v^2 with v = 2(n-1)/n S/t. */
static void test_clamp(void)
{
    int n = 4;
    double size[3] = {1e6, 2e6, 4e6}, time[3];
    for (int i = 0; i < 3; i++)
        time[i] = ring_allreduce_time_s(n, size[i], -1e-6, 10e9);
    ring_fit fit;
    gcsim_error err = {{0}, 0, 0};
    CHECK(ring_fit_allreduce("x", n, size, time, 3, 0, 0, &fit, &err) == 0);
    CHECK(fit.alpha_clamped && fit.alpha_s == 0.0);
    CHECK_REL(fit.alpha_unclamped_s, -1e-6, 1e-9);
    double sv = 0, svv = 0;
    for (int i = 0; i < 3; i++) {
        double v = 1.5 * size[i] / time[i];
        sv += v;
        svv += v * v;
    }
    CHECK_REL(fit.B_Bps, svv / sv, 1e-12);
    /* Times that shrink with size fit no positive bandwidth. */
    double falling[2] = {2e-3, 1e-3};
    CHECK(ring_fit_allreduce("y", n, size, falling, 2, 0, 0, &fit, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "y: the times do not grow with size");
}

/* Rows of one size: alpha is the caller's, B solves the one equation exactly. */
static void test_one_size(void)
{
    double size[1] = {8.0 * (1 << 30)};
    double time[1] = {ring_allreduce_time_s(16, size[0], 2e-6, 21.5e9)};
    ring_fit fit;
    gcsim_error err = {{0}, 0, 0};
    CHECK(ring_fit_allreduce("x", 16, size, time, 1, 1 << 20, 2e-6, &fit, &err) == 0);
    CHECK(!fit.alpha_fitted);
    CHECK(fit.alpha_s == 2e-6);
    CHECK_REL(fit.B_Bps, 21.5e9, 1e-12);
}

int main(void)
{
    test_model_by_hand();
    test_exact_recovery();
    test_min_size_excludes();
    test_clamp();
    test_one_size();
    CHECK_DONE();
}
