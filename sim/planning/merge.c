/* Joining the outputs of sharded sweeps (merge.h). */
#include "merge.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_output.h"

typedef struct {
    char *line;          /* the row as read, without its newline */
    const char *file;
    long line_no;
    int file_no;         /* position of file on the command line */
    long long index;     /* its case */
} merged_row;

struct merge_rows {
    merged_row *rows;    /* in the order read; sorted by case once all files are read */
    long long n_rows, cap_rows;
    int file_no;         /* of the file being read */
    long long total;     /* -1 until the first row */
    const char *total_file;
    long total_line;
    int format;          /* -1 unknown, else sweep_format */
    char *header;        /* CSV header or the JSON member names, joined by commas */
    const char *header_file;
    int case_col, cases_col;
    const char *empty_file; /* the first file without a line, if any */
};

/* A case index or total: plain decimal digits (as the command line's integers, a leading
 * '-' allowed only for -0), at most 2^52 so that it is exact in a JSON double too. */
static int parse_count(const char *text, long long *out)
{
    const char *p = text[0] == '-' ? text + 1 : text;
    if (*p < '0' || *p > '9')
        return -1;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return -1;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || *end || v < 0 || v > (long long)1 << 52)
        return -1;
    *out = v;
    return 0;
}

/* Reads one line into *buf (growing it, up to MERGE_MAX_LINE_BYTES); returns its length
 * without the newline, -1 at end of file, -2 when the last line has no newline (a cut
 * file), -3 when it is longer than MERGE_MAX_LINE_BYTES, -4 when it holds a NUL byte (at
 * *nul_at: the row would end there when written). */
static long read_line(FILE *f, char **buf, size_t *cap, long *nul_at)
{
    size_t n = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (n + 2 > *cap) {
            if (*cap >= (size_t)MERGE_MAX_LINE_BYTES)
                return -3;
            size_t bigger = *cap ? 2 * *cap : 256;
            char *b = realloc(*buf, bigger);
            if (!b)
                return -3;
            *buf = b;
            *cap = bigger;
        }
        if (c == '\n') {
            (*buf)[n] = '\0';
            const char *nul = memchr(*buf, '\0', n);
            if (nul) {
                *nul_at = (long)(nul - *buf);
                return -4;
            }
            return (long)n;
        }
        (*buf)[n++] = (char)c;
    }
    return n ? -2 : -1;
}

/* The JSON member names of a row, joined by commas. */
static char *json_keys(const cJSON *o)
{
    size_t len = 1;
    for (const cJSON *m = o->child; m; m = m->next)
        len += strlen(m->string) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (const cJSON *m = o->child; m; m = m->next) {
        if (m != o->child)
            strcat(s, ",");
        strcat(s, m->string);
    }
    return s;
}

static int add_row(merge_rows *st, const char *file, long line_no, const char *line,
                   long long index, long long total, char *err, size_t err_len)
{
    if (st->total < 0) {
        /* Nothing is allocated for the claimed total: memory follows the rows read, so a
         * row claiming cases = 10^9 costs nothing (it took 15.6 GB). */
        st->total = total;
        st->total_file = file;
        st->total_line = line_no;
    } else if (total != st->total) {
        snprintf(err, err_len, "%s:%ld: cases = %lld, but %s:%ld says %lld: not the same "
                        "sweep", file, line_no, total, st->total_file, st->total_line, st->total);
        return -1;
    }
    if (index < 0 || index >= total) {
        snprintf(err, err_len, "%s:%ld: case %lld is outside 0..%lld", file, line_no,
                index, total - 1);
        return -1;
    }
    if (st->n_rows == st->cap_rows) {
        long long bigger = st->cap_rows ? 2 * st->cap_rows : 1024;
        merged_row *rows = realloc(st->rows, (size_t)bigger * sizeof *rows);
        if (!rows) {
            snprintf(err, err_len, "%s:%ld: out of memory after %lld rows", file,
                    line_no, st->n_rows);
            return -1;
        }
        st->rows = rows;
        st->cap_rows = bigger;
    }
    merged_row *r = &st->rows[st->n_rows];
    r->index = index;
    r->file_no = st->file_no;
    size_t n = strlen(line) + 1;
    r->line = malloc(n);
    if (!r->line) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    memcpy(r->line, line, n);
    r->file = file;
    r->line_no = line_no;
    st->n_rows++;
    return 0;
}

static int by_case(const void *a, const void *b)
{
    const merged_row *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    if (x->file_no != y->file_no)
        return x->file_no < y->file_no ? -1 : 1;
    return x->line_no < y->line_no ? -1 : x->line_no > y->line_no;
}

