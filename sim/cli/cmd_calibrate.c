/* gcsim calibrate: platform figures fitted to nccl-tests all-reduce logs. The fitting and
 * patching live in sim/calibrate (calibrate.h); this file parses options and prints. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "calibrate.h"
#include "cli_args.h"
#include "cli_files.h"
#include "commands.h"
#include "data_dir.h"
#include "report_emit.h"
#include "units.h"

static void calibrate_usage(FILE *out)
{
    fprintf(out,
"usage: gcsim calibrate --log FILE [--gpus N --nodes J] [--table K]\n"
"                       [--collective C] [--protocol P]\n"
"                       [--log FILE2 [--gpus N --nodes J] [--table K] ...]\n"
"                       --platform BASE --output NEW.json [--out-of-place]\n"
"                       [--min-size SIZE] [--force] [--format table|json|csv]\n"
"\n"
"Fits platform fields to the output of nccl-tests' all_reduce_perf, all_gather_perf or\n"
"reduce_scatter_perf, and writes BASE with those fields replaced (every other field kept) to\n"
"NEW, with $.sources entries naming the log, the fit and its error. Prints, for every row\n"
"of the log, the written platform's own prediction and its busbw error.\n"
"\n"
"The model fitted is the one the platform is run with: every row is costed as `gcsim\n"
"collective --gpus N` costs it (the platform's algorithm, or the tuner's algorithm and\n"
"protocol per size; analytic engine). Rows fall in two size regimes: bandwidth-bound where\n"
"the measured busbw is at least half the log's highest, latency-bound below. A latency is\n"
"searched so that the median busbw error of the latency-bound rows is 0, a bandwidth so\n"
"that that of the bandwidth-bound rows is, then both are polished for the smallest median\n"
"|error| of the worse regime.\n"
"  single-node log: intra_node.latency, and intra_node.gpu_to_gpu (link_bandwidth for\n"
"                   \"nvlink\") or nvls_bandwidth, whichever reproduces the log\n"
"  multi-node log:  nic.latency, and nic.bandwidth, or the node's bandwidth where the log\n"
"                   is bound by the node (not with a single-node log: that one sets it)\n"
"  two logs:        one single-node (fitted first) and one multi-node\n"
"The written file is loaded back and every row costed on it: the errors printed are its\n"
"own. Held-out check: the fit repeated on every other size (the 1st, 3rd, ... used), its\n"
"error on the sizes between. Warnings when a regime's median |error| exceeds 5%%, the\n"
"held-out median 10%%, or a fitted bandwidth falls below half the base's value.\n"
"\n"
"  --log FILE       an all_reduce_perf, all_gather_perf or reduce_scatter_perf log (13\n"
"                   columns with root, or 12 without); one or two\n"
"  --gpus N         GPUs (ranks) of the preceding --log; default: its \"# Rank\" lines\n"
"  --nodes J        nodes of the preceding --log; default: distinct hosts on its Rank lines\n"
"                   (both are required for a log without Rank lines, or listing only some\n"
"                   ranks, as vendor logs often do)\n"
"  --table K        the K-th table (run) of the preceding --log, from 1; default: the first,\n"
"                   with a warning listing them when the log holds several\n"
"  --collective C   algorithm the preceding --log's run forced (NCCL_ALGO)\n"
"  --protocol P     simple, ll128 or ll: protocol its run forced (NCCL_PROTO)\n"
"  --platform BASE  the base platform: a file, or a catalog name such as h100-ndr\n"
"  --output FILE    the new platform file, written atomically (required)\n"
"  --out-of-place   fit the out-of-place times (default: in-place)\n"
"  --min-size SIZE  smallest message in the fit, e.g. 1MiB or 262144 (default: every row)\n"
"  --force          write a fitted bandwidth above the base's line rate (nic.bandwidth,\n"
"                   gpu_to_gpu, link_bandwidth or nvls_bandwidth), which is refused\n"
"                   otherwise; a warning says it\n"
"  --format F       table (default), json or csv: the same numbers\n"
"\n"
"Logs may be pasted as they come: lines that are not part of a table (environment lines,\n"
"NCCL INFO output, shell prompts) are skipped and counted, mpirun \"[1,0]<stdout>:\" and\n"
"Slurm \"0: \" prefixes removed, and a truncated last row is dropped with a warning. Inside a\n"
"table they are read strictly: a short row that other rows follow, a wrong column count, a\n"
"non-numeric, NaN, infinite, negative or absurd value, sizes not increasing, no rows,\n"
"another test, binary data, or a busbw that is not algbw x the test's factor (2(n-1)/n,\n"
"(n-1)/n) within 2%% is an error naming the file and line: exit 2. A fit more than 1%% above\n"
"a line rate without --force: exit 2. Limits: %ld bytes per log, %d rows, %d ranks, %d tables.\n",
            NCCL_LOG_MAX_BYTES, NCCL_LOG_MAX_ROWS, NCCL_LOG_MAX_RANKS, NCCL_LOG_MAX_TABLES);
}

typedef struct {
    calib_options calib;
    report_format format;
    char platform_file[PATH_MAX]; /* a catalog name resolved */
} calibrate_cli;

