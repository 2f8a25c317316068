/*
 * The sweep writer's row buffer (sim/planning/sweep_output.c, issue 47): cells are held in
 * the writer and a row goes to its FILE at sweep_row_end, in one piece when it fits in
 * SWEEP_ROW_BUFFER and in pieces when it does not, with the same bytes either way. Checked
 * here: a short row reaches the FILE only at its end; rows longer than the buffer (one
 * long plain cell, one long quoted cell, one long JSON string with escapes, many cells)
 * against their text built by hand; cells captured and put again (sweep_cells_capture /
 * sweep_cells_put) give the bytes of the same cells written directly, also when the
 * captured text is longer than the buffer and the row already holds text.
 * Usage: test_sweep_row_buffer
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "planning.h"
#include "schema_version.h"

static const char *const keys[] = {"a", "b", "c", "d"};

/* A memstream and a writer on it; the header (CSV: "a,b,c,d\n") is written. */
typedef struct {
    char *text;
    size_t size;
    FILE *f;
    sweep_writer w;
} sink;

static int sink_open(sink *s, sweep_format format)
{
    s->text = NULL;
    s->size = 0;
    s->f = open_memstream(&s->text, &s->size);
    if (!s->f)
        return -1;
    sweep_writer_begin(&s->w, format, s->f, keys, 4);
    return 0;
}

/* The text written, the header included (malloc'd by the memstream). */
static char *sink_close(sink *s)
{
    fclose(s->f);
    return s->text;
}

static size_t flushed_size(sink *s)
{
    fflush(s->f);
    return s->size;
}

/* n copies of ch, NUL-terminated (malloc'd) */
static char *repeat(char ch, size_t n)
{
    char *t = malloc(n + 1);
    if (t) {
        memset(t, ch, n);
        t[n] = '\0';
    }
    return t;
}

static int same(const char *what, const char *got, const char *want)
{
    int ok = got && want && strcmp(got, want) == 0;
    if (!ok)
        fprintf(stderr, "%s: got %zu bytes, want %zu\n", what, got ? strlen(got) : 0,
                want ? strlen(want) : 0);
    return ok;
}

/* A short row: nothing of it in the FILE before sweep_row_end, all of it after. */
static int short_row_at_end(void)
{
    sink s;
    if (sink_open(&s, SWEEP_CSV))
        return 0;
    size_t header = flushed_size(&s); /* "a,b,c,d\n" */
    sweep_row_begin(&s.w);
    sweep_cell_int(&s.w, 42);
    sweep_cell_num(&s.w, 0.5);
    sweep_cell_str(&s.w, "x,y");
    sweep_cell_empty(&s.w);
    size_t before_end = flushed_size(&s);
    sweep_row_end(&s.w);
    size_t after_end = flushed_size(&s);
    char *got = sink_close(&s);
    int ok = header == 8 && before_end == header && after_end == header + strlen("42,0.5,\"x,y\",\n") &&
             same("short row", got, "a,b,c,d\n42,0.5,\"x,y\",\n");
    free(got);
    return ok;
}

/* A plain cell of 3 x SWEEP_ROW_BUFFER bytes between two integers. */
static int long_plain_cell(void)
{
    size_t n = 3 * SWEEP_ROW_BUFFER;
    char *x = repeat('x', n), *want = malloc(n + 64);
    sink s;
    int ok = 0;
    if (x && want && !sink_open(&s, SWEEP_CSV)) {
        sweep_row_begin(&s.w);
        sweep_cell_int(&s.w, 7);
        sweep_cell_str(&s.w, x);
        sweep_cell_int(&s.w, 8);
        sweep_row_end(&s.w);
        char *got = sink_close(&s);
        snprintf(want, n + 64, "a,b,c,d\n7,%s,8\n", x);
        ok = same("long plain cell", got, want);
        free(got);
    }
    free(x);
    free(want);
    return ok;
}

/* A cell that needs quotes, longer than the buffer: "q,q" then n quotes, each doubled. */
static int long_quoted_cell(void)
{
    size_t n = SWEEP_ROW_BUFFER + 100;
    char *cell = malloc(n + 4), *want = malloc(2 * n + 64);
    sink s;
    int ok = 0;
    if (cell && want && !sink_open(&s, SWEEP_CSV)) {
        strcpy(cell, "q,q");
        memset(cell + 3, '"', n);
        cell[n + 3] = '\0';
        sweep_row_begin(&s.w);
        sweep_cell_str(&s.w, cell);
        sweep_cell_int(&s.w, 1);
        sweep_row_end(&s.w);
        char *got = sink_close(&s);
        size_t k = (size_t)sprintf(want, "a,b,c,d\n\"q,q");
        for (size_t i = 0; i < n; i++) {
            want[k++] = '"';
            want[k++] = '"';
        }
        strcpy(want + k, "\",1\n");
        ok = same("long quoted cell", got, want);
        free(got);
    }
    free(cell);
    free(want);
    return ok;
}

