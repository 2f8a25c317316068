/* Phases of a 1-bit Adam / 0/1 Adam run and its end-to-end time (run_phases.h). */
#include "run_phases.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_build.h"
#include "engine.h"

static int whole(const char *v, long long lo, long long hi, long long *out)
{
    if (!v || !*v || *v == '-' || *v == '+' || *v == ' ')
        return -1;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || *end || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

int run_phased_parse(const char *text, run_phased_spec *out, char *why, size_t why_size)
{
    const char *colon = strchr(text, ':');
    size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
    run_phased_spec s = {0};
    if (name_len == strlen("onebit-adam") && !strncmp(text, "onebit-adam", name_len)) {
        s.kind = RUN_PHASED_ONEBIT_ADAM;
        s.freeze_step = 100000; /* DeepSpeed OnebitAdam's default */
    } else if (name_len == strlen("zero-one-adam") && !strncmp(text, "zero-one-adam", name_len)) {
        s.kind = RUN_PHASED_ZERO_ONE_ADAM; /* DeepSpeed ZeroOneAdam's defaults */
        s.var_freeze_step = 100000;
        s.var_update_scaler = 16;
        s.local_step_scaler = 32678;
        s.local_step_clipper = 16;
    } else {
        return 1;
    }
    const char *p = colon ? colon + 1 : NULL;
    if (colon && !*p) {
        snprintf(why, why_size, "\"%s\": no key after ':'", text);
        return -1;
    }
    while (p && *p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[96];
        if (len >= sizeof item) {
            snprintf(why, why_size, "\"%.*s\": too long", (int)(len > 40 ? 40 : len), p);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = 0;
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(why, why_size, "\"%s\": expected KEY=VALUE", item);
            return -1;
        }
        *eq = 0;
        const char *key = item, *val = eq + 1;
        long long *slot = NULL, lo = 0, hi = RUN_PHASES_MAX_STEPS;
        if (s.kind == RUN_PHASED_ONEBIT_ADAM && !strcmp(key, "freeze"))
            slot = &s.freeze_step;
        else if (s.kind == RUN_PHASED_ZERO_ONE_ADAM && !strcmp(key, "var_freeze"))
            slot = &s.var_freeze_step;
        else if (s.kind == RUN_PHASED_ZERO_ONE_ADAM && !strcmp(key, "var_update_scaler"))
            slot = &s.var_update_scaler, lo = 1;
        else if (s.kind == RUN_PHASED_ZERO_ONE_ADAM && !strcmp(key, "local_step_scaler"))
            slot = &s.local_step_scaler, lo = 1;
        else if (s.kind == RUN_PHASED_ZERO_ONE_ADAM && !strcmp(key, "local_step_clipper"))
            slot = &s.local_step_clipper, lo = 1;
        if (!slot) {
            snprintf(why, why_size, "unknown key \"%s\" (%s takes %s)", key,
                     s.kind == RUN_PHASED_ONEBIT_ADAM ? "onebit-adam" : "zero-one-adam",
                     s.kind == RUN_PHASED_ONEBIT_ADAM
                         ? "freeze"
                         : "var_freeze, var_update_scaler, local_step_scaler, local_step_clipper");
            return -1;
        }
        if (whole(val, lo, hi, slot)) {
            snprintf(why, why_size, "%s=\"%s\": expected a whole number from %lld to %lld", key,
                     val, lo, hi);
            return -1;
        }
        p = comma ? comma + 1 : NULL;
        if (comma && !*p) {
            snprintf(why, why_size, "\"%s\": nothing after ','", text);
            return -1;
        }
    }
    *out = s;
    return 0;
}

void run_phased_describe(const run_phased_spec *s, char *buf, size_t size)
{
    if (s->kind == RUN_PHASED_ONEBIT_ADAM)
        snprintf(buf, size, "1-bit Adam (freeze_step %lld)", s->freeze_step);
    else
        snprintf(buf, size, "0/1 Adam (var_freeze_step %lld, var_update_scaler %lld, "
                            "local_step_scaler %lld, local_step_clipper %lld)",
                 s->var_freeze_step, s->var_update_scaler, s->local_step_scaler,
                 s->local_step_clipper);
}

/* Multiples of m in (a, b]. */
static long long multiples(long long a, long long b, long long m)
{
    return b / m - a / m;
}

/* 0/1 Adam's variance phase, steps (0, last]: full when the step is a multiple of the
 * interval, else 1-bit; the interval doubles after every `scaler` full steps (zoadam.py's
 * var_interval / var_counter). Walked one interval at a time: O(log last). */
static void zero_one_variance(long long last, long long scaler, run_phase_counts *n)
{
    long long s = 0, interval = 1, counter = 0;
    while (s < last) {
        long long next = (s / interval + 1) * interval; /* the next full step */
        long long left = scaler - counter;              /* full steps at this interval */
        /* the last of them, without overflow: next + (left - 1) * interval */
        if (next > last || left - 1 > (last - next) / interval) {
            long long full = multiples(s, last, interval);
            n->full += full;
            n->onebit += (last - s) - full;
            return;
        }
        long long end = next + (left - 1) * interval;
        n->full += left;
        n->onebit += (end - s) - left;
        s = end;
        counter = 0;
        interval *= 2;
    }
}

/* 0/1 Adam's local-step phase, steps (first - 1, last]: 1-bit when the step is a multiple of
 * the interval, else local; the interval doubles (to at most `clipper`) every `scaler`
 * steps (zoadam.py's local_step_interval / local_step_counter). */
static void zero_one_local(long long from, long long last, long long scaler, long long clipper,
                           run_phase_counts *n)
{
    long long s = from, interval = 1;
    while (s < last) {
        long long end = interval >= clipper || scaler > last - s ? last : s + scaler;
        long long syncs = multiples(s, end, interval);
        n->onebit += syncs;
        n->local += (end - s) - syncs;
        s = end;
        interval = interval * 2 > clipper ? clipper : interval * 2;
    }
}

void run_phases_count(const run_phased_spec *sp, long long total, run_phase_counts *n)
{
    *n = (run_phase_counts){0, 0, 0};
    if (sp->kind == RUN_PHASED_ONEBIT_ADAM) {
        n->full = sp->freeze_step < total ? sp->freeze_step : total;
        n->onebit = total - n->full;
        return;
    }
    /* zoadam.py freezes after the step whose count exceeds var_freeze_step */
    long long var_last = sp->var_freeze_step + 1 < total ? sp->var_freeze_step + 1 : total;
    zero_one_variance(var_last, sp->var_update_scaler, n);
    zero_one_local(var_last, total, sp->local_step_scaler, sp->local_step_clipper, n);
}

double run_phases_total_s(const run_phase_counts *n, const run_phase_step_s *t)
{
    return (double)n->full * t->full_s + (double)n->onebit * t->onebit_s +
           (double)n->local * t->local_s;
}

static int step_time(const sweep_case *c, gcsim_prediction *p, char *unimplemented,
                     size_t size, gcsim_error *err)
{
    gcsim_stack_setup ss;
    gcsim_scenario s;
    if (case_build_setup(c, &ss, err) || case_build_scenario(c, &ss, &s, err))
        return -1;
    if (unimplemented)
        snprintf(unimplemented, size, "%s", ss.unimplemented);
    return engine_run(c->engine, &s, p, err);
}

int run_phases_step_times(const sweep_case *full, const gcsim_payload_plan *onebit_plan,
                          run_phase_step_s *out, gcsim_error *err)
{
    gcsim_prediction pf, pb;
    sweep_case b = *full;
    b.payload = onebit_plan;
    b.exchange = GCSIM_EXCHANGE_ALLREDUCE;
    if (step_time(full, &pf, NULL, 0, err) ||
        step_time(&b, &pb, out->onebit_unimplemented, sizeof out->onebit_unimplemented, err))
        return -1;
    out->full_s = pf.iteration_s;
    out->onebit_s = pb.iteration_s;
    out->local_s = pf.compute_s;
    return 0;
}
