/* A text table laid out to fit a width; see report_fit.h. */
#include "report_fit.h"

#include <stdlib.h>
#include <string.h>

/* A text column wider than this is listed after the tables rather than kept in one: a
 * 40-character cell already takes most of a 100-column line beside the row's keys. */
enum { LONG_TEXT_COLUMNS = 40 };

int fit_text_width(const char *s)
{
    int n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            n++;
    return n;
}

/* The byte length of the first `chars` characters of s. */
static size_t prefix_bytes(const char *s, int chars)
{
    size_t b = 0;
    while (s[b] && chars > 0) {
        b++;
        while (((unsigned char)s[b] & 0xC0) == 0x80)
            b++;
        chars--;
    }
    return b;
}

static void spaces(FILE *out, int n)
{
    for (; n > 0; n--)
        fputc(' ', out);
}

void fit_wrap(FILE *out, const char *lead, const char *text, int indent, int width)
{
    int col = fit_text_width(lead), line_start = col;
    fputs(lead, out);
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\n')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, " \n");
        char *word = malloc(len + 1);
        if (!word)
            break;
        memcpy(word, p, len);
        word[len] = '\0';
        p += len;
        const char *w = word;
        int wl = fit_text_width(w);
        if (col > line_start && col + 1 + wl > width) { /* the next line */
            fputc('\n', out);
            spaces(out, indent);
            col = line_start = indent;
        }
        if (col > line_start) {
            fputc(' ', out);
            col++;
        }
        /* a word longer than what is left of a fresh line: broken where the line ends */
        while (col + wl > width && width - col > 0 && wl > width - indent) {
            int room = width - col;
            size_t b = prefix_bytes(w, room);
            /* after a comma or a slash when there is one in the second half: a spec or a
             * path keeps its items whole */
            for (size_t k = b; k > prefix_bytes(w, room / 2); k--)
                if (w[k - 1] == ',' || w[k - 1] == '/') {
                    b = k;
                    break;
                }
            fwrite(w, 1, b, out);
            fputc('\n', out);
            spaces(out, indent);
            w += b;
            wl = fit_text_width(w);
            col = line_start = indent;
        }
        fputs(w, out);
        col += wl;
        free(word);
    }
    fputc('\n', out);
}

static const char *cell_at(const fit_table *t, int row, int c)
{
    return t->cells[(size_t)row * t->n_cols + c];
}

/* One cell padded to w, text left and numbers right, after two spaces unless first. */
static void put_cell(FILE *out, const char *text, bool left, int w, bool first)
{
    if (!first)
        fputs("  ", out);
    int pad = w - fit_text_width(text);
    if (!left)
        spaces(out, pad);
    fputs(text, out);
    if (left)
        spaces(out, pad);
}

/* Writes a line held in a memory stream without its trailing spaces. */
static void flush_line(FILE *out, char **buf, size_t *len, FILE *line)
{
    fflush(line);
    size_t n = *len;
    while (n > 0 && (*buf)[n - 1] == ' ')
        n--;
    fwrite(*buf, 1, n, out);
    fputc('\n', out);
    rewind(line);
    *len = 0;
}

/* How many stacked tables the columns order[n_keys..n) take when each is at most limit wide
 * (a column wider than that alone: n + 1, more than any packing that fits). */
static int count_tables(const int *order, const int *w, const bool *is_long, int n, int n_keys,
                        int keys_w, int limit)
{
    int tables = 0, used = limit + 1;
    for (int i = n_keys; i < n; i++) {
        int c = order[i];
        if (is_long[c])
            continue;
        if (keys_w + 2 + w[c] > limit)
            return n + 1;
        if (used + 2 + w[c] > limit) {
            tables++;
            used = keys_w;
        }
        used += 2 + w[c];
    }
    return tables;
}

