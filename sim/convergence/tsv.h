/*
 * sim/convergence/tsv.h: the few tab-separated-value helpers the catalog and the train table
 * share (internal to gcsim_convergence): read a whole file, split a line in place, find a
 * header column, canonicalize a compressor spec.
 */
#ifndef GCSIM_CONVERGENCE_TSV_H
#define GCSIM_CONVERGENCE_TSV_H

#include <stddef.h>

#define CONV_TSV_MAX_FIELDS 32

/* The file's bytes, NUL-terminated (free them), or NULL with the reason in err. */
char *conv_tsv_slurp(const char *path, char *err, size_t err_len);

/* Splits line at tabs in place (the line ends at '\n', "\r\n" or NUL); returns the number
 * of fields, at most CONV_TSV_MAX_FIELDS, and sets *next past the line end. */
int conv_tsv_split(char *line, char **fields, char **next);

/* Index of name among the header's fields, or -1. */
int conv_tsv_column(char *const *header, int n, const char *name);

/* The compressor's canonical spec (every default filled in) into out; -1 with the library's
 * reason in err when the spec is not valid. */
int conv_canonical_spec(const char *spec, char *out, size_t out_len, char *err, size_t err_len);

/* The family of a canonical spec: the text before ':' ("ef+topk", "qsgd"). */
void conv_spec_family(const char *spec, char *out, size_t out_len);

#endif
