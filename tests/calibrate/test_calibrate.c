/* calib_run end to end on the shipped logs and on synthetic ones: which fields change, to
 * what, what is kept and why, and that the new platform loads with every other field as in
 * the base. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "check.h"
#include "platform.h"
#include "synth_log.h"

static const char *src, *scratch;

static void path_in(char *buf, size_t len, const char *dir, const char *file)
{
    snprintf(buf, len, "%s/%s", dir, file);
}

static const calib_change *change(const calib_result *r, const char *path)
{
    for (int i = 0; i < r->n_changes; i++)
        if (strcmp(r->changes[i].path, path) == 0)
            return &r->changes[i];
    return NULL;
}

static const char *source_of(cJSON *root, const char *path)
{
    cJSON *s = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "sources"),
                                                path);
    return cJSON_IsString(s) ? s->valuestring : NULL;
}

static bool has_warning(const calib_result *r, const char *text)
{
    for (int i = 0; i < r->n_warnings; i++)
        if (strstr(r->warnings[i], text))
            return true;
    return false;
}

/* Runs calibrate; the new platform is parsed into *out and its JSON into *json. */
static int run(calib_options *opt, calib_result *r, gcsim_platform *out, cJSON **json)
{
    gcsim_error err = {{0}, 0, 0};
    opt->output_path = "new.json";
    if (opt->min_size_bytes == 0)
        opt->min_size_bytes = CALIB_DEFAULT_MIN_SIZE_BYTES;
    if (calib_run(opt, r, &err)) {
        fprintf(stderr, "calib_run: %s\n", err.message);
        return -1;
    }
    if (gcsim_platform_parse(r->platform_json, "new.json", out, &err)) {
        fprintf(stderr, "new platform: %s\n", err.message);
        calib_result_free(r);
        return -1;
    }
    *json = cJSON_Parse(r->platform_json);
    return 0;
}

/* Every field but the listed ones is the base's. */
static void check_rest_unchanged(const gcsim_platform *a, const gcsim_platform *b,
                                 bool intra_changed, bool nic_changed)
{
    CHECK(strcmp(a->name, b->name) == 0 && strcmp(a->description, b->description) == 0);
    CHECK(a->nodes == b->nodes && a->gpus_per_node == b->gpus_per_node);
    CHECK(strcmp(a->gpu.type, b->gpu.type) == 0 && a->gpu.speed_flops == b->gpu.speed_flops);
    CHECK(a->intra.kind == b->intra.kind && a->intra.gpu_to_host_Bps == b->intra.gpu_to_host_Bps);
    if (!intra_changed)
        CHECK(a->intra.gpu_to_gpu_Bps == b->intra.gpu_to_gpu_Bps &&
              a->intra.latency_s == b->intra.latency_s);
    CHECK(a->nic.kind == b->nic.kind && a->nic.per_node == b->nic.per_node);
    if (!nic_changed)
        CHECK(a->nic.bandwidth_Bps == b->nic.bandwidth_Bps && a->nic.latency_s == b->nic.latency_s);
    CHECK(a->fabric.topology == b->fabric.topology &&
          a->fabric.oversubscription == b->fabric.oversubscription &&
          a->fabric.nodes_per_leaf == b->fabric.nodes_per_leaf &&
          a->fabric.switch_latency_s == b->fabric.switch_latency_s);
    CHECK(a->has_price == b->has_price && a->price_per_gpu_hour_usd == b->price_per_gpu_hour_usd);
}

