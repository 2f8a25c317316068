/* One result table in three formats; see report.h. */
#include "report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef enum { CELL_EMPTY, CELL_NUM, CELL_INT, CELL_STR } cell_kind;

typedef struct {
    cell_kind kind;
    double num;
    long long integer;
    char *str;
} cell;

typedef struct {
    char *key, *header;
    int precision;
} column;

struct report {
    column *cols;
    int n_cols, cap_cols;
    cell *cells; /* row-major, n_rows x n_cols once the columns are fixed */
    int n_rows, cap_rows;
    char **note_keys, **note_values;
    int n_notes;
};

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void *grow(void *p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return p;
    int c = *cap ? *cap * 2 : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(p, (size_t)c * elem);
    if (!q) {
        fprintf(stderr, "gcsim: out of memory\n");
        exit(2);
    }
    *cap = c;
    return q;
}

report *report_new(void)
{
    report *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "gcsim: out of memory\n");
        exit(2);
    }
    return r;
}

void report_free(report *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_cols; i++) {
        free(r->cols[i].key);
        free(r->cols[i].header);
    }
    for (long i = 0; i < (long)r->n_rows * r->n_cols; i++)
        free(r->cells[i].str);
    for (int i = 0; i < r->n_notes; i++) {
        free(r->note_keys[i]);
        free(r->note_values[i]);
    }
    free(r->note_keys);
    free(r->note_values);
    free(r->cols);
    free(r->cells);
    free(r);
}

int report_format_parse(const char *text, report_format *out)
{
    if (strcmp(text, "table") == 0)
        *out = REPORT_TABLE;
    else if (strcmp(text, "json") == 0)
        *out = REPORT_JSON;
    else if (strcmp(text, "csv") == 0)
        *out = REPORT_CSV;
    else
        return -1;
    return 0;
}

int report_column(report *r, const char *key, const char *header, int precision)
{
    r->cols = grow(r->cols, &r->cap_cols, r->n_cols + 1, sizeof *r->cols);
    r->cols[r->n_cols] = (column){dup_str(key), dup_str(header), precision};
    return r->n_cols++;
}

void report_row(report *r)
{
    r->n_rows++;
    int cap_cells = r->cap_rows * r->n_cols;
    int need = r->n_rows * r->n_cols;
    if (need > cap_cells) {
        int cap = r->cap_rows ? r->cap_rows * 2 : 16;
        cell *c = realloc(r->cells, (size_t)cap * r->n_cols * sizeof *c);
        if (!c) {
            fprintf(stderr, "gcsim: out of memory\n");
            exit(2);
        }
        r->cells = c;
        r->cap_rows = cap;
    }
    memset(&r->cells[(r->n_rows - 1) * r->n_cols], 0, (size_t)r->n_cols * sizeof(cell));
}

static cell *current(report *r, int column)
{
    return &r->cells[(r->n_rows - 1) * r->n_cols + column];
}

void report_num(report *r, int column, double value)
{
    cell *c = current(r, column);
    c->kind = CELL_NUM;
    c->num = value;
}

void report_int(report *r, int column, long long value)
{
    cell *c = current(r, column);
    c->kind = CELL_INT;
    c->integer = value;
}

void report_str(report *r, int column, const char *value)
{
    cell *c = current(r, column);
    free(c->str);
    c->kind = CELL_STR;
    c->str = dup_str(value);
}

void report_note(report *r, const char *key, const char *value)
{
    int cap = r->n_notes;
    r->note_keys = realloc(r->note_keys, (size_t)(cap + 1) * sizeof(char *));
    r->note_values = realloc(r->note_values, (size_t)(cap + 1) * sizeof(char *));
    if (!r->note_keys || !r->note_values) {
        fprintf(stderr, "gcsim: out of memory\n");
        exit(2);
    }
    r->note_keys[r->n_notes] = dup_str(key);
    r->note_values[r->n_notes] = dup_str(value);
    r->n_notes++;
}

static void format_cell(const cell *c, const column *col, bool full_precision, char *buf,
                        size_t size)
{
    switch (c->kind) {
    case CELL_EMPTY:
        buf[0] = '\0';
        break;
    case CELL_INT:
        snprintf(buf, size, "%lld", c->integer);
        break;
    case CELL_STR:
        snprintf(buf, size, "%s", c->str);
        break;
    case CELL_NUM:
        if (full_precision || col->precision < 0)
            snprintf(buf, size, "%.17g", c->num);
        else
            snprintf(buf, size, "%.*f", col->precision, c->num);
        if (!full_precision && col->precision < 0)
            snprintf(buf, size, "%g", c->num);
        break;
    }
}

