/*
 * sim/des/des_predict.c: the DES's entry for a resolved step (des.h): the plan built once,
 * simulated once (des_fork.c) or for variable compute's iterations (des_variability.c),
 * and the prediction read from the simulated buckets. Its own file so that the two runs
 * it chooses between do not call each other.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "des_internal.h"
#include "variability.h"

int gcsim_des_predict_opts(const gcsim_resolved_step *s, const gcsim_topology *topo,
                           const gcsim_des_options *opts, gcsim_prediction *out,
                           gcsim_des_details *details, gcsim_error *err)
{
    des_plan plan;
    if (des_plan_build(&plan, s, topo, opts, err) != 0)
        return -1;
    des_result_header hdr;
    gcsim_des_details local;
    gcsim_des_details *d = details ? details : &local;
    bool variable = s->variability && s->variability->on;
    gcsim_var_stats st;
    /* variable compute: several iterations, the last one's details (des_variability.c) */
    int rc = variable ? des_run_variable(&plan, s->variability, &hdr, d, &st, err)
                      : des_run_plan(&plan, &hdr, d, err);
    if (rc == 0) {
        double compute_s = plan.iteration.compute_s;
        /* Time during which some exchange is in progress: the union of the buckets'
         * intervals (they can overlap when host-side steps lag, e.g. TernGrad pattern). */
        double comm_s = 0, covered_until = 0;
        for (int b = 0; b < d->n_buckets; b++) {
            double s0 = fmax(d->buckets[b].exchange_start_s, covered_until);
            double s1 = d->buckets[b].exchange_end_s;
            if (s1 > s0)
                comm_s += s1 - s0;
            if (s1 > covered_until)
                covered_until = s1;
        }
        memset(out, 0, sizeof *out);
        out->iteration_s = hdr.iteration_s;
        out->compute_s = compute_s;
        out->comm_s = comm_s;
        out->compress_s = hdr.max_codec_s;
        out->encode_s = d->encode_s;
        out->decode_s = d->decode_s;
        out->exposed_comm_s = fmax(0.0, hdr.iteration_s - compute_s - hdr.max_codec_s);
        d->exposed_comm_s = out->exposed_comm_s;
        out->samples_per_iteration = s->samples_per_iteration;
        out->throughput_samples_per_s = out->samples_per_iteration / hdr.iteration_s;
        if (variable) { /* the mean over the iterations simulated */
            out->iteration_s = st.mean_s;
            if (s->variability_stats)
                *s->variability_stats = st;
            out->exposed_comm_s = fmax(0.0, st.mean_s - compute_s - hdr.max_codec_s);
            d->exposed_comm_s = out->exposed_comm_s;
            out->throughput_samples_per_s = out->samples_per_iteration / st.mean_s;
        }
    }
    if (!details && rc == 0)
        gcsim_des_details_free(&local);
    des_plan_free(&plan);
    return rc;
}

int gcsim_des_predict(const gcsim_resolved_step *s, const gcsim_topology *topo,
                      gcsim_prediction *out, gcsim_des_details *details, gcsim_error *err)
{
    return gcsim_des_predict_opts(s, topo, NULL, out, details, err);
}