static void test_a100_single_node(void)
{
    char log[1024], plat[1024];
    path_in(log, sizeof log, src, "platforms/calibration/a100-nvswitch-1x8-azure-ndv4.log");
    path_in(plat, sizeof plat, src, "platforms/a100-hdr.json");
    calib_options opt = {.platform_path = plat, .log_paths = {log}, .n_logs = 1};
    calib_result r;
    gcsim_platform base, out;
    cJSON *json = NULL;
    gcsim_error err;
    CHECK(gcsim_platform_load(plat, &base, &err) == 0);
    if (run(&opt, &r, &out, &json)) {
        check_failures++;
        return;
    }
    const ring_fit *f = &r.logs[0].fit;
    /* The 8 GiB row's published busbw is 231.58 GB/s; B is its asymptote. */
    CHECK_REL(f->B_Bps, 231.58e9, 0.03);
    CHECK(f->alpha_fitted && f->alpha_s > 0 && f->rows_used == 3);
    CHECK(r.logs[0].gpus == 8 && r.logs[0].nodes == 1 && r.logs[0].counts_from_log);
    CHECK_REL(out.intra.gpu_to_gpu_Bps, f->B_Bps, 1e-8);
    CHECK_REL(out.intra.latency_s, f->alpha_s, 1e-8);
    check_rest_unchanged(&out, &base, true, false);
    /* a100-hdr's gpu_to_gpu was fitted to this log (9 digits): B equals it, no warning. */
    CHECK_REL(base.intra.gpu_to_gpu_Bps, f->B_Bps, 1e-8);
    CHECK(!has_warning(&r, "exceeds"));
    CHECK(r.n_changes == 2 && change(&r, "intra_node.latency") && change(&r, "intra_node.gpu_to_gpu"));
    const char *s = source_of(json, "intra_node.gpu_to_gpu");
    CHECK_STR_CONTAINS(s, "fitted by gcsim calibrate to ");
    CHECK_STR_CONTAINS(s, "a100-nvswitch-1x8-azure-ndv4.log");
    CHECK_STR_CONTAINS(s, "residuals of time over those rows: max ");
    CHECK_STR_CONTAINS(source_of(json, "intra_node.latency"), "a100-nvswitch-1x8-azure-ndv4.log");
    /* Sources of fields not fitted are the base's. */
    CHECK_STR_CONTAINS(source_of(json, "nic.bandwidth"), "ConnectX-6");
    /* Residuals: every row, fitted time from the model, relative error signed. */
    for (int i = 0; i < r.logs[0].n_rows; i++) {
        const calib_row *row = &r.logs[0].rows[i];
        CHECK_REL(row->fit_time_s, ring_allreduce_time_s(8, row->size_bytes, f->alpha_s, f->B_Bps),
                  1e-15);
        CHECK_REL(row->rel_error, (row->fit_time_s - row->time_s) / row->time_s, 1e-15);
        CHECK(fabs(row->rel_error) <= f->max_abs_rel_error + 1e-15);
    }
    cJSON_Delete(json);
    calib_result_free(&r);
}

static void test_h200_single_node(void)
{
    char log[1024], plat[1024];
    path_in(log, sizeof log, src, "platforms/calibration/h200-nvswitch-1x8-azure-ndv5.log");
    path_in(plat, sizeof plat, src, "platforms/h100-ndr.json");
    calib_options opt = {.platform_path = plat, .log_paths = {log}, .n_logs = 1};
    calib_result r;
    gcsim_platform out;
    cJSON *json = NULL;
    if (run(&opt, &r, &out, &json)) {
        check_failures++;
        return;
    }
    CHECK_REL(r.logs[0].fit.B_Bps, 479.98e9, 0.03);
    /* Two rows, two parameters: the fit goes through both. */
    CHECK(r.logs[0].fit.max_abs_rel_error < 1e-12);
    CHECK(has_warning(&r, "does not name its test"));
    CHECK(has_warning(&r, "exceeds"));
    CHECK_STR_CONTAINS(source_of(json, "intra_node.gpu_to_gpu"), "zero by construction");
    cJSON_Delete(json);
    calib_result_free(&r);
}

