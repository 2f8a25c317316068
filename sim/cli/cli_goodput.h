/*
 * sim/cli/cli_goodput.h: the goodput options of `gcsim predict` and `gcsim plan` (issue 41),
 * parsed once. Any of them turns goodput on; without them the outputs are as before.
 *   --goodput                     on, with every default (sim/planning/goodput.h)
 *   --mtbf-gpu-hours H            a GPU's mean time between job-interrupting failures
 *   --mtbf-node-hours H           a node's instead (not with --mtbf-gpu-hours)
 *   --storage-gb-per-s X          the job's checkpoint write (and read) rate, GB/s (1e9 B/s)
 *   --restart-s S                 seconds a restart takes before reading the checkpoint
 *   --checkpoint-interval R       daly (default), young, or seconds of work per checkpoint
 */
#ifndef GCSIM_CLI_GOODPUT_H
#define GCSIM_CLI_GOODPUT_H

#include <getopt.h>

#include "goodput.h"

/* getopt codes of the options, clear of the commands' own */
#define CLI_GOODPUT_OPT_FIRST 4100
#define CLI_GOODPUT_OPT_LAST 4105

/* The long options, to splice into a command's table. */
#define CLI_GOODPUT_LONGOPTS                                                     \
    {"goodput", no_argument, 0, 4100}, {"mtbf-gpu-hours", required_argument, 0, 4101}, \
        {"mtbf-node-hours", required_argument, 0, 4102},                         \
        {"storage-gb-per-s", required_argument, 0, 4103},                        \
        {"restart-s", required_argument, 0, 4104},                               \
        {"checkpoint-interval", required_argument, 0, 4105}

/* Parses option ch (one of the codes above) with its argument. Returns 0, or -1 after
 * printing "gcsim CMD: --OPTION: reason" on stderr. */
int cli_goodput_option(const char *cmd, int ch, const char *arg, goodput_options *o);
/* After all options: refuses contradictions (both MTBFs). 0 or -1 as above. */
int cli_goodput_check(const char *cmd, const goodput_options *o);


#endif
