/* sim/report/collective_table.c: gcsim collective's table (collective_table.h). */
#include "collective_table.h"

#include <math.h>
#include <stdio.h>

#include "analytic.h"
#include "des.h"
#include "fabric_notes.h"
#include "platform_busbw_correction.h"
#include "protocol.h"
#include "report_emit.h"

/* Both engines scale a bare operation's time by the platform's fitted busbw factors
 * (platform_busbw_correction.h): said where they apply, as the fit they are. */
static void busbw_correction_note(const gcsim_platform *p, gcsim_op op, int gpus)
{
    const gcsim_busbw_correction *c = gcsim_busbw_correction_find(p, (int)op, gpus);
    if (c)
        fprintf(stderr, "gcsim collective: note: %d GPUs: busbw scaled by %s's busbw_correction, "
                        "%d size band%s fitted to %s (no mechanism: a fit to that log)\n",
                gpus, p->source_path, c->n_bands, c->n_bands == 1 ? "" : "s", c->fitted_to);
}

/* One row per engine and size for one GPU count: the tuner's pick, costed by each engine. */
static int time_sizes(report *r, const int *col, const collective_request *o,
                      const gcsim_platform *platform, gcsim_collective forced, int gpus,
                      const double *sizes, int n)
{
    gcsim_error err = {.internal = 0};
    double factor = gcsim_op_busbw_factor(o->op, gpus);
    busbw_correction_note(platform, o->op, gpus);
    for (int k = 0; k < n; k++) {
        double t_ana = NAN;
        gcsim_tuned tuned;
        if (gcsim_tuner_choose(platform, gpus, o->op, sizes[k], forced, o->protocol, &tuned, &err)) {
            fprintf(stderr, "gcsim collective: %s\n", err.message);
            return err.internal ? 3 : 2;
        }
        for (int e = 1; e <= 2; e++) {
            if (!(o->engines & e))
                continue;
            double t = 0;
            gcsim_topology topo; /* the protocol's platform's first GPUs */
            int bad = gcsim_topology_init(&topo, &tuned.platform, gpus, &err);
            if (!bad)
                bad = e == 1 ? gcsim_analytic_op_time(&topo, o->op, tuned.collective, sizes[k], &t, &err)
                             : gcsim_des_op_time(&topo, o->op, tuned.collective, sizes[k], NULL, &t, NULL, &err);
            gcsim_topology_free(&topo);
            if (bad) {
                fprintf(stderr, "gcsim collective: %s\n", err.message);
                return err.internal ? 3 : 2;
            }
            if (e == 1)
                t_ana = t;
            report_row(r);
            report_num(r, col[0], sizes[k]);
            report_num(r, col[1], floor(sizes[k] / o->elem_bytes));
            report_str(r, col[2], e == 1 ? "analytic" : "des");
            report_num(r, col[3], t);
            double algbw = t > 0 ? sizes[k] / t : INFINITY;
            report_num(r, col[4], algbw);
            report_num(r, col[5], algbw * factor);
            if (e == 2 && isfinite(t_ana))
                report_num(r, col[6], 100 * (t_ana / t - 1));
            report_str(r, col[7], o->op == GCSIM_OP_ALLREDUCE ? gcsim_collective_name(tuned.collective)
                                  : o->op == GCSIM_OP_BROADCAST ? "chain-and-tree" : "ring");
            report_str(r, col[8], gcsim_protocol_name(tuned.protocol));
            report_num(r, col[9], gpus);
        }
    }
    return 0;
}

report *collective_table(const collective_request *o, const gcsim_platform *platform,
                         int *status)
{
    gcsim_collective forced = o->forced;
    int max_gpus = o->gpus[o->n_gpus - 1];
    char msg[1024];
    report *r = report_new_for_file("collective");
    int col[10];
    col[0] = report_column(r, "size_bytes", "size (B)", 0);
    col[1] = report_column(r, "count", "count", 0);
    col[2] = report_column(r, "engine", "engine", -1);
    /* seconds and bytes per second in CSV and JSON; the text table shows us and GB/s */
    col[3] = report_column_scaled(r, "time_s", "time (us)", 2, 1e6);
    col[4] = report_column_scaled(r, "algbw_Bps", "algbw (GB/s)", 2, 1e-9);
    col[5] = report_column_scaled(r, "busbw_Bps", "busbw (GB/s)", 2, 1e-9);
    col[6] = report_column(r, "des_vs_analytic_pct", "DES vs analytic %", 2);
    col[7] = report_column(r, "algorithm", "algorithm", -1);
    col[8] = report_column(r, "protocol", "protocol", -1);
    col[9] = report_column(r, "gpus", "GPUs", 0); /* last: CSV readers by position keep working */
    /* the text table in 100 columns (issue 46): short headers, the legend names them */
    report_column_brief(r, col[0], "bytes");
    report_column_brief(r, col[3], "us");
    report_column_brief(r, col[4], "algbw");
    report_column_brief(r, col[5], "busbw");
    report_column_brief(r, col[6], "DES-ana %");
    snprintf(msg, sizeof msg, "%s (%s)", platform->name, platform->source_path);
    report_note(r, "platform", msg);
    report_meta_scenario(r, platform, NULL, NULL, NULL);
    report_meta_str(r, "operation", gcsim_op_name(o->op));
    report_meta_str(r, "collective", o->op != GCSIM_OP_ALLREDUCE ? o->op == GCSIM_OP_BROADCAST ? "chain-and-tree" : "ring"
                                     : forced != COLLECTIVE_COUNT ? gcsim_collective_name(forced)
                                                                  : "tuned");
    report_meta_str(r, "protocol", o->protocol == GCSIM_PROTO_COUNT ? "tuned"
                                                                   : gcsim_protocol_name(o->protocol));
    report_meta_int(r, "gpus", max_gpus);
    report_meta_str(r, "dtype", o->dtype);
    char over[64];
    if (o->n_gpus == 1)
        snprintf(over, sizeof over, "%d GPUs", max_gpus);
    else
        snprintf(over, sizeof over, "%d to %d GPUs (%d counts)", o->gpus[0], max_gpus, o->n_gpus);
    snprintf(msg, sizeof msg, "%s of %s over %s, %s%s", gcsim_op_name(o->op), o->dtype, over,
             o->op != GCSIM_OP_ALLREDUCE ? ""
             : forced != COLLECTIVE_COUNT ? gcsim_collective_name(forced)
                                          : "ring, double-tree or nvls, as the tuner picks per size",
             o->op == GCSIM_OP_ALLREDUCE ? "" : o->op == GCSIM_OP_BROADCAST ? "pipelined chain and tree" : "ring");
    report_note(r, "operation", msg);
    if (o->skipped && o->skipped[0])
        report_note(r, "skipped", o->skipped);
    fabric_notes_report(r, platform);
    report_note(r, "bandwidth", "algbw = size / time; busbw = algbw x nccl-tests' factor; GB/s = 1e9 B/s");
    report_note(r, "protocol", o->protocol == GCSIM_PROTO_COUNT
                                   ? "algorithm and protocol per size as NCCL's tuner picks them: the "
                                     "lowest closed-form time (docs/collectives.md); both engines run "
                                     "that choice"
                                   : "the protocol named, on every size");
    *status = 0;
    for (int g = 0; g < o->n_gpus && *status == 0; g++)
        *status = time_sizes(r, col, o, platform, forced, o->gpus[g], o->sizes, o->n_sizes);
    return r;
}
