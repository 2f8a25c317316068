/* calib_run on logs made by the model itself (platform_cost.h on a known "true" platform):
 * the fit must find the true fields back and the written platform must reproduce its log;
 * line rates (refusal, --force, the warning below half), partial Rank listings, all-gather
 * and reduce-scatter logs, and the held-out split. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "check.h"
#include "platform.h"
#include "platform_cost.h"

static const char *src, *scratch;

typedef enum { RANKS_ALL, RANKS_LAST_ONLY } rank_listing;

/* Writes an nccl-tests log of `test` on `gpus` GPUs over `hosts` hosts, sizes 8 B to 8 GiB
 * (doubling), each time the analytic time of the platform `truth` as `gcsim collective`
 * gives it. Times with 6 decimals (us), so the printed rounding stays far below the
 * tolerances. */
static void write_model_log(const char *path, const gcsim_platform *truth, nccl_test test,
                            int gpus, int hosts, rank_listing ranks, double min_bytes)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    gcsim_op op = test == NCCL_TEST_ALL_GATHER       ? GCSIM_OP_ALLGATHER
                  : test == NCCL_TEST_REDUCE_SCATTER ? GCSIM_OP_REDUCESCATTER
                                                     : GCSIM_OP_ALLREDUCE;
    fprintf(f, "# Collective test starting: %s\n# nThread 1 nGpus 1 minBytes 8 maxBytes "
               "8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: "
               "1 graph: 0\n#\n# Using devices\n", nccl_test_name(test));
    int per_host = gpus / hosts;
    for (int r = 0; r < gpus; r++)
        if (ranks == RANKS_ALL || r == gpus - 1)
            fprintf(f, "#  Rank %2d Group  0 Pid %6d on model-host-%d device %2d [0x%02x] "
                       "Model GPU\n", r, 1000 + r, r / per_host, r % per_host, r % per_host);
    fprintf(f, "#\n#       size         count      type   redop    root     time   algbw   "
               "busbw #wrong     time   algbw   busbw #wrong\n");
    double factor = nccl_test_bus_factor(test, gpus);
    int per_rank = test == NCCL_TEST_ALL_REDUCE ? 1 : gpus;
    for (double size = 8; size <= 8589934592.0; size *= 2) {
        if (size < min_bytes || size / 4 / per_rank < 1)
            continue;
        calib_cost c;
        gcsim_error err = {{0}, 0, 0};
        CHECK(calib_platform_op_time_s(truth, gpus, op, size, COLLECTIVE_COUNT, GCSIM_PROTO_COUNT,
                                       &c, &err) == 0);
        double t_us = c.time_s * 1e6, algbw = size / t_us / 1e3;
        fprintf(f, "%12.0f  %12.0f     float  %6s      -1", size, size / 4 / per_rank,
                test == NCCL_TEST_ALL_GATHER ? "none" : "sum");
        for (int half = 0; half < 2; half++)
            fprintf(f, "  %.6f  %.6f  %.6f  0", t_us, algbw, algbw * factor);
        fprintf(f, "\n");
    }
    fprintf(f, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.5\n#\n");
    fclose(f);
}

static bool has_warning(const calib_result *r, const char *text)
{
    for (int i = 0; i < r->n_warnings; i++)
        if (strstr(r->warnings[i], text))
            return true;
    return false;
}

static void load_base(const char *name, gcsim_platform *p, char *path, size_t len)
{
    snprintf(path, len, "%s/platforms/%s", src, name);
    gcsim_error err = {{0}, 0, 0};
    CHECK(gcsim_platform_load(path, p, &err) == 0);
}

/* Runs calibrate on one or two logs; the written platform into *out. */
static int run(const char *base_path, const char *const *logs, const int *gpus,
               const int *nodes, int n_logs, bool force, calib_result *r, gcsim_platform *out,
               gcsim_error *err)
{
    calib_options opt = {.platform_path = base_path, .output_path = "new.json",
                         .n_logs = n_logs, .force = force,
                         .min_size_bytes = CALIB_DEFAULT_MIN_SIZE_BYTES};
    for (int k = 0; k < n_logs; k++) {
        opt.log_paths[k] = logs[k];
        opt.gpus[k] = gpus ? gpus[k] : 0;
        opt.nodes[k] = nodes ? nodes[k] : 0;
    }
    if (calib_run(&opt, r, err))
        return -1;
    gcsim_error e2 = {{0}, 0, 0};
    CHECK(gcsim_platform_parse(r->platform_json, "new.json", out, &e2) == 0);
    return 0;
}

