/* The phases table of `gcsim predict` for 1-bit Adam and 0/1 Adam (predict_phases.h). */
#include "predict_phases.h"

#include <stdio.h>

report *predict_phases_report(const run_phased_spec *sp, long long total_steps,
                              const sweep_case *base, const gcsim_payload_plan *onebit_plan,
                              const int *counts, int n_counts, const gcsim_engine *engines,
                              int n_engines, gcsim_error *err)
{
    run_phase_counts n;
    run_phases_count(sp, total_steps, &n);
    report *r = report_new_for_file("cmd_predict.c"); /* the command is predict */
    int c_gpus = report_column(r, "gpus", "GPUs", 0);
    int c_engine = n_engines > 1 ? report_column(r, "engine", "engine", 0) : -1;
    int c_nf = report_column(r, "full_steps", "full steps", 0);
    int c_tf = report_column_scaled(r, "full_step_s", "full ms", 2, 1e3);
    int c_nb = report_column(r, "onebit_steps", "1-bit steps", 0);
    int c_tb = report_column_scaled(r, "onebit_step_s", "1-bit ms", 2, 1e3);
    int c_nl = report_column(r, "local_steps", "local steps", 0);
    int c_tl = report_column_scaled(r, "local_step_s", "local ms", 2, 1e3);
    int c_e2e = report_column_scaled(r, "end_to_end_s", "end-to-end h", 3, 1.0 / 3600.0);
    int c_base = report_column_scaled(r, "uncompressed_s", "uncompressed h", 3, 1.0 / 3600.0);
    int c_sp = report_column(r, "speedup", "speedup", 3);
    for (int k = 0; k < n_counts; k++) {
        for (int e = 0; e < n_engines; e++) {
            sweep_case c = *base;
            c.gpus = counts[k];
            c.engine = engines[e];
            run_phase_step_s t;
            if (run_phases_step_times(&c, onebit_plan, &t, err)) {
                report_free(r);
                return NULL;
            }
            if (t.onebit_unimplemented[0] && k == 0 && e == 0)
                fprintf(stderr, "gcsim predict: warning: the 1-bit steps: %s; priced as asked, a "
                                "what-if (--stack fused for DeepSpeed's kernels)\n",
                        t.onebit_unimplemented);
            double e2e = run_phases_total_s(&n, &t);
            double all_full = (double)total_steps * t.full_s;
            report_row(r);
            report_int(r, c_gpus, counts[k]);
            if (c_engine >= 0)
                report_str(r, c_engine, engine_name(engines[e]));
            report_int(r, c_nf, n.full);
            report_num(r, c_tf, t.full_s);
            report_int(r, c_nb, n.onebit);
            report_num(r, c_tb, t.onebit_s);
            report_int(r, c_nl, n.local);
            report_num(r, c_tl, t.local_s);
            report_num(r, c_e2e, e2e);
            report_num(r, c_base, all_full);
            report_num(r, c_sp, e2e > 0 ? all_full / e2e : 0.0);
        }
    }
    char what[256], buf[768];
    run_phased_describe(sp, what, sizeof what);
    report_meta_str(r, "table", "phases");
    report_meta_str(r, "optimizer_phases", what);
    report_meta_int(r, "steps_total", total_steps);
    report_meta_int(r, "full_steps", n.full);
    report_meta_int(r, "onebit_steps", n.onebit);
    report_meta_int(r, "local_steps", n.local);
    snprintf(buf, sizeof buf,
             "%s over %lld steps: %lld full (uncompressed Adam, the gradient all-reduced at the "
             "training precision), %lld 1-bit (DeepSpeed's compressed all-reduce, priced as %s "
             "by all-reduce), %lld local (no communication: the step's compute). End-to-end = "
             "sum of steps x step time; speedup over the same %lld steps all full "
             "(docs/onebit-adam.md)",
             what, total_steps, n.full, n.onebit, RUN_PHASES_ONEBIT_COMPRESSOR, n.local,
             total_steps);
    report_note(r, "phases", buf);
    return r;
}