/* The published 2 x 8 A100 figure, one row: B only, alpha the base's. */
static void test_two_node_published(bool with_single_node)
{
    char log[1024], single[1024], plat[1024];
    path_in(log, sizeof log, src, "platforms/calibration/a100-ib-2x8-4x200g.log");
    path_in(single, sizeof single, src, "platforms/calibration/a100-nvswitch-1x8-azure-ndv4.log");
    path_in(plat, sizeof plat, src, "tests/calibrate/platform_a100_4nic.json");
    calib_options opt = {.platform_path = plat, .log_paths = {log, single}, .gpus = {16, 0},
                         .nodes = {2, 0}, .n_logs = with_single_node ? 2 : 1};
    calib_result r;
    gcsim_platform base, out;
    cJSON *json = NULL;
    gcsim_error err;
    CHECK(gcsim_platform_load(plat, &base, &err) == 0);
    if (run(&opt, &r, &out, &json)) {
        check_failures++;
        return;
    }
    const ring_fit *f = &r.logs[0].fit;
    CHECK(r.logs[0].multi_node && !f->alpha_fitted);
    CHECK_REL(f->alpha_s, 1e-6 + 2 * 0.13e-6, 1e-12);
    CHECK_REL(f->B_Bps, 86e9, 0.005);
    CHECK_REL(out.nic.bandwidth_Bps, f->B_Bps / 4, 1e-8);
    CHECK(out.nic.latency_s == base.nic.latency_s);
    CHECK(change(&r, "nic.latency") && change(&r, "nic.latency")->new_value[0] == '\0');
    CHECK_STR_CONTAINS(source_of(json, "nic.latency"), "alpha was not fitted");
    CHECK_STR_CONTAINS(source_of(json, "nic.bandwidth"), "a100-ib-2x8-4x200g.log");
    CHECK_STR_CONTAINS(source_of(json, "nic.bandwidth"), "nic.bandwidth = B / nic.per_node (4)");
    if (with_single_node) {
        CHECK(r.n_changes == 4);
        CHECK_STR_CONTAINS(source_of(json, "nic.bandwidth"), "fitted to ");
        CHECK_REL(out.intra.gpu_to_gpu_Bps, r.logs[1].fit.B_Bps, 1e-8);
        check_rest_unchanged(&out, &base, true, true);
    } else {
        CHECK(r.n_changes == 2);
        check_rest_unchanged(&out, &base, false, true);
    }
    cJSON_Delete(json);
    calib_result_free(&r);
}

/* A synthetic two-node log against the 4-NIC fixture (switch latency 0.13 us). */
static int synthetic_inter(double alpha_s, double B_Bps, calib_result *r, gcsim_platform *out,
                           cJSON **json)
{
    char log[1024], plat[1024];
    path_in(log, sizeof log, scratch, "synthetic_2x8.log");
    path_in(plat, sizeof plat, src, "tests/calibrate/platform_a100_4nic.json");
    synth_spec s = {16, 2, alpha_s, B_Bps, 13, true, true, 1024, 1 << 30, 0};
    CHECK(synth_log_file(log, &s) > 0);
    calib_options opt = {.platform_path = plat, .log_paths = {log}, .n_logs = 1};
    return run(&opt, r, out, json);
}

static void test_inter_exact(void)
{
    calib_result r;
    gcsim_platform out;
    cJSON *json = NULL;
    if (synthetic_inter(5e-6, 40e9, &r, &out, &json)) {
        check_failures++;
        return;
    }
    CHECK(r.logs[0].gpus == 16 && r.logs[0].nodes == 2);
    /* nic.latency = alpha - 2 switch latencies; nic.bandwidth = B / 4 NICs. */
    CHECK_REL(out.nic.latency_s, 5e-6 - 0.26e-6, 1e-6);
    CHECK_REL(out.nic.bandwidth_Bps, 10e9, 1e-6);
    CHECK(out.intra.gpu_to_gpu_Bps == 300e9);
    CHECK_STR_CONTAINS(source_of(json, "nic.latency"), "alpha - 2 x fabric.switch_latency");
    cJSON_Delete(json);
    calib_result_free(&r);
}

static void test_inter_not_bottleneck(void)
{
    calib_result r;
    gcsim_platform out;
    cJSON *json = NULL;
    if (synthetic_inter(5e-6, 400e9, &r, &out, &json)) {
        check_failures++;
        return;
    }
    CHECK(out.nic.bandwidth_Bps == 25e9); /* 200 Gb/s kept */
    CHECK_STR_CONTAINS(source_of(json, "nic.bandwidth"), "base value kept");
    CHECK_STR_CONTAINS(source_of(json, "nic.bandwidth"), "only a lower bound is known");
    CHECK(has_warning(&r, "the network was not the bottleneck"));
    cJSON_Delete(json);
    calib_result_free(&r);
}

