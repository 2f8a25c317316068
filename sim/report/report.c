/* One result table in three formats; see report.h. */
#include "report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report_fit.h"

/* The text tables' width (issue 46); 0 under --wide: no limit, the plain layout. */
static int table_limit = REPORT_TABLE_COLUMNS;

void report_table_set_wide(bool wide)
{
    table_limit = wide ? 0 : REPORT_TABLE_COLUMNS;
}

int report_table_limit(void)
{
    return table_limit;
}

typedef enum { CELL_EMPTY, CELL_NUM, CELL_INT, CELL_STR } cell_kind;

typedef struct {
    cell_kind kind;
    double num;
    long long integer;
    char *str;
    char *table_str; /* what the text table shows instead of str (NULL: str) */
} cell;

typedef struct {
    char *key, *header;
    char *brief; /* the short header of a fitted table (NULL: header) */
    int precision;
    double table_scale;
} column;

typedef enum { META_STR, META_NUM, META_INT, META_BOOL } meta_kind;

typedef struct {
    char *key;
    meta_kind kind;
    cell value; /* CELL_EMPTY: null */
} meta_item;

struct report {
    column *cols;
    int n_cols, cap_cols;
    cell *cells; /* row-major, n_rows x n_cols once the columns are fixed */
    int n_rows, cap_rows;
    char **note_keys, **note_values;
    int n_notes;
    meta_item *meta;
    int n_meta, cap_meta;
    int *lead; /* the text table's reading order (report_table_lead) */
    int n_lead, n_keys;
    char command[32];
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

report *report_new_for_file(const char *source_file)
{
    report *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "gcsim: out of memory\n");
        exit(2);
    }
    const char *base = strrchr(source_file, '/');
    base = base ? base + 1 : source_file;
    if (strncmp(base, "cmd_", 4) == 0)
        base += 4;
    size_t n = strcspn(base, ".");
    if (n >= sizeof r->command)
        n = sizeof r->command - 1;
    memcpy(r->command, base, n);
    r->command[n] = '\0';
    return r;
}

void report_free(report *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_cols; i++) {
        free(r->cols[i].key);
        free(r->cols[i].header);
        free(r->cols[i].brief);
    }
    free(r->lead);
    for (long i = 0; i < (long)r->n_rows * r->n_cols; i++)
        free(r->cells[i].str), free(r->cells[i].table_str);
    for (int i = 0; i < r->n_notes; i++) {
        free(r->note_keys[i]);
        free(r->note_values[i]);
    }
    free(r->note_keys);
    free(r->note_values);
    for (int i = 0; i < r->n_meta; i++) {
        free(r->meta[i].key);
        free(r->meta[i].value.str);
    }
    free(r->meta);
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

int report_column_scaled(report *r, const char *key, const char *header, int precision,
                         double table_scale)
{
    r->cols = grow(r->cols, &r->cap_cols, r->n_cols + 1, sizeof *r->cols);
    r->cols[r->n_cols] = (column){dup_str(key), dup_str(header), NULL, precision, table_scale};
    return r->n_cols++;
}

int report_column(report *r, const char *key, const char *header, int precision)
{
    return report_column_scaled(r, key, header, precision, 1.0);
}

void report_column_brief(report *r, int column, const char *brief)
{
    free(r->cols[column].brief);
    r->cols[column].brief = dup_str(brief);
}

void report_table_lead(report *r, int n_keys, const int *columns, int n)
{
    free(r->lead);
    r->lead = malloc((size_t)(n > 0 ? n : 1) * sizeof *r->lead);
    if (!r->lead) {
        fprintf(stderr, "gcsim: out of memory\n");
        exit(2);
    }
    memcpy(r->lead, columns, (size_t)n * sizeof *r->lead);
    r->n_lead = n;
    r->n_keys = n_keys;
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
    free(c->table_str);
    c->kind = CELL_STR;
    c->str = dup_str(value);
    c->table_str = NULL;
}

