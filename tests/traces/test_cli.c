/* `gcsim trace info` and `gcsim compress` end to end on the shipped traces: output
 * content, the same numbers in table, CSV and JSON, payload bytes that agree with the
 * compressor library, series ordering, and exit code 2 with a message naming the file
 * for every kind of bad input.
 * Usage: traces_test_cli GCSIM TRACE_DIR SCRATCH_DIR */
#include <stdlib.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>

#include "../check.h"
#include "compressor.h"
#include "trace_test_util.h"
#include "traces.h"

static const char *gcsim, *trace_dir;
static char out_text[1 << 20], err_text[1 << 16];

static void slurp(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Runs gcsim with args (a shell fragment), returns its exit code; output in out_text and
 * err_text. */
static int run(const char *args)
{
    char cmd[8192], out_path[600], err_path[600];
    scratch_path(out_path, sizeof out_path, "stdout.txt");
    scratch_path(err_path, sizeof err_path, "stderr.txt");
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s'", gcsim, args, out_path, err_path);
    int st = system(cmd);
    slurp(out_path, out_text, sizeof out_text);
    slurp(err_path, err_text, sizeof err_text);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect_bad(const char *args, const char *want1, const char *want2)
{
    int rc = run(args);
    CHECK(rc == 2);
    CHECK_STR_CONTAINS(err_text, want1);
    if (want2)
        CHECK_STR_CONTAINS(err_text, want2);
    if (rc != 2)
        fprintf(stderr, "  (command: gcsim %s)\n", args);
}

/* The row of a JSON report whose string members match. */
static const cJSON *json_row(const cJSON *rows, const char *k1, const char *v1, const char *k2,
                             const char *v2)
{
    const cJSON *row;
    cJSON_ArrayForEach(row, rows)
    {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(row, k1);
        const cJSON *b = k2 ? cJSON_GetObjectItemCaseSensitive(row, k2) : NULL;
        if (cJSON_IsString(a) && strcmp(a->valuestring, v1) == 0 &&
            (!k2 || (cJSON_IsString(b) && strcmp(b->valuestring, v2) == 0)))
            return row;
    }
    return NULL;
}

static double num(const cJSON *row, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The rows array of a report: either the top-level array or its "rows" member. */
static const cJSON *rows_of(const cJSON *root)
{
    if (cJSON_IsArray(root))
        return root;
    return cJSON_GetObjectItemCaseSensitive(root, "rows");
}

/* Parses up to max comma-separated numbers from text until the end of the line. */
static int csv_numbers(const char *text, double *out, int max)
{
    int n = 0;
    while (n < max && *text && *text != '\n') {
        char *end;
        out[n++] = strtod(text, &end);
        if (end == text)
            out[n - 1] = NAN;
        text = end;
        while (*text && *text != ',' && *text != '\n')
            text++;
        if (*text == ',')
            text++;
    }
    return n;
}

static void test_trace_info(void)
{
    char file[1024], args[4096];
    snprintf(file, sizeof file, "%s/fmnist_resnet20/resnet20_step000200_rank0.safetensors",
             trace_dir);
    snprintf(args, sizeof args, "trace info '%s'", file);
    CHECK(run(args) == 0);
    CHECK_STR_CONTAINS(out_text, "layers.8.conv2.weight");
    CHECK_STR_CONTAINS(out_text, "64x64x3x3");
    CHECK_STR_CONTAINS(out_text, "36864");
    CHECK_STR_CONTAINS(out_text, "step: 200");

    /* JSON carries exactly the statistics the library computes. */
    snprintf(args, sizeof args, "trace info --format json '%s'", file);
    CHECK(run(args) == 0);
    cJSON *root = cJSON_Parse(out_text);
    const cJSON *row = json_row(rows_of(root), "tensor", "layers.8.conv2.weight", NULL, NULL);
    CHECK(row != NULL);
    gc_trace_file f;
    char err[512];
    CHECK(gc_trace_open(file, &f, err, sizeof err) == 0);
    long i = gc_trace_find(&f, "layers.8.conv2.weight");
    float *x = NULL;
    CHECK(i >= 0 && gc_trace_load_f32(&f, (size_t)i, &x, err, sizeof err) == 0);
    gc_trace_stats s;
    gc_trace_stats_compute(x, f.tensors[i].n_elements, &s);
    CHECK(num(row, "elements") == 36864);
    CHECK(num(row, "bytes") == 36864 * 4);
    CHECK_REL(num(row, "mean"), s.mean, 1e-15);
    CHECK_REL(num(row, "std"), s.std, 1e-15);
    CHECK_REL(num(row, "max_abs"), s.max_abs, 1e-15);
    CHECK_REL(num(row, "kurtosis"), s.kurtosis, 1e-15);
    CHECK_REL(num(row, "near_zero"), s.near_zero_fraction, 1e-15);
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(row, "kind");
    CHECK(cJSON_IsString(kind) && strcmp(kind->valuestring, "conv") == 0);
    free(x);
    gc_trace_close(&f);
    cJSON_Delete(root);
}

static void test_bad_inputs(void)
{
    char path[600], args[2048];
    static const uint8_t zeros[64];
    /* One file per rule the CLI must report with exit code 2. */
    struct {
        const char *name, *header;
        size_t data;
        uint64_t len;
        const char *want;
    } cases[] = {
        {"cli_long_header.st", "{}", 0, 500, "header length 500 (byte offset 0) is longer"},
        {"cli_dtype.st", "{\"w\":{\"dtype\":\"Q8\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, 0,
         "unknown dtype \"Q8\""},
        {"cli_overlap.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                           "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, 0,
         "tensors 'a' and 'b' overlap at byte offset"},
        {"cli_shape.st", "{\"w\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[0,4]}}", 4, 0,
         "needs 6 bytes but data_offsets [0, 4] span 4"},
        {"cli_bounds.st", "{\"w\":{\"dtype\":\"F16\",\"shape\":[8],\"data_offsets\":[0,16]}}", 6, 0,
         "out of bounds"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        scratch_path(path, sizeof path, cases[i].name);
        CHECK(write_safetensors_raw(path, cases[i].header, zeros, cases[i].data, cases[i].len) == 0);
        snprintf(args, sizeof args, "trace info '%s'", path);
        expect_bad(args, path, cases[i].want);
        snprintf(args, sizeof args, "compress --quiet --trace '%s' --compressor terngrad", path);
        expect_bad(args, path, cases[i].want);
    }
    scratch_path(path, sizeof path, "cli_truncated.st");
    CHECK(write_bytes(path, "\x10\x00", 2) == 0);
    snprintf(args, sizeof args, "trace info '%s'", path);
    expect_bad(args, path, "truncated");
    /* NaN in a tensor. */
    uint8_t nan_data[4] = {0, 0, 0xc0, 0x7f};
    scratch_path(path, sizeof path, "cli_nan.st");
    CHECK(write_safetensors_raw(path, "{\"g\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
                                nan_data, 4, 0) == 0);
    snprintf(args, sizeof args, "trace info '%s'", path);
    expect_bad(args, path, "tensor 'g': element 0");
    snprintf(args, sizeof args, "compress --quiet --trace '%s' --compressor qsgd", path);
    expect_bad(args, path, "is NaN");
    /* .npy: big-endian and Fortran order. */
    const char *npys[2][2] = {
        {"cli_big.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }\n"},
        {"cli_fortran.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 1), }\n"}};
    for (int k = 0; k < 2; k++) {
        uint8_t buf[256] = {0};
        size_t hl = strlen(npys[k][1]);
        memcpy(buf, "\x93NUMPY\x01\x00", 8);
        buf[8] = (uint8_t)hl;
        memcpy(buf + 10, npys[k][1], hl);
        scratch_path(path, sizeof path, npys[k][0]);
        CHECK(write_bytes(path, buf, 10 + hl + 4) == 0);
        snprintf(args, sizeof args, "trace info '%s'", path);
        expect_bad(args, path, k == 0 ? "big-endian" : "Fortran");
    }
    /* Usage errors. */
    expect_bad("trace info", "no trace file given", NULL);
    expect_bad("trace frobnicate x", "unknown subcommand", NULL);
    expect_bad("compress --compressor terngrad", "--trace FILE is required", NULL);
    snprintf(args, sizeof args, "compress --trace '%s/fmnist_lenet/lenet_step000200_rank0.safetensors'"
             " --compressor nosuch", trace_dir);
    expect_bad(args, "--compressor \"nosuch\"", NULL);
    snprintf(args, sizeof args, "compress --trace '%s/fmnist_lenet/lenet_step000200_rank0.safetensors'"
             " --compressor qsgd:bogus=1", trace_dir);
    expect_bad(args, "bogus", NULL);
    snprintf(args, sizeof args, "compress --trace '%s/fmnist_lenet/lenet_step000200_rank0.safetensors'"
             " --compressor qsgd --seeds 1", trace_dir);
    expect_bad(args, "--seeds", NULL);
    /* A series whose files hold different tensors. */
    snprintf(args, sizeof args, "compress --quiet --compressor terngrad --trace "
             "'%s/fmnist_lenet/lenet_step000200_rank0.safetensors' "
             "'%s/fmnist_resnet20/resnet20_step000500_rank0.safetensors'", trace_dir, trace_dir);
    expect_bad(args, "must hold the same tensors", NULL);
}

static void test_compress(void)
{
    const char *specs[] = {"terngrad", "qsgd", "dgc", "orq", "ecq"};
    char file[1024], base[4096], args[8192];
    snprintf(file, sizeof file, "%s/fmnist_lenet/lenet_step000700_rank0.safetensors", trace_dir);
    snprintf(base, sizeof base, "compress --quiet --trace '%s' --compressor terngrad --compressor "
             "qsgd --compressor dgc --compressor orq --compressor ecq --seeds 3", file);
    /* --wide: the plain layout, a row per line (by default the table fits 100 columns, in
     * stacked tables, issue 46) */
    snprintf(args, sizeof args, "%s --wide", base);
    CHECK(run(args) == 0);
    static char table[1 << 20];
    memcpy(table, out_text, sizeof table);
    for (int i = 0; i < 5; i++)
        CHECK_STR_CONTAINS(table, specs[i]);
    CHECK_STR_CONTAINS(table, "payload_B");
    CHECK_STR_CONTAINS(table, "norm_err");
    CHECK_STR_CONTAINS(table, "cosine");
    CHECK_STR_CONTAINS(table, "bias");

    snprintf(args, sizeof args, "%s --format json", base);
    CHECK(run(args) == 0);
    cJSON *json = cJSON_Parse(out_text);
    CHECK(json != NULL);
    snprintf(args, sizeof args, "%s --format csv", base);
    CHECK(run(args) == 0);

    /* Every compressor has a total row with all the metrics. The same numbers are in the
     * CSV (full precision) and, rounded, in the table. */
    gc_trace_file f;
    char err[512];
    CHECK(gc_trace_open(file, &f, err, sizeof err) == 0);
    size_t n_total = 0;
    for (size_t t = 0; t < f.n_tensors; t++)
        n_total += f.tensors[t].n_elements;
    const cJSON *rows = rows_of(json);
    for (int i = 0; i < 5; i++) {
        gc_compressor *c;
        CHECK(gc_compressor_create(specs[i], &c, err, sizeof err) == 0);
        const char *full = gc_compressor_spec(c);
        const cJSON *row = json_row(rows, "compressor", full, "step", "700");
        CHECK(row != NULL);
        if (!row) {
            gc_compressor_free(c);
            continue;
        }
        double bytes = num(row, "payload_bytes"), ratio = num(row, "ratio_fp32");
        CHECK(num(row, "elements") == (double)n_total);
        CHECK(bytes > 0);
        CHECK_REL(ratio, 4.0 * (double)n_total / bytes, 1e-12);
        CHECK(isfinite(num(row, "norm_error")) && num(row, "norm_error") >= 0);
        CHECK(num(row, "cosine") > 0 && num(row, "cosine") <= 1 + 1e-12);
        CHECK(isfinite(num(row, "bias")) && num(row, "bias") >= 0);
        /* Fixed-width formats: the total is the sum of the library's exact per-tensor sizes. */
        size_t fixed_total = 0, b;
        int all_fixed = 1;
        for (size_t t = 0; t < f.n_tensors; t++) {
            if (gc_compressor_fixed_payload_bytes(c, f.tensors[t].n_elements, &b))
                fixed_total += b;
            else
                all_fixed = 0;
        }
        if (all_fixed)
            CHECK(bytes == (double)fixed_total);
        if (strcmp(specs[i], "terngrad") == 0)
            CHECK(all_fixed);
        /* The CSV row (compressor quoted: the spec holds commas) carries the same numbers. */
        char needle[512];
        snprintf(needle, sizeof needle, "\"%s\",700,(total),", full);
        const char *line = strstr(out_text, needle);
        CHECK(line != NULL);
        if (line) {
            double fields[16];
            int nf = csv_numbers(line + strlen(needle), fields, 16);
            /* elements, payload_bytes, bits, ratio, norm_error, cosine, density, bias */
            CHECK(nf >= 8);
            CHECK(fields[0] == (double)n_total && fields[1] == bytes);
            /* cJSON prints 15 significant digits when they read back within one
             * DBL_EPSILON, so JSON may differ from the CSV's 17 in the last place. */
            CHECK_REL(fields[3], ratio, 1e-14);
            CHECK_REL(fields[4], num(row, "norm_error"), 1e-14);
            CHECK_REL(fields[5], num(row, "cosine"), 1e-14);
            CHECK_REL(fields[7], num(row, "bias"), 1e-14);
        }
        /* The table shows the same payload bytes and the ratio rounded to 2 decimals. */
        char numbuf[64];
        snprintf(numbuf, sizeof numbuf, " %.0f ", bytes);
        CHECK_STR_CONTAINS(table, numbuf);
        snprintf(numbuf, sizeof numbuf, " %.2f ", ratio);
        CHECK_STR_CONTAINS(table, numbuf);
        gc_compressor_free(c);
    }
    gc_trace_close(&f);
    cJSON_Delete(json);

    /* A series given out of order runs in step order, and per-layer rows appear. */
    snprintf(args, sizeof args, "compress --per-layer --format csv --seeds 0 --compressor "
             "ef+signsgd --trace='%s/fmnist_lenet/lenet_step000200_rank0.safetensors' "
             "'%s/fmnist_lenet/lenet_step000010_rank0.safetensors'", trace_dir, trace_dir);
    int rc = run(args);
    CHECK(rc == 0);
    const char *a = strstr(out_text, ",10,(total)"), *b = strstr(out_text, ",200,(total)");
    CHECK(a && b && a < b);
    CHECK_STR_CONTAINS(out_text, ",10,fc1.weight,400000,");
    CHECK_STR_CONTAINS(out_text, ",all,(total),");
    /* Progress lines went to standard error, not into the report. */
    CHECK_STR_CONTAINS(err_text, "[2/2]");
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s GCSIM TRACE_DIR SCRATCH_DIR\n", argv[0]);
        return 2;
    }
    gcsim = argv[1];
    trace_dir = argv[2];
    scratch_init(argc - 2, argv + 2);
    test_trace_info();
    test_bad_inputs();
    test_compress();
    CHECK_DONE();
}
