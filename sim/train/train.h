/*
 * sim/train/train.h: the gcsim_train library: data-parallel synchronous SGD with gradient
 * compression on Fashion-MNIST or the 8x8 UCI digits (digits.h), a convergence proxy for
 * the simulator. The network takes the images' side from the training split.
 *
 * N simulated workers live in one process and one thread. Every iteration the global
 * mini-batch of B samples is split into N equal shards; worker k computes the gradient of
 * the mean loss over its shard, compresses it tensor by tensor with its own gc_compressor
 * (so error feedback, ECQ's accumulated error and DGC's momentum correction stay per worker;
 * TernGrad's scaler is shared as the maximum of the workers' local scalers), and the
 * decoded payloads are averaged, as an exchange that decodes and sums would. All workers
 * then apply the same momentum-SGD step with weight decay, so one parameter copy stands for
 * all of them. Bits sent are the real payload lengths.
 *
 * "none" is the compressor library's dense float32 codec: decoding is exact, so N workers
 * with "none" follow single-worker SGD on the full mini-batch (tests/train checks this).
 *
 * Deterministic: the same configuration and seed give bit-identical results. The data
 * order and the initial parameters do not depend on the worker count, so runs with
 * different N see the same batches.
 */
#ifndef GCSIM_TRAIN_TRAIN_H
#define GCSIM_TRAIN_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "digits.h"
#include "fmnist.h"
#include "net.h"

typedef struct {
    train_model_kind model;
    int workers;            /* N >= 1; must divide batch */
    const char *compressor; /* spec, e.g. "none" (fp32), "terngrad", "qsgd:s=4" */
    int epochs;             /* >= 1 */
    int batch;              /* global mini-batch, split into N shards of batch/N */
    double lr;              /* learning rate (constant) */
    double momentum;        /* heavy-ball momentum; 0 is used with dgc, whose momentum
                               correction keeps the velocity in each worker's compressor
                               (spec key momentum); see train_summary.momentum_applied */
    double weight_decay;    /* L2 coefficient added to the aggregated gradient */
    uint64_t seed;
    double target_accuracy; /* in (0, 1]; 0: no time-to-accuracy */
    int stop_at_target;     /* 1: end the run at the evaluation that reaches the target (a
                               time-to-accuracy measurement needs nothing after it) */
    long eval_every;        /* iterations between test evaluations; 0: end of each epoch */
    const char *dump_dir;   /* NULL: no gradient dumps */
    const long *dump_steps; /* iterations (0-based) whose worker-0 gradient is dumped */
    size_t n_dump_steps;
} train_config;

/* Fills the defaults `gcsim train` documents: mlp, 1 worker, none, 5 epochs, and the
 * optimizer of TernGrad's LeNet experiment (Wen et al. 2017, Section 4.1 / Fig. 3: total
 * mini-batch 64, momentum SGD with base learning rate 0.01, weight decay 0.0005), momentum
 * 0.9, seed 1. */
void train_config_defaults(train_config *cfg);

/* One evaluation point. */
typedef struct {
    int epoch;               /* 1-based epoch in which it was taken */
    long step;               /* iterations completed */
    double train_loss;       /* mean mini-batch loss over the iterations since the last point */
    double test_loss;        /* mean cross-entropy over the test set */
    double test_accuracy;    /* fraction in [0, 1] */
    double bits_per_worker;  /* cumulative payload bits sent, mean over workers */
} train_point;

typedef struct {
    size_t params;
    int tensors;
    long steps;
    long steps_to_target;          /* first evaluated iteration with accuracy >= target, -1 */
    double bits_to_target;         /* bits per worker at that point, -1 */
    double final_accuracy;
    double final_train_loss;
    double bits_per_worker;        /* total, mean over workers */
    double momentum_applied;       /* optimizer momentum actually used (0 for dgc, below) */
    char compressor_spec[256];     /* the spec with its defaults filled in */
} train_summary;

typedef struct train_session train_session;

/* Sets up a run on already loaded data (not copied; must outlive the session). Pixels are
 * standardised with the mean and standard deviation of the training split. */
int train_session_create(const train_config *cfg, const fmnist_split *train,
                         const fmnist_split *test, train_session **out, char *err,
                         size_t err_len);
void train_session_free(train_session *s);

/* One synchronous iteration; *loss receives the mini-batch mean loss before the update. */
int train_session_step(train_session *s, double *loss, char *err, size_t err_len);
/* Test-set mean loss and accuracy at the current parameters. */
void train_session_evaluate(train_session *s, double *loss, double *accuracy);

const float *train_session_params(const train_session *s);
size_t train_session_param_count(const train_session *s);
const train_net *train_session_net(const train_session *s);
long train_session_steps(const train_session *s);
long train_session_steps_per_epoch(const train_session *s);
/* Training-set indices of the current epoch's order (the batch of step i of the epoch is
 * order[i*B .. i*B+B-1]). */
const size_t *train_session_order(const train_session *s);
/* Standardised float copy of training sample i into x (train->pixels floats). */
void train_session_sample(const train_session *s, size_t i, float *x);
double train_session_bits_per_worker(const train_session *s);
/* The aggregated gradient of the last step (mean of decoded worker gradients). */
const float *train_session_last_gradient(const train_session *s);
const char *train_session_compressor_spec(const train_session *s);
double train_session_momentum(const train_session *s);

typedef void (*train_point_fn)(const train_point *p, void *ctx);

/* The whole run: epochs of steps, evaluations, dumps; on_point (may be NULL) sees every
 * evaluation point in order. */
int train_run(const train_config *cfg, const fmnist_split *train, const fmnist_split *test,
              train_point_fn on_point, void *ctx, train_summary *summary, char *err,
              size_t err_len);

#endif
