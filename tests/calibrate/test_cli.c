/* gcsim calibrate end to end: the printed fit in json and csv, the platform file it writes
 * (loaded with gcsim's loader), exact recovery of alpha and B through the command, two logs
 * with --gpus/--nodes, --out-of-place, pasted logs, --platform by catalog name, --table and
 * --force. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "platform.h"
#include "synth_log.h"

static const char *gcsim, *src, *scratch;

static char *run(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 16, len = 0, n;
    char *buf = malloc(cap);
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (len + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    if (pclose(p) != 0) {
        fprintf(stderr, "command failed: %s\n", cmd);
        free(buf);
        return NULL;
    }
    return buf;
}

static int load_sources(const char *path, gcsim_platform *p, cJSON **root)
{
    gcsim_error err;
    if (gcsim_platform_load(path, p, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    FILE *f = fopen(path, "r");
    char buf[1 << 16];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    *root = cJSON_Parse(buf);
    return *root ? 0 : -1;
}

static const char *source_of(cJSON *root, const char *path)
{
    cJSON *s = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "sources"),
                                                path);
    return cJSON_IsString(s) ? s->valuestring : "";
}

/* The A100 log: json and csv carry the same rows; the written file loads and names the log. */
static void test_formats_and_file(void)
{
    char cmd[4096], out[1024];
    snprintf(out, sizeof out, "%s/cli_a100.json", scratch);
    remove(out);
    const char *args = "calibrate --log %s/platforms/calibration/a100-nvswitch-1x8-azure-ndv4.log "
                       "--platform %s/platforms/a100-hdr.json --output %s --format %s";
    snprintf(cmd, sizeof cmd, "%s ", gcsim);
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), args, src, src, out, "json");
    char *json_text = run(cmd);
    snprintf(cmd, sizeof cmd, "%s ", gcsim);
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), args, src, src, out, "csv");
    char *csv = run(cmd);
    CHECK(json_text && csv);
    if (!json_text || !csv) {
        free(json_text);
        free(csv);
        return;
    }
    cJSON *root = cJSON_Parse(json_text);
    cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "rows");
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "notes");
    CHECK(cJSON_GetArraySize(rows) == 3);
    CHECK_STR_CONTAINS(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "error 1")),
                       "the written platform on its own log: median |busbw error| ");
    CHECK_STR_CONTAINS(
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "intra_node.gpu_to_gpu")),
        "227.332601GBps");
    /* CSV: a header and one line per row, with the json's platform time in the same column. */
    char *save = NULL, *line = strtok_r(csv, "\n", &save);
    CHECK_STR_CONTAINS(line, "log,gpus,nodes,line,size_bytes,in_fit,time_s,busbw_Bps,"
                             "fit_time_s,fit_busbw_Bps,rel_error_pct,alpha_s,B_Bps,regime,"
                             "busbw_error_pct,algorithm");
    gcsim_platform p;
    cJSON *written = NULL;
    CHECK(load_sources(out, &p, &written) == 0);
    int i = 0;
    for (line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
        cJSON *row = cJSON_GetArrayItem(rows, i);
        char *f[20];
        int n = 0;
        for (char *s2 = NULL, *t = strtok_r(line, ",", &s2); t && n < 20; t = strtok_r(NULL, ",", &s2))
            f[n++] = t;
        CHECK(n == 16);
        if (n != 16 || !row)
            continue;
        double size = atof(f[4]), time_s = atof(f[6]), pred_s = atof(f[8]);
        CHECK_REL(pred_s, cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "fit_time_s")),
                  1e-15);
        CHECK_REL(atof(f[10]), 100 * (pred_s - time_s) / time_s, 1e-9);
        CHECK_REL(atof(f[14]), 100 * (time_s / pred_s - 1), 1e-9);
        /* alpha_s and B_Bps: the latency and bandwidth written */
        if (written) {
            CHECK_REL(atof(f[11]), p.intra.latency_s, 1e-12);
            CHECK_REL(atof(f[12]), p.intra.gpu_to_gpu_Bps, 1e-12);
        }
        /* The platform time is what `gcsim collective` gives on the written file. */
        char ccmd[4096];
        snprintf(ccmd, sizeof ccmd, "%s collective --platform %s --gpus 8 --sizes %.0fB "
                                    "--engine analytic --format csv", gcsim, out, size);
        char *coll = run(ccmd);
        CHECK(coll != NULL);
        if (coll) {
            char *s3 = NULL, *l2 = strtok_r(coll, "\n", &s3);
            l2 = strtok_r(NULL, "\n", &s3); /* size,count,engine,time_s,... */
            CHECK(l2 != NULL);
            char *t3 = NULL, *c0 = l2 ? strtok_r(l2, ",", &t3) : NULL;
            for (int c = 0; c < 3 && c0; c++)
                c0 = strtok_r(NULL, ",", &t3);
            CHECK(c0 != NULL);
            if (c0)
                CHECK_REL(atof(c0), pred_s, 1e-9);
            free(coll);
        }
    }
    CHECK(i == 3);
    if (written) {
        CHECK_STR_CONTAINS(source_of(written, "intra_node.latency"),
                           "a100-nvswitch-1x8-azure-ndv4.log");
        CHECK_STR_CONTAINS(source_of(written, "intra_node.latency"),
                           "the written platform's median |busbw error|");
    }
    cJSON_Delete(written);
    cJSON_Delete(root);
    free(json_text);
    free(csv);
}

