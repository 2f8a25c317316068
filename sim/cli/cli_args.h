/*
 * sim/cli/cli_args.h: small parsers for command-line values shared by the subcommands.
 */
#ifndef GCSIM_CLI_ARGS_H
#define GCSIM_CLI_ARGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "report.h"

/* A strictly parsed integer in [min, max]. */
bool cli_parse_int(const char *text, long long min, long long max, long long *out);
bool cli_parse_double(const char *text, double min, double max, double *out);

/* An option's number, as cli_parse_int / cli_parse_double read it: 0, or -1 after
 * "gcsim CMD: NAME: expected WHAT, got "ARG"" on stderr (one wording for every command). */
int cli_int_option(const char *cmd, const char *name, const char *arg, long long min,
                   long long max, const char *what, long long *out);
int cli_num_option(const char *cmd, const char *name, const char *arg, double min, double max,
                   const char *what, double *out);
/* --format table, json or csv (report.h): 0, or -1 after the same kind of message. */
int cli_format_option(const char *cmd, const char *arg, report_format *out);

/* A list of GPU counts: gpu_list_parse (sim/planning/gpu_list.h). */

/* getopt_long, with long option names taken only in full: getopt_long accepts any unique
 * prefix (--gpu for --gpus, --plat for --platform), which reads a typo as another option
 * and lets a later option with the same prefix change what an old command line means.
 * An abbreviation is returned as '?' with optind set so that argv[optind - 1] is the
 * abbreviated word, which every command's "unknown option" message prints, after a line
 * on stderr naming the option it abbreviates. */
int cli_getopt_long(int argc, char **argv, const char *shortopts,
                    const struct option *longopts, const char *command);

/* A command's parser's last case: ch ':' (a value missing) prints "gcsim CMD: --OPTION
 * needs a value", anything else "gcsim CMD: unknown option "WORD" (see gcsim CMD --help)".
 * Returns -1. */
int cli_option_error(const char *command, int ch, char **argv);

/* The getopt values of the command's value options met so far (cli_values_once). */
#define CLI_SEEN_MAX 64
typedef struct {
    int ch[CLI_SEEN_MAX];
    int n;
} cli_seen;

/* Every option of `own` that takes a value takes it once, except the list options named in
 * `lists` (0-terminated getopt values; NULL for none), whose values add up: a second value
 * is refused with "gcsim COMMAND: --OPTION given twice" on stderr, where it replaced the first
 * without a word (predict --platform A --platform B ran B). Options not in `own` (a shared
 * group's, which checks its own) and flags pass. `seen` starts zeroed. Call after
 * cli_getopt_long returned ch. Returns 0, or -1 after the message. */
int cli_values_once(const char *command, int ch, const struct option *own, const int *lists,
                    cli_seen *seen, char **argv);

/* --stack NAME: an empty name is refused ("" fell back to the platform's stack without a
 * word), with "gcsim COMMAND: --stack: ..." on stderr. Returns 0 with *stack set, or -1. */
int cli_stack_option(const char *command, const char *arg, const char **stack);

/* Whether two output paths name one file: the same text, the same existing file (links,
 * "./x" and "x"), or the same name in the same folder for a file not yet written. Devices
 * and FIFOs are written through, never replaced, so they never count as the same file. */
bool cli_same_output(const char *a, const char *b);

/* A command's help, docs/help/CMD.txt embedded at build time (sim/cli/CMakeLists.txt) as
 * gcsim_help_CMD, printed with each @NAME@ replaced: the option groups' shared paragraphs
 * (@FABRIC@, @GOODPUT@, @VARIABILITY@: docs/help/_NAME.txt), the defaults every command
 * shares (@DEFAULT_PLATFORM@, @DEFAULT_MODEL@, @DEFAULT_STACK@), then `values`: the
 * command's own, "@NAME@", "text" pairs, NULL-terminated (NULL: none). The defaults are
 * the C constants the command runs with, so the text cannot drift from them. */
void cli_help(FILE *out, const char *text, const char *const *values);

#endif
