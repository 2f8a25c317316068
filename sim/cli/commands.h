/*
 * sim/cli/commands.h: the subcommands of `gcsim`. Each lives in its own cmd_<name>.c and
 * returns the process exit code: 0 success, 1 a check failed, 2 bad input or usage,
 * 3 an internal failure (gcsim_fail_internal: e.g. the SimGrid simulation aborted).
 */
#ifndef GCSIM_CLI_COMMANDS_H
#define GCSIM_CLI_COMMANDS_H

enum { EXIT_OK = 0, EXIT_CHECK_FAILED = 1, EXIT_BAD_INPUT = 2, EXIT_INTERNAL = 3 };

#include "gcsim_error.h"

/* The exit code of a command that failed with err. */
static inline int exit_code_for(const gcsim_error *err)
{
    return err->internal ? EXIT_INTERNAL : EXIT_BAD_INPUT;
}

int cmd_predict(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_compress(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_collective(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_breakeven(int argc, char **argv);
int cmd_catalog(int argc, char **argv);
int cmd_plot(int argc, char **argv);

#endif
