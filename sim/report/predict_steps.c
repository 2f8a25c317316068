/* sim/report/predict_steps.c: the per-step view of an iteration (predict_steps.h). */
#include <stdio.h>
#include <stdlib.h>

#include "analytic.h"
#include "step.h"
#include "predict_steps.h"

int predict_steps_fill(report *r, const gcsim_scenario *s, gcsim_error *err)
{
    gcsim_iteration it;
    if (gcsim_iteration_build(&it, s, err))
        return -1;
    double *call_s = calloc((size_t)(it.n_calls > 0 ? it.n_calls : 1), sizeof *call_s);
    gcsim_topology topo = {0};
    if (!call_s || gcsim_topology_init(&topo, s->platform, s->placement.gpus, err) ||
        gcsim_analytic_call_times(&topo, s->ps_shards, &it, call_s, NULL, err)) {
        if (!call_s)
            gcsim_fail(err, "out of memory");
        gcsim_topology_free(&topo);
        free(call_s);
        gcsim_iteration_free(&it);
        return -1;
    }
    report_meta_str(r, "table", "steps");
    report_meta_int(r, "gpus", s->placement.gpus);
    report_meta_int(r, "buckets", it.n_buckets);
    int c_b = report_column(r, "bucket", "bucket", 0);
    int c_k = report_column(r, "step", "step", 0);
    int c_kind = report_column(r, "kind", "kind", 0);
    int c_name = report_column(r, "name", "name", 0);
    int c_when = report_column(r, "runs", "runs", 0);
    int c_s = report_column_scaled(r, "seconds", "ms", 3, 1e3);
    int c_over = report_column_scaled(r, "overhead_s", "overhead ms", 3, 1e3);
    int c_bytes = report_column(r, "payload_bytes", "bytes", 0);
    int c_coll = report_column(r, "collective", "collective", 0);
    int c_proto = report_column(r, "protocol", "protocol", 0);
    double enc = 0, dec = 0, calls = 0, blocking = 0;
    for (int b = 0; b < it.n_buckets; b++) {
        const gcsim_bucket *bk = &it.buckets[b];
        for (int k = 0; k < bk->n_steps; k++) {
            const gcsim_step *st = &it.steps[bk->first_step + k];
            bool deferred = k >= bk->n_steps - bk->n_deferred;
            report_row(r);
            report_int(r, c_b, b);
            report_int(r, c_k, k);
            report_str(r, c_name, st->name);
            if (st->kind == GCSIM_STEP_CODEC) {
                bool e = st->cls == GCSIM_CODEC_ENCODE;
                report_str(r, c_kind, e ? "encode" : "decode");
                report_str(r, c_when, deferred ? "optimizer step" : "exchange");
                report_num(r, c_s, st->codec_s);
                *(e ? &enc : &dec) += st->codec_s;
                continue;
            }
            const gcsim_call *c = &it.calls[st->call];
            report_str(r, c_kind, c->blocking ? "call (blocking)" : "call");
            report_str(r, c_when, c->blocking ? "gradient hook" : "exchange");
            report_num(r, c_s, call_s[st->call]);
            report_num(r, c_over, c->overhead_s);
            report_num(r, c_bytes, c->bytes.payload_bytes);
            report_str(r, c_coll, gcsim_collective_name(c->collective));
            if (c->protocol) /* the NCCL protocol the tuner picked (nccl_call.h) */
                report_str(r, c_proto, c->protocol);
            calls += call_s[st->call];
            if (c->blocking)
                blocking += call_s[st->call];
        }
    }
    char buf[384];
    snprintf(buf, sizeof buf, "%d buckets, %d calls; per GPU per iteration: encode %.3f ms, "
                              "decode %.3f ms, calls %.3f ms (%.3f ms of them blocking "
                              "backward), before overlap with backward",
             it.n_buckets, it.n_calls, enc * 1e3, dec * 1e3, calls * 1e3, blocking * 1e3);
    report_note(r, "steps", buf);
    report_meta_num(r, "encode_s", enc);
    report_meta_num(r, "decode_s", dec);
    report_meta_num(r, "calls_s", calls);
    report_meta_num(r, "blocking_calls_s", blocking);
    gcsim_topology_free(&topo);
    free(call_s);
    gcsim_iteration_free(&it);
    return 0;
}
