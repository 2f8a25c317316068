#include "plot_table.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "plain_number.h"
#include "schema_version.h"
#include "sweep_output.h"

const char *plot_kind_command(plot_kind kind)
{
    return kind == PLOT_SWEEP ? "gcsim sweep" : kind == PLOT_PLAN ? "gcsim plan" : "gcsim predict";
}

const char *plot_format_name(plot_format format)
{
    return format == PLOT_CSV ? "CSV" : format == PLOT_JSONL ? "JSON lines" : "JSON";
}

void plot_number_text(double v, char *buf, size_t size)
{
    /* From as many digits as the integer part has (100, not 1e+02), up to 17. */
    int digits = 1;
    if (fabs(v) >= 1 && fabs(v) < 1e15)
        digits = (int)floor(log10(fabs(v))) + 1;
    for (; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
}

static int out_of_memory(gcsim_error *err)
{
    gcsim_fail_internal(err, "out of memory");
    err->limit = 1;
    return -1;
}

void plot_table_free(plot_table *t)
{
    for (int c = 0; c < t->n_cols; c++)
        free(t->cols[c]);
    for (long k = 0; k < (long)t->n_rows * t->n_cols; k++)
        free(t->cells[k]);
    free(t->cols);
    free(t->cells);
    free(t->line);
    free(t->model);
    free(t->platform);
    free(t->rank_by);
    free(t->context);
    memset(t, 0, sizeof *t);
}

int plot_table_col(const plot_table *t, const char *name)
{
    for (int c = 0; c < t->n_cols; c++)
        if (strcmp(t->cols[c], name) == 0)
            return c;
    return -1;
}

const char *plot_table_cell(const plot_table *t, int row, int col)
{
    if (col < 0 || row < 0 || row >= t->n_rows)
        return NULL;
    return t->cells[(long)row * t->n_cols + col];
}

void plot_table_where(const plot_table *t, int row, const char *col, char *buf, size_t size)
{
    if (t->format == PLOT_CSV)
        snprintf(buf, size, "%s:%ld: column %s", t->file, t->line[row], col);
    else if (t->format == PLOT_JSONL)
        snprintf(buf, size, "%s:%ld: $.%s", t->file, t->line[row], col);
    else
        snprintf(buf, size, "%s: $.rows[%ld].%s", t->file, t->line[row], col);
}

int plot_table_number(const plot_table *t, int row, int col, double *out, gcsim_error *err)
{
    char where[1200];
    plot_table_where(t, row, col >= 0 ? t->cols[col] : "?", where, sizeof where);
    const char *text = plot_table_cell(t, row, col);
    if (!text)
        return gcsim_fail(err, "%s: missing (a number is needed)", where);
    if (!gcsim_plain_double(text, -HUGE_VAL, HUGE_VAL, out))
        return gcsim_fail(err, "%s: expected a number, got \"%.80s\"", where, text);
    return 0;
}

int plot_table_require(const plot_table *t, const char *col, gcsim_error *err)
{
    if (plot_table_col(t, col) >= 0)
        return 0;
    return gcsim_fail(err, "%s: no column \"%s\": not the output of %s as this gcsim writes it",
                      t->file, col, plot_kind_command(t->kind));
}

/* A new row of NULL cells; its index, or -1. */
static int add_row(plot_table *t, long line, gcsim_error *err)
{
    if (t->n_rows >= PLOT_MAX_ROWS)
        return gcsim_fail(err, "%s:%ld: more than %d rows: too many to draw in one figure "
                               "(plot a part of the output)", t->file, line, PLOT_MAX_ROWS);
    if (t->n_rows == t->cap_rows) {
        int cap = t->cap_rows ? 2 * t->cap_rows : 64;
        char **cells = realloc(t->cells, (size_t)cap * (size_t)t->n_cols * sizeof *cells);
        if (!cells)
            return out_of_memory(err);
        t->cells = cells;
        long *lines = realloc(t->line, (size_t)cap * sizeof *lines);
        if (!lines)
            return out_of_memory(err);
        t->line = lines;
        t->cap_rows = cap;
    }
    int r = t->n_rows++;
    memset(&t->cells[(long)r * t->n_cols], 0, (size_t)t->n_cols * sizeof *t->cells);
    t->line[r] = line;
    return r;
}

static int add_col(plot_table *t, const char *name, gcsim_error *err)
{
    char **cols = realloc(t->cols, (size_t)(t->n_cols + 1) * sizeof *cols);
    if (!cols)
        return out_of_memory(err);
    t->cols = cols;
    if (!(t->cols[t->n_cols] = strdup(name)))
        return out_of_memory(err);
    t->n_cols++;
    return 0;
}

/* --- CSV -------------------------------------------------------------------------------- */

/* The kind a CSV header says, or -1. */
static int csv_kind(const plot_table *t)
{
    if (plot_table_col(t, "case") == 0 && plot_table_col(t, "cases") >= 0)
        return PLOT_SWEEP;
    if (plot_table_col(t, "rank") == 0)
        return PLOT_PLAN;
    if (plot_table_col(t, "gpus") == 0 && plot_table_col(t, "iteration_s") >= 0)
        return PLOT_PREDICT;
    return -1;
}

static int read_csv(plot_table *t, char *text, gcsim_error *err)
{
    t->format = PLOT_CSV;
    char **fields = NULL;
    int max_fields = 1024, rc = -1;
    if (!(fields = malloc((size_t)max_fields * sizeof *fields)))
        return out_of_memory(err);
    long line_no = 0;
    char *p = text;
    while (*p) {
        char *end = strchr(p, '\n');
        if (!end)
            end = p + strlen(p);
        char *next = *end ? end + 1 : end;
        *end = '\0';
        if (end > p && end[-1] == '\r')
            end[-1] = '\0';
        line_no++;
        if (!*p) { /* a blank line: only at the end (a file saved by an editor) */
            p = next;
            continue;
        }
        int n = sweep_csv_split(p, fields, max_fields);
        if (n < 0) {
            gcsim_fail(err, "%s:%ld: not a CSV line (a quote out of place, or more than %d "
                            "fields)", t->file, line_no, max_fields);
            goto done;
        }
        if (line_no == 1) {
            for (int c = 0; c < n; c++) {
                if (!*fields[c]) {
                    gcsim_fail(err, "%s:1: column %d has no name: not a CSV header of gcsim "
                                    "sweep, plan or predict", t->file, c + 1);
                    goto done;
                }
                if (plot_table_col(t, fields[c]) >= 0) {
                    gcsim_fail(err, "%s:1: column \"%.80s\" twice", t->file, fields[c]);
                    goto done;
                }
                if (add_col(t, fields[c], err))
                    goto done;
            }
            int kind = csv_kind(t);
            if (kind < 0) {
                gcsim_fail(err, "%s:1: not the CSV header of gcsim sweep (case, cases, ...), "
                                "plan (rank, ...) or predict (gpus, ..., iteration_s, ...): "
                                "it starts \"%.60s\"", t->file, t->cols[0]);
                goto done;
            }
            t->kind = (plot_kind)kind;
        } else {
            if (n != t->n_cols) {
                gcsim_fail(err, "%s:%ld: %d fields, the header has %d", t->file, line_no, n,
                           t->n_cols);
                goto done;
            }
            int r = add_row(t, line_no, err);
            if (r < 0)
                goto done;
            for (int c = 0; c < n; c++)
                if (*fields[c] && !(t->cells[(long)r * t->n_cols + c] = strdup(fields[c]))) {
                    out_of_memory(err);
                    goto done;
                }
        }
        p = next;
    }
    rc = 0;
done:
    free(fields);
    return rc;
}

/* --- JSON ------------------------------------------------------------------------------- */

/* A JSON value as a cell: text as is, numbers with the fewest digits that read back the
 * same, null as NULL. */
static int json_cell(const cJSON *v, char **out, gcsim_error *err)
{
    *out = NULL;
    if (cJSON_IsNull(v))
        return 0;
    char buf[64];
    const char *text = buf;
    char *printed = NULL;
    if (cJSON_IsString(v)) {
        text = v->valuestring;
    } else if (cJSON_IsNumber(v)) {
        plot_number_text(v->valuedouble, buf, sizeof buf);
    } else if (cJSON_IsBool(v)) {
        text = cJSON_IsTrue(v) ? "true" : "false";
    } else {
        if (!(printed = cJSON_PrintUnformatted(v)))
            return out_of_memory(err);
        text = printed;
    }
    *out = strdup(text);
    free(printed);
    return *out ? 0 : out_of_memory(err);
}

/* One row object into a new row; columns are added as keys appear. where: for messages. */
static int json_row(plot_table *t, const cJSON *obj, long line, const char *where,
                    gcsim_error *err)
{
    if (!cJSON_IsObject(obj))
        return gcsim_fail(err, "%s: expected an object (one row)", where);
    for (const cJSON *m = obj->child; m; m = m->next)
        if (plot_table_col(t, m->string) < 0) {
            /* A new column: widen every row read so far. */
            int old = t->n_cols;
            if (add_col(t, m->string, err))
                return -1;
            if (t->n_rows) {
                char **cells = calloc((size_t)t->cap_rows * (size_t)t->n_cols, sizeof *cells);
                if (!cells)
                    return out_of_memory(err);
                for (int r = 0; r < t->n_rows; r++)
                    memcpy(&cells[(long)r * t->n_cols], &t->cells[(long)r * old],
                           (size_t)old * sizeof *cells);
                free(t->cells);
                t->cells = cells;
            } else {
                char **cells = realloc(t->cells, (size_t)(t->cap_rows ? t->cap_rows : 1) *
                                                     (size_t)t->n_cols * sizeof *cells);
                if (!cells)
                    return out_of_memory(err);
                t->cells = cells;
            }
        }
    int r = add_row(t, line, err);
    if (r < 0)
        return -1;
    for (const cJSON *m = obj->child; m; m = m->next) {
        char **cell = &t->cells[(long)r * t->n_cols + plot_table_col(t, m->string)];
        if (*cell)
            return gcsim_fail(err, "%s: key \"%.80s\" twice", where, m->string);
        if (json_cell(m, cell, err))
            return -1;
    }
    return 0;
}

static int schema_checked(const cJSON *doc, const char *where, gcsim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "schema_version");
    if (!v)
        return gcsim_fail(err, "%s: $.schema_version: missing: not the output of gcsim sweep, "
                               "plan or predict", where);
    if (!cJSON_IsNumber(v) || v->valuedouble != GCSIM_SCHEMA_VERSION)
        return gcsim_fail(err, "%s: $.schema_version: this gcsim reads version %d", where,
                          GCSIM_SCHEMA_VERSION);
    return 0;
}