/* A JSON line whose string holds, SWEEP_ROW_BUFFER times, a quote, a backslash, a tab and
 * the control byte 0x01: escaped as \", \\, a space and \u0001. */
static int long_json_string(void)
{
    size_t reps = SWEEP_ROW_BUFFER;
    char *cell = malloc(4 * reps + 1), *want = malloc(11 * reps + 128);
    sink s;
    int ok = 0;
    if (cell && want && !sink_open(&s, SWEEP_JSONL)) {
        for (size_t i = 0; i < reps; i++)
            memcpy(cell + 4 * i, "\"\\\t\x01", 4);
        cell[4 * reps] = '\0';
        sweep_row_begin(&s.w);
        sweep_cell_int(&s.w, 3);
        sweep_cell_str(&s.w, cell);
        sweep_cell_num(&s.w, INFINITY);
        sweep_cell_empty(&s.w);
        sweep_row_end(&s.w);
        char *got = sink_close(&s);
        size_t k = (size_t)sprintf(want, "{\"schema_version\":%d,\"a\":3,\"b\":\"",
                                   GCSIM_SCHEMA_VERSION);
        for (size_t i = 0; i < reps; i++) {
            memcpy(want + k, "\\\"\\\\ \\u0001", 11);
            k += 11;
        }
        strcpy(want + k, "\",\"c\":null,\"d\":null}\n");
        ok = same("long JSON string", got, want);
        free(got);
    }
    free(cell);
    free(want);
    return ok;
}

/* 2,000 integer cells in one row (more than the buffer holds): "0,1,...,1999". */
static int many_cells(void)
{
    sink s;
    if (sink_open(&s, SWEEP_CSV))
        return 0;
    char *want = malloc(16 * 2000 + 64);
    if (!want) {
        free(sink_close(&s));
        return 0;
    }
    size_t k = (size_t)sprintf(want, "a,b,c,d\n");
    sweep_row_begin(&s.w);
    for (int i = 0; i < 2000; i++) {
        sweep_cell_int(&s.w, i);
        k += (size_t)sprintf(want + k, "%s%d", i ? "," : "", i);
    }
    sweep_row_end(&s.w);
    strcpy(want + k, "\n");
    char *got = sink_close(&s);
    int ok = same("many cells", got, want);
    free(got);
    free(want);
    return ok;
}

typedef struct {
    const char *long_cell;
} segment_arg;

/* three cells, one of them long */
static void fill_segment(sweep_writer *w, const void *arg)
{
    const segment_arg *a = arg;
    sweep_cell_num(w, 0.1);
    sweep_cell_str(w, a->long_cell);
    sweep_cell_int(w, -5);
}

/* The same row written directly and with its last three cells captured and put again. */
static int capture_put(sweep_format format)
{
    char *x = repeat('y', 2 * SWEEP_ROW_BUFFER + 3);
    segment_arg arg = {x};
    sink direct, again;
    if (!x || sink_open(&direct, format) || sink_open(&again, format)) {
        free(x);
        return 0;
    }
    sweep_row_begin(&direct.w);
    sweep_cell_int(&direct.w, 11);
    fill_segment(&direct.w, &arg);
    sweep_row_end(&direct.w);

    sweep_row_begin(&again.w);
    sweep_cell_int(&again.w, 11);
    size_t len = 0;
    int n = 0;
    char *seg = sweep_cells_capture(&again.w, again.w.col, fill_segment, &arg, &len, &n);
    int ok = seg && n == 3 && len == strlen(seg);
    if (seg)
        sweep_cells_put(&again.w, seg, len, n);
    ok = ok && again.w.col == 4;
    sweep_row_end(&again.w);
    char *want = sink_close(&direct), *got = sink_close(&again);
    ok = ok && same(format == SWEEP_CSV ? "capture, CSV" : "capture, JSON lines", got, want);
    free(seg);
    free(want);
    free(got);
    free(x);
    return ok;
}

int main(void)
{
    CHECK(short_row_at_end());
    CHECK(long_plain_cell());
    CHECK(long_quoted_cell());
    CHECK(long_json_string());
    CHECK(many_cells());
    CHECK(capture_put(SWEEP_CSV));
    CHECK(capture_put(SWEEP_JSONL));
    CHECK_DONE();
}
