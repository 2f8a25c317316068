/* Parsing the training settings of the commands that predict (cli_training.h). */
#include "cli_training.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli_args.h"
#include "model.h"
#include "units.h"

int cli_training_precision(const char *cmd, const char *arg, int *out)
{
    gcsim_precision p;
    if (gcsim_precision_parse(arg, &p)) {
        fprintf(stderr, "gcsim %s: --precision: expected fp32, tf32, bf16 or fp16, got \"%s\"\n",
                cmd, arg);
        return -1;
    }
    *out = (int)p;
    return 0;
}

int cli_training_optimizer(const char *cmd, const char *arg, int *out)
{
    gcsim_optimizer o;
    if (gcsim_optimizer_parse(arg, &o)) {
        fprintf(stderr, "gcsim %s: --optimizer: expected sgd, momentum or adam, got \"%s\"\n",
                cmd, arg);
        return -1;
    }
    *out = (int)o;
    return 0;
}

int cli_training_optimizer_phased(const char *cmd, const char *arg, int *out,
                                  run_phased_spec *phased, bool *is_phased)
{
    char why[200];
    int rc = run_phased_parse(arg, phased, why, sizeof why);
    if (rc < 0) {
        fprintf(stderr, "gcsim %s: --optimizer: %s\n", cmd, why);
        return -1;
    }
    if (rc == 0) {
        *is_phased = true;
        *out = (int)GCSIM_OPT_ADAM; /* its state, for the memory check */
        return 0;
    }
    gcsim_optimizer o;
    if (gcsim_optimizer_parse(arg, &o)) {
        fprintf(stderr, "gcsim %s: --optimizer: expected sgd, momentum, adam, "
                        "onebit-adam[:freeze=N] or zero-one-adam[:KEY=N,...], got \"%s\"\n",
                cmd, arg);
        return -1;
    }
    *is_phased = false;
    *out = (int)o;
    return 0;
}

int cli_training_steps_total(const char *cmd, const char *arg, long long *out)
{
    if (!cli_parse_int(arg, 1, RUN_PHASES_MAX_STEPS, out)) {
        fprintf(stderr, "gcsim %s: --steps-total: expected a count of optimizer steps from 1 "
                        "to %lld, got \"%s\"\n", cmd, RUN_PHASES_MAX_STEPS, arg);
        return -1;
    }
    return 0;
}

int cli_training_sharding(const char *cmd, const char *arg, gcsim_sharding *out)
{
    char why[160];
    if (gcsim_sharding_parse(arg, out, why, sizeof why)) {
        fprintf(stderr, "gcsim %s: --sharding: %s\n", cmd, why);
        return -1;
    }
    return 0;
}

int cli_training_act_ckpt(const char *cmd, const char *arg, gcsim_act_ckpt *out)
{
    char why[160];
    if (gcsim_act_ckpt_parse(arg ? arg : "full", out, why, sizeof why)) {
        fprintf(stderr, "gcsim %s: --act-ckpt: %s\n", cmd, why);
        return -1;
    }
    return 0;
}

void cli_training_unexpected(const char *cmd, const char *arg)
{
    gcsim_act_ckpt c;
    char why[160];
    bool policy = gcsim_act_ckpt_parse(arg, &c, why, sizeof why) == 0;
    fprintf(stderr, "gcsim %s: unexpected argument \"%s\"%s%s%s\n", cmd, arg,
            policy ? " (a checkpointing policy goes after '=': --act-ckpt=" : "",
            policy ? arg : "", policy ? ")" : "");
}

int cli_training_grad_accum(const char *cmd, const char *arg, long long *out)
{
    if (!cli_parse_int(arg, 1, GCSIM_MAX_GRAD_ACCUM, out)) {
        fprintf(stderr, "gcsim %s: --grad-accum: expected a count from 1 to %d, got \"%s\"\n",
                cmd, GCSIM_MAX_GRAD_ACCUM, arg);
        return -1;
    }
    return 0;
}

int cli_training_mfu(const char *cmd, const char *arg, double *out)
{
    double v;
    if (!cli_parse_double(arg, 0.0, 1.0, &v) || !(v > 0)) {
        fprintf(stderr, "gcsim %s: --mfu: expected a fraction of the peak in (0, 1] in plain "
                        "decimal, got \"%s\"\n", cmd, arg);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_training_step_time(const char *cmd, const char *arg, double *out_s)
{
    if (!gcsim_parse_time_s(arg, out_s) || *out_s < GCSIM_MIN_STEP_TIME_S ||
        *out_s > GCSIM_MAX_COMPUTE_S) {
        fprintf(stderr, "gcsim %s: --step-time: expected a duration such as 350ms, from 1us to "
                        "%gs, got \"%s\"\n", cmd, GCSIM_MAX_COMPUTE_S, arg);
        return -1;
    }
    return 0;
}

int cli_training_compute_conflict(const char *cmd, double mfu, double step_time_s)
{
    if (mfu > 0 && step_time_s > 0) {
        fprintf(stderr, "gcsim %s: --mfu and --step-time both set the compute time (the step "
                        "time won silently); give one\n", cmd);
        return -1;
    }
    return 0;
}