static int check_header(merge_rows *st, const char *file, long line_no, const char *header,
                        char *err, size_t err_len)
{
    if (!st->header) {
        st->header = malloc(strlen(header) + 1);
        if (!st->header)
            return -1;
        strcpy(st->header, header);
        st->header_file = file;
        return 0;
    }
    if (strcmp(st->header, header) != 0) {
        snprintf(err, err_len, "%s:%ld: %s differs from %s's: not the same sweep", file,
                line_no, st->format == SWEEP_CSV ? "header" : "JSON members", st->header_file);
        return -1;
    }
    return 0;
}

static int merge_csv_line(merge_rows *st, const char *file, long line_no, const char *line,
                          char **scratch, char *err, size_t err_len)
{
    enum { MAX_FIELDS = 256 };
    char *fields[MAX_FIELDS];
    strcpy(*scratch, line);
    int n = sweep_csv_split(*scratch, fields, MAX_FIELDS);
    if (n < 0) {
        snprintf(err, err_len, "%s:%ld: malformed CSV line", file, line_no);
        return -1;
    }
    if (line_no == 1) {
        if (check_header(st, file, line_no, line, err, err_len))
            return -1;
        st->case_col = st->cases_col = -1;
        for (int k = 0; k < n; k++) {
            if (strcmp(fields[k], "case") == 0)
                st->case_col = k;
            if (strcmp(fields[k], "cases") == 0)
                st->cases_col = k;
        }
        if (st->case_col < 0 || st->cases_col < 0) {
            snprintf(err, err_len, "%s:1: no \"case\" and \"cases\" columns: not the output "
                            "of gcsim sweep", file);
            return -1;
        }
        return 0;
    }
    long long index, total;
    if (n <= st->case_col || n <= st->cases_col || parse_count(fields[st->case_col], &index) ||
        parse_count(fields[st->cases_col], &total)) {
        snprintf(err, err_len, "%s:%ld: no case index and total in columns %d and %d",
                file, line_no, st->case_col + 1, st->cases_col + 1);
        return -1;
    }
    return add_row(st, file, line_no, line, index, total, err, err_len);
}

static int merge_json_line(merge_rows *st, const char *file, long line_no, const char *line,
                           char *err, size_t err_len)
{
    cJSON *o = cJSON_Parse(line);
    if (!cJSON_IsObject(o)) {
        snprintf(err, err_len, "%s:%ld: not a JSON object", file, line_no);
        cJSON_Delete(o);
        return -1;
    }
    char *keys = json_keys(o);
    int rc = -1;
    if (!keys || check_header(st, file, line_no, keys, err, err_len))
        goto done;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "case");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "cases");
    if (!cJSON_IsNumber(c) || !cJSON_IsNumber(t) || !(c->valuedouble >= 0) ||
        !(t->valuedouble >= 0) || c->valuedouble > 4503599627370496.0 ||
        t->valuedouble > 4503599627370496.0 || c->valuedouble != floor(c->valuedouble) ||
        t->valuedouble != floor(t->valuedouble)) {
        snprintf(err, err_len, "%s:%ld: $.case and $.cases must be integers", file,
                line_no);
        goto done;
    }
    rc = add_row(st, file, line_no, line, (long long)c->valuedouble, (long long)t->valuedouble,
                 err, err_len);
done:
    free(keys);
    cJSON_Delete(o);
    return rc;
}

