/* The shared-fabric options (cli_fabric.h). */
#include "cli_fabric.h"

#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "report.h"
#include "step.h"

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
        if (!cli_parse_int(arg, 0, 4294967295LL, &v)) {
            fprintf(stderr, "gcsim %s: --jitter-seed: expected an integer from 0 to 4294967295, "
                            "got \"%s\"\n", cmd, arg);
            return -1;
        }
        o->jitter_seed = v;
        return 0;
    }
    if (ch == CLI_FABRIC_ECMP_SPINES) {
        /* a leaf switch's uplink ports: 1 (no choice, no collision) to a radix's worth */
        if (!cli_parse_int(arg, 1, 1024, &v)) {
            fprintf(stderr, "gcsim %s: --ecmp-spines: expected a number of spine switches from "
                            "1 to 1024, got \"%s\"\n", cmd, arg);
            return -1;
        }
        o->spines = (int)v;
        return 0;
    }
    if (!cli_parse_int(arg, 0, 4294967295LL, &v)) {
        fprintf(stderr, "gcsim %s: --ecmp-seed: expected an integer from 0 to 4294967295, got "
                        "\"%s\"\n", cmd, arg);
        return -1;
    }
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

void cli_fabric_ecmp_note(const gcsim_platform *p, char *buf, size_t size)
{
    snprintf(buf, size, "every leaf's uplink and downlink split over %d spine links of 1/%d of "
             "their capacity, each endpoint's traffic between leaves hashed onto one: flows "
             "that hash to one spine share its link. The DES simulates one hash (seed %llu); "
             "the analytic engine gives the expectation over hashes: its closed form with the "
             "flows of the most loaded spine link K at U/(S K), weighted by K's "
             "balls-into-bins law over the leaf links (the flow counts of the phase with most "
             "flows between leaves; docs/des.md, \"Shared fabric\")",
             p->ecmp.spines, p->ecmp.spines, p->ecmp.seed);
}

void cli_fabric_jitter_note(const gcsim_platform *p, char *buf, size_t size)
{
    snprintf(buf, size, "every message delayed by an extra latency drawn from an exponential "
             "distribution of mean %.4g us, each step waiting for its last message. The DES "
             "simulates one draw (seed %llu), step by step, no coalesced phases; the analytic "
             "engine adds the expected largest delay of each step's n messages, M H(n) "
             "(harmonic number), as if every step were a barrier: exact for one step, an "
             "upper estimate for chains of steps (docs/des.md, \"Shared fabric\")",
             p->jitter.mean_s * 1e6, p->jitter.seed);
}

void cli_fabric_report(report *r, const gcsim_platform *p)
{
    char msg[1024];
    if (p->background.fraction > 0) {
        cli_fabric_note(p, msg, sizeof msg);
        report_note(r, "background load", msg);
        report_meta_num(r, "background_load", p->background.fraction);
    }
    if (p->ecmp.spines > 0) {
        cli_fabric_ecmp_note(p, msg, sizeof msg);
        report_note(r, "ecmp", msg);
        report_meta_int(r, "ecmp_spines", p->ecmp.spines);
        report_meta_int(r, "ecmp_seed", (long long)p->ecmp.seed);
    }
    if (p->jitter.mean_s > 0) {
        cli_fabric_jitter_note(p, msg, sizeof msg);
        report_note(r, "network jitter", msg);
        report_meta_num(r, "jitter_mean_s", p->jitter.mean_s);
    }
}

void cli_interference_report(report *r, const gcsim_platform *p, gcsim_collective c)
{
    double share = gcsim_platform_interference(p);
    /* the papers' patterns and a parameter server copy through the host (interference.c) */
    if (!(share > 0) || gcsim_collective_is_paper_pattern(c) ||
        gcsim_collective_exchange(c) == GCSIM_EXCHANGE_PS)
        return;
    char msg[512];
    snprintf(msg, sizeof msg,
             "a collective in flight takes %.3g of the GPU from the compute it overlaps (%s; "
             "docs/formats.md, \"Compute-communication interference\"): both engines run "
             "overlapped compute slower while a call is in flight; gpu.comm_interference 0 "
             "turns it off",
             share, p->gpu.comm_interference >= 0
                        ? "stated by the platform's gpu.comm_interference"
                        : "derived: NCCL's CTAs, 2 per NIC, over the GPU type's SMs");
    report_note(r, "interference", msg);
}
