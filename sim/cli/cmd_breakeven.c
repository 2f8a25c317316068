/* gcsim breakeven: per model, platform, GPU count and compressor, the inter-node bandwidth
 * below which the compressor beats fp32 (sim/analytic/breakeven.h), or why it never does. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "breakeven.h"
#include "cli_args.h"
#include "codec.h"
#include "commands.h"
#include "report.h"
#include "inputs.h"
#include "report_emit.h"
#include "sweep_case.h"
#include "sweep_lists.h"

#define MAX_GPU_COUNTS 64

static void usage(FILE *out)
{
    fprintf(out,
"usage: gcsim breakeven [--platform FILES] [--model FILES] --compressor SPECS\n"
"                       [--gpus LIST] [--exchange X] [--collective C] [--batch K]\n"
"                       [--format table|json|csv] [--output FILE]\n"
"\n"
"For every platform, model, GPU count and compressor: the NIC bandwidth below which the\n"
"compressor's throughput beats fp32's (analytic engine, codec time and the exchange\n"
"included; bisection over the platform's NIC bandwidth / and x 10^4, to 0.1%%), or the\n"
"reason it never does. Weak scaling. docs/codec.md.\n"
"\n"
"  --platform FILES  clusters (default: the embedded " DEFAULT_PLATFORM_NAME ")\n"
"  --model FILES     workloads (default: the embedded " DEFAULT_MODEL_NAME ")\n"
"  --compressor SPECS  compressors to compare with fp32 (none)\n"
"  --gpus LIST       GPU counts (default: 64)\n"
"  --exchange X, --collective C   as in gcsim predict (fp32 uses its own default)\n"
"  --batch K         mini-batch per GPU (default: the model's)\n"
"  --format F, --output FILE      as in gcsim predict\n");
}

typedef struct {
    sweep_list platforms, models, compressors;
    const char *gpus, *output;
    gcsim_exchange exchange;
    gcsim_collective collective;
    bool collective_given;
    long long batch;
    report_format format;
} options;

static int parse(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"platform", required_argument, 0, 'p'}, {"model", required_argument, 0, 'm'},
        {"compressor", required_argument, 0, 'c'}, {"gpus", required_argument, 0, 'g'},
        {"exchange", required_argument, 0, 'X'}, {"collective", required_argument, 0, 'C'},
        {"batch", required_argument, 0, 'b'},    {"format", required_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'},   {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int ch;
    char msg[512];
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        int bad = 0;
        switch (ch) {
        case 'p': bad = sweep_list_add(&o->platforms, optarg, "--platform", msg, sizeof msg); break;
        case 'm': bad = sweep_list_add(&o->models, optarg, "--model", msg, sizeof msg); break;
        case 'c': bad = sweep_list_add_compressors(&o->compressors, optarg, msg, sizeof msg); break;
        case 'g': o->gpus = optarg; break;
        case 'o': o->output = optarg; break;
        case 'X':
            bad = gcsim_exchange_parse(optarg, &o->exchange) != 0;
            snprintf(msg, sizeof msg, "--exchange: expected auto, allreduce, allgather or ps, got \"%s\"", optarg);
            break;
        case 'C':
            o->collective_given = true;
            bad = gcsim_collective_parse(optarg, &o->collective) != 0;
            snprintf(msg, sizeof msg, "--collective: unknown collective \"%s\"", optarg);
            break;
        case 'b':
            bad = !cli_parse_int(optarg, 1, 1 << 24, &o->batch);
            snprintf(msg, sizeof msg, "--batch: expected a positive integer, got \"%s\"", optarg);
            break;
        case 'f':
            bad = report_format_parse(optarg, &o->format) != 0;
            snprintf(msg, sizeof msg, "--format: expected table, json or csv, got \"%s\"", optarg);
            break;
        case 'h': usage(stdout); return 1;
        case ':': snprintf(msg, sizeof msg, "%s needs a value", argv[optind - 1]); bad = 1; break;
        default:
            snprintf(msg, sizeof msg, "unknown option \"%s\" (see gcsim breakeven --help)",
                     argv[optind - 1]);
            bad = 1;
        }
        if (bad) {
            fprintf(stderr, "gcsim breakeven: %s\n", msg);
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gcsim breakeven: unexpected argument \"%s\"\n", argv[optind]);
        return -1;
    }
    if (!o->compressors.n) {
        fprintf(stderr, "gcsim breakeven: --compressor is required\n");
        return -1;
    }
    return 0;
}

/* A scenario of one compressor with its exchange and codec cost. */
static int scenario_of(const options *o, const gcsim_platform *p, const gcsim_model *m,
                       const gcsim_payload_plan *pl, int gpus, gcsim_codec_setup *cs,
                       gcsim_scenario *s, gcsim_error *err)
{
    bool dense = strcmp(pl->spec, "none") == 0;
    if (gcsim_codec_setup_init(cs, p, pl->spec, dense ? GCSIM_EXCHANGE_AUTO : o->exchange,
                               o->collective_given && !dense ? &o->collective : NULL, err))
        return -1;
    *s = (gcsim_scenario){.platform = p, .model = m, .payload = pl, .scaling = SCALING_WEAK,
                          .batch = o->batch ? (int)o->batch : m->batch_per_gpu,
                          .bucket_bytes = GCSIM_DEFAULT_BUCKET_BYTES, .overlap = true};
    gcsim_codec_setup_apply(cs, s);
    return gcsim_platform_place(p, gpus, &s->placement, err);
}