static char *meta_string(const cJSON *meta, const char *a, const char *b)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, a);
    if (b)
        v = cJSON_GetObjectItemCaseSensitive(v, b);
    return cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
}

static int read_json_document(plot_table *t, const cJSON *doc, gcsim_error *err)
{
    t->format = PLOT_JSON;
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(doc, "command");
    if (!cJSON_IsString(cmd))
        return gcsim_fail(err, "%s: $.command: missing: not the output of gcsim plan or "
                               "predict", t->file);
    if (strcmp(cmd->valuestring, "plan") == 0)
        t->kind = PLOT_PLAN;
    else if (strcmp(cmd->valuestring, "predict") == 0)
        t->kind = PLOT_PREDICT;
    else
        return gcsim_fail(err, "%s: $.command: the output of gcsim %.40s: gcsim plot draws "
                               "the outputs of sweep, plan and predict", t->file,
                          cmd->valuestring);
    if (schema_checked(doc, t->file, err))
        return -1;
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "meta");
    if (t->kind == PLOT_PREDICT) {
        const cJSON *table = cJSON_GetObjectItemCaseSensitive(meta, "table");
        if (cJSON_IsString(table) && strcmp(table->valuestring, "gpu_counts") != 0)
            return gcsim_fail(err, "%s: $.meta.table: \"%.40s\": gcsim plot draws predict's "
                                   "table of GPU counts, not --buckets, --tensors or --steps",
                              t->file, table->valuestring);
    }
    t->model = meta_string(meta, "model", "name");
    t->platform = meta_string(meta, "platform", "name");
    t->rank_by = meta_string(meta, "rank_by", NULL);
    if (t->kind == PLOT_PREDICT) {
        /* The settings every row shares, for the subtitle. */
        static const char *const keys[][3] = {
            {"compressor", "spec", "compressor "}, {"collective", NULL, "collective "},
            {"stack", "name", "stack "},          {"sharding", NULL, "sharding "},
            {"precision", NULL, ""},              {"scaling", NULL, "scaling "},
            {"engine", NULL, "engine "}};
        char text[1024] = "";
        size_t used = 0;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0] && used < sizeof text; k++) {
            char *v = meta_string(meta, keys[k][0], keys[k][1]);
            if (v && *v)
                used += (size_t)snprintf(text + used, sizeof text - used, "%s%s%s",
                                         used ? ", " : "", keys[k][2], v);
            free(v);
        }
        if (used && !(t->context = strdup(text)))
            return out_of_memory(err);
    }
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(meta, "target"), "throughput_samples_per_s");
    if (cJSON_IsNumber(target))
        t->target_samples_per_s = target->valuedouble;
    const cJSON *feasible = cJSON_GetObjectItemCaseSensitive(meta, "feasible");
    if (cJSON_IsBool(feasible))
        t->feasible = cJSON_IsTrue(feasible);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows");
    if (!cJSON_IsArray(rows))
        return gcsim_fail(err, "%s: $.rows: missing or not an array", t->file);
    long k = 0;
    for (const cJSON *row = rows->child; row; row = row->next, k++) {
        char where[1200];
        snprintf(where, sizeof where, "%s: $.rows[%ld]", t->file, k);
        if (json_row(t, row, k, where, err))
            return -1;
    }
    return 0;
}