static int merge_file(merge_rows *st, const char *file, long *lines, char *err, size_t err_len)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(err, err_len, "%s: cannot open: %s", file, strerror(errno));
        return -1;
    }
    char *buf = NULL, *scratch = NULL;
    size_t cap = 0, scratch_cap = 0;
    long line_no = 0;
    int rc = 0;
    for (;;) {
        long nul_at = 0;
        long len = read_line(f, &buf, &cap, &nul_at);
        if (len == -1)
            break;
        line_no++;
        if (len == -2) {
            snprintf(err, err_len, "%s:%ld: last line has no end: a cut file", file,
                    line_no);
            rc = -1;
            break;
        }
        if (len == -3) {
            snprintf(err, err_len, "%s:%ld: line longer than %ld bytes: not the output of "
                            "gcsim sweep", file, line_no, MERGE_MAX_LINE_BYTES);
            rc = -1;
            break;
        }
        if (len == -4) {
            snprintf(err, err_len, "%s:%ld: NUL byte at column %ld: not the output of "
                            "gcsim sweep", file, line_no, nul_at + 1);
            rc = -1;
            break;
        }
        int format = buf[0] == '{' ? SWEEP_JSONL : SWEEP_CSV;
        if (line_no == 1) {
            if (st->format < 0)
                st->format = format;
            else if (format != st->format) {
                snprintf(err, err_len, "%s:1: %s, but %s is %s", file,
                        format == SWEEP_CSV ? "CSV" : "JSON lines", st->header_file,
                        st->format == SWEEP_CSV ? "CSV" : "JSON lines");
                rc = -1;
                break;
            }
        }
        if (st->format == SWEEP_CSV) {
            if ((size_t)len + 1 > scratch_cap) {
                char *s = realloc(scratch, (size_t)len + 1);
                if (!s) {
                    rc = -1;
                    break;
                }
                scratch = s;
                scratch_cap = (size_t)len + 1;
            }
            rc = merge_csv_line(st, file, line_no, buf, &scratch, err, err_len);
        } else {
            rc = merge_json_line(st, file, line_no, buf, err, err_len);
        }
        if (rc)
            break;
    }
    if (!rc && ferror(f)) {
        snprintf(err, err_len, "%s: read error", file);
        rc = -1;
    }
    *lines = line_no;
    free(buf);
    free(scratch);
    fclose(f);
    return rc;
}

int merge_write(const merge_rows *st, FILE *out)
{
    if (st->format == SWEEP_CSV && st->header)
        fprintf(out, "%s\n", st->header);
    for (long long i = 0; i < st->n_rows; i++)
        fprintf(out, "%s\n", st->rows[i].line);
    return ferror(out) ? -1 : 0;
}

merge_rows *merge_new(void)
{
    merge_rows *m = calloc(1, sizeof *m);
    if (m) {
        m->total = -1;
        m->format = -1;
    }
    return m;
}

void merge_free(merge_rows *m)
{
    if (!m)
        return;
    for (long long i = 0; i < m->n_rows; i++)
        free(m->rows[i].line);
    free(m->rows);
    free(m->header);
    free(m);
}

int merge_add_file(merge_rows *m, const char *file, int file_no, char *err, size_t err_len)
{
    long lines = 0;
    m->file_no = file_no;
    if (err_len)
        err[0] = '\0';
    if (merge_file(m, file, &lines, err, err_len)) {
        if (err_len && !err[0])
            snprintf(err, err_len, "%s: out of memory", file);
        return -1;
    }
    if (lines == 0 && !m->empty_file)
        m->empty_file = file;
    return 0;
}

int merge_finish(merge_rows *st, char *err, size_t err_len)
{
    /* An empty file is a JSON lines shard without cases; a CSV output always has its
     * header, so among CSV files an empty one is a run that never finished. */
    if (st->empty_file && st->format == SWEEP_CSV) {
        snprintf(err, err_len, "%s: empty, but %s is CSV, which always has a header line",
                 st->empty_file, st->header_file);
        return -1;
    }
    if (st->total < 0)
        st->total = 0;
    if (st->n_rows)
        qsort(st->rows, (size_t)st->n_rows, sizeof *st->rows, by_case);
    for (long long i = 1; i < st->n_rows; i++)
        if (st->rows[i].index == st->rows[i - 1].index) {
            snprintf(err, err_len, "%s:%ld: case %lld is already in %s:%ld", st->rows[i].file,
                     st->rows[i].line_no, st->rows[i].index, st->rows[i - 1].file,
                     st->rows[i - 1].line_no);
            return -1;
        }
    /* Sorted, in range and unique: complete exactly when there are total rows. */
    long long missing = st->total - st->n_rows;
    if (missing) {
        char list[512] = "";
        int shown = 0;
        long long next = 0; /* the next case expected in the sorted rows */
        for (long long i = 0; i <= st->n_rows && shown < 10; i++) {
            long long upto = i < st->n_rows ? st->rows[i].index : st->total;
            for (; next < upto && shown < 10; next++, shown++) {
                size_t len = strlen(list);
                snprintf(list + len, sizeof list - len, "%s%lld", shown ? ", " : "", next);
            }
            next = upto + 1;
        }
        snprintf(err, err_len, "%lld of %lld cases are in none of the files: %s%s", missing,
                 st->total, list, missing > shown ? ", ..." : "");
        return -1;
    }
    return 0;
}

long long merge_row_count(const merge_rows *m)
{
    return m->n_rows;
}

long long merge_case_count(const merge_rows *m)
{
    return m->total < 0 ? 0 : m->total;
}
