/* List-valued options (sweep_lists.h). */
#include "sweep_lists.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor_file.h"

void sweep_list_free(sweep_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

static int push_n(sweep_list *l, const char *item, size_t len)
{
    char **items = realloc(l->items, (size_t)(l->n + 1) * sizeof *items);
    if (!items)
        return -1;
    l->items = items;
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, item, len);
    copy[len] = '\0';
    l->items[l->n++] = copy;
    return 0;
}

int sweep_list_push(sweep_list *l, const char *item)
{
    return push_n(l, item, strlen(item));
}

/* Whether the list holds this item already: a repeated item would repeat its cases (or its
 * plan candidates) without a word, so it is refused (issue 45's hostile round). Items are
 * compared as written: "qsgd" and "qsgd:s=4" are two specs even where they mean one. */
static int holds(const sweep_list *l, const char *item, size_t len)
{
    for (int k = 0; k < l->n; k++)
        if (strlen(l->items[k]) == len && memcmp(l->items[k], item, len) == 0)
            return 1;
    return 0;
}

int sweep_list_add(sweep_list *l, const char *text, const char *option, char *err,
                   size_t err_len)
{
    return sweep_list_add_pieces(l, text, option, 0, err, err_len);
}

int sweep_list_add_pieces(sweep_list *l, const char *text, const char *option,
                          int allow_repeats, char *err, size_t err_len)
{
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) {
            snprintf(err, err_len, "%s: empty item in \"%s\"", option, text);
            return -1;
        }
        if (!allow_repeats && holds(l, p, len)) {
            snprintf(err, err_len, "%s: \"%.*s\" given twice (each item once: a repeated item "
                                   "would repeat its cases)", option, (int)len, p);
            return -1;
        }
        if (push_n(l, p, len)) {
            snprintf(err, err_len, "out of memory");
            return -1;
        }
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

int sweep_list_add_compressors(sweep_list *l, const char *text, char *err, size_t err_len)
{
    sweep_list pieces = {0};
    /* pieces may repeat ("qsgd:s=4,bucket=512,dgc:ratio=0.1,bucket=512"): whole specs may not */
    if (sweep_list_add_pieces(&pieces, text, "--compressor", 1, err, err_len)) {
        sweep_list_free(&pieces);
        return -1;
    }
    int first = l->n;
    for (int k = 0; k < pieces.n; k++) {
        const char *piece = pieces.items[k];
        int continues = strchr(piece, '=') && !strchr(piece, ':');
        if (continues) {
            if (l->n == first) {
                snprintf(err, err_len, "--compressor: \"%s\" has no compressor before it (as in "
                                       "qsgd:s=4,bucket=512)", piece);
                sweep_list_free(&pieces);
                return -1;
            }
            char *prev = l->items[l->n - 1];
            size_t n = strlen(prev) + 1 + strlen(piece) + 1;
            char *joined = malloc(n);
            if (!joined) {
                snprintf(err, err_len, "out of memory");
                sweep_list_free(&pieces);
                return -1;
            }
            snprintf(joined, n, "%s,%s", prev, piece);
            free(prev);
            l->items[l->n - 1] = joined;
        } else if (sweep_list_push(l, piece)) {
            snprintf(err, err_len, "out of memory");
            sweep_list_free(&pieces);
            return -1;
        }
    }
    sweep_list_free(&pieces);
    /* A description file (file:PATH.json) stands for the spec it describes, from here on
     * the list's item, as a built-in's spec is. */
    for (int k = first; k < l->n; k++) {
        if (!gcsim_compressor_is_file(l->items[k]))
            continue;
        char spec[256];
        gcsim_error e = {0};
        if (gcsim_compressor_resolve(l->items[k], spec, sizeof spec, &e)) {
            snprintf(err, err_len, "--compressor: %s", e.message);
            return -1;
        }
        char *copy = strdup(spec);
        if (!copy) {
            snprintf(err, err_len, "out of memory");
            return -1;
        }
        free(l->items[k]);
        l->items[k] = copy;
    }
    for (int k = first; k < l->n; k++)
        for (int j = 0; j < k; j++)
            if (strcmp(l->items[j], l->items[k]) == 0) {
                snprintf(err, err_len, "--compressor: \"%s\" given twice (each compressor once: "
                                       "a repeated one would repeat its cases)", l->items[k]);
                return -1;
            }
    return 0;
}
