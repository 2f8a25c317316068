/*
 * gcsim compress: compressors on real gradient traces, side by side: exact payload bytes,
 * compression ratio, normalized error, cosine, density, bias. The files of a trace series
 * run in the order of their step metadata, so that stateful compressors (error feedback,
 * DGC momentum) see the real sequence of gradients.
 */
#include <getopt.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic_file.h"
#include "cli_args.h"
#include "cli_files.h"
#include "commands.h"
#include "compressor.h"
#include "metrics.h"
#include "report.h"
#include "sweep_lists.h"
#include "traces.h"
#include "report_emit.h"

#define MAX_SPECS 64
#define MAX_FILES 4096

/* The names --compressor takes, from the library's registry (the help listed none). */
static void print_compressor_names(FILE *out)
{
    fprintf(out, "\nCompressors (NAME, or ef+NAME for error feedback; keys and defaults in\n"
                 "docs/compressors.md):\n ");
    int column = 1;
    const char *const *names = gc_compressor_names();
    for (int i = 0; names[i]; i++) {
        int width = (int)strlen(names[i]) + 2;
        if (column + width > 88) {
            fprintf(out, "\n ");
            column = 1;
        }
        column += fprintf(out, " %s%s", names[i], names[i + 1] ? "," : "\n");
    }
}

static void compress_usage(FILE *out)
{
    fprintf(out,
"usage: gcsim compress --trace FILE... --compressor SPEC [--compressor SPEC ...]\n"
"                      [--seeds R] [--seed S] [--per-layer] [--quiet]\n"
"                      [--format table|json|csv] [--output FILE]\n"
"\n"
"Runs every compressor on every tensor of the trace files (safetensors or .npy) and\n"
"reports, per step and over all steps (and per tensor with --per-layer): exact payload\n"
"bytes, bits per element, ratio against fp32, normalized error ||q-g||^2/||g||^2, cosine\n"
"<q,g>/(||q|| ||g||), density of q, bias ||mean_r Q_r(g) - g|| / ||g|| over R seeds with\n"
"its noise floor sqrt(mse / (R ||g||^2)) (what an unbiased quantizer shows from variance\n"
"alone), and mse / theoretical bound where the compressor has one (QSGD, ECQ).\n"
"\n"
"Several files form a series: they are ordered by their __metadata__ step and each\n"
"compressor keeps its state (error-feedback residuals, momentum) across them, tensor by\n"
"tensor; every file must hold the same tensors. Bias is measured on a separate instance\n"
"with fresh state for each repeat (the one-shot quantizer's bias).\n"
"\n"
"  --trace FILE...      trace files; several may follow one --trace, or repeat it\n"
"  --compressor SPECS   name[:key=value,...], e.g. terngrad, qsgd:s=4, dgc:ratio=0.001, orq,\n"
"                       ecq (the names are listed below); repeatable, and a comma list as\n"
"                       in gcsim sweep (terngrad,qsgd:s=4,bucket=512 is two); --compressors\n"
"                       too\n"
"  --seeds R            repeats for the bias, 2..1000 (default 4); 0 skips it\n"
"  --seed S             seed of the encoders' random streams (default 1)\n"
"  --per-layer          a row per tensor as well as the totals\n"
"  --quiet              no progress lines on standard error\n"
"  --format F           table (default), json or csv: the same numbers\n"
"  --output FILE        write there (atomically) instead of standard output\n"
"\n"
"Bad input (unreadable or malformed trace, NaN/Inf, unknown compressor or key, a series\n"
"whose files disagree) is reported with the file and field: exit code 2.\n");
    print_compressor_names(out);
}

typedef struct {
    const char *files[MAX_FILES];
    int n_files;
    const char *specs[MAX_SPECS]; /* spec_list's items */
    int n_specs;
    sweep_list spec_list;         /* --compressor, --compressors: comma lists, as in sweep */
    int seeds;
    long long seed;
    int per_layer, quiet;
    report_format format;
    const char *output;
} compress_options;

typedef struct {
    gc_trace_file file;
    long long step; /* -1: no step metadata */
} series_file;