static int parse_options(int argc, char **argv, calibrate_cli *o)
{
    static const struct option longopts[] = {
        {"log", required_argument, 0, 'l'},      {"gpus", required_argument, 0, 'g'},
        {"nodes", required_argument, 0, 'n'},    {"platform", required_argument, 0, 'p'},
        {"output", required_argument, 0, 'o'},   {"out-of-place", no_argument, 0, 'O'},
        {"min-size", required_argument, 0, 'm'}, {"format", required_argument, 0, 'f'},
        {"table", required_argument, 0, 't'},    {"force", no_argument, 0, 'F'},
        {"collective", required_argument, 0, 'C'}, {"protocol", required_argument, 0, 'P'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->format = REPORT_TABLE;
    o->calib.min_size_bytes = CALIB_DEFAULT_MIN_SIZE_BYTES;
    calib_options *c = &o->calib;
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = cli_getopt_long(argc, argv, ":h", longopts, "calibrate")) != -1) {
        long long v;
        switch (ch) {
        case 'l':
            if (c->n_logs == CALIB_MAX_LOGS) {
                fprintf(stderr, "gcsim calibrate: at most %d --log files (a single-node and a "
                                "multi-node one)\n", CALIB_MAX_LOGS);
                return EXIT_BAD_INPUT;
            }
            c->log_paths[c->n_logs++] = optarg;
            break;
        case 'g':
        case 'n':
            if (c->n_logs == 0) {
                fprintf(stderr, "gcsim calibrate: --%s applies to the --log before it; give "
                                "--log first\n", ch == 'g' ? "gpus" : "nodes");
                return EXIT_BAD_INPUT;
            }
            if (!cli_parse_int(optarg, ch == 'g' ? 2 : 1, NCCL_LOG_MAX_RANKS, &v)) {
                fprintf(stderr, "gcsim calibrate: --%s: \"%s\" is not a count %s\n",
                        ch == 'g' ? "gpus" : "nodes", optarg,
                        ch == 'g' ? "of at least 2 GPUs" : "of at least 1 node");
                return EXIT_BAD_INPUT;
            }
            if ((ch == 'g' ? c->gpus : c->nodes)[c->n_logs - 1]) {
                fprintf(stderr, "gcsim calibrate: --%s given twice for --log %s (it takes one "
                                "value per log)\n", ch == 'g' ? "gpus" : "nodes",
                        c->log_paths[c->n_logs - 1]);
                return EXIT_BAD_INPUT;
            }
            (ch == 'g' ? c->gpus : c->nodes)[c->n_logs - 1] = (int)v;
            break;
        case 't':
            if (c->n_logs == 0) {
                fprintf(stderr, "gcsim calibrate: --table applies to the --log before it; give "
                                "--log first\n");
                return EXIT_BAD_INPUT;
            }
            if (!cli_parse_int(optarg, 1, NCCL_LOG_MAX_TABLES, &v)) {
                fprintf(stderr, "gcsim calibrate: --table: \"%s\" is not a table number from 1 "
                                "to %d\n", optarg, NCCL_LOG_MAX_TABLES);
                return EXIT_BAD_INPUT;
            }
            if (c->table[c->n_logs - 1]) {
                fprintf(stderr, "gcsim calibrate: --table given twice for --log %s (it takes one "
                                "value per log)\n", c->log_paths[c->n_logs - 1]);
                return EXIT_BAD_INPUT;
            }
            c->table[c->n_logs - 1] = (int)v;
            break;
        case 'C':
        case 'P': {
            const char *name = ch == 'C' ? "collective" : "protocol";
            const char **slot = ch == 'C' ? c->collective : c->protocol;
            if (c->n_logs == 0) {
                fprintf(stderr, "gcsim calibrate: --%s applies to the --log before it; give "
                                "--log first\n", name);
                return EXIT_BAD_INPUT;
            }
            if (slot[c->n_logs - 1]) {
                fprintf(stderr, "gcsim calibrate: --%s given twice for --log %s (it takes one "
                                "value per log)\n", name, c->log_paths[c->n_logs - 1]);
                return EXIT_BAD_INPUT;
            }
            slot[c->n_logs - 1] = optarg;
            break;
        }
        case 'F': c->force = true; break;
        case 'p': c->platform_path = optarg; break;
        case 'o': c->output_path = optarg; break;
        case 'O': c->out_of_place = true; break;
        case 'm': {
            double bytes;
            if (cli_parse_int(optarg, 0, 1LL << 50, &v))
                bytes = (double)v;
            else if (!gcsim_parse_size_bytes(optarg, &bytes)) {
                fprintf(stderr, "gcsim calibrate: --min-size: expected a size such as 1MiB or "
                                "a byte count, got \"%s\"\n", optarg);
                return EXIT_BAD_INPUT;
            }
            c->min_size_bytes = bytes;
            break;
        }
        case 'f':
            if (report_format_parse(optarg, &o->format)) {
                fprintf(stderr, "gcsim calibrate: --format: expected table, json or csv, got "
                                "\"%s\"\n", optarg);
                return EXIT_BAD_INPUT;
            }
            break;
        case 'h': calibrate_usage(stdout); return EXIT_OK;
        case ':':
            fprintf(stderr, "gcsim calibrate: %s needs a value\n", argv[optind - 1]);
            return EXIT_BAD_INPUT;
        default:
            fprintf(stderr, "gcsim calibrate: unknown option \"%s\" (see gcsim calibrate "
                            "--help)\n", argv[optind - 1]);
            return EXIT_BAD_INPUT;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gcsim calibrate: unexpected argument \"%s\"\n", argv[optind]);
        return EXIT_BAD_INPUT;
    }
    const char *missing = c->n_logs == 0         ? "--log"
                          : !c->platform_path    ? "--platform"
                          : !c->output_path      ? "--output"
                                                 : NULL;
    if (missing) {
        fprintf(stderr, "gcsim calibrate: %s is required (see gcsim calibrate --help)\n",
                missing);
        return EXIT_BAD_INPUT;
    }
    /* A catalog name ("h100-ndr"), as --platform of the other commands (inputs.c). */
    if (gcsim_data_catalog_path("platforms", c->platform_path, o->platform_file,
                                sizeof o->platform_file) == 0)
        c->platform_path = o->platform_file;
    return -1;
}

