/*
 * sim/planning/sweep_lists.h: the list-valued options of `gcsim sweep`, `plan` and `check`.
 *
 * An option may be repeated and each value may be a comma list: `--platform a.json,b.json
 * --platform c.json` names three platforms, in that order. Compressor specs contain commas
 * themselves ("qsgd:s=4,bucket=512"), so in a compressor list a piece holding '=' but no
 * ':' continues the spec before it: "none,qsgd:s=4,bucket=512,dgc:ratio=0.001" is three
 * specs. Order is kept, since it fixes the order of the sweep's cases.
 */
#ifndef GCSIM_PLANNING_SWEEP_LISTS_H
#define GCSIM_PLANNING_SWEEP_LISTS_H

#include <stddef.h>

typedef struct {
    int n;
    char **items; /* malloc'ed copies */
} sweep_list;

void sweep_list_free(sweep_list *l);

/* Appends the comma-separated pieces of text (empty pieces and an item the list holds
 * already are errors: a repeated item would repeat its cases). Returns 0, or -1 with a
 * message in err. */
int sweep_list_add(sweep_list *l, const char *text, const char *option, char *err,
                   size_t err_len);
/* As sweep_list_add; allow_repeats keeps repeated pieces (the pieces of compressor specs). */
int sweep_list_add_pieces(sweep_list *l, const char *text, const char *option,
                          int allow_repeats, char *err, size_t err_len);
/* As sweep_list_add, joining "key=value" pieces to the compressor spec before them. */
int sweep_list_add_compressors(sweep_list *l, const char *text, char *err, size_t err_len);
/* Appends one item as is. */
int sweep_list_push(sweep_list *l, const char *item);

#endif