static int parse_options(int argc, char **argv, compress_options *o)
{
    static const struct option longopts[] = {
        {"trace", required_argument, 0, 't'},    {"compressor", required_argument, 0, 'c'},
        {"compressors", required_argument, 0, 'c'},
        {"seeds", required_argument, 0, 'r'},    {"seed", required_argument, 0, 's'},
        {"per-layer", no_argument, 0, 'p'},      {"quiet", no_argument, 0, 'q'},
        {"format", required_argument, 0, 'f'},   {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->seeds = 4;
    o->seed = 1;
    o->format = REPORT_TABLE;
    optind = 1;
    opterr = 0;
    int ch;
    long long v;
    /* "+": no argument permutation, so the files after --trace stay where they are. */
    while ((ch = cli_getopt_long(argc, argv, "+:h", longopts, "compress")) != -1) {
        switch (ch) {
        case 't':
            /* --trace takes its value and every following argument up to the next option
             * (so a shell glob works), in both the "--trace F" and "--trace=F" forms. */
            for (const char *file = optarg; file;
                 file = optind < argc && argv[optind][0] != '-' ? argv[optind++] : NULL) {
                if (o->n_files == MAX_FILES) {
                    fprintf(stderr, "gcsim compress: more than %d trace files\n", MAX_FILES);
                    return -1;
                }
                o->files[o->n_files++] = file;
            }
            break;
        case 'c': {
            /* a comma list as in sweep and plan: "terngrad,qsgd:s=4,bucket=512" is two */
            char msg[512];
            if (sweep_list_add_compressors(&o->spec_list, optarg, msg, sizeof msg)) {
                fprintf(stderr, "gcsim compress: %s\n", msg);
                return -1;
            }
            break;
        }
        case 'r':
            if (!cli_parse_int(optarg, 0, 1000, &v) || v == 1) {
                fprintf(stderr, "gcsim compress: --seeds: expected 0 or an integer in 2..1000, "
                                "got \"%s\"\n", optarg);
                return -1;
            }
            o->seeds = (int)v;
            break;
        case 's':
            if (!cli_parse_int(optarg, 0, (long long)(~0ull >> 1), &o->seed)) {
                fprintf(stderr, "gcsim compress: --seed: expected a non-negative integer, got "
                                "\"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'p': o->per_layer = 1; break;
        case 'q': o->quiet = 1; break;
        case 'f':
            if (report_format_parse(optarg, &o->format)) {
                fprintf(stderr, "gcsim compress: --format: expected table, json or csv, got "
                                "\"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'o': o->output = optarg; break;
        case 'h': compress_usage(stdout); return 1;
        case ':':
            fprintf(stderr, "gcsim compress: %s needs a value\n", argv[optind - 1]);
            return -1;
        default:
            fprintf(stderr, "gcsim compress: unknown option \"%s\" (see gcsim compress --help)\n",
                    argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gcsim compress: unexpected argument \"%s\"\n", argv[optind]);
        return -1;
    }
    if (o->spec_list.n > MAX_SPECS) {
        fprintf(stderr, "gcsim compress: more than %d compressors\n", MAX_SPECS);
        return -1;
    }
    for (int i = 0; i < o->spec_list.n; i++)
        o->specs[o->n_specs++] = o->spec_list.items[i];
    if (o->n_files == 0 || o->n_specs == 0) {
        fprintf(stderr, "gcsim compress: %s is required (see gcsim compress --help)\n",
                o->n_files == 0 ? "--trace FILE" : "--compressor SPEC");
        return -1;
    }
    return 0;
}

static int by_step(const void *a, const void *b)
{
    const series_file *x = a, *y = b;
    return (x->step > y->step) - (x->step < y->step);
}

/* Opens the series, orders it by step and checks that every file holds the same tensors
 * (names, element counts) as the first. */
static int open_series(const compress_options *o, series_file *s, char *err, size_t err_len)
{
    int with_step = 0;
    for (int i = 0; i < o->n_files; i++) {
        if (gc_trace_open(o->files[i], &s[i].file, err, err_len) != 0)
            return -1;
        s[i].step = -1;
        if (gc_trace_meta_get(&s[i].file, "step")) {
            if (gc_trace_step(&s[i].file, &s[i].step, err, err_len) != 0)
                return -1;
            with_step++;
        }
    }
    if (with_step != 0 && with_step != o->n_files) {
        for (int i = 0; i < o->n_files; i++)
            if (s[i].step < 0)
                return snprintf(err, err_len, "%s: __metadata__ has no \"step\" but other files "
                                "of the series do", s[i].file.path), -1;
    }
    if (with_step)
        qsort(s, (size_t)o->n_files, sizeof *s, by_step); /* qsort of distinct keys */
    for (int i = 1; i < o->n_files; i++) {
        if (with_step && s[i].step == s[i - 1].step)
            return snprintf(err, err_len, "%s and %s: both hold step %lld", s[i - 1].file.path,
                            s[i].file.path, s[i].step), -1;
        const gc_trace_file *a = &s[0].file, *b = &s[i].file;
        if (a->n_tensors != b->n_tensors)
            return snprintf(err, err_len, "%s: %zu tensors, but %s has %zu: the files of a "
                            "series must hold the same tensors", b->path, b->n_tensors, a->path,
                            a->n_tensors), -1;
        for (size_t t = 0; t < a->n_tensors; t++) {
            long j = gc_trace_find(b, a->tensors[t].name);
            if (j < 0)
                return snprintf(err, err_len, "%s: no tensor '%s' (it is in %s)", b->path,
                                a->tensors[t].name, a->path), -1;
            if (b->tensors[j].n_elements != a->tensors[t].n_elements)
                return snprintf(err, err_len, "%s: tensor '%s' has %zu elements, %zu in %s",
                                b->path, a->tensors[t].name, b->tensors[j].n_elements,
                                a->tensors[t].n_elements, a->path), -1;
        }
    }
    /* Metrics of an empty gradient (error 0, cosine 1) would read as a perfect compressor. */
    size_t elements = 0;
    for (size_t t = 0; t < s[0].file.n_tensors; t++)
        elements += s[0].file.tensors[t].n_elements;
    if (elements == 0)
        return snprintf(err, err_len, "%s: its tensors hold no elements: nothing to compress",
                        s[0].file.path), -1;
    return 0;
}

enum { C_COMP, C_STEP, C_TENSOR, C_N, C_BYTES, C_BITS, C_RATIO, C_ERR, C_COS, C_DENS, C_BIAS,
       C_NOISE, C_BOUND, N_COLS };

static void add_row(report *r, const int *col, const char *spec, const char *step,
                    const char *tensor, const gc_tensor_metrics *m, const gc_bias_metrics *b)
{
    report_row(r);
    report_str(r, col[C_COMP], spec);
    report_str(r, col[C_STEP], step);
    report_str(r, col[C_TENSOR], tensor);
    report_int(r, col[C_N], (long long)m->n);
    report_int(r, col[C_BYTES], (long long)m->payload_bytes);
    report_num(r, col[C_BITS], m->bits_per_element);
    report_num(r, col[C_RATIO], m->ratio_fp32);
    report_num(r, col[C_ERR], m->norm_error);
    report_num(r, col[C_COS], m->cosine);
    report_num(r, col[C_DENS], m->density);
    if (b && isfinite(b->bias))
        report_num(r, col[C_BIAS], b->bias);
    /* The bias an unbiased quantizer shows with R seeds from variance alone:
     * E||mean_r Q_r - g||^2 = E||Q - g||^2 / R, so bias below this is indistinguishable
     * from zero. */
    if (b && b->repeats > 0 && b->sq_g > 0)
        report_num(r, col[C_NOISE], sqrt(b->mse / ((double)b->repeats * b->sq_g)));
    if (b && isfinite(b->bound_ratio))
        report_num(r, col[C_BOUND], b->bound_ratio);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One compressor over the whole series. Returns 0 or -1 with err filled. */
static int run_spec(const compress_options *o, series_file *s, const char *spec, int spec_index,
                    report *r, const int *col, double t0, char *err, size_t err_len)
{
    gc_compressor *c = NULL, *probe = NULL;
    if (gc_compressor_create(spec, &c, err, err_len) != 0 ||
        (o->seeds && gc_compressor_create(spec, &probe, err, err_len) != 0)) {
        gc_compressor_free(c);
        return -1;
    }
    const char *name = gc_compressor_spec(c);
    const gc_trace_file *first = &s[0].file;
    size_t n_tensors = first->n_tensors;
    gc_tensor_metrics all;
    gc_bias_metrics all_bias;
    gc_metrics_init(&all);
    gc_bias_init(&all_bias);
    /* 1-D tensors (biases, normalization parameters): DGC sends them dense. */
    for (size_t t = 0; t < n_tensors; t++) {
        bool vector = first->tensors[t].ndim <= 1;
        gc_compressor_set_vector(c, (int)t, vector);
        if (probe)
            gc_compressor_set_vector(probe, (int)t, vector);
    }
    gc_rng rng;
    gc_rng_seed(&rng, (uint64_t)o->seed);
    gc_bytes payload = {0};
    int rc = 0;
    for (int f = 0; f < o->n_files && rc == 0; f++) {
        const gc_trace_file *tf = &s[f].file;
        char step[32];
        if (s[f].step >= 0)
            snprintf(step, sizeof step, "%lld", s[f].step);
        else
            snprintf(step, sizeof step, "file%d", f + 1);
        gc_tensor_metrics total;
        gc_bias_metrics total_bias;
        gc_metrics_init(&total);
        gc_bias_init(&total_bias);
        /* Tensors go in the first file's order, so tensor ids stay the same across steps. */
        for (size_t t = 0; t < n_tensors && rc == 0; t++) {
            size_t idx = (size_t)gc_trace_find(tf, first->tensors[t].name);
            size_t n = tf->tensors[idx].n_elements;
            float *g = NULL, *q = malloc((n ? n : 1) * sizeof *q);
            if (!q || gc_trace_load_f32(tf, idx, &g, err, err_len) != 0) {
                if (!q)
                    snprintf(err, err_len, "out of memory");
                free(q);
                rc = -1;
                break;
            }
            gc_tensor_metrics m;
            gc_bias_metrics b;
            rc = gc_compressor_encode(c, (int)t, g, n, &rng, &payload, q, err, err_len);
            if (rc == 0 && gc_metrics_tensor(c, g, q, n, payload.len, &m) != 0)
                rc = -1, snprintf(err, err_len, "out of memory");
            if (rc == 0 && o->seeds)
                rc = gc_metrics_bias(probe, (int)t, g, n, o->seeds, (uint64_t)o->seed, &b, err,
                                     err_len);
            if (rc == 0) {
                gc_metrics_add(&total, &m);
                if (o->seeds)
                    gc_bias_add(&total_bias, &b);
                if (o->per_layer)
                    add_row(r, col, name, step, first->tensors[t].name, &m, o->seeds ? &b : NULL);
            } else {
                /* Name where the failure happened: file and tensor. */
                char inner[1024];
                snprintf(inner, sizeof inner, "%s", err);
                int w = snprintf(err, err_len, "%s: tensor '%s': %.900s", tf->path,
                                 first->tensors[t].name, inner);
                (void)w; /* a message cut short is still a message */
            }
            free(g);
            free(q);
        }
        if (rc != 0)
            break;
        gc_compressor_next_step(c);
        add_row(r, col, name, step, "(total)", &total, o->seeds ? &total_bias : NULL);
        gc_metrics_add(&all, &total);
        if (o->seeds)
            gc_bias_add(&all_bias, &total_bias);
        if (!o->quiet)
            fprintf(stderr, "gcsim compress: [%d/%d] %s step %s: %zu bytes (%.1f s)\n",
                    spec_index * o->n_files + f + 1, o->n_specs * o->n_files, name, step,
                    total.payload_bytes, now_s() - t0);
    }
    if (rc == 0 && o->n_files > 1)
        add_row(r, col, name, "all", "(total)", &all, o->seeds ? &all_bias : NULL);
    gc_bytes_free(&payload);
    gc_compressor_free(c);
    gc_compressor_free(probe);
    return rc;
}

static int compress_command(int argc, char **argv, compress_options *op)
{
    compress_options o;
    int prc = parse_options(argc, argv, &o);
    op->spec_list = o.spec_list; /* freed by cmd_compress, whatever the way out */
    if (prc != 0)
        return prc > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    cli_files files;
    cli_files_init(&files, "compress");
    for (int i = 0; i < o.n_files; i++)
        cli_files_input(&files, "--trace", o.files[i]);
    cli_files_output(&files, "--output", o.output);
    if (cli_files_check(&files))
        return EXIT_BAD_INPUT;
    char err[1024];
    /* Every spec is checked before any work, so a typo fails fast. */
    for (int i = 0; i < o.n_specs; i++) {
        gc_compressor *c;
        if (gc_compressor_create(o.specs[i], &c, err, sizeof err) != 0) {
            fprintf(stderr, "gcsim compress: --compressor \"%s\": %s\n", o.specs[i], err);
            return EXIT_BAD_INPUT;
        }
        gc_compressor_free(c);
    }
    series_file *s = calloc((size_t)o.n_files, sizeof *s);
    if (!s) {
        fprintf(stderr, "gcsim compress: out of memory\n");
        return EXIT_BAD_INPUT;
    }
    int rc = EXIT_OK;
    report *r = NULL;
    if (open_series(&o, s, err, sizeof err) != 0) {
        fprintf(stderr, "gcsim compress: %s\n", err);
        rc = EXIT_BAD_INPUT;
        goto out;
    }
    r = report_new();
    int col[N_COLS];
    col[C_COMP] = report_column(r, "compressor", "compressor", -1);
    col[C_STEP] = report_column(r, "step", "step", -1);
    col[C_TENSOR] = report_column(r, "tensor", "tensor", -1);
    col[C_N] = report_column(r, "elements", "elements", -1);
    col[C_BYTES] = report_column(r, "payload_bytes", "payload_B", -1);
    col[C_BITS] = report_column(r, "bits_per_element", "bits/elem", 3);
    col[C_RATIO] = report_column(r, "ratio_fp32", "ratio", 2);
    col[C_ERR] = report_column(r, "norm_error", "norm_err", 5);
    col[C_COS] = report_column(r, "cosine", "cosine", 5);
    col[C_DENS] = report_column(r, "density", "density", 5);
    col[C_BIAS] = report_column(r, "bias", "bias", 5);
    col[C_NOISE] = report_column(r, "bias_noise_floor", "bias_floor", 5);
    col[C_BOUND] = report_column(r, "mse_over_bound", "mse/bound", 3);
    /* a row is its compressor, step and tensor in each stacked table (issue 46) */
    report_table_lead(r, 3, &col[C_COMP], 3);
    char note[64];
    snprintf(note, sizeof note, "%d", o.n_files);
    report_note(r, "files", note);
    snprintf(note, sizeof note, "%d", o.seeds);
    report_note(r, "bias_seeds", note);
    snprintf(note, sizeof note, "%lld", o.seed);
    report_note(r, "seed", note);
    report_meta_int(r, "files", o.n_files);
    report_meta_int(r, "bias_seeds", o.seeds);
    report_meta_int(r, "seed", o.seed);
    report_meta_int(r, "compressors", o.n_specs);
    double t0 = now_s();
    for (int i = 0; i < o.n_specs; i++) {
        if (run_spec(&o, s, o.specs[i], i, r, col, t0, err, sizeof err) != 0) {
            fprintf(stderr, "gcsim compress: %s: %s\n", o.specs[i], err);
            rc = EXIT_BAD_INPUT;
            goto out;
        }
    }
    if (o.output) {
        atomic_file f;
        if (atomic_file_open(&f, o.output, err, sizeof err)) {
            fprintf(stderr, "gcsim compress: %s\n", err);
            rc = EXIT_BAD_INPUT;
        } else if ((errno = 0), report_write(r, o.format, f.stream)) {
            int write_errno = errno;
            atomic_file_abort(&f);
            fprintf(stderr, "gcsim compress: %s: write failed: %s\n", o.output, atomic_file_reason(write_errno));
            rc = EXIT_BAD_INPUT;
        } else if (atomic_file_commit(&f, err, sizeof err)) {
            fprintf(stderr, "gcsim compress: %s\n", err);
            rc = EXIT_BAD_INPUT;
        }
    } else if ((errno = 0), report_write(r, o.format, stdout) || fflush(stdout)) {
        fprintf(stderr, "gcsim compress: cannot write to standard output: %s\n", atomic_file_reason(errno));
        rc = EXIT_BAD_INPUT;
    }
out:
    report_free(r);
    for (int i = 0; i < o.n_files; i++)
        gc_trace_close(&s[i].file);
    free(s);
    return rc;
}

int cmd_compress(int argc, char **argv)
{
    compress_options o = {0};
    int rc = compress_command(argc, argv, &o);
    sweep_list_free(&o.spec_list);
    return rc;
}