void report_str_table(report *r, int column, const char *value, const char *table_value)
{
    report_str(r, column, value);
    cell *c = current(r, column);
    c->table_str = dup_str(table_value);
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

static meta_item *add_meta(report *r, const char *key, meta_kind kind)
{
    r->meta = grow(r->meta, &r->cap_meta, r->n_meta + 1, sizeof *r->meta);
    meta_item *m = &r->meta[r->n_meta++];
    memset(m, 0, sizeof *m);
    m->key = dup_str(key);
    m->kind = kind;
    return m;
}

void report_meta_str(report *r, const char *key, const char *value)
{
    meta_item *m = add_meta(r, key, META_STR);
    if (value) {
        m->value.kind = CELL_STR;
        m->value.str = dup_str(value);
    }
}

void report_meta_num(report *r, const char *key, double value)
{
    meta_item *m = add_meta(r, key, META_NUM);
    if (isfinite(value)) {
        m->value.kind = CELL_NUM;
        m->value.num = value;
    }
}

void report_meta_int(report *r, const char *key, long long value)
{
    meta_item *m = add_meta(r, key, META_INT);
    m->value.kind = CELL_INT;
    m->value.integer = value;
}

void report_meta_bool(report *r, const char *key, int value)
{
    meta_item *m = add_meta(r, key, META_BOOL);
    m->value.kind = CELL_INT;
    m->value.integer = value != 0;
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
    case CELL_STR: /* the table's short form, CSV and JSON the full one */
        snprintf(buf, size, "%s", !full_precision && c->table_str ? c->table_str : c->str);
        break;
    case CELL_NUM: {
        double v = full_precision ? c->num : c->num * col->table_scale;
        if (full_precision || col->precision < 0)
            snprintf(buf, size, "%.17g", v);
        else
            snprintf(buf, size, "%.*f", col->precision, v);
        if (!full_precision && col->precision < 0)
            snprintf(buf, size, "%g", v);
        break;
    }
    }
}

/* The table in at most table_limit columns (report_fit.h): shown[] as write_table found it. */
static int write_fitted(const report *r, const bool *shown, FILE *out)
{
    int n = 0, *index = calloc((size_t)r->n_cols + 1, sizeof *index); /* column -> shown */
    const char **headers = calloc((size_t)r->n_cols + 1, sizeof *headers);
    const char **briefs = calloc((size_t)r->n_cols + 1, sizeof *briefs);
    size_t n_cells = (size_t)r->n_rows * (size_t)(r->n_cols + 1);
    char **cells = calloc(n_cells + 1, sizeof *cells);
    bool *left = calloc(n_cells + 1, sizeof *left);
    int *lead = calloc((size_t)r->n_lead + 1, sizeof *lead);
    if (!index || !headers || !briefs || !cells || !left || !lead) {
        fprintf(stderr, "gcsim: out of memory\n");
        exit(2);
    }
    for (int c = 0; c < r->n_cols; c++) {
        index[c] = shown[c] ? n : -1;
        if (shown[c]) {
            headers[n] = r->cols[c].header;
            briefs[n] = r->cols[c].brief;
            n++;
        }
    }
    char buf[512];
    for (int row = 0; row < r->n_rows; row++)
        for (int c = 0; c < r->n_cols; c++) {
            if (index[c] < 0)
                continue;
            const cell *cl = &r->cells[row * r->n_cols + c];
            format_cell(cl, &r->cols[c], false, buf, sizeof buf);
            cells[(size_t)row * n + index[c]] = dup_str(buf);
            left[(size_t)row * n + index[c]] = cl->kind == CELL_STR;
        }
    /* the lead's shown columns; a key not shown is simply not repeated */
    int n_lead = 0, n_keys = 0;
    for (int i = 0; i < r->n_lead; i++) {
        int c = r->lead[i];
        if (c < 0 || c >= r->n_cols || index[c] < 0)
            continue;
        lead[n_lead++] = index[c];
        if (i < r->n_keys)
            n_keys++;
    }
    fit_table t = {.n_cols = n, .n_rows = r->n_rows, .headers = headers, .briefs = briefs,
                   .cells = (const char *const *)cells, .left = left, .lead = lead,
                   .n_lead = n_lead, .n_keys = n_keys};
    int rc = fit_table_write(&t, table_limit, out);
    for (size_t i = 0; i < n_cells; i++)
        free(cells[i]);
    free(cells);
    free(left);
    free(lead);
    free(headers);
    free(briefs);
    free(index);
    return rc;
}

