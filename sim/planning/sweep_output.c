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
    *w = (sweep_writer){format, out, n_cols, keys, 0};
    if (format == SWEEP_CSV) {
        for (int c = 0; c < n_cols; c++)
            fprintf(out, "%s%s", c ? "," : "", keys[c]);
        fputc('\n', out);
    }
}

void sweep_row_begin(sweep_writer *w)
{
    w->col = 0;
    /* Every JSON line names its schema (docs/schema.md), so one line read alone does. */
    if (w->format == SWEEP_JSONL)
        fprintf(w->out, "{\"schema_version\":%d", GCSIM_SCHEMA_VERSION);
}

/* Separator and, in JSON, the member name. Cells are written with the stdio calls that
 * take no lock (a sweep writes millions of them from one thread). */
static void cell_start(sweep_writer *w)
{
    if (w->format == SWEEP_CSV) {
        if (w->col)
            putc_unlocked(',', w->out);
    } else {
        fputs_unlocked(",\"", w->out);
        fputs_unlocked(w->keys[w->col], w->out);
        fputs_unlocked("\":", w->out);
    }
    w->col++;
}

void sweep_cell_int(sweep_writer *w, long long v)
{
    cell_start(w);
    char buf[NUMBER_TEXT_MAX];
    int n = number_text_lld(buf, v);
    fwrite_unlocked(buf, 1, (size_t)n, w->out);
}

void sweep_cell_num(sweep_writer *w, double v)
{
    cell_start(w);
    if (isfinite(v)) {
        char buf[NUMBER_TEXT_MAX];
        int n = number_text_g17(buf, v);
        fwrite_unlocked(buf, 1, (size_t)n, w->out);
    } else if (w->format == SWEEP_JSONL) {
        fputs_unlocked("null", w->out);
    }
}

void sweep_cell_empty(sweep_writer *w)
{
    cell_start(w);
    if (w->format == SWEEP_JSONL)
        fputs("null", w->out);
}

static void json_string(FILE *out, const char *s)
{
    putc_unlocked('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n' || *p == '\r' || *p == '\t')
            putc_unlocked(' ', out);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            putc_unlocked(*p, out);
    }
    putc_unlocked('"', out);
}

static void csv_string(FILE *out, const char *s)
{
    /* most cells need neither quotes nor replaced line breaks: written in one piece */
    size_t plain = strcspn(s, ",\"\n\r");
    if (!s[plain]) {
        fwrite_unlocked(s, 1, plain, out);
        return;
    }
    bool quote = strpbrk(s, ",\"") != NULL;
    if (quote)
        putc_unlocked('"', out);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            putc_unlocked('"', out);
        putc_unlocked(*p == '\n' || *p == '\r' ? ' ' : *p, out);
    }
    if (quote)
        putc_unlocked('"', out);
}

void sweep_cell_str(sweep_writer *w, const char *s)
{
    cell_start(w);
    if (w->format == SWEEP_JSONL)
        json_string(w->out, s);
    else
        csv_string(w->out, s);
}

void sweep_row_end(sweep_writer *w)
{
    if (w->format == SWEEP_JSONL)
        putc_unlocked('}', w->out);
    putc_unlocked('\n', w->out);
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
    sweep_writer t = *w;
    t.out = mem;
    t.col = col;
    fill(&t, arg);
    if (fclose(mem) != 0) {
        free(text);
        return NULL;
    }
    *len = size;
    *n = t.col - col;
    return text;
}

void sweep_cells_put(sweep_writer *w, const char *text, size_t len, int n)
{
    fwrite_unlocked(text, 1, len, w->out);
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