/* The written platform's ring closed form (ring_fit.h: 2(n-1) alpha + 2(n-1)/n S / B, alpha
 * and B from the written fields) against the printed fit, at every size in the fit: within
 * 1%. Returns the largest relative difference. */
static double repredict(const calib_log_fit *lf, const gcsim_platform *out, double min_size)
{
    double alpha = lf->multi_node ? out->nic.latency_s + 2 * out->fabric.switch_latency_s
                                  : out->intra.latency_s;
    double intra_B = out->intra.kind == INTRA_NVLINK
                         ? out->intra.nvlink_link_Bps * out->intra.nvlink_links_per_pair
                         : out->intra.gpu_to_gpu_Bps;
    double nic_B = out->nic.per_node * out->nic.bandwidth_Bps;
    double B = lf->multi_node && nic_B < intra_B ? nic_B : intra_B;
    double worst = 0;
    for (int i = 0; i < lf->n_rows; i++) {
        const calib_row *row = &lf->rows[i];
        if (row->size_bytes < min_size)
            continue;
        double t = ring_allreduce_time_s(lf->gpus, row->size_bytes, alpha, B);
        double d = fabs(t - row->fit_time_s) / row->fit_time_s;
        CHECK(d <= 0.01);
        if (d > worst)
            worst = d;
    }
    return worst;
}

/* alpha = 0.2 us, below 2 x 0.13 us of switches: nic.latency and switch_latency are scaled
 * by 0.2 / (1 + 0.26), so that they add up to alpha, and the written platform predicts what
 * the fit printed. */
static void test_inter_latency_below_switches(void)
{
    calib_result r;
    gcsim_platform out, base;
    cJSON *json = NULL;
    gcsim_error err;
    char plat[1024];
    path_in(plat, sizeof plat, src, "tests/calibrate/platform_a100_4nic.json");
    CHECK(gcsim_platform_load(plat, &base, &err) == 0);
    if (synthetic_inter(0.2e-6, 40e9, &r, &out, &json)) {
        check_failures++;
        return;
    }
    CHECK_REL(r.logs[0].fit.alpha_s, 0.2e-6, 1e-6);
    double scale = 0.2 / 1.26;
    CHECK_REL(out.nic.latency_s, 1e-6 * scale, 1e-6);
    CHECK_REL(out.fabric.switch_latency_s, 0.13e-6 * scale, 1e-6);
    CHECK_REL(out.nic.latency_s + 2 * out.fabric.switch_latency_s, 0.2e-6, 1e-6);
    CHECK(change(&r, "fabric.switch_latency") != NULL);
    CHECK_STR_CONTAINS(source_of(json, "nic.latency"), "are both scaled by");
    CHECK_STR_CONTAINS(source_of(json, "fabric.switch_latency"), "which add up to alpha");
    CHECK(has_warning(&r, "is below 2 x fabric.switch_latency (0.26 us)"));
    CHECK(repredict(&r.logs[0], &out, CALIB_DEFAULT_MIN_SIZE_BYTES) <= 0.01);
    /* The base's latencies (what was written before) miss the fit by far more at 1 MiB:
     * 30 x 1.26 us against 30 x 0.2 us on top of 24.6 us of transfer. */
    const calib_row *mib = NULL;
    for (int i = 0; i < r.logs[0].n_rows; i++)
        if (r.logs[0].rows[i].size_bytes == 1 << 20)
            mib = &r.logs[0].rows[i];
    CHECK(mib != NULL);
    if (mib) {
        double old_t = ring_allreduce_time_s(16, 1 << 20, 1.26e-6, 40e9);
        CHECK((old_t - mib->fit_time_s) / mib->fit_time_s > 0.5);
    }
    cJSON_Delete(json);
    calib_result_free(&r);
}

/* A negative least-squares alpha (the log is generated with alpha = -0.05 us over sizes from
 * 1 MiB): clamped to 0, written as CALIB_MIN_LATENCY_S in total, and the written platform
 * still predicts the printed fit within 1%; intra-node and inter-node. */
