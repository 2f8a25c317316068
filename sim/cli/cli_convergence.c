/* --convergence for plan, predict and breakeven (cli_convergence.h). */
#include "cli_convergence.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compressor_file.h"
#include "data_dir.h"

/* The bound's gradients: no trace of the planned model ships, so a shipped proxy trace
 * (a ResNet-20 on Fashion-MNIST, mid-training, traces/data/fmnist_resnet20/provenance.json)
 * stands in for every model, and the notes say so. */
#define BOUND_TRACE "traces/data/fmnist_resnet20/resnet20_step000200_rank0.safetensors"
#define BOUND_LABEL "proxy trace fmnist_resnet20 step 200"

int cli_convergence_option(const char *cmd, const char *arg, conv_source *out)
{
    if (conv_source_parse(arg, out)) {
        fprintf(stderr, "gcsim %s: --convergence: expected none, catalog, train, bound or best, "
                        "got \"%s\"\n", cmd, arg);
        return -1;
    }
    return 0;
}

void cli_convergence_files(cli_files *f, conv_source want)
{
    if (want == CONV_SOURCE_NONE)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/models/convergence/outcomes.tsv", gcsim_data_dir());
    cli_files_input(f, "the --convergence catalog", path);
    snprintf(path, sizeof path, "%s/models/convergence/train_factors.tsv", gcsim_data_dir());
    cli_files_input(f, "the --convergence train factors", path);
    snprintf(path, sizeof path, "%s/" BOUND_TRACE, gcsim_data_dir());
    cli_files_input(f, "the --convergence bound's trace", path);
}

int cli_convergence_factors(const char *cmd, conv_source want, const char *model,
                            const char *const *specs, int n, int workers, conv_factor *out)
{
    char path[4096], err[1024];
    conv_catalog cat = {0};
    conv_train_table train = {0};
    conv_sources s = {0};
    int rc = -1;
    if (want != CONV_SOURCE_NONE) {
        snprintf(path, sizeof path, "%s/models/convergence/outcomes.tsv", gcsim_data_dir());
        if (conv_catalog_load(path, &cat, err, sizeof err)) {
            fprintf(stderr, "gcsim %s: --convergence: %s\n", cmd, err);
            return -1;
        }
        s.catalog = &cat;
        snprintf(path, sizeof path, "%s/models/convergence/train_factors.tsv", gcsim_data_dir());
        if (access(path, R_OK) == 0) {
            if (conv_train_load(path, &train, err, sizeof err)) {
                fprintf(stderr, "gcsim %s: --convergence: %s\n", cmd, err);
                goto done;
            }
            s.train = &train;
        }
    }
    static char trace[4096];
    snprintf(trace, sizeof trace, "%s/" BOUND_TRACE, gcsim_data_dir());
    const char *traces[1] = {trace};
    if (access(trace, R_OK) == 0) {
        s.trace_files = traces;
        s.n_traces = 1;
        s.trace_label = BOUND_LABEL;
    }
    for (int k = 0; k < n; k++)
        if (conv_factor_for(&s, want, model, specs[k], workers > 0 ? workers : 1 << 30, &out[k],
                            err, sizeof err)) {
            fprintf(stderr, "gcsim %s: --convergence: %s: %s\n", cmd, specs[k], err);
            goto done;
        }
    /* A described compressor has no evidence of gcsim's own; its file may state a factor
     * with a source, used as the file's (compressor_file.h). */
    for (int k = 0; k < n && want != CONV_SOURCE_NONE; k++) {
        double stated;
        const char *source;
        if (!gcsim_compressor_file_convergence(specs[k], &stated, &source))
            continue;
        out[k] = (conv_factor){.factor = stated, .lo = stated, .hi = stated, .source = want,
                               .omega = -1, .omega_lo = -1, .omega_hi = -1,
                               .evidence = CONV_EVIDENCE_STATED};
        snprintf(out[k].how, sizeof out[k].how, "stated by %s: %.300s",
                 gcsim_compressor_file_of(specs[k]), source);
    }
    rc = 0;
done:
    conv_catalog_free(&cat);
    conv_train_free(&train);
    return rc;
}

