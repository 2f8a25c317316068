/*
 * sim/cli/cli_groups.h: the option groups several commands share, dispatched from one table
 * (cli_groups.c) so that a command asks for a group by giving it a place for its values and
 * a new group is added in one place:
 *   variability  --compute-cv, --compute-dist, --slow-*, --seed, --iterations (cli_variability.h)
 *   goodput      --goodput, --mtbf-*, --storage-gb-per-s, --restart-s, --checkpoint-interval
 *                (cli_goodput.h)
 *   fabric       --background-load, --background-links (cli_fabric.h)
 * Each group has its own getopt values (cli_variability.h, cli_goodput.h, cli_fabric.h), clear
 * of the commands' own and of each other's. A command's parser:
 *     cli_groups g = {.variability = &o->variability, .goodput = &o->goodput};
 *     const struct option *longopts = cli_groups_begin(&g, own_longopts);
 *     while ((ch = cli_getopt_long(argc, argv, ":h", longopts, "CMD")) != -1) {
 *         int r = cli_groups_option(&g, "CMD", ch, optarg, argv);
 *         if (r < 0) return -1;
 *         if (r == 0) continue;
 *         switch (ch) { ... the command's own options ... }
 *     }
 *     if (cli_groups_finish(&g, "CMD")) return -1;
 */
#ifndef GCSIM_CLI_GROUPS_H
#define GCSIM_CLI_GROUPS_H

#include <getopt.h>

#include "cli_args.h"
#include "cli_fabric.h"
#include "cli_goodput.h"
#include "cli_variability.h"

/* room for a command's own long options and every group's */
#define CLI_GROUPS_MAX_LONGOPTS 96
#define CLI_GROUPS_COUNT 3

typedef struct {
    /* where each group's values go; NULL: the command does not take the group */
    gcsim_variability *variability;
    goodput_options *goodput;
    cli_fabric_options *fabric;
    /* filled by cli_groups_begin */
    struct option longopts[CLI_GROUPS_MAX_LONGOPTS];
    cli_seen seen[CLI_GROUPS_COUNT]; /* the value options given, per group */
} cli_groups;

/* Initializes the values of every group the command takes and returns the long-option table
 * to give cli_getopt_long: the command's own (`own`, {0}-terminated) followed by those
 * groups' options. Aborts (a programming error) when the table does not fit. */
const struct option *cli_groups_begin(cli_groups *g, const struct option *own);

/* One getopt value: 1 when it is no taken group's option (the command parses it), 0 when a
 * group parsed it, -1 after "gcsim CMD: --OPTION: reason" on stderr (a bad value, or an option
 * that takes one value given twice). */
int cli_groups_option(cli_groups *g, const char *cmd, int ch, const char *arg, char **argv);

/* After all options: each taken group's checks, in the table's order (variability, goodput,
 * fabric). 0, or -1 after a message. */
int cli_groups_finish(cli_groups *g, const char *cmd);

#endif
