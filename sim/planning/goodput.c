/* Goodput with failures, checkpoints and restarts (goodput.h).
 *
 * Why f(tau) = tau / (M e^(R/M) (e^((tau+delta)/M) - 1)): a segment of s = tau + delta
 * seconds (work, then the checkpoint write) is retried until it runs s seconds without a
 * failure. With exponential times between failures of mean M, a try succeeds with
 * probability p = e^(-s/M), so e^(s/M) tries are made on average, each running
 * E[min(X, s)] = M (1 - e^(-s/M)): M (e^(s/M) - 1) seconds of running per segment. Each of
 * the e^(s/M) - 1 failures costs a restart of R seconds, itself retried when a failure
 * strikes it: M (e^(R/M) - 1) seconds on average by the same argument. The sum is
 * M e^(R/M) (e^(s/M) - 1), of which tau is useful work. */
#include "goodput.h"

#include <math.h>
#include <stdio.h>

#include "memory.h"

void goodput_options_init(goodput_options *o)
{
    *o = (goodput_options){.on = false, .restart_s = -1.0, .rule = GOODPUT_INTERVAL_DALY};
}

double goodput_young_interval_s(double delta_s, double mtbf_s)
{
    return sqrt(2.0 * delta_s * mtbf_s);
}

double goodput_daly_interval_s(double delta_s, double mtbf_s)
{
    if (delta_s >= 2.0 * mtbf_s)
        return mtbf_s;
    double x = delta_s / (2.0 * mtbf_s);
    return sqrt(2.0 * delta_s * mtbf_s) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta_s;
}

double goodput_useful_fraction(double interval_s, double delta_s, double restart_s,
                               double mtbf_s)
{
    /* expm1 keeps the digits when tau + delta is small against M */
    return interval_s / (mtbf_s * exp(restart_s / mtbf_s) * expm1((interval_s + delta_s) / mtbf_s));
}

double goodput_checkpoint_bytes(const gcsim_model *m)
{
    gcsim_memory mem;
    gcsim_memory_estimate(m, NULL, 0, &mem);
    return mem.weights_bytes + mem.optimizer_bytes;
}

int goodput_evaluate(const goodput_options *o, const gcsim_model *m, int gpus,
                     int gpus_per_node, double throughput_samples_per_s, goodput_result *out,
                     gcsim_error *err)
{
    *out = (goodput_result){0};
    if (gpus < 1 || gpus_per_node < 1)
        return gcsim_fail(err, "goodput: %d GPUs on nodes of %d: expected positive counts", gpus,
                          gpus_per_node);
    if (!(throughput_samples_per_s >= 0) || !isfinite(throughput_samples_per_s))
        return gcsim_fail(err, "goodput: throughput %g samples/s: expected a finite number >= 0",
                          throughput_samples_per_s);
    if (o->node_mtbf_h > 0) {
        int nodes = (gpus + gpus_per_node - 1) / gpus_per_node;
        out->job_mtbf_s = o->node_mtbf_h * 3600.0 / nodes;
    } else {
        double gpu_h = o->gpu_mtbf_h > 0 ? o->gpu_mtbf_h : GOODPUT_DEFAULT_GPU_MTBF_H;
        out->job_mtbf_s = gpu_h * 3600.0 / gpus;
    }
    out->checkpoint_bytes = goodput_checkpoint_bytes(m);
    out->storage_bytes_per_s = o->storage_bytes_per_s > 0
                                   ? o->storage_bytes_per_s
                                   : GOODPUT_DEFAULT_STORAGE_BYTES_PER_S_PER_GPU * gpus;
    out->checkpoint_write_s = out->checkpoint_bytes / out->storage_bytes_per_s;
    out->restart_s = (o->restart_s >= 0 ? o->restart_s : GOODPUT_DEFAULT_RESTART_S) +
                     out->checkpoint_write_s; /* the read, at the same rate */
    out->young_interval_s = goodput_young_interval_s(out->checkpoint_write_s, out->job_mtbf_s);
    out->daly_interval_s = goodput_daly_interval_s(out->checkpoint_write_s, out->job_mtbf_s);
    switch (o->rule) {
    case GOODPUT_INTERVAL_YOUNG:
        out->interval_s = out->young_interval_s;
        out->rule_name = "young";
        break;
    case GOODPUT_INTERVAL_FIXED:
        out->interval_s = o->interval_s;
        out->rule_name = "given";
        break;
    default:
        out->interval_s = out->daly_interval_s;
        out->rule_name = "daly";
        break;
    }
    if (!(out->interval_s > 0))
        return gcsim_fail(err, "goodput: checkpoint interval %g s: expected a positive time",
                          out->interval_s);
    out->useful_fraction = goodput_useful_fraction(out->interval_s, out->checkpoint_write_s,
                                                   out->restart_s, out->job_mtbf_s);
    out->goodput_samples_per_s = throughput_samples_per_s * out->useful_fraction;
    return 0;
}

void goodput_describe(const goodput_options *o, const goodput_result *g, char *buf, size_t size)
{
    char mtbf[200], bw[200], rs[160];
    if (o->node_mtbf_h > 0)
        snprintf(mtbf, sizeof mtbf, "node MTBF %.6g h (--mtbf-node-hours)", o->node_mtbf_h);
    else if (o->gpu_mtbf_h > 0)
        snprintf(mtbf, sizeof mtbf, "GPU MTBF %.6g h (--mtbf-gpu-hours)", o->gpu_mtbf_h);
    else
        snprintf(mtbf, sizeof mtbf, "GPU MTBF %.6g h (default, derived: Llama 3's 419 unexpected "
                 "interruptions on 16,384 H100 in 54 days, arXiv:2407.21783 Sec. 3.3.4)",
                 GOODPUT_DEFAULT_GPU_MTBF_H);
    if (o->storage_bytes_per_s > 0)
        snprintf(bw, sizeof bw, "storage %.6g GB/s (--storage-gb-per-s)",
                 o->storage_bytes_per_s / 1e9);
    else
        snprintf(bw, sizeof bw, "storage %.6g MB/s per GPU (default, derived: Llama 3's 2 TB/s "
                 "sustained over 16,384 GPUs, Sec. 3.3.1)",
                 GOODPUT_DEFAULT_STORAGE_BYTES_PER_S_PER_GPU / 1e6);
    if (o->restart_s >= 0)
        snprintf(rs, sizeof rs, "restart %.6g s (--restart-s)", o->restart_s);
    else
        snprintf(rs, sizeof rs, "restart %.6g s (default, measured: FlashRecovery on 4,800 "
                 "devices, arXiv:2509.03047)", GOODPUT_DEFAULT_RESTART_S);
    const char *rule = o->rule == GOODPUT_INTERVAL_YOUNG
                           ? "Young's tau = sqrt(2 delta M)"
                       : o->rule == GOODPUT_INTERVAL_FIXED
                           ? "tau as given (--checkpoint-interval)"
                           : "Daly's higher-order tau = sqrt(2 delta M) (1 + sqrt(delta/2M)/3 + "
                             "(delta/2M)/9) - delta";
    snprintf(buf, size,
             "goodput = throughput x tau / (M e^(R/M) (e^((tau+delta)/M) - 1)) (Poisson "
             "failures, synchronous checkpoint writes; Daly 2006); checkpoint interval %s; "
             "checkpoint %.6g GB (weights and optimizer state) written in delta; R = restart + "
             "reading the checkpoint; M = the job's MTBF from the %s; %s; %s. Throughput "
             "columns stay failure-free",
             rule, g->checkpoint_bytes / 1e9, mtbf, bw, rs);
}
