/* gcsim check: re-evaluates a committed baseline and fails when predicted throughput has
 * drifted beyond a tolerance (a CI regression guard). */
#include <getopt.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "baseline_check.h"
#include "baseline_run.h"
#include "check_table.h"
#include "cli_files.h"
#include "baseline_file.h"
#include "cli_args.h"
#include "commands.h"
#include "inputs.h"
#include "report.h"
#include "sweep_case.h"
#include "report_emit.h"

#define DEFAULT_TOLERANCE_PCT 1.0

extern const char gcsim_help_check[]; /* docs/help/check.txt */

static void check_usage(FILE *out)
{
    char tolerance[32];
    snprintf(tolerance, sizeof tolerance, "%.1f", DEFAULT_TOLERANCE_PCT);
    const char *const values[] = {"@DEFAULT_TOLERANCE_PCT@", tolerance, NULL};
    cli_help(out, gcsim_help_check, values);
}

typedef struct {
    const char *baseline, *output;
    double tolerance_pct; /* < 0: not given */
    bool update;
    int engine;           /* -1: all */
    report_format format;
} check_options;

static int parse_options(int argc, char **argv, check_options *o)
{
    static const struct option longopts[] = {
        {"baseline", required_argument, 0, 'b'}, {"tolerance", required_argument, 0, 't'},
        {"update", no_argument, 0, 'u'},         {"engine", required_argument, 0, 'e'},
        {"format", required_argument, 0, 'f'},   {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int ch;
    cli_seen seen = {0};
    while ((ch = cli_getopt_long(argc, argv, ":h", longopts, "check")) != -1) {
        if (cli_values_once("check", ch, longopts, NULL, &seen, argv))
            return -1;
        switch (ch) {
        case 'b': o->baseline = optarg; break;
        case 'o': o->output = optarg; break;
        case 'u': o->update = true; break;
        case 't':
            if (!cli_parse_double(optarg, 0.0, 1e6, &o->tolerance_pct)) {
                fprintf(stderr, "gcsim check: --tolerance: expected a percentage >= 0, got \"%s\"\n",
                        optarg);
                return -1;
            }
            break;
        case 'e': {
            gcsim_engine e;
            if (engine_parse(optarg, &e) || e == ENGINE_BOTH) {
                fprintf(stderr, "gcsim check: --engine: expected analytic or des, got \"%s\"\n", optarg);
                return -1;
            }
            o->engine = (int)e;
            break;
        }
        case 'f':
            if (cli_format_option("check", optarg, &o->format))
                return -1;
            break;
        case 'h':
            check_usage(stdout);
            return 1;
        default: return cli_option_error("check", ch, argv);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gcsim check: unexpected argument \"%s\"\n", argv[optind]);
        return -1;
    }
    if (!o->baseline) {
        fprintf(stderr, "gcsim check: --baseline FILE is required (see gcsim check --help)\n");
        return -1;
    }
    return 0;
}

/* The baseline and the files its cases name against the output, before any case is
 * evaluated (cli_files.h). --update rewrites the baseline itself: that one is meant. */
static int check_files(const check_options *o, const baseline *b)
{
    cli_files files;
    cli_files_init(&files, "check");
    cli_files_input(&files, "--baseline", o->baseline);
    char what[256];
    for (int k = 0; k < b->n_cases; k++) {
        snprintf(what, sizeof what, "the platform of --baseline's case %s", b->cases[k].name);
        cli_files_platform(&files, what, b->cases[k].platform);
        snprintf(what, sizeof what, "the model of --baseline's case %s", b->cases[k].name);
        cli_files_model(&files, what, b->cases[k].model);
        snprintf(what, sizeof what, "the stack of --baseline's case %s", b->cases[k].name);
        cli_files_stack(&files, what, b->cases[k].stack);
    }
    cli_files_output(&files, "--output", o->output);
    return cli_files_check(&files);
}

int cmd_check(int argc, char **argv)
{
    check_options o = {.tolerance_pct = -1.0, .engine = -1, .format = REPORT_TABLE};
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    gcsim_error err;
    baseline b;
    if (baseline_load(o.baseline, &b, &err)) {
        fprintf(stderr, "gcsim check: %s\n", err.message);
        return EXIT_BAD_INPUT;
    }
    if (check_files(&o, &b)) {
        baseline_free(&b);
        return EXIT_BAD_INPUT;
    }
    int status = EXIT_BAD_INPUT;
    sweep_cache *cache = sweep_cache_new(&inputs_loaders);
    double *predicted = calloc((size_t)b.n_cases + 1, sizeof *predicted);
    double *drift_pct = calloc((size_t)b.n_cases + 1, sizeof *drift_pct);
    double *tolerance = calloc((size_t)b.n_cases + 1, sizeof *tolerance);
    unsigned char *evaluated = calloc((size_t)b.n_cases + 1, 1);
    const gcsim_stack **stacks = calloc((size_t)b.n_cases + 1, sizeof *stacks);
    char (*why)[BASELINE_WHY_LEN] = calloc((size_t)b.n_cases + 1, sizeof *why);
    report *r = NULL;
    if (!cache || !predicted || !drift_pct || !tolerance || !evaluated || !stacks || !why) {
        fprintf(stderr, "gcsim check: out of memory\n");
        goto done;
    }
    /* A new case (no expected value) has nothing to check against: only --update may
     * record it. Refused before any evaluation, naming every such case. */
    if (!o.update) {
        int n_new = 0;
        for (int k = 0; k < b.n_cases; k++) {
            if ((o.engine >= 0 && (int)b.cases[k].engine != o.engine) || b.cases[k].has_expected)
                continue;
            fprintf(stderr, "gcsim check: %s: $.cases[%d] (%s): no "
                            "expected_throughput_samples_per_s yet\n", b.path, k, b.cases[k].name);
            n_new++;
        }
        if (n_new) {
            fprintf(stderr, "gcsim check: %s: %d new case%s: record %s with gcsim check "
                            "--baseline %s --update\n", b.path, n_new, n_new == 1 ? "" : "s",
                    n_new == 1 ? "its value" : "their values", b.path);
            goto done;
        }
    }
    /* Everything is evaluated before anything is printed or rewritten. */
    baseline_results res = {.predicted = predicted, .drift_pct = drift_pct,
                            .tolerance = tolerance, .evaluated = evaluated, .stacks = stacks,
                            .why = why};
    int k = 0;
    if (baseline_run(&b, cache, o.engine, o.tolerance_pct, DEFAULT_TOLERANCE_PCT, &res, &k,
                     &err)) {
        fprintf(stderr, "gcsim check: %s: $.cases[%d] (%s): %s\n", b.path, k, b.cases[k].name,
                err.message);
        status = exit_code_for(&err); /* 3 when the simulation itself failed */
        goto done;
    }
    int n_evaluated = res.n_evaluated, n_drifted = res.n_drifted, n_new = res.n_new;
    /* A check that checked nothing must not pass (issue 15: an empty baseline exited 0). */
    /* None could run, or --update (which cannot record a case that does not run, and
     * rewrites nothing then): every reason, exit 2. */
    if (res.n_infeasible && (n_evaluated == 0 || o.update)) {
        for (k = 0; k < b.n_cases; k++)
            if (why[k][0])
                fprintf(stderr, "gcsim check: %s: $.cases[%d] (%s): %s\n", b.path, k,
                        b.cases[k].name, why[k]);
        goto done;
    }
    if (n_evaluated == 0) {
        if (b.n_cases == 0)
            fprintf(stderr, "gcsim check: %s: $.cases: empty: a baseline needs at least one "
                            "case\n", b.path);
        else
            fprintf(stderr, "gcsim check: %s: none of its %d cases uses engine %s (--engine)\n",
                    b.path, b.n_cases, engine_name((gcsim_engine)o.engine));
        goto done;
    }

    check_outcome out = {.predicted = predicted, .drift_pct = drift_pct,
                         .tolerance = tolerance, .evaluated = evaluated, .stacks = stacks,
                         .why = (const char (*)[BASELINE_WHY_LEN])why,
                         .n_infeasible = res.n_infeasible, .n_evaluated = n_evaluated, .n_drifted = n_drifted, .n_new = n_new,
                         .engine_filter = o.engine, .tolerance_pct = o.tolerance_pct,
                         .default_tolerance_pct = DEFAULT_TOLERANCE_PCT, .update = o.update};
    r = check_table_rows(&b, &out);
    /* Rewritten only when a value changes, so an up-to-date baseline keeps its bytes. */
    int n_changed = 0;
    for (int k = 0; k < b.n_cases; k++)
        n_changed += evaluated[k] && (!b.cases[k].has_expected ||
                                      predicted[k] != b.cases[k].expected_samples_per_s);
    /* --update also pins the stack each recorded case ran under (docs/planning.md): a
     * case without "stack" follows its platform's choice, which a later gcsim may change. */
    int n_pinned = 0;
    for (int k = 0; o.update && k < b.n_cases; k++) {
        const gcsim_platform *pf = evaluated[k] ? sweep_cache_platform(cache, b.cases[k].platform, &err)
                                                : NULL;
        const char *pin = pf ? baseline_stack_to_pin(&b.cases[k], pf) : NULL;
        int added = pin ? baseline_pin_stack(&b, k, pin, &err) : 0;
        if (added < 0) {
            fprintf(stderr, "gcsim check: %s\n", err.message);
            status = exit_code_for(&err);
            goto done;
        }
        n_pinned += added;
    }
    n_changed += n_pinned;
    if (o.update && n_changed && baseline_rewrite(&b, predicted, evaluated, &err)) {
        fprintf(stderr, "gcsim check: %s\n", err.message);
        goto done;
    }
    out.n_pinned = n_pinned;
    out.n_changed = n_changed;
    check_table_finish(r, &b, &out);

    if (report_emit(r, o.format, o.output, "check"))
        goto done;
    if (n_drifted && !o.update) {
        fprintf(stderr, "gcsim check: %d of %d cases drifted beyond tolerance:", n_drifted,
                n_evaluated);
        for (int k = 0; k < b.n_cases; k++)
            if (evaluated[k] && !baseline_within_tolerance(drift_pct[k], tolerance[k]))
                fprintf(stderr, " %s (%+.3f%%)", b.cases[k].name, drift_pct[k]);
        fprintf(stderr, "\n");
        status = EXIT_CHECK_FAILED;
    } else {
        status = EXIT_OK;
    }
    /* The others are answered; a case that could not run is no pass (issue 46): exit 1. */
    if (res.n_infeasible) {
        for (k = 0; k < b.n_cases; k++)
            if (why[k][0])
                fprintf(stderr, "gcsim check: %s: $.cases[%d] (%s) could not run: %s\n", b.path,
                        k, b.cases[k].name, why[k]);
        status = EXIT_CHECK_FAILED;
    }
done:
    report_free(r);
    free(predicted);
    free(drift_pct);
    free(tolerance);
    free(evaluated);
    free(stacks);
    free(why);
    sweep_cache_free(cache);
    baseline_free(&b);
    return status;
}