static void add_notes(report *rep, const calibrate_cli *o, const calib_result *r)
{
    char key[64], value[1024];
    snprintf(value, sizeof value, "%s -> %s", o->calib.platform_path, o->calib.output_path);
    report_note(rep, "platform", value);
    report_meta_str(rep, "platform.file", o->calib.platform_path);
    report_meta_str(rep, "output_file", o->calib.output_path);
    report_meta_int(rep, "logs", r->n_logs);
    for (int k = 0; k < r->n_logs; k++) {
        const calib_log_fit *lf = &r->logs[k];
        snprintf(key, sizeof key, "log %d", k + 1);
        char table[96] = "";
        if (lf->n_tables > 1)
            snprintf(table, sizeof table, " (table %d of %d: lines %d-%d)", lf->table,
                     lf->n_tables, lf->table_first_line, lf->table_last_line);
        snprintf(value, sizeof value, "%s%s: %s, %d GPUs on %d node%s (%s)%s%s, %s times",
                 lf->path, table, lf->op, lf->gpus, lf->nodes, lf->nodes == 1 ? "" : "s",
                 lf->counts_from_log ? "from its Rank lines" : "from --gpus/--nodes",
                 lf->device[0] ? ", " : "", lf->device,
                 o->calib.out_of_place ? "out-of-place" : "in-place");
        report_note(rep, key, value);
        snprintf(key, sizeof key, "fit %d", k + 1);
        snprintf(value, sizeof value,
                 "%s and %s searched so that the platform, run as `gcsim collective` runs it, "
                 "has a median busbw error of 0 over the latency-bound and the bandwidth-bound "
                 "rows%s%s%s",
                 lf->lat_field, lf->bw_field, lf->fit.lat2_fitted ? "; " : "",
                 lf->fit.lat2_fitted ? lf->lat2_field : "",
                 lf->fit.lat2_fitted ? " polished with them (the node's hop latency, paid in "
                                       "the log's floor)" : "");
        report_note(rep, key, value);
        snprintf(key, sizeof key, "error %d", k + 1);
        snprintf(value, sizeof value,
                 "the written platform on its own log: median |busbw error| %.3g%% over %d "
                 "latency-bound rows, %.3g%% over %d bandwidth-bound rows; max %.3g%%",
                 100 * lf->median_latency, lf->n_latency, 100 * lf->median_bandwidth,
                 lf->n_bandwidth, 100 * lf->max_abs_error);
        report_note(rep, key, value);
        snprintf(key, sizeof key, "held-out %d", k + 1);
        calib_held_out_text(&lf->held_out, value, sizeof value);
        report_note(rep, key, value);
    }
    for (int i = 0; i < r->n_notes; i++) {
        snprintf(key, sizeof key, "note %d", i + 1);
        report_note(rep, key, r->notes[i]);
    }
    for (int i = 0; i < r->n_changes; i++) {
        const calib_change *c = &r->changes[i];
        if (c->new_value[0])
            snprintf(value, sizeof value, "%s -> %s", c->old_value, c->new_value);
        else
            snprintf(value, sizeof value, "%s kept", c->old_value);
        report_note(rep, c->path, value);
    }
    for (int i = 0; i < r->n_warnings; i++) {
        snprintf(key, sizeof key, "warning %d", i + 1);
        report_note(rep, key, r->warnings[i]);
    }
}

