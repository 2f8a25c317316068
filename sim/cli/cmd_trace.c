/* gcsim trace info: what a gradient trace file holds, tensor by tensor, with statistics. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli_args.h"
#include "cli_files.h"
#include "commands.h"
#include "report_emit.h"
#include "traces.h"

static void trace_usage(FILE *out)
{
    fprintf(out,
"usage: gcsim trace info FILE... [--format table|json|csv] [--output FILE]\n"
"\n"
"Validates gradient trace files (safetensors with F32/F16/BF16 tensors, or NumPy .npy\n"
"'<f4'/'<f2' in C order) and lists every tensor: layer kind (from the capture tool's\n"
"layer_kinds metadata), dtype, shape, elements, bytes, and statistics: mean, std (population),\n"
"max |g|, rms, kurtosis (Pearson, 3 for a normal distribution), near_zero (fraction with\n"
"|g| <= 1e-3 max |g|, zeros included) and zeros (fraction exactly 0). The file's metadata\n"
"is printed above the table (\"meta\" in JSON).\n"
"\n"
"A malformed file, or a tensor holding NaN or Inf, is an error naming the file and the byte\n"
"offset or tensor: exit code 2.\n"
"\n"
"  --format F     table (default), json or csv: the same numbers\n"
"  --output FILE  write there (atomically) instead of standard output\n");
}

static void shape_text(const gc_trace_tensor *t, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (t->ndim == 0)
        snprintf(buf, len, "scalar");
    for (int d = 0; d < t->ndim && used < len; d++)
        used += (size_t)snprintf(buf + used, len - used, "%s%llu", d ? "x" : "",
                                 (unsigned long long)t->shape[d]);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Adds one file's tensors to the report; returns 0 or -1 with a message on stderr. */
static int add_file(report *r, const int *col, const char *path)
{
    char err[1024];
    gc_trace_file f;
    if (gc_trace_open(path, &f, err, sizeof err) != 0) {
        fprintf(stderr, "gcsim trace info: %s\n", err);
        return -1;
    }
    for (size_t i = 0; i < f.n_meta; i++) {
        char key[512];
        snprintf(key, sizeof key, "%s:%s", base_name(path), f.meta[i].key);
        report_note(r, key, f.meta[i].value);
    }
    const char *kinds_text = gc_trace_meta_get(&f, "layer_kinds");
    cJSON *kinds = kinds_text ? cJSON_Parse(kinds_text) : NULL;
    int rc = 0;
    for (size_t i = 0; i < f.n_tensors && rc == 0; i++) {
        const gc_trace_tensor *t = &f.tensors[i];
        float *x;
        if (gc_trace_load_f32(&f, i, &x, err, sizeof err) != 0) {
            fprintf(stderr, "gcsim trace info: %s\n", err);
            rc = -1;
            break;
        }
        gc_trace_stats s;
        gc_trace_stats_compute(x, t->n_elements, &s);
        free(x);
        char shape[256];
        shape_text(t, shape, sizeof shape);
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(kinds, t->name);
        report_row(r);
        /* the fitted table names the file by its base name (100 columns, issue 46; --wide:
         * the path, as before) */
        report_str_table(r, col[0], path, report_table_limit() ? base_name(path) : path);
        report_str(r, col[1], t->name);
        report_str(r, col[2], cJSON_IsString(k) ? k->valuestring : "");
        report_str(r, col[3], gc_trace_dtype_name(t->dtype));
        report_str(r, col[4], shape);
        report_int(r, col[5], (long long)t->n_elements);
        report_int(r, col[6], (long long)t->data_bytes);
        report_num(r, col[7], s.mean);
        report_num(r, col[8], s.std);
        report_num(r, col[9], s.max_abs);
        report_num(r, col[10], s.rms);
        if (!isnan(s.kurtosis))
            report_num(r, col[11], s.kurtosis);
        report_num(r, col[12], s.near_zero_fraction);
        report_num(r, col[13], s.zero_fraction);
    }
    cJSON_Delete(kinds);
    gc_trace_close(&f);
    return rc;
}

int cmd_trace(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        trace_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BAD_INPUT : EXIT_OK;
    }
    if (strcmp(argv[1], "info") != 0) {
        fprintf(stderr, "gcsim trace: unknown subcommand \"%s\" (expected info)\n", argv[1]);
        return EXIT_BAD_INPUT;
    }
    argc--;
    argv++;
    static const struct option longopts[] = {{"format", required_argument, 0, 'f'},
                                             {"output", required_argument, 0, 'o'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    report_format format = REPORT_TABLE;
    const char *output = NULL;
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = cli_getopt_long(argc, argv, ":h", longopts, "trace info")) != -1) {
        switch (ch) {
        case 'f':
            if (report_format_parse(optarg, &format)) {
                fprintf(stderr, "gcsim trace info: --format: expected table, json or csv, got "
                                "\"%s\"\n", optarg);
                return EXIT_BAD_INPUT;
            }
            break;
        case 'o': output = optarg; break;
        case 'h': trace_usage(stdout); return EXIT_OK;
        case ':':
            fprintf(stderr, "gcsim trace info: %s needs a value\n", argv[optind - 1]);
            return EXIT_BAD_INPUT;
        default:
            fprintf(stderr, "gcsim trace info: unknown option \"%s\" (see gcsim trace --help)\n",
                    argv[optind - 1]);
            return EXIT_BAD_INPUT;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "gcsim trace info: no trace file given\n");
        return EXIT_BAD_INPUT;
    }
    cli_files files;
    cli_files_init(&files, "trace info");
    for (int i = optind; i < argc; i++)
        cli_files_input(&files, "a trace file", argv[i]);
    cli_files_output(&files, "--output", output);
    if (cli_files_check(&files))
        return EXIT_BAD_INPUT;
    report *r = report_new();
    int col[14];
    col[0] = report_column(r, "file", "file", -1);
    col[1] = report_column(r, "tensor", "tensor", -1);
    col[2] = report_column(r, "kind", "kind", -1);
    col[3] = report_column(r, "dtype", "dtype", -1);
    col[4] = report_column(r, "shape", "shape", -1);
    col[5] = report_column(r, "elements", "elements", -1);
    col[6] = report_column(r, "bytes", "bytes", -1);
    col[7] = report_column(r, "mean", "mean", -1);
    col[8] = report_column(r, "std", "std", -1);
    col[9] = report_column(r, "max_abs", "max|g|", -1);
    col[10] = report_column(r, "rms", "rms", -1);
    col[11] = report_column(r, "kurtosis", "kurtosis", 2);
    col[12] = report_column(r, "near_zero", "near_zero", 4);
    col[13] = report_column(r, "zeros", "zeros", 4);
    /* a tensor is named by its file and its name in each stacked table (issue 46) */
    report_table_lead(r, 2, col, 2);
    for (int i = optind; i < argc; i++) {
        if (add_file(r, col, argv[i]) != 0) {
            report_free(r);
            return EXIT_BAD_INPUT;
        }
    }
    report_meta_int(r, "files", argc - optind);
    int rc = report_emit(r, format, output, "trace info");
    report_free(r);
    return rc;
}
