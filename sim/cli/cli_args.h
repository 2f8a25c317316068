/*
 * sim/cli/cli_args.h: small parsers for command-line values shared by the subcommands.
 */
#ifndef GCSIM_CLI_ARGS_H
#define GCSIM_CLI_ARGS_H

#include <stdbool.h>

/* A strictly parsed integer in [min, max]. */
bool cli_parse_int(const char *text, long long min, long long max, long long *out);
bool cli_parse_double(const char *text, double min, double max, double *out);

/* A list of GPU counts: "1,2,4,8", with "..." continuing a geometric (or arithmetic)
 * progression up to the next value: "1,2,4,...,512", "8,16,...,64", "1,2,3,...,8".
 * Values must be >= 1 and strictly increasing. Fills at most max_counts values; returns
 * the number, or -1 with a message in err. */
int cli_parse_gpu_list(const char *text, int *counts, int max_counts, char *err,
                       unsigned long err_len);

#endif
