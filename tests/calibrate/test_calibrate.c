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
    gcsim_error err = {{0}, 0};
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

static void test_inter_latency_below_switches(void)
{
    calib_result r;
    gcsim_platform out;
    cJSON *json = NULL;
    if (synthetic_inter(0.2e-6, 40e9, &r, &out, &json)) {
        check_failures++;
        return;
    }
    CHECK(out.nic.latency_s == 1e-6);
    CHECK(has_warning(&r, "is not positive (clamped at 0); nic.latency keeps 1us"));
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
    gcsim_error err = {{0}, 0};
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
    test_refusals();
    CHECK_DONE();
}
