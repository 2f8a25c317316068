/* The shared-fabric options (cli_fabric.h). */
#include "cli_fabric.h"

#include <stdio.h>
#include <string.h>

#include "cli_args.h"

int cli_fabric_load(const char *cmd, const char *arg, cli_fabric_options *o)
{
    /* at most 0.99: a link loaded to its full capacity carries nothing else */
    if (!cli_parse_double(arg, 0, 0.99, &o->fraction)) {
        fprintf(stderr, "gcsim %s: --background-load: expected a fraction of capacity from 0 "
                        "to 0.99, got \"%s\"\n", cmd, arg);
        return -1;
    }
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

int cli_fabric_option(const char *cmd, int ch, const char *arg, cli_fabric_options *o)
{
    switch (ch) {
    case CLI_FABRIC_LOAD:
        return cli_fabric_load(cmd, arg, o);
    case CLI_FABRIC_LINKS:
        return cli_fabric_links(cmd, arg, o);
    default:
        return -1;
    }
}

int cli_fabric_check(const char *cmd, const cli_fabric_options *o)
{
    if (o->links >= 0 && !(o->fraction > 0)) {
        fprintf(stderr, "gcsim %s: --background-links needs --background-load\n", cmd);
        return -1;
    }
    return 0;
}

int cli_fabric_apply(const char *cmd, const cli_fabric_options *o, gcsim_platform *p)
{
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

void cli_fabric_note(const gcsim_platform *p, char *buf, size_t size)
{
    double f = p->background.fraction;
    snprintf(buf, size, "%.4g of the capacity of every %s taken by other traffic at a constant "
             "rate, each direction: simulated by the DES only; the analytic engine does not "
             "include it (its rows are the unloaded fabric, so DES vs analytic is the slowdown, "
             "at most 1 / (1 - %.4g) = %.4gx where those links set the time)",
             f, p->background.links == GCSIM_BACKGROUND_NICS ? "NIC" : "leaf uplink and downlink",
             f, 1.0 / (1.0 - f));
}
