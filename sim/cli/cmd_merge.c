/* gcsim merge: joins the outputs of `gcsim sweep --shard K/N` into the unsharded output. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "cli_args.h"
#include "commands.h"
#include "sweep_output.h"

static void merge_usage(FILE *out)
{
    fprintf(out,
"usage: gcsim merge [--output FILE] SHARD_FILE...\n"
"\n"
"Joins the outputs of `gcsim sweep --shard K/N` (all CSV or all JSON lines) into the\n"
"output the unsharded sweep writes: rows in case order, the CSV header once. Checks that\n"
"the files come from one sweep: the same CSV header (or the same JSON members in every\n"
"line), the same total in `cases`, every case 0..cases-1 exactly once. A problem exits 2\n"
"naming the file and line.\n"
"\n"
"  --output FILE   write there atomically instead of standard output\n");
}

/* A row longer than this is not sweep output (rows are a few hundred bytes; a long error
 * message a few KiB): reading stops there instead of growing without bound (issue 15:
 * `merge /dev/zero` grew to 7.7 GB). */
#define MERGE_MAX_LINE_BYTES (1L << 20)

typedef struct {
    char *line;          /* the row as read, without its newline */
    const char *file;
    long line_no;
    int file_no;         /* position of file on the command line */
    long long index;     /* its case */
} merged_row;

typedef struct {
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
} merge_state;

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

static int parse_count(const char *text, long long *out)
{
    return cli_parse_int(text, 0, (long long)1 << 52, out) ? 0 : -1;
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

static int add_row(merge_state *st, const char *file, long line_no, const char *line,
                   long long index, long long total)
{
    if (st->total < 0) {
        /* Nothing is allocated for the claimed total: memory follows the rows read, so a
         * row claiming cases = 10^9 costs nothing (it took 15.6 GB). */
        st->total = total;
        st->total_file = file;
        st->total_line = line_no;
    } else if (total != st->total) {
        fprintf(stderr, "gcsim merge: %s:%ld: cases = %lld, but %s:%ld says %lld: not the same "
                        "sweep\n", file, line_no, total, st->total_file, st->total_line, st->total);
        return -1;
    }
    if (index < 0 || index >= total) {
        fprintf(stderr, "gcsim merge: %s:%ld: case %lld is outside 0..%lld\n", file, line_no,
                index, total - 1);
        return -1;
    }
    if (st->n_rows == st->cap_rows) {
        long long bigger = st->cap_rows ? 2 * st->cap_rows : 1024;
        merged_row *rows = realloc(st->rows, (size_t)bigger * sizeof *rows);
        if (!rows) {
            fprintf(stderr, "gcsim merge: %s:%ld: out of memory after %lld rows\n", file,
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
        fprintf(stderr, "gcsim merge: out of memory\n");
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

static int check_header(merge_state *st, const char *file, long line_no, const char *header)
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
        fprintf(stderr, "gcsim merge: %s:%ld: %s differs from %s's: not the same sweep\n", file,
                line_no, st->format == SWEEP_CSV ? "header" : "JSON members", st->header_file);
        return -1;
    }
    return 0;
}

static int merge_csv_line(merge_state *st, const char *file, long line_no, const char *line,
                          char **scratch)
{
    enum { MAX_FIELDS = 256 };
    char *fields[MAX_FIELDS];
    strcpy(*scratch, line);
    int n = sweep_csv_split(*scratch, fields, MAX_FIELDS);
    if (n < 0) {
        fprintf(stderr, "gcsim merge: %s:%ld: malformed CSV line\n", file, line_no);
        return -1;
    }
    if (line_no == 1) {
        if (check_header(st, file, line_no, line))
            return -1;
        st->case_col = st->cases_col = -1;
        for (int k = 0; k < n; k++) {
            if (strcmp(fields[k], "case") == 0)
                st->case_col = k;
            if (strcmp(fields[k], "cases") == 0)
                st->cases_col = k;
        }
        if (st->case_col < 0 || st->cases_col < 0) {
            fprintf(stderr, "gcsim merge: %s:1: no \"case\" and \"cases\" columns: not the output "
                            "of gcsim sweep\n", file);
            return -1;
        }
        return 0;
    }
    long long index, total;
    if (n <= st->case_col || n <= st->cases_col || parse_count(fields[st->case_col], &index) ||
        parse_count(fields[st->cases_col], &total)) {
        fprintf(stderr, "gcsim merge: %s:%ld: no case index and total in columns %d and %d\n",
                file, line_no, st->case_col + 1, st->cases_col + 1);
        return -1;
    }
    return add_row(st, file, line_no, line, index, total);
}

static int merge_json_line(merge_state *st, const char *file, long line_no, const char *line)
{
    cJSON *o = cJSON_Parse(line);
    if (!cJSON_IsObject(o)) {
        fprintf(stderr, "gcsim merge: %s:%ld: not a JSON object\n", file, line_no);
        cJSON_Delete(o);
        return -1;
    }
    char *keys = json_keys(o);
    int rc = -1;
    if (!keys || check_header(st, file, line_no, keys))
        goto done;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "case");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "cases");
    if (!cJSON_IsNumber(c) || !cJSON_IsNumber(t) || !(c->valuedouble >= 0) ||
        !(t->valuedouble >= 0) || c->valuedouble > 4503599627370496.0 ||
        t->valuedouble > 4503599627370496.0 || c->valuedouble != floor(c->valuedouble) ||
        t->valuedouble != floor(t->valuedouble)) {
        fprintf(stderr, "gcsim merge: %s:%ld: $.case and $.cases must be integers\n", file,
                line_no);
        goto done;
    }
    rc = add_row(st, file, line_no, line, (long long)c->valuedouble, (long long)t->valuedouble);
done:
    free(keys);
    cJSON_Delete(o);
    return rc;
}

static int merge_file(merge_state *st, const char *file, long *lines)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        fprintf(stderr, "gcsim merge: %s: cannot open: %s\n", file, strerror(errno));
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
            fprintf(stderr, "gcsim merge: %s:%ld: last line has no end: a cut file\n", file,
                    line_no);
            rc = -1;
            break;
        }
        if (len == -3) {
            fprintf(stderr, "gcsim merge: %s:%ld: line longer than %ld bytes: not the output of "
                            "gcsim sweep\n", file, line_no, MERGE_MAX_LINE_BYTES);
            rc = -1;
            break;
        }
        if (len == -4) {
            fprintf(stderr, "gcsim merge: %s:%ld: NUL byte at column %ld: not the output of "
                            "gcsim sweep\n", file, line_no, nul_at + 1);
            rc = -1;
            break;
        }
        int format = buf[0] == '{' ? SWEEP_JSONL : SWEEP_CSV;
        if (line_no == 1) {
            if (st->format < 0)
                st->format = format;
            else if (format != st->format) {
                fprintf(stderr, "gcsim merge: %s:1: %s, but %s is %s\n", file,
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
            rc = merge_csv_line(st, file, line_no, buf, &scratch);
        } else {
            rc = merge_json_line(st, file, line_no, buf);
        }
        if (rc)
            break;
    }
    if (!rc && ferror(f)) {
        fprintf(stderr, "gcsim merge: %s: read error\n", file);
        rc = -1;
    }
    *lines = line_no;
    free(buf);
    free(scratch);
    fclose(f);
    return rc;
}

