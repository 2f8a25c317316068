/*
 * Backpropagation of the three networks (28x28 inputs, and MLP and LeNet on 8x8) against central finite differences of the loss:
 * (L(w + h e_j) - L(w - h e_j)) / 2h for a sample of coordinates in every tensor.
 * Float32 forward passes give the difference quotient an absolute error of roughly
 * 1e-7 * L / h = 1e-7 * 2.3 / 1e-3 ~ 2e-4 plus O(h^2) curvature terms, so the check is
 * |numeric - analytic| <= 2e-3 + 5% |analytic|.
 * ReLU and max-pooling are piecewise linear: a perturbation of a conv1 weight moves
 * thousands of pre-activations, a few of which cross a kink within +-h, and the difference
 * quotient then differs from the one-sided derivative backprop returns. So each tensor
 * must pass at least 5 of its 6 probes; a wrong backward formula fails them all.
 */
#include <math.h>
#include <stdlib.h>

#include "../check.h"
#include "net.h"

static void check_model(train_model_kind kind, int side)
{
    enum { N = 3 };
    gc_rng rng;
    gc_rng_seed(&rng, 42);
    train_net *net = train_net_create_sized(kind, N, side);
    size_t n = train_net_params(net);
    float *w = malloc(n * sizeof(float)), *g = malloc(n * sizeof(float)), *scratch = malloc(n * sizeof(float));
    float x[N * 784]; /* the first N * side^2 are used */
    unsigned char y[N] = {3, 7, 0};
    for (size_t i = 0; i < (size_t)N * side * side; i++) x[i] = (float)gc_rng_normal(&rng);
    train_net_init_params(net, w, &rng);
    /* Non-zero biases, so their gradients are exercised away from the symmetric start. */
    for (int t = 0; t < train_net_tensors(net); t++) {
        const train_tensor *tt = train_net_tensor(net, t);
        if (tt->ndim == 1)
            for (size_t j = 0; j < tt->count; j++) w[tt->offset + j] = 0.1f * (float)gc_rng_normal(&rng);
    }
    train_net_loss_grad(net, w, x, y, N, g);
    const float h = 1e-3f;
    int checked = 0;
    for (int t = 0; t < train_net_tensors(net); t++) {
        const train_tensor *tt = train_net_tensor(net, t);
        int passed = 0;
        for (int probe = 0; probe < 6; probe++) {
            size_t j = tt->offset + (size_t)gc_rng_below(&rng, tt->count);
            float keep = w[j];
            w[j] = keep + h;
            double lp = train_net_loss_grad(net, w, x, y, N, scratch);
            w[j] = keep - h;
            double lm = train_net_loss_grad(net, w, x, y, N, scratch);
            w[j] = keep;
            double numeric = (lp - lm) / (2.0 * h);
            if (!(fabs(numeric - g[j]) <= 2e-3 + 0.05 * fabs(g[j])))
                fprintf(stderr, "%s %s[%zu]: analytic %g numeric %g\n", train_model_name(kind),
                        tt->name, j - tt->offset, g[j], numeric);
            if (fabs(numeric - g[j]) <= 2e-3 + 0.05 * fabs(g[j])) passed++;
            checked++;
        }
        CHECK(passed >= 5);
    }
    CHECK(checked == 6 * train_net_tensors(net));
    /* The gradient is not trivially zero. */
    double norm = 0.0;
    for (size_t j = 0; j < n; j++) norm += (double)g[j] * g[j];
    CHECK(norm > 1e-6);
    train_net_free(net);
    free(w);
    free(g);
    free(scratch);
}

int main(void)
{
    check_model(TRAIN_MODEL_SOFTMAX, 28);
    check_model(TRAIN_MODEL_MLP, 28);
    check_model(TRAIN_MODEL_LENET, 28);
    /* The 8x8 digits: LeNet's second convolution is padded there (net.c). */
    check_model(TRAIN_MODEL_MLP, 8);
    check_model(TRAIN_MODEL_LENET, 8);
    /* Parameter counts, worked out by hand:
     *   softmax: 784*10 + 10 = 7,850
     *   mlp:     784*128 + 128 + 128*10 + 10 = 101,770
     *   lenet:   6*1*25+6 + 16*6*25+16 + 400*120+120 + 120*84+84 + 84*10+10
     *          = 156 + 2,416 + 48,120 + 10,164 + 850 = 61,706 */
    train_net *a = train_net_create(TRAIN_MODEL_SOFTMAX, 1), *b = train_net_create(TRAIN_MODEL_MLP, 1),
              *c = train_net_create(TRAIN_MODEL_LENET, 1);
    CHECK(train_net_params(a) == 7850);
    CHECK(train_net_params(b) == 101770);
    CHECK(train_net_params(c) == 61706);
    CHECK(train_net_tensors(c) == 10);
    CHECK_STR_CONTAINS(train_net_tensor(c, 2)->name, "conv2.weight");
    CHECK(train_net_tensor(c, 2)->ndim == 4 && train_net_tensor(c, 2)->shape[1] == 6);
    train_net_free(a);
    train_net_free(b);
    train_net_free(c);
    CHECK_DONE();
}