/* Every row's error is the written platform's own: recomputed here from the file. */
static void check_rows_are_written_platform(const calib_result *r, const gcsim_platform *out)
{
    for (int k = 0; k < r->n_logs; k++) {
        const calib_log_fit *lf = &r->logs[k];
        gcsim_platform q = *out;
        q.nodes = q.nodes * q.gpus_per_node < lf->gpus ? (lf->gpus + q.gpus_per_node - 1) / q.gpus_per_node : q.nodes;
        for (int i = 0; i < lf->n_rows; i++) {
            calib_cost c;
            gcsim_error err = {{0}, 0, 0};
            CHECK(calib_platform_op_time_s(&q, lf->gpus, lf->gop, lf->rows[i].size_bytes,
                                           lf->collective, lf->protocol, &c,
                                           &err) == 0);
            CHECK_REL(lf->rows[i].pred_time_s, c.time_s, 1e-12);
            CHECK_REL(1 + lf->rows[i].rel_error, lf->rows[i].time_s / c.time_s, 1e-12);
        }
    }
}

/* A two-node log made by a platform whose NIC runs at 70% of the base's and whose latency
 * is 3x: both found back, and the written platform reproduces every row. */
static void test_round_trip_network(nccl_test test)
{
    char base_path[1024], log[1024];
    gcsim_platform base, truth, out;
    load_base("a100-hdr.json", &base, base_path, sizeof base_path);
    truth = base;
    truth.nic.bandwidth_Bps *= 0.7;
    truth.nic.latency_s *= 3;
    snprintf(log, sizeof log, "%s/model_%s_2x8.log", scratch, nccl_test_name(test));
    write_model_log(log, &truth, test, 16, 2, RANKS_ALL, 0);
    calib_result r;
    gcsim_error err = {{0}, 0, 0};
    const char *logs[] = {log};
    if (run(base_path, logs, NULL, NULL, 1, false, &r, &out, &err)) {
        fprintf(stderr, "%s\n", err.message);
        CHECK(0);
        return;
    }
    const calib_log_fit *lf = &r.logs[0];
    CHECK(!lf->corrected && out.busbw_correction.n == 0); /* the fields follow it: no bands */
    CHECK(lf->gop == (test == NCCL_TEST_ALL_GATHER       ? GCSIM_OP_ALLGATHER
                      : test == NCCL_TEST_REDUCE_SCATTER ? GCSIM_OP_REDUCESCATTER
                                                         : GCSIM_OP_ALLREDUCE));
    CHECK(lf->gpus == 16 && lf->nodes == 2 && lf->counts_from_log);
    CHECK(lf->fit.bw_knob == CALIB_KNOB_NIC_BW && lf->fit.lat_knob == CALIB_KNOB_NIC_LAT);
    CHECK_REL(out.nic.bandwidth_Bps, truth.nic.bandwidth_Bps, 0.01);
    CHECK(lf->n_latency > 0 && lf->n_bandwidth > 0);
    CHECK(lf->median_latency < 0.005 && lf->median_bandwidth < 0.005);
    CHECK(lf->held_out.done && lf->held_out.median_abs_rel_error < 0.01);
    CHECK(out.intra.gpu_to_gpu_Bps == base.intra.gpu_to_gpu_Bps);
    CHECK(!has_warning(&r, "line rate"));
    check_rows_are_written_platform(&r, &out);
    calib_result_free(&r);
}

/* A two-node log made by a platform whose node latency (intra_node.latency, paid on every
 * hop of NCCL's floor) is a quarter of the base's and whose NIC runs at 50% (at 80%, 8 x 20
 * GB/s, the tuner's two-node tree, NCCL's bwIntra rule, runs the large rows at the node's
 * NVLink bound, 227 GB/s, where the NIC's rate does not show, and the fit lands on a ring
 * at 30.6 GB/s, above the line rate; at 50% the tree is NIC-bound): with the node's
 * latency fixed, nic.latency alone cannot bring the smallest rows down (it goes to ~0). The
 * fit polishes the node's latency too: it moves down, is written with its source, and the
 * fit is no worse on the rows used than the same search without it (the search keeps the
 * best state it saw; it is a local search, so "no worse" is what it promises, not the
 * truth found back). */