static void test_clamped_alpha_written(void)
{
    char log[1024], plat[1024];
    path_in(plat, sizeof plat, src, "tests/calibrate/platform_a100_4nic.json");
    for (int multi = 0; multi < 2; multi++) {
        path_in(log, sizeof log, scratch, multi ? "clamped_2x8.log" : "clamped_1x8.log");
        synth_spec s = {multi ? 16 : 8, multi ? 2 : 1, -0.05e-6, multi ? 40e9 : 200e9, 13, true,
                        true, 1 << 20, 1 << 30, 0};
        CHECK(synth_log_file(log, &s) > 0);
        calib_options opt = {.platform_path = plat, .log_paths = {log}, .n_logs = 1};
        calib_result r;
        gcsim_platform out;
        cJSON *json = NULL;
        if (run(&opt, &r, &out, &json)) {
            check_failures++;
            continue;
        }
        CHECK(r.logs[0].fit.alpha_clamped && r.logs[0].fit.alpha_s == 0);
        if (multi) {
            CHECK_REL(out.nic.latency_s + 2 * out.fabric.switch_latency_s, CALIB_MIN_LATENCY_S,
                      1e-6);
            CHECK_STR_CONTAINS(source_of(json, "nic.latency"), "clamped to 0 by the fit");
        } else {
            CHECK_REL(out.intra.latency_s, CALIB_MIN_LATENCY_S, 1e-9);
            CHECK(has_warning(&r, "intra_node.latency is written as 0.001us, not the base's 5us"));
        }
        CHECK(repredict(&r.logs[0], &out, CALIB_DEFAULT_MIN_SIZE_BYTES) <= 0.01);
        cJSON_Delete(json);
        calib_result_free(&r);
    }
}

/* Line rates. nic.bandwidth: the 4-NIC fixture's 200 Gb/s (25 GB/s) is nominal, B = 120 GB/s
 * over 4 NICs is 30: refused, written with force. gpu_to_gpu: the fixture's 300 GB/s has no
 * source (nominal): 320 refused; a100-hdr's was fitted ("fitted by gcsim calibrate"): no line
 * rate, a warning only. */
static void test_line_rates(void)
{
    char log[1024], plat[1024], hdr[1024];
    path_in(plat, sizeof plat, src, "tests/calibrate/platform_a100_4nic.json");
    path_in(hdr, sizeof hdr, src, "platforms/a100-hdr.json");
    path_in(log, sizeof log, scratch, "line_rate_2x8.log");
    synth_spec inter = {16, 2, 5e-6, 120e9, 13, true, true, 1 << 20, 1 << 30, 0};
    CHECK(synth_log_file(log, &inter) > 0);
    calib_options opt = {.platform_path = plat, .output_path = "o", .log_paths = {log},
                         .n_logs = 1, .min_size_bytes = 1 << 20};
    calib_result r;
    gcsim_error err = {{0}, 0, 0};
    CHECK(calib_run(&opt, &r, &err) != 0);
    CHECK(!err.internal);
    CHECK_STR_CONTAINS(err.message, "line_rate_2x8.log: nic.bandwidth = 30 GB/s fitted, above "
                                    "the line rate 25 GB/s (");
    CHECK_STR_CONTAINS(err.message, "platform_a100_4nic.json's nic.bandwidth, the nominal figure "
                                    "a platform engineer knows for this link");
    CHECK_STR_CONTAINS(err.message, "or give --force to write it anyway");
    opt.force = true;
    gcsim_platform out;
    cJSON *json = NULL;
    if (run(&opt, &r, &out, &json) == 0) {
        CHECK_REL(out.nic.bandwidth_Bps, 30e9, 1e-6);
        CHECK(has_warning(&r, "above the line rate 25 GB/s of "));
        CHECK_STR_CONTAINS(source_of(json, "nic.bandwidth"), "written because of --force");
        cJSON_Delete(json);
        calib_result_free(&r);
    } else {
        check_failures++;
    }
    path_in(log, sizeof log, scratch, "line_rate_1x8.log");
    synth_spec intra = {8, 1, 5e-6, 320e9, 13, true, true, 1 << 20, 1 << 30, 0};
    CHECK(synth_log_file(log, &intra) > 0);
    calib_options one = {.platform_path = plat, .output_path = "o", .log_paths = {log},
                         .n_logs = 1, .min_size_bytes = 1 << 20};
    CHECK(calib_run(&one, &r, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "intra_node.gpu_to_gpu = 320 GB/s fitted, above the line "
                                    "rate 300 GB/s");
    one.platform_path = hdr;
    if (run(&one, &r, &out, &json) == 0) {
        CHECK_REL(out.intra.gpu_to_gpu_Bps, 320e9, 1e-6);
        CHECK(has_warning(&r, "that value's source says it was fitted or measured, so it is no "
                              "line rate"));
        cJSON_Delete(json);
        calib_result_free(&r);
    } else {
        check_failures++;
    }
}

/* Writes a single-node log of 8 GPUs with the given in-place (and out-of-place) times. */
static void write_rows(const char *path, const double *size, const double *time_us, int n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "# Collective test starting: all_reduce_perf\n");
    for (int r = 0; r < 8; r++)
        fprintf(f, "#  Rank %d Group 0 Pid %d on host-a device %d [0x%02x] NVIDIA H100 80GB "
                   "HBM3\n", r, 100 + r, r, r);
    for (int i = 0; i < n; i++) {
        double algbw = size[i] / time_us[i] / 1e3;
        fprintf(f, "%.0f %.0f float sum -1 %.6f %.6f %.6f 0 %.6f %.6f %.6f 0\n", size[i],
                size[i] / 4, time_us[i], algbw, algbw * 1.75, time_us[i], algbw, algbw * 1.75);
    }
    fclose(f);
}

