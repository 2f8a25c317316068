/* gcsim compress's table; see compress_table.h. */
#include "compress_table.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "compressor.h"
#include "metrics.h"

static int by_step(const void *a, const void *b)
{
    const compress_series_file *x = a, *y = b;
    return (x->step > y->step) - (x->step < y->step);
}

/* Opens the series, orders it by step and checks that every file holds the same tensors
 * (names, element counts) as the first. */
int compress_series_open(const char *const *files, int n_files, compress_series_file *s, char *err,
                         size_t err_len)
{
    int with_step = 0;
    for (int i = 0; i < n_files; i++) {
        if (gc_trace_open(files[i], &s[i].file, err, err_len) != 0)
            return -1;
        s[i].step = -1;
        if (gc_trace_meta_get(&s[i].file, "step")) {
            if (gc_trace_step(&s[i].file, &s[i].step, err, err_len) != 0)
                return -1;
            with_step++;
        }
    }
    if (with_step != 0 && with_step != n_files) {
        for (int i = 0; i < n_files; i++)
            if (s[i].step < 0)
                return snprintf(err, err_len, "%s: __metadata__ has no \"step\" but other files "
                                "of the series do", s[i].file.path), -1;
    }
    if (with_step)
        qsort(s, (size_t)n_files, sizeof *s, by_step); /* qsort of distinct keys */
    for (int i = 1; i < n_files; i++) {
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

double compress_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One compressor over the whole series. Returns 0 or -1 with err filled. */
int compress_table_run(const compress_run *o, compress_series_file *s, const char *spec,
                       int spec_index, report *r, const int *col, double t0, char *err,
                       size_t err_len)
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
                    total.payload_bytes, compress_now_s() - t0);
    }
    if (rc == 0 && o->n_files > 1)
        add_row(r, col, name, "all", "(total)", &all, o->seeds ? &all_bias : NULL);
    gc_bytes_free(&payload);
    gc_compressor_free(c);
    gc_compressor_free(probe);
    return rc;
}

report *compress_table_new(const compress_run *o, int *col)
{
    report *r = report_new_for_file("compress");
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
    snprintf(note, sizeof note, "%d", o->n_files);
    report_note(r, "files", note);
    snprintf(note, sizeof note, "%d", o->seeds);
    report_note(r, "bias_seeds", note);
    snprintf(note, sizeof note, "%lld", o->seed);
    report_note(r, "seed", note);
    report_meta_int(r, "files", o->n_files);
    report_meta_int(r, "bias_seeds", o->seeds);
    report_meta_int(r, "seed", o->seed);
    report_meta_int(r, "compressors", o->n_specs);
    return r;
}