static int write_table(const report *r, FILE *out)
{
    for (int i = 0; i < r->n_notes; i++) {
        /* a note too long for the line is wrapped, its next lines under its value */
        int key_w = fit_text_width(r->note_keys[i]) + 2;
        if (table_limit && key_w + fit_text_width(r->note_values[i]) > table_limit) {
            char *lead = malloc(strlen(r->note_keys[i]) + 3);
            if (!lead) {
                fprintf(stderr, "gcsim: out of memory\n");
                exit(2);
            }
            sprintf(lead, "%s: ", r->note_keys[i]);
            fit_wrap(out, lead, r->note_values[i], key_w <= 24 ? key_w : 4, table_limit);
            free(lead);
        } else
            fprintf(out, "%s: %s\n", r->note_keys[i], r->note_values[i]);
    }
    if (r->n_notes)
        fputc('\n', out);
    int *width = calloc((size_t)r->n_cols, sizeof *width);
    char buf[512];
    /* A column empty in every row (e.g. tokens/s of a model without tokens) is left out
     * of the text table; CSV and JSON keep it, so their header never depends on the run. */
    bool *shown = calloc((size_t)r->n_cols, sizeof *shown);
    for (int row = 0; row < r->n_rows; row++)
        for (int c = 0; c < r->n_cols; c++)
            if (r->cells[row * r->n_cols + c].kind != CELL_EMPTY)
                shown[c] = true;
    if (r->n_rows == 0)
        for (int c = 0; c < r->n_cols; c++)
            shown[c] = true;
    for (int c = 0; c < r->n_cols; c++)
        width[c] = (int)strlen(r->cols[c].header);
    for (int row = 0; row < r->n_rows; row++)
        for (int c = 0; c < r->n_cols; c++) {
            format_cell(&r->cells[row * r->n_cols + c], &r->cols[c], false, buf, sizeof buf);
            if ((int)strlen(buf) > width[c])
                width[c] = (int)strlen(buf);
        }
    int plain = -2;
    for (int c = 0; c < r->n_cols; c++)
        if (shown[c])
            plain += width[c] + 2;
    if (table_limit && plain > table_limit) { /* else the plain layout, as --wide prints it */
        int rc = write_fitted(r, shown, out);
        free(shown);
        free(width);
        return rc;
    }
    int first = 0;
    while (first < r->n_cols && !shown[first])
        first++;
    for (int c = 0; c < r->n_cols; c++)
        if (shown[c])
            fprintf(out, "%s%*s", c > first ? "  " : "", width[c], r->cols[c].header);
    fputc('\n', out);
    for (int row = 0; row < r->n_rows; row++) {
        for (int c = 0; c < r->n_cols; c++) {
            if (!shown[c])
                continue;
            const cell *cl = &r->cells[row * r->n_cols + c];
            format_cell(cl, &r->cols[c], false, buf, sizeof buf);
            /* Text left-aligned, numbers right-aligned. */
            if (cl->kind == CELL_STR)
                fprintf(out, "%s%-*s", c > first ? "  " : "", width[c], buf);
            else
                fprintf(out, "%s%*s", c > first ? "  " : "", width[c], buf);
        }
        fputc('\n', out);
    }
    free(shown);
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

/* A number with the digits that read back as the same double (see write_json). */
static cJSON *exact_number(double v)
{
    if (!isfinite(v))
        return cJSON_CreateNull();
    char digits[32];
    snprintf(digits, sizeof digits, "%.17g", v);
    return cJSON_CreateRaw(digits);
}

/* meta: dotted keys become nested objects ("platform.name" -> {"platform": {"name": }}). */
static void write_meta(const report *r, cJSON *root)
{
    cJSON *meta = cJSON_AddObjectToObject(root, "meta");
    for (int i = 0; i < r->n_meta; i++) {
        const meta_item *m = &r->meta[i];
        cJSON *parent = meta;
        char path[128];
        snprintf(path, sizeof path, "%s", m->key);
        char *leaf = path, *dot;
        while ((dot = strchr(leaf, '.'))) {
            *dot = '\0';
            cJSON *child = cJSON_GetObjectItemCaseSensitive(parent, leaf);
            if (!child)
                child = cJSON_AddObjectToObject(parent, leaf);
            parent = child;
            leaf = dot + 1;
        }
        cJSON *v;
        if (m->value.kind == CELL_EMPTY)
            v = cJSON_CreateNull();
        else if (m->kind == META_STR)
            v = cJSON_CreateString(m->value.str);
        else if (m->kind == META_NUM)
            v = exact_number(m->value.num);
        else if (m->kind == META_BOOL)
            v = cJSON_CreateBool((int)m->value.integer);
        else
            v = cJSON_CreateNumber((double)m->value.integer);
        cJSON_DeleteItemFromObjectCaseSensitive(parent, leaf); /* the last one set wins */
        cJSON_AddItemToObject(parent, leaf, v);
    }
}

static int write_json(const report *r, FILE *out)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema_version", REPORT_SCHEMA_VERSION);
    cJSON_AddStringToObject(root, "command", r->command);
    cJSON_AddStringToObject(root, "gcsim_version", GCSIM_REPORT_VERSION);
    write_meta(r, root);
    cJSON *notes = cJSON_AddObjectToObject(root, "notes");
    for (int i = 0; i < r->n_notes; i++) {
        cJSON_DeleteItemFromObjectCaseSensitive(notes, r->note_keys[i]);
        cJSON_AddStringToObject(notes, r->note_keys[i], r->note_values[i]);
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
