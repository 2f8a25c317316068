/*
 * sim/cli/cli_fabric.h: the shared-fabric options of `gcsim collective` and `gcsim predict`
 * (issue 41; docs/des.md, "Shared fabric"), parsed once:
 *   --background-load F    other traffic holding F (0 to 0.99) of the capacity of the loaded
 *                          links, each direction; simulated by the DES only
 *   --background-links L   leaf (a fat tree's leaf uplinks and downlinks: the default there)
 *                          or nic (every NIC: the default on a star)
 *   --ecmp-spines S        a fat tree's leaf uplinks split over S spine switches, each
 *                          endpoint's traffic between leaves hashed onto one (ECMP
 *                          collisions; sim/des/des_fabric.h); the analytic engine
 *                          gives the expectation over hashes (sim/analytic/fabric_expect.h)
 *   --ecmp-seed N          the hash's seed (default 1)
 *   --jitter-us M          network jitter: every message delayed by an exponential extra
 *                          latency of mean M microseconds (sim/des/des_fabric.h); analytic:
 *                          M H(n) per step of n messages (fabric_expect.h)
 *   --jitter-seed N        its seed (default 1)
 * Each function returns 0, or -1 after printing "gcsim CMD: --OPTION: reason" on stderr.
 */
#ifndef GCSIM_CLI_FABRIC_H
#define GCSIM_CLI_FABRIC_H

#include <getopt.h>
#include <stddef.h>

#include "platform.h"
#include "scenario.h" /* gcsim_collective */

typedef struct {
    double fraction; /* 0: no load */
    int links;       /* GCSIM_BACKGROUND_*, -1: the platform's default */
    int spines;      /* 0: no ECMP */
    long long seed;  /* -1: not given (1) */
    double jitter_us;        /* 0: no jitter */
    long long jitter_seed;   /* -1: not given (1) */
} cli_fabric_options;

#define CLI_FABRIC_INIT                                                                    \
    {.fraction = 0, .links = -1, .spines = 0, .seed = -1, .jitter_us = 0, .jitter_seed = -1}

/* getopt values of the ECMP options, their longopts entries, and their parser (0, or -1
 * after "gcsim CMD: --OPTION: reason"). */
enum { CLI_FABRIC_ECMP_SPINES = 1300, CLI_FABRIC_ECMP_SEED = 1301, CLI_FABRIC_JITTER = 1302,
       CLI_FABRIC_JITTER_SEED = 1303 };
#define CLI_FABRIC_ECMP_LONGOPTS                                                           \
    {"ecmp-spines", required_argument, 0, CLI_FABRIC_ECMP_SPINES},                         \
        {"ecmp-seed", required_argument, 0, CLI_FABRIC_ECMP_SEED},                         \
        {"jitter-us", required_argument, 0, CLI_FABRIC_JITTER},                            \
        {"jitter-seed", required_argument, 0, CLI_FABRIC_JITTER_SEED}
int cli_fabric_ecmp(const char *cmd, int ch, const char *arg, cli_fabric_options *o);
/* Whether an option of this group needs the DES (then --engine analytic is refused):
 * background load only. */
int cli_fabric_des_only(const cli_fabric_options *o);

/* getopt values of the options, clear of the commands' own and the other groups'
 * (cli_groups.h) */
enum { CLI_FABRIC_LOAD = 4110, CLI_FABRIC_LINKS, CLI_FABRIC_LAST = CLI_FABRIC_LINKS };

/* The entries of a command's longopts table. */
#define CLI_FABRIC_LONGOPTS                                                  \
    {"background-load", required_argument, 0, CLI_FABRIC_LOAD},              \
        {"background-links", required_argument, 0, CLI_FABRIC_LINKS},       \
        CLI_FABRIC_ECMP_LONGOPTS

/* Parses option ch (one of the values above) with its argument. */
int cli_fabric_option(const char *cmd, int ch, const char *arg, cli_fabric_options *o);

int cli_fabric_load(const char *cmd, const char *arg, cli_fabric_options *o);
int cli_fabric_links(const char *cmd, const char *arg, cli_fabric_options *o);
/* After all options: --background-links without a load is refused. */
int cli_fabric_check(const char *cmd, const cli_fabric_options *o);
/* Sets p->background (nothing without a load); refuses leaf links on a star. */
int cli_fabric_apply(const char *cmd, const cli_fabric_options *o, gcsim_platform *p);
/* Their notes and meta fields: fabric_notes_report (sim/report/fabric_notes.h). */


#endif