static int write_merged(const merge_state *st, FILE *out)
{
    if (st->format == SWEEP_CSV && st->header)
        fprintf(out, "%s\n", st->header);
    for (long long i = 0; i < st->n_rows; i++)
        fprintf(out, "%s\n", st->rows[i].line);
    return ferror(out) ? -1 : 0;
}

int cmd_merge(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *output = NULL;
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o': output = optarg; break;
        case 'h': merge_usage(stdout); return EXIT_OK;
        case ':':
            fprintf(stderr, "gcsim merge: %s needs a value\n", argv[optind - 1]);
            return EXIT_BAD_INPUT;
        default:
            fprintf(stderr, "gcsim merge: unknown option \"%s\" (see gcsim merge --help)\n",
                    argv[optind - 1]);
            return EXIT_BAD_INPUT;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "gcsim merge: no shard files (see gcsim merge --help)\n");
        return EXIT_BAD_INPUT;
    }
    merge_state st = {.total = -1, .format = -1};
    int status = EXIT_BAD_INPUT;
    const char *empty_file = NULL;
    for (int k = optind; k < argc; k++) {
        long lines = 0;
        st.file_no = k;
        if (merge_file(&st, argv[k], &lines))
            goto done;
        if (lines == 0 && !empty_file)
            empty_file = argv[k];
    }
    /* An empty file is a JSON lines shard without cases; a CSV output always has its
     * header, so among CSV files an empty one is a run that never finished. */
    if (empty_file && st.format == SWEEP_CSV) {
        fprintf(stderr, "gcsim merge: %s: empty, but %s is CSV, which always has a header line\n",
                empty_file, st.header_file);
        goto done;
    }
    if (st.total < 0)
        st.total = 0;
    if (st.n_rows)
        qsort(st.rows, (size_t)st.n_rows, sizeof *st.rows, by_case);
    for (long long i = 1; i < st.n_rows; i++)
        if (st.rows[i].index == st.rows[i - 1].index) {
            fprintf(stderr, "gcsim merge: %s:%ld: case %lld is already in %s:%ld\n",
                    st.rows[i].file, st.rows[i].line_no, st.rows[i].index, st.rows[i - 1].file,
                    st.rows[i - 1].line_no);
            goto done;
        }
    /* Sorted, in range and unique: complete exactly when there are total rows. */
    long long missing = st.total - st.n_rows;
    if (missing) {
        char list[512] = "";
        int shown = 0;
        long long next = 0; /* the next case expected in the sorted rows */
        for (long long i = 0; i <= st.n_rows && shown < 10; i++) {
            long long upto = i < st.n_rows ? st.rows[i].index : st.total;
            for (; next < upto && shown < 10; next++, shown++) {
                size_t len = strlen(list);
                snprintf(list + len, sizeof list - len, "%s%lld", shown ? ", " : "", next);
            }
            next = upto + 1;
        }
        fprintf(stderr, "gcsim merge: %lld of %lld cases are in none of the files: %s%s\n",
                missing, st.total, list, missing > shown ? ", ..." : "");
        goto done;
    }
    char msg[512];
    if (output) {
        atomic_file f;
        if (atomic_file_open(&f, output, msg, sizeof msg)) {
            fprintf(stderr, "gcsim merge: %s\n", msg);
            goto done;
        }
        if ((errno = 0), write_merged(&st, f.stream)) {
            int write_errno = errno;
            atomic_file_abort(&f);
            fprintf(stderr, "gcsim merge: %s: write failed: %s\n", output, atomic_file_reason(write_errno));
            goto done;
        }
        if (atomic_file_commit(&f, msg, sizeof msg)) {
            fprintf(stderr, "gcsim merge: %s\n", msg);
            goto done;
        }
    } else if ((errno = 0), write_merged(&st, stdout) || fflush(stdout)) {
        fprintf(stderr, "gcsim merge: cannot write to standard output: %s\n", atomic_file_reason(errno));
        goto done;
    }
    status = EXIT_OK;
done:
    for (long long i = 0; i < st.n_rows; i++)
        free(st.rows[i].line);
    free(st.rows);
    free(st.header);
    return status;
}