/* The RMS warning (above 10%) and the held-out check: an exact log gives neither warning
 * and a held-out error of 0; a log whose times zigzag by +-25% warns on both; a log with a
 * knee (B = 100 GB/s up to 16 MiB, 300 GB/s beyond) fits its smaller half well and misses
 * the larger one: the held-out warning (and RMS 24.5%). */
static void test_rms_and_held_out(void)
{
    char log[1024], plat[1024];
    path_in(plat, sizeof plat, src, "platforms/h100-ndr.json");
    path_in(log, sizeof log, scratch, "held_out.log");
    double size[10], exact[10], zigzag[10], knee[10];
    for (int i = 0; i < 10; i++) {
        size[i] = (double)(1 << 20) * (1 << i); /* 1 MiB .. 512 MiB */
        exact[i] = 14 * 2.0 + 1.75 * size[i] / 300e3;
        zigzag[i] = exact[i] * (i % 2 ? 1.25 : 0.75);
        knee[i] = 14 * 2.0 + 1.75 * size[i] / (i <= 4 ? 100e3 : 300e3);
    }
    const double *times[3] = {exact, zigzag, knee};
    for (int c = 0; c < 3; c++) {
        write_rows(log, size, times[c], 10);
        calib_options opt = {.platform_path = plat, .log_paths = {log}, .n_logs = 1};
        calib_result r;
        gcsim_platform out;
        cJSON *json = NULL;
        if (run(&opt, &r, &out, &json)) {
            check_failures++;
            continue;
        }
        const calib_held_out *h = &r.logs[0].held_out;
        CHECK(h->done && h->fit_rows == 5 && h->test_rows == 5);
        CHECK(h->fit_max_size == 16 << 20 && h->test_min_size == 32 << 20);
        CHECK(has_warning(&r, "RMS relative time error") == (c != 0)); /* knee: 24.5% */
        CHECK(has_warning(&r, "held-out check: fitted to the 5 smaller sizes") == (c != 0));
        if (c == 0) {
            CHECK(h->median_abs_rel_error < 1e-6);
            CHECK_REL(h->B_Bps, 300e9, 1e-6);
        }
        if (c == 2) {
            /* The smaller half is exactly alpha = 2 us, B = 100 GB/s; at 512 MiB that line
             * predicts 28 + 1.75 x 2^29 / 1e5 us against 28 + 1.75 x 2^29 / 3e5. */
            CHECK_REL(h->B_Bps, 100e9, 1e-6);
            double pred = 28 + 1.75 * size[9] / 100e3, meas = knee[9];
            CHECK_REL(h->max_abs_rel_error, (pred - meas) / meas, 1e-6);
        }
        CHECK_STR_CONTAINS(source_of(json, "intra_node.gpu_to_gpu"),
                           "held-out check: fitted to the 5 smaller sizes used (1 MiB to 16 MiB)");
        cJSON_Delete(json);
        calib_result_free(&r);
    }
}

