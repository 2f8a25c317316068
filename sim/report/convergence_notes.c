/* The notes of the convergence factors; see convergence_notes.h. */
#include "convergence_notes.h"

#include <math.h>
#include <stdio.h>

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

void convergence_notes_report(report *r, conv_source want, const char *const *specs, int n,
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
        const char *ev = convergence_source_label(&f[k]);
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

void convergence_notes_meta(report *r, const conv_factor *f, int gpus)
{
    conv_factor g = conv_factor_at(f, gpus);
    report_meta_str(r, "convergence_source", convergence_source_label(f));
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

const char *convergence_source_label(const conv_factor *f)
{
    if (f->source == CONV_SOURCE_NONE)
        return "none";
    return isnan(f->factor) ? "unknown" : conv_evidence_name(f->evidence);
}