static int read_jsonl(plot_table *t, char *text, gcsim_error *err)
{
    t->format = PLOT_JSONL;
    t->kind = PLOT_SWEEP;
    long line_no = 0;
    char *p = text;
    while (*p) {
        char *end = strchr(p, '\n');
        if (!end)
            end = p + strlen(p);
        char *next = *end ? end + 1 : end;
        *end = '\0';
        line_no++;
        if (!*p || strspn(p, " \t\r") == strlen(p)) {
            p = next;
            continue;
        }
        char where[1200];
        snprintf(where, sizeof where, "%s:%ld", t->file, line_no);
        gcsim_error perr = {0};
        json_ctx ctx = {where, &perr};
        cJSON *obj = NULL;
        if (json_parse_document(p, &ctx, &obj)) {
            *err = perr;
            return -1;
        }
        int rc = cJSON_IsObject(obj) ? schema_checked(obj, where, err)
                                     : gcsim_fail(err, "%s: expected a JSON object (one sweep "
                                                       "row)", where);
        if (!rc && !cJSON_GetObjectItemCaseSensitive(obj, "case"))
            rc = gcsim_fail(err, "%s: $.case: missing: not a row of gcsim sweep", where);
        if (!rc)
            rc = json_row(t, obj, line_no, where, err);
        cJSON_Delete(obj);
        if (rc)
            return -1;
        p = next;
    }
    return 0;
}

/* --- the file --------------------------------------------------------------------------- */

int plot_table_read(const char *file, plot_table *t, gcsim_error *err)
{
    memset(t, 0, sizeof *t);
    t->file = file;
    t->target_samples_per_s = NAN;
    t->feasible = -1;
    char *text = NULL;
    if (json_read_file(file, PLOT_MAX_INPUT_BYTES, &text, err))
        return -1;
    int rc = -1;
    const char *first = text + strspn(text, " \t\r\n");
    if (!*first) {
        rc = gcsim_fail(err, "%s: empty file: not the output of gcsim sweep, plan or predict",
                        file);
    } else if (*first == '{') {
        /* One JSON document (plan, predict), or JSON lines (sweep). */
        cJSON *doc = cJSON_Parse(first);
        if (doc && cJSON_GetObjectItemCaseSensitive(doc, "command"))
            rc = read_json_document(t, doc, err);
        else
            rc = read_jsonl(t, text, err);
        cJSON_Delete(doc);
    } else {
        rc = read_csv(t, text, err);
    }
    if (!rc && t->n_rows == 0)
        rc = gcsim_fail(err, "%s: no rows: nothing to draw", file);
    free(text);
    if (rc)
        plot_table_free(t);
    return rc;
}
