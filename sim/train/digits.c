/* sim/train/digits.c: the 8x8 UCI digits from scikit-learn's digits.csv.gz; see digits.h. */
#include "digits.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gz_read.h"

enum { PIXELS = DIGITS_SIDE * DIGITS_SIDE, CLASSES = 10 };
/* scikit-learn's file inflates to about 290 KB; anything far beyond is not that file. */
#define DIGITS_MAX_BYTES ((size_t)64 << 20)

static int read_all(const char *path, char **text, size_t *len, char *err, size_t err_len)
{
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        snprintf(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    fclose(probe);
    unsigned char *buf;
    size_t n;
    int stopped_early;
    if (train_gz_read(path, 0, DIGITS_MAX_BYTES, &buf, &n, &stopped_early, err, err_len))
        return -1;
    *text = (char *)buf;
    *len = n;
    return 0;
}

/* Parses one line of 65 integers into img[64], *label; -1 with the reason in err. */
static int parse_line(const char *path, size_t line_no, const char *p, const char *end,
                      unsigned char *img, unsigned char *label, char *err, size_t err_len)
{
    for (int field = 0; field <= PIXELS; field++) {
        if (p >= end || *p < '0' || *p > '9')
            return snprintf(err, err_len, "%s: line %zu, field %d: expected a non-negative "
                            "integer (64 pixels and a label per line)", path, line_no, field + 1), -1;
        long v = 0;
        while (p < end && *p >= '0' && *p <= '9' && v <= 1000) v = v * 10 + (*p++ - '0');
        int max = field < PIXELS ? DIGITS_MAX_PIXEL : CLASSES - 1;
        if (v > max)
            return snprintf(err, err_len, "%s: line %zu, field %d: %ld is out of range 0..%d (%s)",
                            path, line_no, field + 1, v, max,
                            field < PIXELS ? "pixel" : "label"), -1;
        if (field < PIXELS) img[field] = (unsigned char)v;
        else *label = (unsigned char)v;
        if (field < PIXELS) {
            if (p >= end || *p != ',')
                return snprintf(err, err_len, "%s: line %zu: %d fields, expected 65", path,
                                line_no, field + 1), -1;
            p++;
        }
    }
    if (p != end)
        return snprintf(err, err_len, "%s: line %zu: more than 65 fields", path, line_no), -1;
    return 0;
}

int digits_load(const char *dir, const char *prefix, size_t limit, fmnist_split *out,
                char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    int test = strcmp(prefix, "t10k") == 0;
    if (!test && strcmp(prefix, "train") != 0)
        return snprintf(err, err_len, "digits: unknown split \"%s\" (train or t10k)", prefix), -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, DIGITS_FILE);
    char *text;
    size_t len;
    if (read_all(path, &text, &len, err, err_len) != 0) return -1;
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n') lines++;
    if (len > 0 && text[len - 1] != '\n') lines++;
    if (lines < 4) {
        free(text);
        return snprintf(err, err_len, "%s: %zu lines, need at least 4 to split train and test",
                        path, lines), -1;
    }
    const size_t n_test = (lines + 3) / 4, first = test ? lines - n_test : 0;
    size_t count = test ? n_test : lines - n_test;
    if (limit > 0 && limit < count) count = limit;
    out->images = malloc(count * PIXELS);
    out->labels = malloc(count ? count : 1);
    if (!out->images || !out->labels) {
        snprintf(err, err_len, "%s: out of memory", path);
        goto fail;
    }
    /* Every line is parsed (the split is only valid if the whole file is), the split's
     * first count lines are kept. */
    const char *p = text, *end = text + len;
    for (size_t line = 0; line < lines; line++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        const char *stop = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
        unsigned char img[PIXELS], label;
        if (parse_line(path, line + 1, p, stop, img, &label, err, err_len) != 0) goto fail;
        if (line >= first && line - first < count) {
            memcpy(out->images + (line - first) * PIXELS, img, PIXELS);
            out->labels[line - first] = label;
        }
        p = eol < end ? eol + 1 : end;
    }
    free(text);
    out->count = count;
    out->pixels = PIXELS;
    out->side = DIGITS_SIDE;
    out->name = "UCI digits 8x8 (scikit-learn copy)";
    return 0;
fail:
    free(text);
    free(out->images);
    free(out->labels);
    memset(out, 0, sizeof *out);
    return -1;
}

int train_data_load(const char *dir, const char *prefix, size_t limit, fmnist_split *out,
                    char *err, size_t err_len)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, DIGITS_FILE);
    if (stat(path, &st) == 0) return digits_load(dir, prefix, limit, out, err, err_len);
    return fmnist_load(dir, prefix, limit, out, err, err_len);
}
