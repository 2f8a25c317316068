/* The goodput options of predict and plan (cli_goodput.h). */
#include "cli_goodput.h"

#include <stdio.h>
#include <string.h>

#include "cli_args.h"

/* 1e9 hours, GB/s or seconds: past any machine, and finite in every product taken */
#define GOODPUT_OPT_MAX 1e9

static int positive(const char *cmd, const char *opt, const char *arg, double min, double *out)
{
    if (!cli_parse_double(arg, min, GOODPUT_OPT_MAX, out) || (min == 0 && !(*out > 0))) {
        fprintf(stderr, "gcsim %s: %s: expected a positive number up to 1e9, got \"%s\"\n", cmd,
                opt, arg);
        return -1;
    }
    return 0;
}

int cli_goodput_option(const char *cmd, int ch, const char *arg, goodput_options *o)
{
    o->on = true;
    double v;
    switch (ch) {
    case 4100:
        return 0;
    case 4101:
        return positive(cmd, "--mtbf-gpu-hours", arg, 0, &o->gpu_mtbf_h);
    case 4102:
        return positive(cmd, "--mtbf-node-hours", arg, 0, &o->node_mtbf_h);
    case 4103:
        if (positive(cmd, "--storage-gb-per-s", arg, 0, &v))
            return -1;
        o->storage_bytes_per_s = v * 1e9;
        return 0;
    case 4104:
        if (!cli_parse_double(arg, 0, GOODPUT_OPT_MAX, &o->restart_s)) {
            fprintf(stderr, "gcsim %s: --restart-s: expected seconds from 0 to 1e9, got \"%s\"\n",
                    cmd, arg);
            return -1;
        }
        return 0;
    case 4105:
        if (!strcmp(arg, "daly")) {
            o->rule = GOODPUT_INTERVAL_DALY;
            return 0;
        }
        if (!strcmp(arg, "young")) {
            o->rule = GOODPUT_INTERVAL_YOUNG;
            return 0;
        }
        if (!cli_parse_double(arg, 0, GOODPUT_OPT_MAX, &o->interval_s) || !(o->interval_s > 0)) {
            fprintf(stderr, "gcsim %s: --checkpoint-interval: expected daly, young or seconds "
                            "(a positive number up to 1e9), got \"%s\"\n", cmd, arg);
            return -1;
        }
        o->rule = GOODPUT_INTERVAL_FIXED;
        return 0;
    default:
        return -1;
    }
}

int cli_goodput_check(const char *cmd, const goodput_options *o)
{
    if (o->gpu_mtbf_h > 0 && o->node_mtbf_h > 0) {
        fprintf(stderr, "gcsim %s: --mtbf-gpu-hours and --mtbf-node-hours both give the failure "
                        "rate: use one\n", cmd);
        return -1;
    }
    return 0;
}
