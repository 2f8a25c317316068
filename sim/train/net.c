/*
 * sim/train/net.c: sequential networks (dense, ReLU, convolution, 2x2 max-pooling) with a
 * softmax cross-entropy head. Batches are row-major, sample-major: x[b][c][h][w].
 * Convolutions are lowered to one GEMM per layer and batch (im2col over the whole batch),
 * which keeps the BLAS calls large enough to be efficient on 28x28 images. The input is one
 * square grey image of any side (28 for Fashion-MNIST, 8 for the UCI digits).
 */
#include "net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"

enum { FMNIST_SIDE = 28, CLASSES = 10 };

typedef enum { LAYER_DENSE, LAYER_RELU, LAYER_CONV, LAYER_MAXPOOL } layer_kind;

typedef struct {
    layer_kind kind;
    int in_c, in_h, in_w;
    int out_c, out_h, out_w;
    int kernel, pad;     /* convolution only */
    int weight_tensor;   /* -1 for layers without parameters; bias is weight_tensor + 1 */
    float *out;          /* [capacity][out size] */
    int *argmax;         /* max-pooling: input index (within the sample) of each output */
} layer;

struct train_net {
    train_model_kind kind;
    int capacity;
    int image_side;     /* input images are image_side x image_side, one channel */
    layer layers[12];
    int n_layers;
    train_tensor tensors[12];
    int n_tensors;
    size_t n_params;
    size_t max_act; /* largest per-sample activation, input included */
    float *delta_a, *delta_b; /* backward scratch, [capacity][max_act] each */
    float *col;     /* im2col, [largest K][capacity * largest output plane] */
    float *plane;   /* conv GEMM output / its gradient, [largest C_out][capacity * plane] */
    size_t col_size, plane_size;
};

static size_t layer_in_size(const layer *l) { return (size_t)l->in_c * l->in_h * l->in_w; }
static size_t layer_out_size(const layer *l) { return (size_t)l->out_c * l->out_h * l->out_w; }

int train_model_parse(const char *name, train_model_kind *out)
{
    if (strcmp(name, "softmax") == 0) *out = TRAIN_MODEL_SOFTMAX;
    else if (strcmp(name, "mlp") == 0) *out = TRAIN_MODEL_MLP;
    else if (strcmp(name, "lenet") == 0) *out = TRAIN_MODEL_LENET;
    else return -1;
    return 0;
}

const char *train_model_name(train_model_kind kind)
{
    switch (kind) {
    case TRAIN_MODEL_SOFTMAX: return "softmax";
    case TRAIN_MODEL_MLP: return "mlp";
    case TRAIN_MODEL_LENET: return "lenet";
    }
    return "?";
}

/* Shape of the previous layer's output (or the image). */
static void next_input(const train_net *net, int *c, int *h, int *w)
{
    if (net->n_layers == 0) {
        *c = 1;
        *h = net->image_side;
        *w = net->image_side;
    } else {
        const layer *p = &net->layers[net->n_layers - 1];
        *c = p->out_c;
        *h = p->out_h;
        *w = p->out_w;
    }
}