static report *build_report(const calibrate_cli *o, const calib_result *r)
{
    report *rep = report_new();
    add_notes(rep, o, r);
    /* The columns of schema version 1 keep their names and units (docs/schema.json): fit_*
     * are the written platform's figures, rel_error_pct its time error, alpha_s and B_Bps
     * the latency and bandwidth fields it was given; regime, busbw_error_pct and algorithm
     * were added by issue 42. */
    int col[16];
    col[0] = report_column(rep, "log", "log", -1);
    col[1] = report_column(rep, "gpus", "GPUs", -1);
    col[2] = report_column(rep, "nodes", "nodes", -1);
    col[3] = report_column(rep, "line", "line", -1);
    col[4] = report_column(rep, "size_bytes", "size B", -1);
    /* yes: in both fits; held-out: left out of the held-out check's; no: below --min-size */
    col[5] = report_column(rep, "in_fit", "fit", -1);
    /* seconds and bytes per second in CSV and JSON; the text table shows us and GB/s */
    col[6] = report_column_scaled(rep, "time_s", "time us", 2, 1e6);
    col[7] = report_column_scaled(rep, "busbw_Bps", "busbw GB/s", 2, 1e-9);
    col[8] = report_column_scaled(rep, "fit_time_s", "platform us", 2, 1e6);
    col[9] = report_column_scaled(rep, "fit_busbw_Bps", "platform GB/s", 2, 1e-9);
    col[10] = report_column(rep, "rel_error_pct", "time err %", 2);
    col[11] = report_column_scaled(rep, "alpha_s", "latency us", 3, 1e6);
    col[12] = report_column_scaled(rep, "B_Bps", "bandwidth GB/s", 2, 1e-9);
    col[13] = report_column(rep, "regime", "regime", -1);
    col[14] = report_column(rep, "busbw_error_pct", "busbw err %", 2);
    col[15] = report_column(rep, "algorithm", "algorithm", -1);
    /* the text table in 100 columns (issue 46): a point is its log and size; measured beside
     * fitted, then the fit's figures */
    report_column_brief(rep, col[11], "alpha us");
    report_column_brief(rep, col[12], "B GB/s");
    {
        const int lead[] = {col[0], col[4], col[5], col[6], col[8], col[10], col[7], col[9],
                            col[14], col[13], col[15]};
        report_table_lead(rep, 2, lead, (int)(sizeof lead / sizeof lead[0]));
    }
    for (int k = 0; k < r->n_logs; k++) {
        const calib_log_fit *lf = &r->logs[k];
        for (int i = 0; i < lf->n_rows; i++) {
            const calib_row *row = &lf->rows[i];
            report_row(rep);
            /* the fitted table's short form (--wide: the path, as before) */
            const char *base = report_table_limit() ? strrchr(lf->path, '/') : NULL;
            report_str_table(rep, col[0], lf->path, base ? base + 1 : lf->path);
            report_int(rep, col[1], lf->gpus);
            report_int(rep, col[2], lf->nodes);
            report_int(rep, col[3], row->line);
            report_int(rep, col[4], (long long)row->size_bytes);
            report_str(rep, col[5], !row->used ? "no" : row->held_out ? "held-out" : "yes");
            report_num(rep, col[6], row->time_s);
            report_num(rep, col[7], row->busbw_Bps);
            report_num(rep, col[8], row->pred_time_s);
            report_num(rep, col[9], row->pred_busbw_Bps);
            report_num(rep, col[10], 100 * (row->pred_time_s - row->time_s) / row->time_s);
            report_num(rep, col[11], lf->lat_value_s);
            report_num(rep, col[12], lf->bw_value_Bps);
            report_str(rep, col[13], row->regime == CALIB_REGIME_LATENCY ? "latency"
                                                                         : "bandwidth");
            report_num(rep, col[14], 100 * row->rel_error);
            report_str(rep, col[15], row->algorithm);
        }
    }
    return rep;
}

