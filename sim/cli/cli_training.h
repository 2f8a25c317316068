/*
 * sim/cli/cli_training.h: the training settings every command that predicts takes, parsed
 * once: --precision, --optimizer, --sharding, --grad-accum, --act-ckpt, --mfu, --step-time
 * (docs/sharding.md). Each parser returns 0, or -1 after printing
 * "gcsim CMD: --OPTION: reason" on stderr.
 */
#ifndef GCSIM_CLI_TRAINING_H
#define GCSIM_CLI_TRAINING_H

#include "act_ckpt.h"
#include "run_phases.h"
#include "sharding.h"

/* fp32, tf32, bf16 or fp16, as a gcsim_precision. */
int cli_training_precision(const char *cmd, const char *arg, int *out);
/* sgd, momentum or adam, as a gcsim_optimizer. */
int cli_training_optimizer(const char *cmd, const char *arg, int *out);
/* predict's --optimizer: sgd, momentum or adam as cli_training_optimizer (*is_phased
 * false), or a run of phases (run_phases.h: onebit-adam[:freeze=N], zero-one-adam[:...]),
 * *is_phased true, *phased set and *out adam (its state, for the memory check). */
int cli_training_optimizer_phased(const char *cmd, const char *arg, int *out,
                                  run_phased_spec *phased, bool *is_phased);
/* --steps-total: the run's optimizer steps, 1 to RUN_PHASES_MAX_STEPS. */
int cli_training_steps_total(const char *cmd, const char *arg, long long *out);
int cli_training_sharding(const char *cmd, const char *arg, gcsim_sharding *out);
/* 1 to GCSIM_MAX_GRAD_ACCUM micro-batches per optimizer step. */
int cli_training_grad_accum(const char *cmd, const char *arg, long long *out);
/* --act-ckpt[=POLICY]: arg NULL (the flag alone) is the full policy. */
int cli_training_act_ckpt(const char *cmd, const char *arg, gcsim_act_ckpt *out);
/* "gcsim CMD: unexpected argument ARG" on stderr, with a hint when ARG is a checkpointing
 * policy given after a space (--act-ckpt takes its value after '='). */
void cli_training_unexpected(const char *cmd, const char *arg);
/* A fraction of the peak in (0, 1], plain decimal (the iteration time it gives is held to
 * GCSIM_MAX_COMPUTE_S by gcsim_compute_override). */
int cli_training_mfu(const char *cmd, const char *arg, double *out);
/* A duration such as 350ms, from GCSIM_MIN_STEP_TIME_S to GCSIM_MAX_COMPUTE_S (an hour, the
 * cap on a model's profile points). */
int cli_training_step_time(const char *cmd, const char *arg, double *out_s);
/* --mfu and --step-time both given (0: not given): refused, each sets the compute time. */
int cli_training_compute_conflict(const char *cmd, double mfu, double step_time_s);

/* The shortest --step-time: one GPU's forward and backward launch kernels of several us
 * each; 1e-300 s printed a speedup of 0.00. */
#define GCSIM_MIN_STEP_TIME_S 1e-6

#endif
