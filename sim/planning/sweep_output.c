/* Streaming CSV / JSON lines rows (sweep_output.h). */
/* fputs_unlocked, fwrite_unlocked (GNU) */
#define _GNU_SOURCE
#include "sweep_output.h"

#include "number_text.h"
#include "schema_version.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void sweep_writer_begin(sweep_writer *w, sweep_format format, FILE *out,
                        const char *const *keys, int n_cols)
{
    w->format = format;
    w->out = out;
    w->n_cols = n_cols;
    w->keys = keys;
    w->col = 0;
    w->len = 0;
    if (format == SWEEP_CSV) {
        for (int c = 0; c < n_cols; c++)
            fprintf(out, "%s%s", c ? "," : "", keys[c]);
        fputc('\n', out);
    }
}

/* The row so far to out (the stdio calls that take no lock: a sweep writes millions of
 * rows from one thread). */
static void flush_row(sweep_writer *w)
{
    if (w->len)
        fwrite_unlocked(w->row, 1, w->len, w->out);
    w->len = 0;
}

static void put(sweep_writer *w, const char *s, size_t n)
{
    if (w->len + n > sizeof w->row) {
        flush_row(w);
        if (n > sizeof w->row) {
            fwrite_unlocked(s, 1, n, w->out);
            return;
        }
    }
    memcpy(w->row + w->len, s, n);
    w->len += n;
}

static void put_char(sweep_writer *w, char ch)
{
    if (w->len == sizeof w->row)
        flush_row(w);
    w->row[w->len++] = ch;
}

static void put_str(sweep_writer *w, const char *s)
{
    put(w, s, strlen(s));
}

void sweep_row_begin(sweep_writer *w)
{
    w->col = 0;
    /* Every JSON line names its schema (docs/schema.md), so one line read alone does. */
    if (w->format == SWEEP_JSONL) {
        char head[64];
        int n = snprintf(head, sizeof head, "{\"schema_version\":%d", GCSIM_SCHEMA_VERSION);
        put(w, head, (size_t)n);
    }
}

/* Separator and, in JSON, the member name. */
static void cell_start(sweep_writer *w)
{
    if (w->format == SWEEP_CSV) {
        if (w->col)
            put_char(w, ',');
    } else {
        put(w, ",\"", 2);
        put_str(w, w->keys[w->col]);
        put(w, "\":", 2);
    }
    w->col++;
}

void sweep_cell_int(sweep_writer *w, long long v)
{
    cell_start(w);
    char buf[NUMBER_TEXT_MAX];
    int n = number_text_lld(buf, v);
    put(w, buf, (size_t)n);
}

void sweep_cell_num(sweep_writer *w, double v)
{
    cell_start(w);
    if (isfinite(v)) {
        char buf[NUMBER_TEXT_MAX];
        int n = number_text_g17(buf, v);
        put(w, buf, (size_t)n);
    } else if (w->format == SWEEP_JSONL) {
        put(w, "null", 4);
    }
}

void sweep_cell_empty(sweep_writer *w)
{
    cell_start(w);
    if (w->format == SWEEP_JSONL)
        put(w, "null", 4);
}

static void json_string(sweep_writer *w, const char *s)
{
    put_char(w, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            put_char(w, '\\');
            put_char(w, (char)*p);
        } else if (*p == '\n' || *p == '\r' || *p == '\t') {
            put_char(w, ' ');
        } else if (*p < 0x20) {
            char esc[8];
            int n = snprintf(esc, sizeof esc, "\\u%04x", *p);
            put(w, esc, (size_t)n);
        } else {
            put_char(w, (char)*p);
        }
    }
    put_char(w, '"');
}

static void csv_string(sweep_writer *w, const char *s)
{
    /* most cells need neither quotes nor replaced line breaks: copied in one piece */
    size_t plain = strcspn(s, ",\"\n\r");
    if (!s[plain]) {
        put(w, s, plain);
        return;
    }
    bool quote = strpbrk(s, ",\"") != NULL;
    if (quote)
        put_char(w, '"');
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            put_char(w, '"');
        put_char(w, *p == '\n' || *p == '\r' ? ' ' : *p);
    }
    if (quote)
        put_char(w, '"');
}

void sweep_cell_str(sweep_writer *w, const char *s)
{
    cell_start(w);
    if (w->format == SWEEP_JSONL)
        json_string(w, s);
    else
        csv_string(w, s);
}

void sweep_row_end(sweep_writer *w)
{
    if (w->format == SWEEP_JSONL)
        put_char(w, '}');
    put_char(w, '\n');
    flush_row(w);
}

char *sweep_cells_capture(const sweep_writer *w, int col,
                          void (*fill)(sweep_writer *, const void *), const void *arg,
                          size_t *len, int *n)
{
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    if (!mem)
        return NULL;
    /* a writer like w with an empty row of its own, whose cells end up in mem (w's row
     * so far is not w's to write here) */
    sweep_writer *t = malloc(sizeof *t);
    if (!t) {
        fclose(mem);
        free(text);
        return NULL;
    }
    sweep_writer_begin(t, SWEEP_JSONL, mem, w->keys, w->n_cols); /* JSONL: no header */
    t->format = w->format;
    t->col = col;
    fill(t, arg);
    flush_row(t);
    *n = t->col - col;
    free(t);
    if (fclose(mem) != 0) {
        free(text);
        return NULL;
    }
    *len = size;
    return text;
}

void sweep_cells_put(sweep_writer *w, const char *text, size_t len, int n)
{
    put(w, text, len);
    w->col += n;
}

int sweep_csv_split(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n >= max)
            return -1;
        if (*p == '"') {
            /* Quoted: unescape "" in place. */
            char *dst = ++p;
            fields[n++] = dst;
            for (;;) {
                if (*p == '\0')
                    return -1; /* unterminated quote */
                if (*p == '"') {
                    if (p[1] == '"') {
                        *dst++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                *dst++ = *p++;
            }
            if (*p != ',' && *p != '\0')
                return -1; /* text after the closing quote */
            char sep = *p;
            *dst = '\0';
            if (sep == '\0')
                return n;
            p++;
        } else {
            fields[n++] = p;
            char *comma = strchr(p, ',');
            if (strchr(p, '"') && (!comma || strchr(p, '"') < comma))
                return -1; /* a quote inside an unquoted field */
            if (!comma)
                return n;
            *comma = '\0';
            p = comma + 1;
        }
    }
}