/* The shipped A100 log's held-out check by hand: the line through 16 MiB (268.82 us) and
 * 32 MiB (442.27 us) has B = 1.75 x 16 MiB / 173.45 us and predicts 8 GiB 37% high. */
static void test_held_out_a100(void)
{
    char log[1024], plat[1024];
    path_in(log, sizeof log, src, "platforms/calibration/a100-nvswitch-1x8-azure-ndv4.log");
    path_in(plat, sizeof plat, src, "platforms/a100-hdr.json");
    calib_options opt = {.platform_path = plat, .log_paths = {log}, .n_logs = 1};
    calib_result r;
    gcsim_platform out;
    cJSON *json = NULL;
    if (run(&opt, &r, &out, &json)) {
        check_failures++;
        return;
    }
    const calib_held_out *h = &r.logs[0].held_out;
    double B = 1.75 * 16777216 / 173.45e-6;
    double alpha = (268.82e-6 - 1.75 * 16777216 / B) / 14;
    double pred = 14 * alpha + 1.75 * 8589934592.0 / B;
    CHECK(h->done && h->fit_rows == 2 && h->test_rows == 1);
    CHECK_REL(h->B_Bps, B, 1e-9);
    CHECK_REL(h->alpha_s, alpha, 1e-6);
    CHECK_REL(h->median_abs_rel_error, (pred - 64912.28e-6) / 64912.28e-6, 1e-9);
    CHECK(h->median_abs_rel_error > 0.36 && h->median_abs_rel_error < 0.38);
    cJSON_Delete(json);
    calib_result_free(&r);
}

static void test_refusals(void)
{
    char a100[1024], h200[1024], plat[1024], two[1024];
    path_in(a100, sizeof a100, src, "platforms/calibration/a100-nvswitch-1x8-azure-ndv4.log");
    path_in(h200, sizeof h200, src, "platforms/calibration/h200-nvswitch-1x8-azure-ndv5.log");
    path_in(two, sizeof two, src, "platforms/calibration/a100-ib-2x8-4x200g.log");
    path_in(plat, sizeof plat, src, "platforms/a100-hdr.json");
    calib_result r;
    gcsim_error err = {{0}, 0, 0};
    calib_options both_single = {.platform_path = plat, .output_path = "o", .log_paths = {a100, h200},
                                 .n_logs = 2, .min_size_bytes = 1 << 20};
    CHECK(calib_run(&both_single, &r, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "both are single-node logs");
    calib_options no_counts = {.platform_path = plat, .output_path = "o", .log_paths = {two},
                               .n_logs = 1, .min_size_bytes = 1 << 20};
    CHECK(calib_run(&no_counts, &r, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "a100-ib-2x8-4x200g.log: line 13 (end of file): no Rank lines");
    calib_options wrong_n = {.platform_path = plat, .output_path = "o", .log_paths = {two},
                             .gpus = {8}, .nodes = {2}, .n_logs = 1, .min_size_bytes = 1 << 20};
    CHECK(calib_run(&wrong_n, &r, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "line 13: out-of-place busbw 86");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_calibrate SOURCE_DIR SCRATCH_DIR\n");
        return 2;
    }
    src = argv[1];
    scratch = argv[2];
    test_a100_single_node();
    test_h200_single_node();
    test_two_node_published(false);
    test_two_node_published(true);
    test_inter_exact();
    test_inter_not_bottleneck();
    test_inter_latency_below_switches();
    test_clamped_alpha_written();
    test_line_rates();
    test_rms_and_held_out();
    test_held_out_a100();
    test_refusals();
    CHECK_DONE();
}