/* t with a first column "row" (1, 2, ...) that names the rows, then the columns in order. */
static int write_numbered(const fit_table *t, const int *order, int n, int width, FILE *out)
{
    int m = n + 1;
    const char **headers = calloc((size_t)m, sizeof *headers);
    const char **briefs = calloc((size_t)m, sizeof *briefs);
    const char **cells = calloc((size_t)t->n_rows * m + 1, sizeof *cells);
    bool *left = calloc((size_t)t->n_rows * m + 1, sizeof *left);
    char *numbers = calloc((size_t)t->n_rows + 1, 24);
    int *lead = calloc((size_t)m, sizeof *lead);
    if (!headers || !briefs || !cells || !left || !numbers || !lead) {
        fprintf(stderr, "gcsim: out of memory\n");
        exit(2);
    }
    headers[0] = "row";
    for (int c = 0; c < n; c++) {
        headers[c + 1] = t->headers[c];
        briefs[c + 1] = t->briefs ? t->briefs[c] : NULL;
    }
    for (int row = 0; row < t->n_rows; row++) {
        snprintf(numbers + (size_t)row * 24, 24, "%d", row + 1);
        cells[(size_t)row * m] = numbers + (size_t)row * 24;
        for (int c = 0; c < n; c++) {
            cells[(size_t)row * m + c + 1] = cell_at(t, row, c);
            left[(size_t)row * m + c + 1] = t->left[(size_t)row * n + c];
        }
    }
    lead[0] = 0;
    for (int i = 0; i < n; i++)
        lead[i + 1] = order[i] + 1;
    fit_table u = {.n_cols = m, .n_rows = t->n_rows, .headers = headers, .briefs = briefs,
                   .cells = cells, .left = left, .lead = lead, .n_lead = m, .n_keys = 1,
                   .numbered = true};
    int rc = fit_table_write(&u, width, out);
    free(headers);
    free(briefs);
    free(cells);
    free(left);
    free(numbers);
    free(lead);
    return rc;
}