static int write_table(const report *r, FILE *out)
{
    for (int i = 0; i < r->n_notes; i++)
        fprintf(out, "%s: %s\n", r->note_keys[i], r->note_values[i]);
    if (r->n_notes)
        fputc('\n', out);
    int *width = calloc((size_t)r->n_cols, sizeof *width);
    char buf[512];
    for (int c = 0; c < r->n_cols; c++)
        width[c] = (int)strlen(r->cols[c].header);
    for (int row = 0; row < r->n_rows; row++)
        for (int c = 0; c < r->n_cols; c++) {
            format_cell(&r->cells[row * r->n_cols + c], &r->cols[c], false, buf, sizeof buf);
            if ((int)strlen(buf) > width[c])
                width[c] = (int)strlen(buf);
        }
    for (int c = 0; c < r->n_cols; c++)
        fprintf(out, "%s%*s", c ? "  " : "", width[c], r->cols[c].header);
    fputc('\n', out);
    for (int row = 0; row < r->n_rows; row++) {
        for (int c = 0; c < r->n_cols; c++) {
            const cell *cl = &r->cells[row * r->n_cols + c];
            format_cell(cl, &r->cols[c], false, buf, sizeof buf);
            /* Text left-aligned, numbers right-aligned. */
            if (cl->kind == CELL_STR)
                fprintf(out, "%s%-*s", c ? "  " : "", width[c], buf);
            else
                fprintf(out, "%s%*s", c ? "  " : "", width[c], buf);
        }
        fputc('\n', out);
    }
    free(width);
    return ferror(out) ? -1 : 0;
}

static void csv_field(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\n")) {
        fputc('"', out);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', out);
            fputc(*s, out);
        }
        fputc('"', out);
    } else {
        fputs(s, out);
    }
}

static int write_csv(const report *r, FILE *out)
{
    char buf[512];
    for (int c = 0; c < r->n_cols; c++) {
        if (c)
            fputc(',', out);
        csv_field(out, r->cols[c].key);
    }
    fputc('\n', out);
    for (int row = 0; row < r->n_rows; row++) {
        for (int c = 0; c < r->n_cols; c++) {
            if (c)
                fputc(',', out);
            format_cell(&r->cells[row * r->n_cols + c], &r->cols[c], true, buf, sizeof buf);
            csv_field(out, buf);
        }
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}

static int write_json(const report *r, FILE *out)
{
    cJSON *root = cJSON_CreateObject();
    if (r->n_notes) {
        cJSON *meta = cJSON_AddObjectToObject(root, "meta");
        for (int i = 0; i < r->n_notes; i++)
            cJSON_AddStringToObject(meta, r->note_keys[i], r->note_values[i]);
    }
    cJSON *rows = cJSON_AddArrayToObject(root, "rows");
    for (int row = 0; row < r->n_rows; row++) {
        cJSON *o = cJSON_CreateObject();
        for (int c = 0; c < r->n_cols; c++) {
            const cell *cl = &r->cells[row * r->n_cols + c];
            const char *k = r->cols[c].key;
            switch (cl->kind) {
            case CELL_EMPTY:
                cJSON_AddNullToObject(o, k);
                break;
            case CELL_NUM:
                if (isfinite(cl->num)) {
                    /* cJSON prints 15 digits when they read back within an epsilon; %.17g
                     * always reads back as the same double, so JSON equals CSV exactly. */
                    char digits[32];
                    snprintf(digits, sizeof digits, "%.17g", cl->num);
                    cJSON_AddRawToObject(o, k, digits);
                } else {
                    cJSON_AddNullToObject(o, k);
                }
                break;
            case CELL_INT:
                cJSON_AddNumberToObject(o, k, (double)cl->integer);
                break;
            case CELL_STR:
                cJSON_AddStringToObject(o, k, cl->str);
                break;
            }
        }
        cJSON_AddItemToArray(rows, o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return -1;
    fputs(text, out);
    fputc('\n', out);
    free(text);
    return ferror(out) ? -1 : 0;
}

int report_write(const report *r, report_format format, FILE *out)
{
    switch (format) {
    case REPORT_TABLE:
        return write_table(r, out);
    case REPORT_CSV:
        return write_csv(r, out);
    case REPORT_JSON:
        return write_json(r, out);
    }
    return -1;
}
