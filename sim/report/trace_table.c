/* gcsim trace info's table; see trace_table.h. */
#include "trace_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

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

int trace_table_add(report *r, const int *col, const char *path)
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

report *trace_table_new(int *col)
{
    report *r = report_new_for_file("trace");
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
    return r;
}