static void test_node_latency_from_network_log(void)
{
    char base_path[1024], log[1024];
    gcsim_platform base, truth, out;
    load_base("a100-hdr.json", &base, base_path, sizeof base_path);
    truth = base;
    truth.intra.latency_s *= 0.25;
    truth.nic.bandwidth_Bps *= 0.5;
    snprintf(log, sizeof log, "%s/model_node_latency_2x8.log", scratch);
    write_model_log(log, &truth, NCCL_TEST_ALL_REDUCE, 16, 2, RANKS_ALL, 0);
    calib_result r;
    gcsim_error err = {{0}, 0, 0};
    const char *logs[] = {log};
    if (run(base_path, logs, NULL, NULL, 1, false, &r, &out, &err)) {
        fprintf(stderr, "%s\n", err.message);
        CHECK(0);
        return;
    }
    const calib_log_fit *lf = &r.logs[0];
    CHECK(lf->multi_node && lf->fit.lat2_knob == CALIB_KNOB_INTRA_LAT && lf->fit.lat2_fitted);
    CHECK(strcmp(lf->lat2_field, "intra_node.latency") == 0);
    CHECK(out.intra.latency_s < base.intra.latency_s);
    CHECK(strstr(r.platform_json, "intra_node.latency polished with them") != NULL);
    /* the same rows fitted without the second latency */
    int n = lf->n_rows;
    double *size = malloc((size_t)n * sizeof *size), *time = malloc((size_t)n * sizeof *time);
    bool *use = malloc((size_t)n * sizeof *use);
    calib_regime *regime = malloc((size_t)n * sizeof *regime);
    CHECK(size && time && use && regime);
    if (size && time && use && regime) {
        for (int i = 0; i < n; i++) {
            size[i] = lf->rows[i].size_bytes;
            time[i] = lf->rows[i].time_s;
            use[i] = lf->rows[i].used;
            regime[i] = lf->rows[i].regime;
        }
        calib_fit_data d = {.gpus = lf->gpus, .op = lf->gop, .size_bytes = size,
                            .time_s = time, .use = use, .regime = regime, .n = n,
                            .collective = COLLECTIVE_COUNT, .protocol = GCSIM_PROTO_COUNT};
        calib_knob cands[3] = {CALIB_KNOB_NIC_BW, CALIB_KNOB_INTRA_BW, CALIB_KNOB_NVLS_BW};
        int n_c = calib_knob_present(&base, CALIB_KNOB_NVLS_BW) ? 3 : 2;
        gcsim_platform q = base, q2 = base;
        if (q.nodes * q.gpus_per_node < lf->gpus)
            q.nodes = q2.nodes = (lf->gpus + q.gpus_per_node - 1) / q.gpus_per_node;
        calib_fit_result two, three;
        CHECK(calib_platform_fit(&q, &d, cands, n_c, CALIB_KNOB_NIC_LAT, CALIB_KNOB_COUNT, &two,
                                 &err) == 0);
        CHECK(calib_platform_fit(&q2, &d, cands, n_c, CALIB_KNOB_NIC_LAT, CALIB_KNOB_INTRA_LAT,
                                 &three, &err) == 0);
        CHECK(!two.lat2_fitted && q.intra.latency_s == base.intra.latency_s);
        CHECK(fmax(three.median_latency, three.median_bandwidth) <=
              fmax(two.median_latency, two.median_bandwidth) + 1e-12);
        printf("node latency from a network log: worse-regime median %.2f%% with "
               "intra_node.latency polished (%.3g -> %.3g us), %.2f%% without\n",
               100 * fmax(three.median_latency, three.median_bandwidth),
               1e6 * base.intra.latency_s, 1e6 * q2.intra.latency_s,
               100 * fmax(two.median_latency, two.median_bandwidth));
    }
    free(size);
    free(time);
    free(use);
    free(regime);
    check_rows_are_written_platform(&r, &out);
    calib_result_free(&r);
}

