/*
 * sim/train/net.h: the three small networks `gcsim train` trains (softmax regression, an
 * MLP, a LeNet-5-style conv net), as a sequence of layers over a flat parameter vector.
 *
 * Parameters and gradients live outside the network, in float arrays of train_net_params()
 * elements laid out as the tensors train_net_tensor() describes (weights then bias, layer by
 * layer), so a trainer can hold one parameter copy and one gradient per worker. The network
 * owns only activation scratch for up to `capacity` samples at a time.
 */
#ifndef GCSIM_TRAIN_NET_H
#define GCSIM_TRAIN_NET_H

#include <stddef.h>

#include "../../compressors/rng.h"

typedef enum { TRAIN_MODEL_SOFTMAX, TRAIN_MODEL_MLP, TRAIN_MODEL_LENET } train_model_kind;

/* "softmax", "mlp", "lenet" -> kind; -1 when unknown. */
int train_model_parse(const char *name, train_model_kind *out);
const char *train_model_name(train_model_kind kind);

/* One parameter tensor: its name ("fc1.weight"), place in the flat vector, and shape. */
typedef struct {
    char name[32];
    size_t offset;
    size_t count;
    int ndim;
    size_t shape[4];
} train_tensor;

typedef struct train_net train_net;

/* Images are image_side x image_side, single-channel, 10 classes. capacity >= 1 is the most
 * samples one forward/backward call may take. Returns NULL on allocation failure or a side
 * the model cannot take (train_net_side_ok). */
train_net *train_net_create_sized(train_model_kind kind, int capacity, int image_side);
/* 28x28 images (Fashion-MNIST). */
train_net *train_net_create(train_model_kind kind, int capacity);
/* 1 when the model can take square images of this side (lenet: >= 4; all: <= 1024). */
int train_net_side_ok(train_model_kind kind, int image_side);
void train_net_free(train_net *net);

size_t train_net_params(const train_net *net);
int train_net_tensors(const train_net *net);
const train_tensor *train_net_tensor(const train_net *net, int index);
int train_net_capacity(const train_net *net);
/* Input features per sample (side^2: 784 for Fashion-MNIST, 64 for the digits). */
size_t train_net_input_size(const train_net *net);
int train_net_image_side(const train_net *net);

/* He-uniform weights for layers followed by ReLU, Glorot-uniform for the output layer,
 * zero biases; draws from rng in a fixed order. */
void train_net_init_params(const train_net *net, float *params, gc_rng *rng);

/* Forward and backward over n <= capacity samples x[n][side^2] with labels y: writes the
 * gradient of the mean cross-entropy over the n samples into grad (overwritten) and
 * returns that mean loss. */
double train_net_loss_grad(train_net *net, const float *params, const float *x,
                           const unsigned char *y, int n, float *grad);

/* Forward only, in chunks of capacity: sum of cross-entropy and number of correct argmax
 * predictions over n samples. */
void train_net_evaluate(train_net *net, const float *params, const float *x,
                        const unsigned char *y, size_t n, double *loss_sum, size_t *correct);

#endif