/* In-place and out-of-place times fitted apart: the out-of-place columns of this log are
 * slower, and so is the bandwidth written from them. */
static void test_out_of_place(void)
{
    char log[1024], out[1024], cmd[4096];
    snprintf(log, sizeof log, "%s/cli_synth.log", scratch);
    snprintf(out, sizeof out, "%s/cli_synth.json", scratch);
    synth_spec s = {8, 1, 6.25e-6, 150e9, 12, true, false, 64, 4.0 * (1 << 30), 120e9};
    CHECK(synth_log_file(log, &s) > 0);
    double bw[2] = {0, 0};
    for (int oop = 0; oop < 2; oop++) {
        remove(out);
        snprintf(cmd, sizeof cmd,
                 "%s calibrate --log %s --platform %s/platforms/a100-hdr.json --output %s%s "
                 "--format csv 2>/dev/null",
                 gcsim, log, src, out, oop ? " --out-of-place" : "");
        char *text = run(cmd);
        CHECK(text != NULL);
        free(text);
        gcsim_platform p;
        cJSON *written = NULL;
        CHECK(load_sources(out, &p, &written) == 0);
        bw[oop] = p.intra.gpu_to_gpu_Bps;
        CHECK_STR_CONTAINS(source_of(written, "intra_node.gpu_to_gpu"),
                           oop ? "out-of-place times" : "in-place times");
        cJSON_Delete(written);
    }
    CHECK(bw[1] < bw[0] * 0.9);
}

/* Both published A100 logs, the second with --gpus/--nodes (it has no Rank lines), against
 * a100-hdr (8 NICs per node): nic.bandwidth = B / 8. */
static void test_two_logs(void)
{
    char out[1024], cmd[4096];
    snprintf(out, sizeof out, "%s/cli_two.json", scratch);
    remove(out);
    snprintf(cmd, sizeof cmd,
             "%s calibrate --log %s/platforms/calibration/a100-ib-2x8-4x200g.log --gpus 16 "
             "--nodes 2 --log %s/platforms/calibration/a100-nvswitch-1x8-azure-ndv4.log "
             "--platform %s/platforms/a100-hdr.json --output %s --format json",
             gcsim, src, src, src, out);
    char *text = run(cmd);
    CHECK(text != NULL);
    cJSON *root = cJSON_Parse(text ? text : "");
    cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "rows");
    CHECK(cJSON_GetArraySize(rows) == 4);
    gcsim_platform p, base;
    cJSON *written = NULL;
    gcsim_error err = {{0}, 0, 0};
    char base_path[1024];
    snprintf(base_path, sizeof base_path, "%s/platforms/a100-hdr.json", src);
    CHECK(gcsim_platform_load(base_path, &base, &err) == 0);
    CHECK(load_sources(out, &p, &written) == 0);
    CHECK(p.nic.bandwidth_Bps != base.nic.bandwidth_Bps);
    CHECK_STR_CONTAINS(source_of(written, "nic.bandwidth"), "a100-ib-2x8-4x200g.log");
    CHECK_STR_CONTAINS(source_of(written, "intra_node.gpu_to_gpu"), "a100-nvswitch-1x8-azure-ndv4.log");
    cJSON_Delete(written);
    cJSON_Delete(root);
    free(text);
}