int fit_table_write(const fit_table *t, int width, FILE *out)
{
    int n = t->n_cols;
    if (n == 0)
        return ferror(out) ? -1 : 0;
    int *order = calloc((size_t)n, sizeof *order), *w = calloc((size_t)n, sizeof *w);
    bool *placed = calloc((size_t)n, sizeof *placed), *text = calloc((size_t)n, sizeof *text);
    bool *is_long = calloc((size_t)n, sizeof *is_long);
    const char **hdr = calloc((size_t)n, sizeof *hdr);
    char *buf = NULL;
    size_t len = 0;
    FILE *line = open_memstream(&buf, &len);
    if (!order || !w || !placed || !text || !is_long || !hdr || !line) {
        fprintf(stderr, "gcsim: out of memory\n");
        exit(2);
    }
    /* the reading order: the lead, then the rest as the CSV has them */
    int k = 0;
    for (int i = 0; i < t->n_lead; i++)
        if (t->lead[i] >= 0 && t->lead[i] < n && !placed[t->lead[i]]) {
            placed[t->lead[i]] = true;
            order[k++] = t->lead[i];
        }
    int n_keys = t->n_keys < k ? t->n_keys : k;
    for (int c = 0; c < n; c++)
        if (!placed[c])
            order[k++] = c;
    if (n_keys < 1)
        n_keys = 1;
    for (int c = 0; c < n; c++) {
        hdr[c] = t->briefs && t->briefs[c] ? t->briefs[c] : t->headers[c];
        w[c] = fit_text_width(hdr[c]);
        for (int row = 0; row < t->n_rows; row++) {
            const char *s = cell_at(t, row, c);
            int cw = fit_text_width(s);
            if (cw > w[c])
                w[c] = cw;
            if (*s && t->left[(size_t)row * n + c])
                text[c] = true;
        }
    }
    /* keys wider than half the line would leave the other columns no room: fewer keys */
    int keys_w;
    for (;;) {
        keys_w = 0;
        for (int i = 0; i < n_keys; i++)
            keys_w += w[order[i]] + (i ? 2 : 0);
        if (n_keys == 1 || keys_w <= width / 2)
            break;
        n_keys--;
    }
    /* one key still wider than half the line (a 100-character compressor spec): the rows
     * are numbered instead, and that column is listed after the tables like a long text */
    if (keys_w > width / 2 && !t->numbered) {
        int rc = write_numbered(t, order, n, width, out);
        fclose(line);
        free(buf);
        free(order);
        free(w);
        free(placed);
        free(text);
        free(is_long);
        free(hdr);
        return rc;
    }
    int room = width - keys_w; /* for the other columns of a table, two spaces each */
    bool any_long = false;
    for (int i = n_keys; i < n; i++) {
        int c = order[i];
        is_long[c] = w[c] + 2 > room || (text[c] && w[c] > LONG_TEXT_COLUMNS);
        any_long |= is_long[c];
    }
    /* the stacked tables: as many as the width needs, their breaks moved so that they are
     * about as wide as each other (no last table of one column) */
    int limit = width, parts = count_tables(order, w, is_long, n, n_keys, keys_w, width);
    while (limit > keys_w &&
           count_tables(order, w, is_long, n, n_keys, keys_w, limit - 1) == parts)
        limit--;
    int next = n_keys;
    bool first_table = true;
    while (next < n || first_table) {
        int from = next, used = keys_w, to = next;
        while (to < n && (is_long[order[to]] || used + 2 + w[order[to]] <= limit)) {
            if (!is_long[order[to]])
                used += 2 + w[order[to]];
            to++;
        }
        if (to == from && to < n) /* cannot happen: a column that fits nowhere is long */
            to++;
        bool has_columns = false;
        for (int i = from; i < to; i++)
            has_columns |= !is_long[order[i]];
        if (has_columns || first_table) {
            if (!first_table)
                fputc('\n', out);
            for (int i = 0; i < n_keys; i++)
                put_cell(line, hdr[order[i]], false, w[order[i]], i == 0);
            for (int i = from; i < to; i++)
                if (!is_long[order[i]])
                    put_cell(line, hdr[order[i]], false, w[order[i]], false);
            flush_line(out, &buf, &len, line);
            for (int row = 0; row < t->n_rows; row++) {
                for (int i = 0; i < n_keys; i++)
                    put_cell(line, cell_at(t, row, order[i]),
                             t->left[(size_t)row * n + order[i]], w[order[i]], i == 0);
                for (int i = from; i < to; i++)
                    if (!is_long[order[i]])
                        put_cell(line, cell_at(t, row, order[i]),
                                 t->left[(size_t)row * n + order[i]], w[order[i]], false);
                flush_line(out, &buf, &len, line);
            }
            first_table = false;
        }
        next = to;
    }
    /* the long text columns, one paragraph per row named by its keys */
    for (int i = n_keys; any_long && i < n; i++) {
        int c = order[i];
        if (!is_long[c])
            continue;
        bool any = false;
        for (int row = 0; row < t->n_rows && !any; row++)
            any = *cell_at(t, row, c) != '\0';
        if (!any)
            continue;
        fprintf(out, "\n%s:\n", t->headers[c]);
        for (int row = 0; row < t->n_rows; row++) {
            const char *s = cell_at(t, row, c);
            if (!*s)
                continue;
            fputs("  ", line);
            for (int j = 0; j < n_keys; j++)
                put_cell(line, cell_at(t, row, order[j]), t->left[(size_t)row * n + order[j]],
                         w[order[j]], j == 0);
            fputs("  ", line);
            fflush(line);
            char *lead = malloc(len + 1);
            if (!lead) {
                fprintf(stderr, "gcsim: out of memory\n");
                exit(2);
            }
            memcpy(lead, buf, len);
            lead[len] = '\0';
            rewind(line);
            len = 0;
            int lead_w = fit_text_width(lead);
            fit_wrap(out, lead, s, lead_w <= width / 2 ? lead_w : 4, width);
            free(lead);
        }
    }
    /* the legend of the short headers shown */
    char *legend = NULL;
    size_t legend_len = 0;
    FILE *lg = open_memstream(&legend, &legend_len);
    if (!lg) {
        fprintf(stderr, "gcsim: out of memory\n");
        exit(2);
    }
    bool any_brief = false;
    for (int i = 0; i < n; i++) {
        int c = order[i];
        if (is_long[c] || !t->briefs || !t->briefs[c] || !strcmp(t->briefs[c], t->headers[c]))
            continue;
        fprintf(lg, "%s%s = %s", any_brief ? "; " : "", t->briefs[c], t->headers[c]);
        any_brief = true;
    }
    fclose(lg);
    if (any_brief) {
        fputc('\n', out);
        fit_wrap(out, "legend: ", legend, 8, width);
    }
    free(legend);
    fclose(line);
    free(buf);
    free(order);
    free(w);
    free(placed);
    free(text);
    free(is_long);
    free(hdr);
    return ferror(out) ? -1 : 0;
}
