/* sim/plot/plot_gp.c: the pieces every picture's script is made of (plot_gp.h). Kept
 * apart from plot_script.c's dispatch so that the pictures call down into it and nothing
 * calls back up. */
#include "plot_gp.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int plot_output_is_svg(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return -1;
    if (strcasecmp(dot, ".svg") == 0)
        return 1;
    if (strcasecmp(dot, ".png") == 0)
        return 0;
    return -1;
}

void gp_string(FILE *out, const char *text)
{
    fputc('\'', out);
    for (const char *c = text; *c; c++) {
        if (*c == '\'')
            fputc('\'', out);
        fputc(*c, out);
    }
    fputc('\'', out);
}

void gp_number(FILE *out, double v)
{
    char buf[64];
    plot_number_text(v, buf, sizeof buf);
    fputs(buf, out);
}

/* Characters of the 11-point font per pixel of width, on the safe side (DejaVu Sans
 * averages about 6.5 pixels a character at 11 points; 8 leaves room for wide
 * letters and the margins): subtitles are wrapped to fit. */
static int chars_for(int width_px) { return width_px / 8; }

static int wrap_chars; /* set by gp_header: the width the title wraps to */

void gp_header(FILE *out, const plot_table *t, const plot_options *o, const char *what,
               int width, int height)
{
    fprintf(out, "# gcsim plot: %s, drawn from %s (the %s output of %s).\n", what, t->file,
            plot_format_name(t->format), plot_kind_command(t->kind));
    fputs("# Restyle it and redraw with `gnuplot THIS_FILE`. The picture goes to `out`, set on\n"
          "# the next line unless set before: gnuplot -e \"out='other.svg'\" THIS_FILE (the\n"
          "# terminal line below decides PNG or SVG). The numbers are the data blocks' lines,\n"
          "# each after a comment naming the input line (or JSON row) it came from.\n",
          out);
    fputs("if (!exists(\"out\")) out = ", out);
    gp_string(out, o->output ? o->output : (o->svg ? "plot.svg" : "plot.png"));
    fputc('\n', out);
    if (o->svg)
        fprintf(out, "set terminal svg size %d,%d noenhanced font 'DejaVu Sans,11' linewidth 1.5 "
                     "background rgb 'white'\n", width, height);
    else
        fprintf(out, "set terminal pngcairo size %d,%d noenhanced font 'DejaVu Sans,11' "
                     "linewidth 1.5\n", width, height);
    fputs("set output out\n"
          "set grid ytics lc rgb '#dddddd'\n"
          "set border lc rgb '#444444'\n"
          "set key box opaque samplen 3\n", out);
    wrap_chars = chars_for(width);
}

/* Writes text as gnuplot string pieces joined by "\n", broken at ", " or "; " so that no
 * line passes wrap_chars (a piece longer than that is broken where it is). */
static void wrapped(FILE *out, const char *text)
{
    size_t len = strlen(text), start = 0;
    bool first = true;
    while (start < len) {
        size_t end = len;
        if (len - start > (size_t)wrap_chars) {
            end = start + (size_t)wrap_chars;
            for (size_t k = end; k > start + (size_t)wrap_chars / 3; k--)
                if ((text[k - 1] == ',' || text[k - 1] == ';') && text[k] == ' ') {
                    end = k;
                    break;
                }
        }
        char *piece = strndup(text + start, end - start);
        if (!first)
            fputs(" . \"\\n\" . ", out);
        gp_string(out, piece ? piece : "");
        free(piece);
        first = false;
        start = end;
        while (start < len && text[start] == ' ')
            start++;
    }
}

void gp_title_text(FILE *out, const plot_options *o, const char *fallback, const char *subtitle)
{
    wrapped(out, o->title ? o->title : fallback);
    if (subtitle && *subtitle) {
        fputs(" . \"\\n\" . ", out);
        wrapped(out, subtitle);
    }
}

void gp_title(FILE *out, const plot_options *o, const char *fallback, const char *subtitle)
{
    fputs("set title ", out);
    gp_title_text(out, o, fallback, subtitle);
    fputc('\n', out);
}

const char *const plot_setting_columns[] = {
    "platform", "model", "compressor", "stack", "collective", "sharding", "precision",
    "optimizer", "scaling", "batch", "micro_batch", "grad_accum", "act_ckpt",
    "act_ckpt_policy", "policy", "engine", NULL};

static bool numeric_key(const char *name)
{
    return strcmp(name, "batch") == 0 || strcmp(name, "micro_batch") == 0 ||
           strcmp(name, "grad_accum") == 0;
}

static bool same(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether the compressor specs of rows can be shown by name: no two different specs with
 * the same name before ':'. */
static bool names_unique(const plot_table *t, const int *rows, int n_rows, int col)
{
    for (int a = 0; a < n_rows; a++)
        for (int b = a + 1; b < n_rows; b++) {
            const char *x = plot_table_cell(t, rows[a], col), *y = plot_table_cell(t, rows[b], col);
            if (!x || !y || same(x, y))
                continue;
            size_t nx = strcspn(x, ":"), ny = strcspn(y, ":");
            if (nx == ny && strncmp(x, y, nx) == 0)
                return false;
        }
    return true;
}

void plot_keys_find(const plot_table *t, const int *rows, int n_rows,
                    const char *const *names, plot_keys *varying, plot_keys *constant)
{
    varying->n = constant->n = 0;
    for (const char *const *name = names; *name; name++) {
        int c = plot_table_col(t, *name);
        if (c < 0 || n_rows == 0)
            continue;
        bool varies = false;
        for (int k = 1; k < n_rows && !varies; k++)
            varies = !same(plot_table_cell(t, rows[0], c), plot_table_cell(t, rows[k], c));
        plot_keys *into = varies ? varying : constant;
        if (!varies && !plot_table_cell(t, rows[0], c))
            continue; /* empty in every row: says nothing */
        if (into->n < PLOT_MAX_KEYS) {
            into->col[into->n] = c;
            into->shorten[into->n] = strcmp(*name, "compressor") == 0 &&
                                     names_unique(t, rows, n_rows, c);
            into->n++;
        }
    }
}

void plot_keys_label(const plot_table *t, const plot_keys *k, int row, char *buf, size_t size)
{
    plot_keys_text(t, k, row, false, buf, size);
}

void plot_keys_text(const plot_table *t, const plot_keys *k, int row, bool named, char *buf,
                    size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < k->n && used + 1 < size; i++) {
        const char *name = t->cols[k->col[i]], *v = plot_table_cell(t, row, k->col[i]);
        if (!v)
            v = "-";
        int len = k->shorten[i] ? (int)strcspn(v, ":") : (int)strlen(v);
        bool say = named ? strcmp(name, "platform") && strcmp(name, "model")
                         : numeric_key(name) || strcmp(name, "scaling") == 0;
        int w = say
                    ? snprintf(buf + used, size - used, "%s%s %.*s", i ? ", " : "", name, len, v)
                    : snprintf(buf + used, size - used, "%s%.*s", i ? ", " : "", len, v);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (used >= size)
        used = size - 1;
    /* A label longer than this does not fit a key or a tick. */
    size_t max = named ? size - 1 : 70;
    if (used > max && size > max) {
        size_t keep = max - 3;
        while (keep > 0 && ((unsigned char)buf[keep] & 0xC0) == 0x80)
            keep--; /* not inside a UTF-8 sequence */
        memcpy(buf + keep, "...", 4);
    }
}
