/* One baseline case predicted and compared (baseline_check.h). */
#include "baseline_check.h"

#include "case_build.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "case_options.h"

const char *baseline_case_stack(const baseline_case *bc, const gcsim_platform *pf)
{
    return bc->stack[0] ? bc->stack : gcsim_stack_choice(NULL, pf);
}

const char *baseline_stack_to_pin(const baseline_case *bc, const gcsim_platform *pf)
{
    if (bc->stack[0])
        return NULL;
    const char *choice = gcsim_stack_choice(NULL, pf);
    /* the rule of gcsim_stack_load and the platform reader: a path has '/' or ".json" */
    return strchr(choice, '/') || strstr(choice, ".json") ? NULL : choice;
}

/* A case's settings are fields of the baseline, not options: the library's messages name
 * the command-line spelling ("--sharding hsdp:16 on 16 GPUs", "--act-ckpt=op applies to
 * ..."), which a baseline user never typed. The message is rewritten with the case's field
 * names (cmd_check prefixes "$.cases[k] (name): "). */
static void as_case_fields(char *msg, size_t size)
{
    static const char *const words[][2] = {
        {"--act-ckpt=", "act_ckpt "}, {"--act-ckpt", "act_ckpt"},   {"--sharding", "sharding"},
        {"--grad-accum", "grad_accum"}, {"--compressor", "compressor"},
        {"--collective", "collective"}, {"--batch", "batch"},       {"--gpus", "gpus"},
        {"--stack", "stack"}};
    char out[sizeof ((gcsim_error *)0)->message];
    size_t o = 0;
    for (const char *p = msg; *p && o + 1 < sizeof out;) {
        size_t k = 0, n = sizeof words / sizeof *words;
        while (k < n && strncmp(p, words[k][0], strlen(words[k][0])) != 0)
            k++;
        if (k == n) {
            out[o++] = *p++;
            continue;
        }
        o += (size_t)snprintf(out + o, sizeof out - o, "%s", words[k][1]);
        if (o >= sizeof out)
            o = sizeof out - 1;
        p += strlen(words[k][0]);
    }
    out[o] = '\0';
    snprintf(msg, size, "%s", out);
}

int baseline_case_predict(const baseline_case *bc, sweep_cache *cache,
                          double *predicted_samples_per_s, const gcsim_stack **stack,
                          gcsim_error *err)
{
    const gcsim_platform *pf = sweep_cache_platform(cache, bc->platform, err);
    const gcsim_model *m =
        pf ? sweep_cache_model_as(cache, bc->model, bc->precision, bc->optimizer, err) : NULL;
    const gcsim_payload_plan *pl = m ? sweep_cache_payload(cache, m, bc->compressor, err) : NULL;
    const gcsim_stack *st = pl ? sweep_cache_stack(cache, baseline_case_stack(bc, pf), err) : NULL;
    if (pl && !st)
        gcsim_stack_blame_platform(bc->stack, pf, err);
    if (!st)
        return -1;
    if (stack)
        *stack = st;
    /* The case's fields as the option record every command fills (case_options.h); the
     * case names its collective, so the platform's choice does not apply. */
    case_options o;
    case_options_init(&o);
    o.precision = bc->precision;
    o.optimizer = bc->optimizer;
    o.collective = bc->collective;
    o.collective_given = true;
    o.scaling = bc->scaling;
    o.engine = bc->engine;
    o.batch = bc->batch;
    o.sharding = bc->sharding;
    o.grad_accum = bc->grad_accum;
    o.act_ckpt = bc->act_ckpt;
    o.act_ckpt_policy = bc->act_ckpt_policy;
    sweep_case c = case_options_case(&o, pf, m, pl, st, bc->gpus);
    /* What the inputs cannot run (a count above the platform, memory, a sharding's refusal)
     * is 1, apart from bad inputs (-1), as predict's rows (issue 46). */
    gcsim_placement placed;
    int feasible = gcsim_platform_place(pf, bc->gpus, &placed, err) ? 1
                   : case_build_feasible(&c, err);
    if (feasible) {
        as_case_fields(err->message, sizeof err->message);
        return feasible > 0 && gcsim_error_skippable(err) ? 1 : -1;
    }
    sweep_result res;
    if (sweep_case_run(&c, &res, err)) {
        as_case_fields(err->message, sizeof err->message);
        return -1;
    }
    *predicted_samples_per_s = res.p.throughput_samples_per_s;
    return 0;
}

double baseline_drift_pct(double predicted_samples_per_s, double expected_samples_per_s)
{
    return 100.0 * (predicted_samples_per_s - expected_samples_per_s) / expected_samples_per_s;
}

bool baseline_within_tolerance(double drift_pct, double tolerance_pct)
{
    return fabs(drift_pct) <= tolerance_pct;
}

double baseline_tolerance_pct(const baseline *b, const baseline_case *bc, double command_pct,
                              double fallback_pct)
{
    if (bc->tolerance_pct >= 0)
        return bc->tolerance_pct;
    if (command_pct >= 0)
        return command_pct;
    return b->tolerance_pct >= 0 ? b->tolerance_pct : fallback_pct;
}
