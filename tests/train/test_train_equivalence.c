/*
 * With N workers and the "none" compressor, a synchronous step averages N shard-mean
 * gradients of equal shards, which is the full-batch mean gradient; so N-worker training
 * must follow single-worker training on the same batches to floating-point tolerance.
 * Also checks one step against the update written out by hand,
 *   v1 = 0.9 * 0 + (g + wd * w0),  w1 = w0 - lr * v1,
 * with g computed directly by the network on the session's first batch.
 */
#include <math.h>
#include <stdlib.h>

#include "../check.h"
#include "train.h"

static double max_abs(const float *a, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        if (fabs(a[i]) > m) m = fabs(a[i]);
    return m;
}

static double max_diff(const float *a, const float *b, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        if (fabs((double)a[i] - b[i]) > m) m = fabs((double)a[i] - b[i]);
    return m;
}

static void hand_step(const fmnist_split *tr, const fmnist_split *te, train_model_kind model)
{
    char err[1024];
    train_config c;
    train_config_defaults(&c);
    c.model = model;
    c.batch = 16;
    c.lr = 0.05;
    c.weight_decay = 1e-3;
    train_session *s;
    CHECK(train_session_create(&c, tr, te, &s, err, sizeof err) == 0);
    const size_t n = train_session_param_count(s);
    float *w0 = malloc(n * sizeof(float)), *g = malloc(n * sizeof(float));
    float *x = malloc((size_t)c.batch * 784 * sizeof(float));
    unsigned char y[16];
    for (size_t j = 0; j < n; j++) w0[j] = train_session_params(s)[j];
    const size_t *order = train_session_order(s);
    for (int b = 0; b < c.batch; b++) {
        train_session_sample(s, order[b], x + (size_t)b * 784);
        y[b] = tr->labels[order[b]];
    }
    train_net *net = train_net_create(model, c.batch);
    double loss_direct = train_net_loss_grad(net, w0, x, y, c.batch, g);
    double loss_step;
    CHECK(train_session_step(s, &loss_step, err, sizeof err) == 0);
    CHECK_REL(loss_step, loss_direct, 1e-12);
    double worst = 0.0;
    for (size_t j = 0; j < n; j++) {
        float v = g[j] + (float)c.weight_decay * w0[j];
        float w1 = w0[j] - (float)c.lr * v;
        double d = fabs((double)w1 - train_session_params(s)[j]);
        if (d > worst) worst = d;
    }
    /* Same float operations in the same order: equal up to contraction (FMA) rounding. */
    CHECK(worst <= 1e-6 * max_abs(w0, n));
    train_net_free(net);
    train_session_free(s);
    free(w0);
    free(g);
    free(x);
}

static void workers_match(const fmnist_split *tr, const fmnist_split *te, train_model_kind model,
                          int batch, int steps)
{
    char err[1024];
    train_config c;
    train_config_defaults(&c);
    c.model = model;
    c.batch = batch;
    c.lr = 0.02;
    train_session *one;
    CHECK(train_session_create(&c, tr, te, &one, err, sizeof err) == 0);
    const size_t n = train_session_param_count(one);
    float *ref = malloc(n * sizeof(float));
    double ref_loss[8];
    for (int i = 0; i < steps; i++)
        CHECK(train_session_step(one, &ref_loss[i], err, sizeof err) == 0);
    for (size_t j = 0; j < n; j++) ref[j] = train_session_params(one)[j];
    /* The update moved the parameters by far more than the tolerance used below. */
    train_session *fresh;
    CHECK(train_session_create(&c, tr, te, &fresh, err, sizeof err) == 0);
    double moved = max_diff(ref, train_session_params(fresh), n);
    CHECK(moved > 1e-3 * max_abs(ref, n));
    train_session_free(fresh);

    for (int workers = 2; workers <= 8; workers *= 2) {
        c.workers = workers;
        train_session *s;
        CHECK(train_session_create(&c, tr, te, &s, err, sizeof err) == 0);
        for (int i = 0; i < steps; i++) {
            double loss;
            CHECK(train_session_step(s, &loss, err, sizeof err) == 0);
            /* Mean of N shard means of equal shards = full-batch mean. */
            CHECK_REL(loss, ref_loss[i], 1e-6);
        }
        /* Float32 sums in a different order: a few ulp per step, amplified by momentum
         * over `steps` steps; 1e-5 of the largest weight is ~100 ulp. */
        double d = max_diff(ref, train_session_params(s), n);
        if (!(d <= 1e-5 * max_abs(ref, n)))
            fprintf(stderr, "%s, %d workers: max |diff| %g vs max |w| %g\n",
                    train_model_name(model), workers, d, max_abs(ref, n));
        CHECK(d <= 1e-5 * max_abs(ref, n));
        /* "none" payloads: 32 bits per element plus a few header bytes per tensor. */
        double bits = train_session_bits_per_worker(s);
        CHECK(bits > 32.0 * (double)n * steps && bits < (32.0 * (double)n + 8.0 * 16 * 10) * steps);
        train_session_free(s);
    }
    train_session_free(one);
    free(ref);
}

int main(void)
{
    char err[1024];
    fmnist_split tr, te;
    if (fmnist_load(FMNIST_DEFAULT_DIR, "train", 512, &tr, err, sizeof err) ||
        fmnist_load(FMNIST_DEFAULT_DIR, "t10k", 64, &te, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    hand_step(&tr, &te, TRAIN_MODEL_SOFTMAX);
    hand_step(&tr, &te, TRAIN_MODEL_MLP);
    hand_step(&tr, &te, TRAIN_MODEL_LENET);
    workers_match(&tr, &te, TRAIN_MODEL_SOFTMAX, 64, 5);
    workers_match(&tr, &te, TRAIN_MODEL_MLP, 64, 5);
    workers_match(&tr, &te, TRAIN_MODEL_LENET, 32, 3);
    fmnist_free(&tr);
    fmnist_free(&te);
    CHECK_DONE();
}
