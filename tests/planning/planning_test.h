/*
 * tests/planning/planning_test.h: what the planning tests share: running gcsim through the
 * shell with stdout and stderr captured in files of a work folder, and reading files back.
 */
#ifndef GCSIM_TESTS_PLANNING_TEST_H
#define GCSIM_TESTS_PLANNING_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Runs a shell command (printf-style); returns its exit status, or -1. */
static inline int sh(const char *fmt, ...)
{
    char cmd[16384];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof cmd) {
        fprintf(stderr, "command too long\n");
        return -1;
    }
    int rc = system(cmd);
    if (rc == -1 || !WIFEXITED(rc))
        return -1;
    return WEXITSTATUS(rc);
}

/* The whole file, NUL-terminated (caller frees), or NULL. */
static inline char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0, n;
    char *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown) {
                free(buf);
                buf = NULL;
            }
            buf = grown;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* Writes text to a file; 0 on success. */
static inline int spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int rc = fputs(text, f) < 0;
    rc |= fclose(f) != 0;
    return rc ? -1 : 0;
}

/* Splits a CSV line without quotes in place, keeping empty fields; returns the count, or -1
 * when the line holds a quote (the tests keep to values without commas). */
static inline int split_plain_csv(char *line, char **fields, int max)
{
    if (strchr(line, '"'))
        return -1;
    int n = 0;
    for (char *p = line; n < max;) {
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

/* Index of a column name, or -1. */
static inline int column_of(char **header, int n, const char *name)
{
    for (int k = 0; k < n; k++)
        if (strcmp(header[k], name) == 0)
            return k;
    return -1;
}

/* A fresh, empty work folder. */
static inline int fresh_dir(const char *dir)
{
    return sh("rm -rf '%s' && mkdir -p '%s'", dir, dir);
}

#endif