/* "; did not reach the target in gcsim's own runs: ..." for a missed factor, else "". */
static void missed_text(const conv_factor *f, char *out, size_t len)
{
    out[0] = '\0';
    if (!f->missed)
        return;
    snprintf(out, len, "; did not reach the target in gcsim's own runs: %.1f%% vs %.1f%% on %s "
             "(%d of %d seeds reached it), ranked after every factor that did",
             100.0 * f->missed_reached, 100.0 * f->missed_target, f->missed_task,
             f->missed_seeds_reached, f->missed_seeds);
}

void cli_convergence_notes(report *r, conv_source want, const char *const *specs, int n,
                           const conv_factor *f)
{
    char line[800], key[160], miss[240];
    snprintf(line, sizeof line,
             "source %s; factor = iterations to fp32's accuracy / fp32's, multiplying hours and "
             "cost (docs/convergence.md)%s", conv_source_name(want),
             want == CONV_SOURCE_BEST ? ": by evidence, catalog rows of the model's class with "
             "these settings, else the variance bound, else the class's rows of other settings, "
             "else other classes' rows, else gcsim train's proxies; unknown ranks after every "
             "known factor" : "");
    report_note(r, "convergence", line);
    report_meta_str(r, "convergence", conv_source_name(want));
    for (int k = 0; k < n; k++) {
        snprintf(key, sizeof key, "convergence.%s", specs[k]);
        missed_text(&f[k], miss, sizeof miss);
        const char *ev = cli_convergence_source_label(&f[k]);
        if (isnan(f[k].factor))
            snprintf(line, sizeof line, "unknown (no factor; ranked after every known factor, "
                     "hours per step): %s%s", f[k].how, miss);
        else if (f[k].source == CONV_SOURCE_BOUND && f[k].omega >= 0)
            snprintf(line, sizeof line, "%s: 1 + (%.4g x %.4g + %.4g)/N at N GPUs, e.g. %.3f "
                     "[%.3f, %.3f] at 8 (%s)%s", ev, CONV_BOUND_SHARE,
                     fmin(f[k].omega, CONV_BOUND_FIT_MAX),
                     fmax(0.0, f[k].omega - CONV_BOUND_FIT_MAX),
                     conv_factor_at(&f[k], 8).factor, conv_factor_at(&f[k], 8).lo,
                     conv_factor_at(&f[k], 8).hi, f[k].how, miss);
        else if (isfinite(f[k].lo) && isfinite(f[k].hi) && f[k].lo != f[k].hi)
            snprintf(line, sizeof line, "%s: %.3f [%.3f, %.3f] (%s)%s", ev, f[k].factor,
                     f[k].lo, f[k].hi, f[k].how, miss);
        else if (isfinite(f[k].lo) && !isfinite(f[k].hi))
            snprintf(line, sizeof line, "%s: %.3f [%.3f, no upper limit] (%s)%s", ev,
                     f[k].factor, f[k].lo, f[k].how, miss);
        else
            snprintf(line, sizeof line, "%s: %.3f (%s)%s", ev, f[k].factor, f[k].how, miss);
        report_note(r, key, line);
    }
}

void cli_convergence_meta(report *r, const conv_factor *f, int gpus)
{
    conv_factor g = conv_factor_at(f, gpus);
    report_meta_str(r, "convergence_source", cli_convergence_source_label(f));
    report_meta_int(r, "convergence_gpus", gpus);
    /* report_meta_num writes null for a NAN: unknown factor, no upper limit */
    report_meta_num(r, "convergence_factor", g.factor);
    report_meta_num(r, "convergence_lo", isnan(g.factor) ? 1.0 : g.lo);
    report_meta_num(r, "convergence_hi", g.hi);
    report_meta_bool(r, "convergence_reached_target", !f->missed);
    if (f->missed) {
        report_meta_num(r, "convergence_reached_accuracy", f->missed_reached);
        report_meta_num(r, "convergence_target_accuracy", f->missed_target);
        report_meta_str(r, "convergence_missed_task", f->missed_task);
    }
}

const char *cli_convergence_source_label(const conv_factor *f)
{
    if (f->source == CONV_SOURCE_NONE)
        return "none";
    return isnan(f->factor) ? "unknown" : conv_evidence_name(f->evidence);
}