static void add_tensor(train_net *net, const char *name, int ndim, const size_t *shape)
{
    train_tensor *t = &net->tensors[net->n_tensors++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->ndim = ndim;
    t->count = 1;
    for (int i = 0; i < ndim; i++) {
        t->shape[i] = shape[i];
        t->count *= shape[i];
    }
    t->offset = net->n_params;
    net->n_params += t->count;
}

static void add_dense(train_net *net, const char *name, int out)
{
    layer *l = &net->layers[net->n_layers];
    memset(l, 0, sizeof *l);
    next_input(net, &l->in_c, &l->in_h, &l->in_w);
    l->kind = LAYER_DENSE;
    l->out_c = out;
    l->out_h = l->out_w = 1;
    l->weight_tensor = net->n_tensors;
    char buf[32];
    size_t wshape[2] = {(size_t)out, layer_in_size(l)}, bshape[1] = {(size_t)out};
    snprintf(buf, sizeof buf, "%s.weight", name);
    add_tensor(net, buf, 2, wshape);
    snprintf(buf, sizeof buf, "%s.bias", name);
    add_tensor(net, buf, 1, bshape);
    net->n_layers++;
}

static void add_conv(train_net *net, const char *name, int out_c, int kernel, int pad)
{
    layer *l = &net->layers[net->n_layers];
    memset(l, 0, sizeof *l);
    next_input(net, &l->in_c, &l->in_h, &l->in_w);
    l->kind = LAYER_CONV;
    l->kernel = kernel;
    l->pad = pad;
    l->out_c = out_c;
    l->out_h = l->in_h + 2 * pad - kernel + 1;
    l->out_w = l->in_w + 2 * pad - kernel + 1;
    l->weight_tensor = net->n_tensors;
    char buf[32];
    size_t wshape[4] = {(size_t)out_c, (size_t)l->in_c, (size_t)kernel, (size_t)kernel};
    size_t bshape[1] = {(size_t)out_c};
    snprintf(buf, sizeof buf, "%s.weight", name);
    add_tensor(net, buf, 4, wshape);
    snprintf(buf, sizeof buf, "%s.bias", name);
    add_tensor(net, buf, 1, bshape);
    net->n_layers++;
}

static void add_simple(train_net *net, layer_kind kind)
{
    layer *l = &net->layers[net->n_layers];
    memset(l, 0, sizeof *l);
    next_input(net, &l->in_c, &l->in_h, &l->in_w);
    l->kind = kind;
    l->weight_tensor = -1;
    l->out_c = l->in_c;
    l->out_h = kind == LAYER_MAXPOOL ? l->in_h / 2 : l->in_h;
    l->out_w = kind == LAYER_MAXPOOL ? l->in_w / 2 : l->in_w;
    net->n_layers++;
}

train_net *train_net_create(train_model_kind kind, int capacity)
{
    return train_net_create_sized(kind, capacity, FMNIST_SIDE);
}

int train_net_side_ok(train_model_kind kind, int image_side)
{
    /* LeNet pools twice by 2 after "same" convolutions at least: 4 pixels is the least side
     * that leaves a 1x1 map; dense models take any side (bounded to keep sizes small). */
    if (image_side < 1 || image_side > 1024) return 0;
    return kind != TRAIN_MODEL_LENET || image_side >= 4;
}

train_net *train_net_create_sized(train_model_kind kind, int capacity, int image_side)
{
    if (capacity < 1 || !train_net_side_ok(kind, image_side)) return NULL;
    train_blas_init(); /* one BLAS thread: see blas.h */
    train_net *net = calloc(1, sizeof *net);
    if (!net) return NULL;
    net->kind = kind;
    net->capacity = capacity;
    net->image_side = image_side;
    switch (kind) {
    case TRAIN_MODEL_SOFTMAX:
        add_dense(net, "fc", CLASSES);
        break;
    case TRAIN_MODEL_MLP:
        add_dense(net, "fc1", 128);
        add_simple(net, LAYER_RELU);
        add_dense(net, "fc2", CLASSES);
        break;
    case TRAIN_MODEL_LENET: {
        /* LeNet-5 as usually adapted to 28x28 inputs: the first convolution pads by 2 so
         * the second sees 14x14 and leaves 5x5x16 = 400 features for the dense layers.
         * On small images (the 8x8 digits: 4x4 after the first pooling) an unpadded 5x5
         * convolution would leave nothing, so the second convolution pads by 2 as well
         * ("same") whenever unpadded it would leave less than 4x4: 8x8 inputs give
         * 2x2x16 = 64 features. 28x28 inputs keep the unpadded layer (outputs unchanged). */
        const int half = image_side / 2, conv2_pad = half - 4 >= 4 ? 0 : 2;
        add_conv(net, "conv1", 6, 5, 2);
        add_simple(net, LAYER_RELU);
        add_simple(net, LAYER_MAXPOOL);
        add_conv(net, "conv2", 16, 5, conv2_pad);
        add_simple(net, LAYER_RELU);
        add_simple(net, LAYER_MAXPOOL);
        add_dense(net, "fc1", 120);
        add_simple(net, LAYER_RELU);
        add_dense(net, "fc2", 84);
        add_simple(net, LAYER_RELU);
        add_dense(net, "fc3", CLASSES);
        break;
    }
    default:
        free(net);
        return NULL;
    }
    net->max_act = (size_t)image_side * image_side;
    int ok = 1;
    for (int i = 0; i < net->n_layers; i++) {
        layer *l = &net->layers[i];
        size_t out = layer_out_size(l);
        if (out > net->max_act) net->max_act = out;
        l->out = malloc((size_t)capacity * out * sizeof(float));
        if (!l->out) ok = 0;
        if (l->kind == LAYER_MAXPOOL) {
            l->argmax = malloc((size_t)capacity * out * sizeof(int));
            if (!l->argmax) ok = 0;
        }
        if (l->kind == LAYER_CONV) {
            size_t plane = (size_t)l->out_h * l->out_w * capacity;
            size_t kdim = (size_t)l->in_c * l->kernel * l->kernel;
            if (kdim * plane > net->col_size) net->col_size = kdim * plane;
            if ((size_t)l->out_c * plane > net->plane_size)
                net->plane_size = (size_t)l->out_c * plane;
        }
    }
    net->delta_a = malloc((size_t)capacity * net->max_act * sizeof(float));
    net->delta_b = malloc((size_t)capacity * net->max_act * sizeof(float));
    if (!net->delta_a || !net->delta_b) ok = 0;
    if (net->col_size) {
        net->col = malloc(net->col_size * sizeof(float));
        net->plane = malloc(net->plane_size * sizeof(float));
        if (!net->col || !net->plane) ok = 0;
    }
    if (!ok) {
        train_net_free(net);
        return NULL;
    }
    return net;
}

void train_net_free(train_net *net)
{
    if (!net) return;
    for (int i = 0; i < net->n_layers; i++) {
        free(net->layers[i].out);
        free(net->layers[i].argmax);
    }
    free(net->delta_a);
    free(net->delta_b);
    free(net->col);
    free(net->plane);
    free(net);
}

size_t train_net_params(const train_net *net) { return net->n_params; }
int train_net_tensors(const train_net *net) { return net->n_tensors; }
const train_tensor *train_net_tensor(const train_net *net, int index) { return &net->tensors[index]; }
int train_net_capacity(const train_net *net) { return net->capacity; }
size_t train_net_input_size(const train_net *net)
{
    return (size_t)net->image_side * net->image_side;
}
int train_net_image_side(const train_net *net) { return net->image_side; }

void train_net_init_params(const train_net *net, float *params, gc_rng *rng)
{
    memset(params, 0, net->n_params * sizeof(float));
    for (int i = 0; i < net->n_layers; i++) {
        const layer *l = &net->layers[i];
        if (l->weight_tensor < 0) continue;
        const train_tensor *w = &net->tensors[l->weight_tensor];
        size_t fan_in = w->count / w->shape[0];
        size_t fan_out = w->shape[0] * (l->kind == LAYER_CONV ? (size_t)l->kernel * l->kernel : 1);
        int last = i == net->n_layers - 1;
        /* He et al. (2015) for ReLU layers, Glorot & Bengio (2010) for the linear head. */
        double a = last ? sqrt(6.0 / (double)(fan_in + fan_out)) : sqrt(6.0 / (double)fan_in);
        for (size_t j = 0; j < w->count; j++)
            params[w->offset + j] = (float)((2.0 * gc_rng_uniform(rng) - 1.0) * a);
    }
}

static void im2col(const layer *l, const float *in, int n, float *col)
{
    const int k = l->kernel, oh = l->out_h, ow = l->out_w, ih = l->in_h, iw = l->in_w;
    const size_t plane = (size_t)oh * ow, cols = plane * n;
    for (int c = 0; c < l->in_c; c++)
        for (int ki = 0; ki < k; ki++)
            for (int kj = 0; kj < k; kj++) {
                float *row = col + ((size_t)(c * k + ki) * k + kj) * cols;
                for (int b = 0; b < n; b++) {
                    const float *src = in + ((size_t)b * l->in_c + c) * ih * iw;
                    float *dst = row + (size_t)b * plane;
                    for (int oy = 0; oy < oh; oy++) {
                        int iy = oy + ki - l->pad;
                        for (int ox = 0; ox < ow; ox++) {
                            int ix = ox + kj - l->pad;
                            dst[oy * ow + ox] = (iy >= 0 && iy < ih && ix >= 0 && ix < iw)
                                                    ? src[iy * iw + ix] : 0.0f;
                        }
                    }
                }
            }
}

static void col2im(const layer *l, const float *col, int n, float *in)
{
    const int k = l->kernel, oh = l->out_h, ow = l->out_w, ih = l->in_h, iw = l->in_w;
    const size_t plane = (size_t)oh * ow, cols = plane * n;
    memset(in, 0, (size_t)n * layer_in_size(l) * sizeof(float));
    for (int c = 0; c < l->in_c; c++)
        for (int ki = 0; ki < k; ki++)
            for (int kj = 0; kj < k; kj++) {
                const float *row = col + ((size_t)(c * k + ki) * k + kj) * cols;
                for (int b = 0; b < n; b++) {
                    float *dst = in + ((size_t)b * l->in_c + c) * ih * iw;
                    const float *src = row + (size_t)b * plane;
                    for (int oy = 0; oy < oh; oy++) {
                        int iy = oy + ki - l->pad;
                        if (iy < 0 || iy >= ih) continue;
                        for (int ox = 0; ox < ow; ox++) {
                            int ix = ox + kj - l->pad;
                            if (ix >= 0 && ix < iw) dst[iy * iw + ix] += src[oy * ow + ox];
                        }
                    }
                }
            }
}

static void forward(train_net *net, const float *params, const float *x, int n)
{
    const float *in = x;
    for (int i = 0; i < net->n_layers; i++) {
        layer *l = &net->layers[i];
        const size_t isz = layer_in_size(l), osz = layer_out_size(l);
        switch (l->kind) {
        case LAYER_DENSE: {
            const float *w = params + net->tensors[l->weight_tensor].offset;
            const float *bias = params + net->tensors[l->weight_tensor + 1].offset;
            for (int b = 0; b < n; b++) memcpy(l->out + (size_t)b * osz, bias, osz * sizeof(float));
            train_sgemm(0, 1, n, (int)osz, (int)isz, 1.0f, in, w, 1.0f, l->out);
            break;
        }
        case LAYER_RELU:
            for (size_t j = 0; j < (size_t)n * osz; j++) l->out[j] = in[j] > 0.0f ? in[j] : 0.0f;
            break;
        case LAYER_CONV: {
            const float *w = params + net->tensors[l->weight_tensor].offset;
            const float *bias = params + net->tensors[l->weight_tensor + 1].offset;
            const int kdim = l->in_c * l->kernel * l->kernel;
            const size_t plane = (size_t)l->out_h * l->out_w, cols = plane * n;
            im2col(l, in, n, net->col);
            train_sgemm(0, 0, l->out_c, (int)cols, kdim, 1.0f, w, net->col, 0.0f, net->plane);
            for (int b = 0; b < n; b++)
                for (int c = 0; c < l->out_c; c++) {
                    const float *src = net->plane + (size_t)c * cols + (size_t)b * plane;
                    float *dst = l->out + ((size_t)b * l->out_c + c) * plane;
                    for (size_t p = 0; p < plane; p++) dst[p] = src[p] + bias[c];
                }
            break;
        }
        case LAYER_MAXPOOL:
            for (int b = 0; b < n; b++)
                for (int c = 0; c < l->out_c; c++)
                    for (int oy = 0; oy < l->out_h; oy++)
                        for (int ox = 0; ox < l->out_w; ox++) {
                            const size_t base = ((size_t)c * l->in_h + 2 * oy) * l->in_w + 2 * ox;
                            const float *src = in + (size_t)b * isz;
                            size_t best = base;
                            const size_t cand[3] = {base + 1, base + l->in_w, base + l->in_w + 1};
                            for (int q = 0; q < 3; q++)
                                if (src[cand[q]] > src[best]) best = cand[q];
                            const size_t o = (size_t)b * osz + ((size_t)c * l->out_h + oy) * l->out_w + ox;
                            l->out[o] = src[best];
                            l->argmax[o] = (int)best;
                        }
            break;
        }
        in = l->out;
    }
}

/* Softmax cross-entropy of logits[n][10]; if delta is not NULL it receives
 * (softmax - onehot) * scale. Returns the summed loss; counts correct argmaxes. */
static double softmax_xent(const float *logits, const unsigned char *y, int n, float *delta,
                           float scale, size_t *correct)
{
    double loss = 0.0;
    for (int b = 0; b < n; b++) {
        const float *z = logits + (size_t)b * CLASSES;
        int arg = 0;
        for (int j = 1; j < CLASSES; j++)
            if (z[j] > z[arg]) arg = j;
        if (correct && arg == y[b]) (*correct)++;
        double sum = 0.0, p[CLASSES];
        for (int j = 0; j < CLASSES; j++) {
            p[j] = exp((double)z[j] - (double)z[arg]);
            sum += p[j];
        }
        loss += log(sum) - ((double)z[y[b]] - (double)z[arg]);
        if (delta)
            for (int j = 0; j < CLASSES; j++)
                delta[(size_t)b * CLASSES + j] = (float)((p[j] / sum - (j == y[b] ? 1.0 : 0.0)) * scale);
    }
    return loss;
}

double train_net_loss_grad(train_net *net, const float *params, const float *x,
                           const unsigned char *y, int n, float *grad)
{
    forward(net, params, x, n);
    float *d = net->delta_a, *din = net->delta_b;
    const layer *last = &net->layers[net->n_layers - 1];
    double loss = softmax_xent(last->out, y, n, d, 1.0f / (float)n, NULL);
    for (int i = net->n_layers - 1; i >= 0; i--) {
        const layer *l = &net->layers[i];
        const float *in = i > 0 ? net->layers[i - 1].out : x;
        const size_t isz = layer_in_size(l), osz = layer_out_size(l);
        const int need_din = i > 0;
        switch (l->kind) {
        case LAYER_DENSE: {
            const train_tensor *wt = &net->tensors[l->weight_tensor];
            const float *w = params + wt->offset;
            float *gw = grad + wt->offset, *gb = grad + net->tensors[l->weight_tensor + 1].offset;
            train_sgemm(1, 0, (int)osz, (int)isz, n, 1.0f, d, in, 0.0f, gw);
            for (size_t j = 0; j < osz; j++) {
                float s = 0.0f;
                for (int b = 0; b < n; b++) s += d[(size_t)b * osz + j];
                gb[j] = s;
            }
            if (need_din) train_sgemm(0, 0, n, (int)isz, (int)osz, 1.0f, d, w, 0.0f, din);
            break;
        }
        case LAYER_RELU:
            for (size_t j = 0; j < (size_t)n * osz; j++) din[j] = l->out[j] > 0.0f ? d[j] : 0.0f;
            break;
        case LAYER_CONV: {
            const train_tensor *wt = &net->tensors[l->weight_tensor];
            const float *w = params + wt->offset;
            float *gw = grad + wt->offset, *gb = grad + net->tensors[l->weight_tensor + 1].offset;
            const int kdim = l->in_c * l->kernel * l->kernel;
            const size_t plane = (size_t)l->out_h * l->out_w, cols = plane * n;
            for (int c = 0; c < l->out_c; c++) {
                float s = 0.0f;
                for (int b = 0; b < n; b++) {
                    const float *src = d + ((size_t)b * l->out_c + c) * plane;
                    float *dst = net->plane + (size_t)c * cols + (size_t)b * plane;
                    for (size_t p = 0; p < plane; p++) {
                        dst[p] = src[p];
                        s += src[p];
                    }
                }
                gb[c] = s;
            }
            /* The forward im2col of this layer was overwritten by later conv layers. */
            im2col(l, in, n, net->col);
            train_sgemm(0, 1, l->out_c, kdim, (int)cols, 1.0f, net->plane, net->col, 0.0f, gw);
            if (need_din) {
                train_sgemm(1, 0, kdim, (int)cols, l->out_c, 1.0f, w, net->plane, 0.0f, net->col);
                col2im(l, net->col, n, din);
            }
            break;
        }
        case LAYER_MAXPOOL:
            memset(din, 0, (size_t)n * isz * sizeof(float));
            for (int b = 0; b < n; b++)
                for (size_t o = 0; o < osz; o++)
                    din[(size_t)b * isz + l->argmax[(size_t)b * osz + o]] += d[(size_t)b * osz + o];
            break;
        }
        float *t = d;
        d = din;
        din = t;
    }
    return loss / n;
}

void train_net_evaluate(train_net *net, const float *params, const float *x,
                        const unsigned char *y, size_t n, double *loss_sum, size_t *correct)
{
    *loss_sum = 0.0;
    *correct = 0;
    const size_t in = train_net_input_size(net);
    for (size_t start = 0; start < n; start += (size_t)net->capacity) {
        int m = (int)(n - start < (size_t)net->capacity ? n - start : (size_t)net->capacity);
        forward(net, params, x + start * in, m);
        *loss_sum += softmax_xent(net->layers[net->n_layers - 1].out, y + start, m, NULL, 0.0f, correct);
    }
}
