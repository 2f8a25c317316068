/* The shared-fabric options (cli_fabric.h). */
#include "cli_fabric.h"

#include <stdio.h>
#include <string.h>

#include "cli_args.h"

int cli_fabric_load(const char *cmd, const char *arg, cli_fabric_options *o)
{
    /* at most 0.99: a link loaded to its full capacity carries nothing else */
    if (cli_num_option(cmd, "--background-load", arg, 0, 0.99,
                       "a fraction of capacity from 0 to 0.99", &o->fraction))
        return -1;
    return 0;
}

int cli_fabric_links(const char *cmd, const char *arg, cli_fabric_options *o)
{
    if (strcmp(arg, "leaf") == 0)
        o->links = GCSIM_BACKGROUND_LEAF_UPLINKS;
    else if (strcmp(arg, "nic") == 0)
        o->links = GCSIM_BACKGROUND_NICS;
    else {
        fprintf(stderr, "gcsim %s: --background-links: expected leaf or nic, got \"%s\"\n", cmd,
                arg);
        return -1;
    }
    return 0;
}

int cli_fabric_ecmp(const char *cmd, int ch, const char *arg, cli_fabric_options *o)
{
    long long v;
    if (ch == CLI_FABRIC_JITTER) {
        /* up to a second per message: beyond any network's */
        if (!cli_parse_double(arg, 0, 1e6, &o->jitter_us) || !(o->jitter_us > 0)) {
            fprintf(stderr, "gcsim %s: --jitter-us: expected a mean extra latency in "
                            "microseconds, above 0 and at most 1e6, got \"%s\"\n", cmd, arg);
            return -1;
        }
        return 0;
    }
    if (ch == CLI_FABRIC_JITTER_SEED) {
        if (cli_int_option(cmd, "--jitter-seed", arg, 0, 4294967295LL,
                           "an integer from 0 to 4294967295", &v))
            return -1;
        o->jitter_seed = v;
        return 0;
    }
    if (ch == CLI_FABRIC_ECMP_SPINES) {
        /* a leaf switch's uplink ports: 1 (no choice, no collision) to a radix's worth */
        if (cli_int_option(cmd, "--ecmp-spines", arg, 1, 1024,
                           "a number of spine switches from 1 to 1024", &v))
            return -1;
        o->spines = (int)v;
        return 0;
    }
    if (cli_int_option(cmd, "--ecmp-seed", arg, 0, 4294967295LL,
                       "an integer from 0 to 4294967295", &v))
        return -1;
    o->seed = v;
    return 0;
}

int cli_fabric_des_only(const cli_fabric_options *o)
{
    /* ECMP and jitter: the analytic engine gives their expectation (fabric_expect.h) */
    return o->fraction > 0;
}

int cli_fabric_option(const char *cmd, int ch, const char *arg, cli_fabric_options *o)
{
    switch (ch) {
    case CLI_FABRIC_LOAD:
        return cli_fabric_load(cmd, arg, o);
    case CLI_FABRIC_LINKS:
        return cli_fabric_links(cmd, arg, o);
    case CLI_FABRIC_ECMP_SPINES:
    case CLI_FABRIC_ECMP_SEED:
    case CLI_FABRIC_JITTER:
    case CLI_FABRIC_JITTER_SEED:
        return cli_fabric_ecmp(cmd, ch, arg, o);
    default:
        return -1;
    }
}

int cli_fabric_check(const char *cmd, const cli_fabric_options *o)
{
    if (o->seed >= 0 && o->spines == 0) {
        fprintf(stderr, "gcsim %s: --ecmp-seed needs --ecmp-spines\n", cmd);
        return -1;
    }
    if (o->jitter_seed >= 0 && !(o->jitter_us > 0)) {
        fprintf(stderr, "gcsim %s: --jitter-seed needs --jitter-us\n", cmd);
        return -1;
    }
    if (o->links >= 0 && !(o->fraction > 0)) {
        fprintf(stderr, "gcsim %s: --background-links needs --background-load\n", cmd);
        return -1;
    }
    return 0;
}

int cli_fabric_apply(const char *cmd, const cli_fabric_options *o, gcsim_platform *p)
{
    if (o->jitter_us > 0) {
        p->jitter.mean_s = o->jitter_us * 1e-6;
        p->jitter.seed = o->jitter_seed >= 0 ? (unsigned long long)o->jitter_seed : 1;
    }
    if (o->spines > 0) {
        if (p->fabric.topology != FABRIC_FAT_TREE) {
            fprintf(stderr, "gcsim %s: --ecmp-spines: %s has no leaf switches (fabric topology "
                            "star)\n", cmd, p->source_path);
            return -1;
        }
        p->ecmp.spines = o->spines;
        p->ecmp.seed = o->seed >= 0 ? (unsigned long long)o->seed : 1;
    }
    if (!(o->fraction > 0))
        return 0;
    bool tree = p->fabric.topology == FABRIC_FAT_TREE;
    int links = o->links >= 0 ? o->links : tree ? GCSIM_BACKGROUND_LEAF_UPLINKS
                                                : GCSIM_BACKGROUND_NICS;
    if (links == GCSIM_BACKGROUND_LEAF_UPLINKS && !tree) {
        fprintf(stderr, "gcsim %s: --background-links leaf: %s has no leaf switches (fabric "
                        "topology star): use nic\n", cmd, p->source_path);
        return -1;
    }
    p->background.fraction = o->fraction;
    p->background.links = links;
    return 0;
}