/* One node: intra-node bandwidth at 80% and latency 2x found back. */
static void test_round_trip_node(void)
{
    char base_path[1024], log[1024];
    gcsim_platform base, truth, out;
    load_base("a100-hdr.json", &base, base_path, sizeof base_path);
    truth = base;
    calib_knob_set(&truth, CALIB_KNOB_INTRA_BW, 0.8 * calib_knob_get(&base, CALIB_KNOB_INTRA_BW));
    truth.intra.latency_s *= 2;
    snprintf(log, sizeof log, "%s/model_1x8.log", scratch);
    write_model_log(log, &truth, NCCL_TEST_ALL_REDUCE, 8, 1, RANKS_ALL, 0);
    calib_result r;
    gcsim_error err = {{0}, 0, 0};
    const char *logs[] = {log};
    if (run(base_path, logs, NULL, NULL, 1, false, &r, &out, &err)) {
        fprintf(stderr, "%s\n", err.message);
        CHECK(0);
        return;
    }
    const calib_log_fit *lf = &r.logs[0];
    CHECK(!lf->multi_node && lf->fit.lat_knob == CALIB_KNOB_INTRA_LAT);
    CHECK(lf->median_latency < 0.005 && lf->median_bandwidth < 0.005);
    CHECK_REL(calib_knob_get(&out, lf->fit.bw_knob), calib_knob_get(&truth, lf->fit.bw_knob),
              0.01);
    CHECK_REL(out.intra.latency_s, truth.intra.latency_s, 0.05);
    check_rows_are_written_platform(&r, &out);
    calib_result_free(&r);
}

/* A NIC faster than the base's line rate: refused without force; with it, written and
 * warned. A NIC at 30%: written, with a warning naming the field. */