static const char *note_of(cJSON *root, const char *key)
{
    return cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "notes"), key));
}

/* Pasted logs end to end, --platform by catalog name: the summary says what was skipped and
 * the held-out check; --table 2 fits the second run; --force writes a NIC above its line
 * rate. */
static void test_pasted_catalog_table_force(void)
{
    char out[1024], cmd[4096];
    snprintf(out, sizeof out, "%s/cli_pasted.json", scratch);
    remove(out);
    snprintf(cmd, sizeof cmd,
             "%s calibrate --log %s/tests/calibrate/logs/h100_1x8_mpirun_pasted.log "
             "--platform h100-ndr --output %s --format json 2>/dev/null",
             gcsim, src, out);
    char *text = run(cmd);
    CHECK(text != NULL);
    cJSON *root = cJSON_Parse(text ? text : "");
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "meta");
    /* The catalog name resolves to the data folder's platforms/h100-ndr.json. */
    CHECK_STR_CONTAINS(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                           cJSON_GetObjectItemCaseSensitive(meta, "platform"), "file")),
                       "platforms/h100-ndr.json");
    CHECK_STR_CONTAINS(note_of(root, "note 1"), "skipped 7 lines not part of a table, 2 of them "
                                                "NCCL INFO/WARN output; the first, line 1");
    CHECK_STR_CONTAINS(note_of(root, "note 2"), "removed an mpirun or Slurm prefix from 36 lines");
    CHECK_STR_CONTAINS(note_of(root, "held-out 1"), "the fit repeated on 7 of the sizes used (the "
                                                    "1st, 3rd, ... by size) predicts the 7 sizes "
                                                    "between");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "rows")) == 14);
    gcsim_platform p;
    cJSON *written = NULL;
    CHECK(load_sources(out, &p, &written) == 0);
    CHECK_STR_CONTAINS(source_of(written, "intra_node.latency"), "held-out check: the fit repeated");
    cJSON_Delete(written);
    cJSON_Delete(root);
    free(text);

    remove(out);
    snprintf(cmd, sizeof cmd,
             "%s calibrate --log %s/tests/calibrate/logs/two_runs.log --table 2 "
             "--platform h100-ndr --output %s --format json 2>/dev/null",
             gcsim, src, out);
    text = run(cmd);
    CHECK(text != NULL);
    root = cJSON_Parse(text ? text : "");
    CHECK_STR_CONTAINS(note_of(root, "log 1"), "two_runs.log (table 2 of 2: lines 50-54): "
                                               "all_reduce_perf, 16 GPUs on 2 nodes");
    cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "rows"), 0);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "gpus")) == 16);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "line")) == 50);
    cJSON_Delete(root);
    free(text);

    remove(out);
    snprintf(cmd, sizeof cmd,
             "%s calibrate --log %s/tests/calibrate/logs/a100_2x8_above_line_rate.log --force "
             "--platform %s/tests/calibrate/platform_a100_4nic.json --output %s --format csv "
             "2>/dev/null",
             gcsim, src, src, out);
    text = run(cmd);
    CHECK(text != NULL);
    written = NULL;
    CHECK(load_sources(out, &p, &written) == 0);
    CHECK(p.nic.bandwidth_Bps > 25e9 * 1.1); /* above the nominal 25 GB/s */
    CHECK_STR_CONTAINS(source_of(written, "nic.bandwidth"), "written because of --force");
    cJSON_Delete(written);
    free(text);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_cli GCSIM SOURCE_DIR SCRATCH_DIR\n");
        return 2;
    }
    gcsim = argv[1];
    src = argv[2];
    scratch = argv[3];
    test_formats_and_file();
    test_out_of_place();
    test_two_logs();
    test_pasted_catalog_table_force();
    CHECK_DONE();
}