static int write_platform(const char *path, const char *text)
{
    atomic_file f;
    char msg[1024];
    if (atomic_file_open(&f, path, msg, sizeof msg)) {
        fprintf(stderr, "gcsim calibrate: %s\n", msg);
        return EXIT_BAD_INPUT;
    }
    errno = 0;
    if (fputs(text, f.stream) == EOF) {
        int saved = errno;
        atomic_file_abort(&f);
        fprintf(stderr, "gcsim calibrate: %s: write failed: %s\n", path, atomic_file_reason(saved));
        return EXIT_BAD_INPUT;
    }
    if (atomic_file_commit(&f, msg, sizeof msg)) {
        fprintf(stderr, "gcsim calibrate: %s\n", msg);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

int cmd_calibrate(int argc, char **argv)
{
    calibrate_cli o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    /* --output may not be the base platform or a log it was fitted to (cli_files.h). */
    cli_files files;
    cli_files_init(&files, "calibrate");
    for (int k = 0; k < o.calib.n_logs; k++)
        cli_files_input(&files, "--log", o.calib.log_paths[k]);
    cli_files_platform(&files, "--platform", o.calib.platform_path);
    cli_files_output(&files, "--output", o.calib.output_path);
    if (cli_files_check(&files))
        return EXIT_BAD_INPUT;
    calib_result r;
    gcsim_error err;
    if (calib_run(&o.calib, &r, &err)) {
        fprintf(stderr, "gcsim calibrate: %s\n", err.message);
        return exit_code_for(&err);
    }
    for (int i = 0; i < r.n_notes; i++)
        fprintf(stderr, "gcsim calibrate: note: %s\n", r.notes[i]);
    for (int i = 0; i < r.n_warnings; i++)
        fprintf(stderr, "gcsim calibrate: warning: %s\n", r.warnings[i]);
    report *rep = build_report(&o, &r);
    rc = write_platform(o.calib.output_path, r.platform_json);
    if (rc == EXIT_OK)
        rc = report_emit(rep, o.format, NULL, "calibrate");
    report_free(rep);
    calib_result_free(&r);
    return rc;
}