static void test_line_rates(void)
{
    char base_path[1024], log[1024];
    gcsim_platform base, truth, out;
    load_base("a100-hdr.json", &base, base_path, sizeof base_path);
    const char *logs[] = {log};
    calib_result r;
    gcsim_error err = {{0}, 0, 0};

    truth = base;
    truth.nic.bandwidth_Bps *= 1.5;
    snprintf(log, sizeof log, "%s/model_fast_nic.log", scratch);
    write_model_log(log, &truth, NCCL_TEST_ALL_REDUCE, 16, 2, RANKS_ALL, 0);
    CHECK(run(base_path, logs, NULL, NULL, 1, false, &r, &out, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "model_fast_nic.log: nic.bandwidth = ");
    CHECK_STR_CONTAINS(err.message, "above the line rate 25 GB/s");
    CHECK(!err.internal);
    CHECK(run(base_path, logs, NULL, NULL, 1, true, &r, &out, &err) == 0);
    CHECK(has_warning(&r, "above the line rate 25 GB/s"));
    /* above ~1.25x the node's links bind at large sizes under NCCL's cost model (the tuner
     * of issue 42 charges per-hop overheads): the NIC is found only roughly (1.26x for a
     * truth of 1.5x), while the log itself is reproduced within 1% (next check) */
    CHECK(out.nic.bandwidth_Bps > 1.2 * base.nic.bandwidth_Bps);
    CHECK(r.logs[0].median_latency < 0.01 && r.logs[0].median_bandwidth < 0.01);
    calib_result_free(&r);

    truth = base;
    truth.nic.bandwidth_Bps *= 0.3;
    snprintf(log, sizeof log, "%s/model_slow_nic.log", scratch);
    write_model_log(log, &truth, NCCL_TEST_ALL_REDUCE, 16, 2, RANKS_ALL, 0);
    CHECK(run(base_path, logs, NULL, NULL, 1, false, &r, &out, &err) == 0);
    /* whichever link the fit moved, a link outside [0.5, 1] of its base is warned about */
    const calib_log_fit *lf = &r.logs[0];
    double ratio = calib_knob_get(&out, lf->fit.bw_knob) / calib_knob_get(&base, lf->fit.bw_knob);
    CHECK(ratio < 0.5);
    CHECK(has_warning(&r, "of the line rate"));
    CHECK(has_warning(&r, calib_knob_path(&base, lf->fit.bw_knob)));
    CHECK(has_warning(&r, "(below 50%)"));
    calib_result_free(&r);
}

/* Only the last Rank line (vendor logs): refused without --gpus/--nodes, read with them. */
static void test_partial_ranks(void)
{
    char base_path[1024], log[1024];
    gcsim_platform base, out;
    load_base("a100-hdr.json", &base, base_path, sizeof base_path);
    snprintf(log, sizeof log, "%s/model_last_rank.log", scratch);
    write_model_log(log, &base, NCCL_TEST_ALL_REDUCE, 16, 2, RANKS_LAST_ONLY, 1 << 20);
    const char *logs[] = {log};
    calib_result r;
    gcsim_error err = {{0}, 0, 0};
    CHECK(run(base_path, logs, NULL, NULL, 1, false, &r, &out, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "model_last_rank.log: line 5: 1 Rank lines but the highest "
                                    "rank is 15: a partial listing");
    CHECK_STR_CONTAINS(err.message, "give --gpus N --nodes J");
    int gpus[] = {16}, nodes[] = {2}, few[] = {8};
    CHECK(run(base_path, logs, few, nodes, 1, false, &r, &out, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "--gpus 8, but the log lists rank 15");
    CHECK(run(base_path, logs, gpus, nodes, 1, false, &r, &out, &err) == 0);
    CHECK(r.logs[0].gpus == 16 && r.logs[0].nodes == 2);
    CHECK(r.logs[0].median_bandwidth < 0.005);
    calib_result_free(&r);
}

/* The held-out split: every other size used is left out of the check's fit. */
static void test_held_out_split(void)
{
    char base_path[1024], log[1024];
    gcsim_platform base, out;
    load_base("a100-hdr.json", &base, base_path, sizeof base_path);
    snprintf(log, sizeof log, "%s/model_split.log", scratch);
    write_model_log(log, &base, NCCL_TEST_ALL_REDUCE, 16, 2, RANKS_ALL, 0);
    const char *logs[] = {log};
    calib_result r;
    gcsim_error err = {{0}, 0, 0};
    CHECK(run(base_path, logs, NULL, NULL, 1, false, &r, &out, &err) == 0);
    const calib_log_fit *lf = &r.logs[0];
    int used = 0, held = 0;
    for (int i = 0; i < lf->n_rows; i++) {
        CHECK(lf->rows[i].used);
        CHECK(lf->rows[i].held_out == (used % 2 == 1));
        held += lf->rows[i].held_out;
        used++;
    }
    CHECK(lf->held_out.test_rows == held && lf->held_out.fit_rows == used - held);
    /* the model's own log: the base is already right, nothing moves */
    CHECK_REL(out.nic.bandwidth_Bps, base.nic.bandwidth_Bps, 0.005);
    calib_result_free(&r);
}

/* A single-node and a two-node log: the node from the first, the network from the second. */
static void test_two_logs(void)
{
    char base_path[1024], log1[1024], log2[1024];
    gcsim_platform base, truth, out;
    load_base("a100-hdr.json", &base, base_path, sizeof base_path);
    truth = base;
    truth.intra.gpu_to_gpu_Bps *= 0.9;
    truth.nic.bandwidth_Bps *= 0.8;
    snprintf(log1, sizeof log1, "%s/model_two_1x8.log", scratch);
    snprintf(log2, sizeof log2, "%s/model_two_2x8.log", scratch);
    write_model_log(log1, &truth, NCCL_TEST_ALL_REDUCE, 8, 1, RANKS_ALL, 0);
    write_model_log(log2, &truth, NCCL_TEST_ALL_REDUCE, 16, 2, RANKS_ALL, 0);
    const char *logs[] = {log2, log1};
    calib_result r;
    gcsim_error err = {{0}, 0, 0};
    CHECK(run(base_path, logs, NULL, NULL, 2, false, &r, &out, &err) == 0);
    CHECK_REL(out.intra.gpu_to_gpu_Bps, truth.intra.gpu_to_gpu_Bps, 0.01);
    CHECK_REL(out.nic.bandwidth_Bps, truth.nic.bandwidth_Bps, 0.01);
    CHECK(r.logs[0].fit.bw_knob == CALIB_KNOB_NIC_BW); /* the node is the other log's */
    check_rows_are_written_platform(&r, &out);
    calib_result_free(&r);
}

/* A reduce-scatter log read with the all-reduce factor is refused, naming the line. */
static void test_factor_checked(void)
{
    char base_path[1024], log[1024];
    gcsim_platform base;
    load_base("a100-hdr.json", &base, base_path, sizeof base_path);
    snprintf(log, sizeof log, "%s/model_rs.log", scratch);
    write_model_log(log, &base, NCCL_TEST_REDUCE_SCATTER, 16, 2, RANKS_ALL, 1 << 20);
    nccl_log l;
    gcsim_error err = {{0}, 0, 0};
    CHECK(nccl_log_load(log, &l, &err) == 0);
    bool named;
    CHECK(nccl_log_test(&l, &named) == NCCL_TEST_REDUCE_SCATTER && named);
    CHECK(nccl_log_check_test(&l, NCCL_TEST_REDUCE_SCATTER, 16, &err) == 0);
    CHECK(nccl_log_check_test(&l, NCCL_TEST_ALL_REDUCE, 16, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "model_rs.log: line 23: size 1048576 bytes is 16 x count");
    CHECK(nccl_log_check_test(&l, NCCL_TEST_REDUCE_SCATTER, 8, &err) != 0);
    nccl_log_free(&l);
}

/* The bands alone: a step of the errors at 32 MiB (the model 30% slow below, 20% fast from
 * there) takes two bands, edged at the geometric middle of 16 and 32 MiB, with the factors
 * measured / modelled busbw; errors within 2.5% take one band. */
static void test_bands_fit(void)
{
    double size[21], e[21];
    int regime[21];
    for (int i = 0; i < 21; i++) {
        size[i] = ldexp(1, 10 + i); /* 1 KiB .. 1 GiB */
        e[i] = size[i] < 32.0 * 1048576 ? -0.3 : 0.2;
        regime[i] = size[i] < 1048576 ? 0 : 1;
    }
    calib_bands b;
    CHECK(calib_bands_fit(size, e, regime, 21, CALIB_BANDS_TARGET, &b) == 0);
    CHECK(b.n_bands == 2);
    CHECK(b.below_bytes[0] == 23726566); /* floor(sqrt(2^24 * 2^25)) */
    CHECK(isinf(b.below_bytes[1]));
    CHECK_REL(b.factor[0], 1 / 0.7, 1e-12);
    CHECK_REL(b.factor[1], 1 / 1.2, 1e-12);
    double med[2];
    calib_bands_medians(&b, size, e, regime, 21, med);
    CHECK(med[0] < 1e-12 && med[1] < 1e-12);
    CHECK(calib_bands_factor(&b, 23726565) == b.factor[0]);
    CHECK(calib_bands_factor(&b, 23726566) == b.factor[1]);
    for (int i = 0; i < 21; i++)
        e[i] = i % 2 ? 0.01 : -0.01;
    CHECK(calib_bands_fit(size, e, regime, 21, CALIB_BANDS_TARGET, &b) == 0);
    CHECK(b.n_bands == 1);
    /* every size band counts (issue 42): one regime whose median is 0 (11 of 21 rows exact)
     * while its 10 rows below 1 MiB are 30% slow: the size band < 1 MiB misses, so two
     * bands, the edge between 512 KiB and 1 MiB */
    calib_bands none = {.n_bands = 1, .below_bytes = {INFINITY}, .factor = {1}};
    for (int i = 0; i < 21; i++) {
        e[i] = size[i] < 1048576 ? -0.3 : 0;
        regime[i] = 1;
    }
    calib_bands_medians(&none, size, e, regime, 21, med);
    CHECK(med[1] == 0);
    CHECK_REL(calib_bands_worst(&none, size, e, regime, 21), 0.3, 1e-12);
    CHECK(calib_bands_fit(size, e, regime, 21, CALIB_BANDS_TARGET, &b) == 0);
    CHECK(b.n_bands == 2);
    CHECK(b.below_bytes[0] == 741455); /* floor(sqrt(2^19 * 2^20)) */
    CHECK_REL(b.factor[0], 1 / 0.7, 1e-12);
    CHECK(calib_bands_worst(&b, size, e, regime, 21) < 1e-12);
}

/* A log with steps no field explains (made by a platform whose busbw, from 1 MiB, is 1.3x,
 * 1x and 0.75x in turn from one size to the next, as thresholds of a transport or of the
 * channel count make it): one bandwidth cannot follow it (no level holds a majority of the
 * bandwidth-bound rows), so the fields alone miss them; calibrate writes $.busbw_correction
 * fitted to the log, and the written platform, loaded back, reproduces it within 5% in both
 * regimes. */
static void test_step_corrected(void)
{
    char base_path[1024], log[1024];
    gcsim_platform base, truth, out;
    load_base("a100-hdr.json", &base, base_path, sizeof base_path);
    truth = base;
    truth.busbw_correction.n = 1;
    gcsim_busbw_correction *c = &truth.busbw_correction.entry[0];
    snprintf(c->fitted_to, sizeof c->fitted_to, "truth");
    c->op = 0;
    c->gpus = 16;
    double fac[3] = {1.3, 1, 0.75};
    c->n_bands = 15; /* below 1 MiB: 1; then one band per doubling to 8 GiB and above */
    c->below_bytes[0] = 1048576;
    c->factor[0] = 1;
    for (int b = 1; b < 15; b++) {
        c->below_bytes[b] = b < 14 ? ldexp(1048576, b) : INFINITY;
        c->factor[b] = fac[b % 3];
    }
    snprintf(log, sizeof log, "%s/model_step_2x8.log", scratch);
    write_model_log(log, &truth, NCCL_TEST_ALL_REDUCE, 16, 2, RANKS_ALL, 0);
    calib_result r;
    gcsim_error err = {{0}, 0, 0};
    const char *logs[] = {log};
    if (run(base_path, logs, NULL, NULL, 1, true, &r, &out, &err)) {
        fprintf(stderr, "%s\n", err.message);
        CHECK(0);
        return;
    }
    const calib_log_fit *lf = &r.logs[0];
    CHECK(lf->corrected);
    CHECK(fmax(lf->model_median_latency, lf->model_median_bandwidth) > CALIB_REGIME_WARN);
    CHECK(lf->median_latency <= CALIB_REGIME_WARN && lf->median_bandwidth <= CALIB_REGIME_WARN);
    CHECK(out.busbw_correction.n == 1);
    CHECK(out.busbw_correction.entry[0].gpus == 16 && out.busbw_correction.entry[0].op == 0);
    CHECK(strcmp(out.busbw_correction.entry[0].fitted_to, "model_step_2x8.log") == 0);
    CHECK_STR_CONTAINS(r.platform_json, "\"busbw_correction\": \"fitted by gcsim calibrate to");
    bool noted = false;
    for (int i = 0; i < r.n_notes; i++)
        noted = noted || strstr(r.notes[i], "written as $.busbw_correction, fitted to this log");
    CHECK(noted);
    for (int i = 0; i < r.n_warnings; i++)
        CHECK(!strstr(r.warnings[i], "misses its own log"));
    check_rows_are_written_platform(&r, &out);
    /* recalibrated on its own output: the old bands are left out of the fit and replaced */
    char again[1024];
    snprintf(again, sizeof again, "%s/step_written.json", scratch);
    FILE *f = fopen(again, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(r.platform_json, f);
        fclose(f);
    }
    calib_result r2;
    gcsim_platform out2;
    CHECK(run(again, logs, NULL, NULL, 1, true, &r2, &out2, &err) == 0);
    CHECK(r2.logs[0].corrected && out2.busbw_correction.n == 1);
    CHECK(r2.logs[0].median_latency <= CALIB_REGIME_WARN &&
          r2.logs[0].median_bandwidth <= CALIB_REGIME_WARN);
    calib_result_free(&r2);
    calib_result_free(&r);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s SOURCE_DIR SCRATCH_DIR\n", argv[0]);
        return 2;
    }
    src = argv[1];
    scratch = argv[2];
    test_round_trip_network(NCCL_TEST_ALL_REDUCE);
    test_round_trip_network(NCCL_TEST_ALL_GATHER);
    test_round_trip_network(NCCL_TEST_REDUCE_SCATTER);
    test_round_trip_node();
    test_node_latency_from_network_log();
    test_line_rates();
    test_partial_ranks();
    test_held_out_split();
    test_two_logs();
    test_factor_checked();
    test_bands_fit();
    test_step_corrected();
    CHECK_DONE();
}