int cmd_breakeven(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    int rc = parse(argc, argv, &o);
    int status = EXIT_BAD_INPUT;
    sweep_cache *cache = NULL;
    report *r = NULL;
    gcsim_error err;
    if (rc || report_output_usable(o.output, "breakeven"))
        goto done_opts;
    int counts[MAX_GPU_COUNTS] = {64}, n_counts = 1;
    char msg[256];
    if (o.gpus && (n_counts = cli_parse_gpu_list(o.gpus, counts, MAX_GPU_COUNTS, msg, sizeof msg)) < 0) {
        fprintf(stderr, "gcsim breakeven: %s\n", msg);
        goto done;
    }
    cache = sweep_cache_new(&inputs_loaders);
    r = report_new();
    if (!cache || !r) {
        gcsim_fail(&err, "out of memory");
        goto fail;
    }
    int c_model = report_column(r, "model", "model", 0);
    int c_plat = report_column(r, "platform", "platform", 0);
    int c_gpus = report_column(r, "gpus", "GPUs", 0);
    int c_comp = report_column(r, "compressor", "compressor", 0);
    int c_ex = report_column(r, "exchange", "exchange", 0);
    /* Bandwidths in bytes per second (_Bps) and times in seconds in CSV and JSON; the
     * text table shows Gb/s and ms. */
    int c_own = report_column_scaled(r, "nic_Bps", "NIC Gb/s", 1, 8e-9);
    int c_none = report_column(r, "fp32_samples_per_s", "fp32 samples/s", 1);
    int c_tput = report_column(r, "samples_per_s", "samples/s", 1);
    int c_codec = report_column_scaled(r, "codec_s", "codec ms", 3, 1e3);
    int c_be = report_column_scaled(r, "breakeven_Bps", "break-even Gb/s", 3, 8e-9);
    int c_st = report_column(r, "status", "status", 0);
    int c_why = report_column(r, "reason", "reason", 0);
    int n_pl = o.platforms.n ? o.platforms.n : 1, n_m = o.models.n ? o.models.n : 1;
    for (int mi = 0; mi < n_m; mi++) {
        const gcsim_model *m = sweep_cache_model(cache, o.models.n ? o.models.items[mi] : NULL, &err);
        const gcsim_payload_plan *fp32 = m ? sweep_cache_payload(cache, m, "none", &err) : NULL;
        if (!fp32)
            goto fail;
        for (int pi = 0; pi < n_pl; pi++) {
            const gcsim_platform *p =
                sweep_cache_platform(cache, o.platforms.n ? o.platforms.items[pi] : NULL, &err);
            if (!p)
                goto fail;
            for (int g = 0; g < n_counts; g++)
                for (int ci = 0; ci < o.compressors.n; ci++) {
                    const gcsim_payload_plan *pl =
                        sweep_cache_payload(cache, m, o.compressors.items[ci], &err);
                    gcsim_codec_setup cd, cc;
                    gcsim_scenario sd, sc;
                    gcsim_breakeven be;
                    if (!pl || scenario_of(&o, p, m, fp32, counts[g], &cd, &sd, &err) ||
                        scenario_of(&o, p, m, pl, counts[g], &cc, &sc, &err) ||
                        gcsim_breakeven_find(&sd, &sc, &be, &err))
                        goto fail;
                    report_row(r);
                    report_str(r, c_model, m->name);
                    report_str(r, c_plat, p->name);
                    report_int(r, c_gpus, counts[g]);
                    report_str(r, c_comp, pl->spec);
                    report_str(r, c_ex, gcsim_exchange_name(cc.exchange.exchange));
                    report_num(r, c_own, be.own_Bps);
                    report_num(r, c_none, be.none_tput);
                    report_num(r, c_tput, be.comp_tput);
                    report_num(r, c_codec, be.codec_s);
                    if (be.status == BREAKEVEN_FOUND)
                        report_num(r, c_be, be.breakeven_Bps);
                    report_str(r, c_st, gcsim_breakeven_status_name(be.status));
                    report_str(r, c_why, be.reason);
                }
        }
    }
    report_meta_str(r, "engine", "analytic");
    report_meta_str(r, "scaling", "weak");
    report_note(r, "method", "analytic engine, weak scaling, codec cost and exchange as gcsim "
                             "predict chooses them; NIC bandwidth per NIC, one direction");
    status = report_emit(r, o.format, o.output, "breakeven");
    goto done;
fail:
    fprintf(stderr, "gcsim breakeven: %s\n", err.message);
done:
    report_free(r);
    sweep_cache_free(cache);
done_opts:
    sweep_list_free(&o.platforms);
    sweep_list_free(&o.models);
    sweep_list_free(&o.compressors);
    return rc > 0 ? EXIT_OK : status;
}
