/* sim/train/trainer.c: the synchronous data-parallel SGD loop; see train.h. */
#include "train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../traces/traces.h"
#include "blas.h"
#include "exchange.h"

struct train_session {
    train_config cfg;
    const fmnist_split *train, *test;
    train_net *net;
    train_exchange *exchange;
    size_t n_params;
    float *params, *velocity, *mean_grad;
    float **grads;        /* [workers][n_params] */
    float *x;             /* [batch][pixels] */
    unsigned char *y;     /* [batch] */
    float *test_x;        /* [test count][pixels], standardised once */
    size_t *order;        /* current epoch's permutation of the training set */
    gc_rng data_rng;
    float pixel_mean, pixel_inv_std;
    long step, steps_per_epoch, step_in_epoch;
    double *bits;         /* [workers] */
    double momentum;
};

/* Batch 64, lr 0.01, weight decay 0.0005: TernGrad's LeNet/MNIST setup (Wen et al. 2017,
 * Section 4.1 and Fig. 3), the experiment `gcsim train` mirrors. */
void train_config_defaults(train_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->model = TRAIN_MODEL_MLP;
    cfg->workers = 1;
    cfg->compressor = "none";
    cfg->epochs = 5;
    cfg->batch = 64;
    cfg->lr = 0.01;
    cfg->momentum = 0.9;
    cfg->weight_decay = 5e-4;
    cfg->seed = 1;
}

static int check_config(const train_config *c, const fmnist_split *train, char *err, size_t err_len)
{
    if (c->workers < 1) return snprintf(err, err_len, "--workers: must be >= 1, got %d", c->workers), -1;
    if (c->batch < 1) return snprintf(err, err_len, "--batch: must be >= 1, got %d", c->batch), -1;
    if (c->batch % c->workers != 0)
        return snprintf(err, err_len,
                        "--batch: %d samples cannot be split evenly among %d workers "
                        "(the batch must be a multiple of --workers)", c->batch, c->workers), -1;
    if (c->epochs < 1) return snprintf(err, err_len, "--epochs: must be >= 1, got %d", c->epochs), -1;
    if (!(c->lr > 0.0) || !isfinite(c->lr))
        return snprintf(err, err_len, "--lr: must be a positive number, got %g", c->lr), -1;
    if (!(c->momentum >= 0.0 && c->momentum < 1.0))
        return snprintf(err, err_len, "--momentum: must be in [0, 1), got %g", c->momentum), -1;
    if (!(c->weight_decay >= 0.0) || !isfinite(c->weight_decay))
        return snprintf(err, err_len, "--weight-decay: must be >= 0, got %g", c->weight_decay), -1;
    if (!(c->target_accuracy >= 0.0 && c->target_accuracy <= 1.0))
        return snprintf(err, err_len, "--target-accuracy: must be in (0, 1], got %g", c->target_accuracy), -1;
    if (c->eval_every < 0)
        return snprintf(err, err_len, "--eval-every: must be >= 0, got %ld", c->eval_every), -1;
    if (train->side < 1 || train->pixels != (size_t)train->side * train->side)
        return snprintf(err, err_len, "training images: %zu pixels are not a square of side %d",
                        train->pixels, train->side), -1;
    if (!train_net_side_ok(c->model, train->side))
        return snprintf(err, err_len, "--model %s cannot take %dx%d images",
                        train_model_name(c->model), train->side, train->side), -1;
    if (train->count < (size_t)c->batch)
        return snprintf(err, err_len, "--batch: %d is larger than the %zu training samples",
                        c->batch, train->count), -1;
    return 0;
}

static void shuffle(train_session *s)
{
    size_t n = s->train->count;
    for (size_t i = 0; i < n; i++) s->order[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)gc_rng_below(&s->data_rng, (uint64_t)i + 1);
        size_t t = s->order[i];
        s->order[i] = s->order[j];
        s->order[j] = t;
    }
}

void train_session_sample(const train_session *s, size_t i, float *x)
{
    const unsigned char *src = s->train->images + i * s->train->pixels;
    for (size_t p = 0; p < s->train->pixels; p++)
        x[p] = ((float)src[p] - s->pixel_mean) * s->pixel_inv_std;
}

int train_session_create(const train_config *cfg, const fmnist_split *train,
                         const fmnist_split *test, train_session **out, char *err,
                         size_t err_len)
{
    *out = NULL;
    if (check_config(cfg, train, err, err_len) != 0) return -1;
    if (test->pixels != train->pixels)
        return snprintf(err, err_len, "test images have %zu pixels, training images %zu",
                        test->pixels, train->pixels), -1;
    train_blas_init();
    train_session *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, err_len, "out of memory"), -1;
    s->cfg = *cfg;
    s->train = train;
    s->test = test;
    const int shard = cfg->batch / cfg->workers;
    /* Evaluation runs in chunks of the network's capacity; 256 keeps GEMMs efficient. */
    s->net = train_net_create_sized(cfg->model, shard > 256 ? shard : 256, train->side);
    if (!s->net) goto oom;
    s->n_params = train_net_params(s->net);
    s->params = malloc(s->n_params * sizeof(float));
    s->velocity = calloc(s->n_params, sizeof(float));
    s->mean_grad = calloc(s->n_params, sizeof(float));
    s->grads = calloc((size_t)cfg->workers, sizeof *s->grads);
    s->bits = calloc((size_t)cfg->workers, sizeof *s->bits);
    s->x = malloc((size_t)cfg->batch * train->pixels * sizeof(float));
    s->y = malloc((size_t)cfg->batch);
    s->order = malloc(train->count * sizeof(size_t));
    s->test_x = malloc((test->count ? test->count : 1) * test->pixels * sizeof(float) + 1);
    if (!s->params || !s->velocity || !s->mean_grad || !s->grads || !s->bits || !s->x || !s->y ||
        !s->order || !s->test_x)
        goto oom;
    for (int k = 0; k < cfg->workers; k++)
        if (!(s->grads[k] = malloc(s->n_params * sizeof(float)))) goto oom;

    /* Every stream derives from the seed in a fixed order that does not depend on the
     * worker count: parameters, data order, then worker k's compressor generator. */
    gc_rng master, init;
    gc_rng_seed(&master, cfg->seed);
    gc_rng_seed(&init, gc_rng_next(&master));
    gc_rng_seed(&s->data_rng, gc_rng_next(&master));
    uint64_t *worker_seeds = malloc((size_t)cfg->workers * sizeof *worker_seeds);
    if (!worker_seeds) goto oom;
    for (int k = 0; k < cfg->workers; k++) worker_seeds[k] = gc_rng_next(&master);
    train_net_init_params(s->net, s->params, &init);
    int rc = train_exchange_create(cfg->compressor, cfg->workers, worker_seeds, s->net,
                                   &s->exchange, err, err_len);
    free(worker_seeds);
    if (rc != 0) {
        train_session_free(s);
        return -1;
    }
    /* DGC's momentum correction (Lin et al. 2018, section 3.2) accumulates the velocity
     * inside each worker's compressor; applying momentum again after aggregation would
     * count it twice, so the optimizer uses plain SGD on what DGC sends. */
    s->momentum = strcmp(train_exchange_name(s->exchange), "dgc") == 0 ? 0.0 : cfg->momentum;

    /* Standardise with the training split's own pixel statistics. */
    double sum = 0.0, sq = 0.0;
    size_t total = train->count * train->pixels;
    for (size_t i = 0; i < total; i++) {
        double v = train->images[i];
        sum += v;
        sq += v * v;
    }
    double mean = sum / (double)total, var = sq / (double)total - mean * mean;
    s->pixel_mean = (float)mean;
    s->pixel_inv_std = var > 0.0 ? (float)(1.0 / sqrt(var)) : 1.0f;
    for (size_t i = 0; i < test->count * test->pixels; i++)
        s->test_x[i] = ((float)test->images[i] - s->pixel_mean) * s->pixel_inv_std;

    s->steps_per_epoch = (long)(train->count / (size_t)cfg->batch);
    shuffle(s);
    *out = s;
    return 0;
oom:
    train_session_free(s);
    snprintf(err, err_len, "out of memory");
    return -1;
}

void train_session_free(train_session *s)
{
    if (!s) return;
    train_net_free(s->net);
    train_exchange_free(s->exchange);
    if (s->grads)
        for (int k = 0; k < s->cfg.workers; k++) free(s->grads[k]);
    free(s->grads);
    free(s->params);
    free(s->velocity);
    free(s->mean_grad);
    free(s->bits);
    free(s->x);
    free(s->y);
    free(s->order);
    free(s->test_x);
    free(s);
}

static int dump_gradient(const train_session *s, char *err, size_t err_len)
{
    const train_net *net = s->net;
    int nt = train_net_tensors(net);
    gc_trace_write_tensor tensors[16];
    uint64_t shapes[16][4];
    for (int t = 0; t < nt && t < 16; t++) {
        const train_tensor *tt = train_net_tensor(net, t);
        for (int d = 0; d < tt->ndim; d++) shapes[t][d] = tt->shape[d];
        tensors[t].name = tt->name;
        tensors[t].data = s->grads[0] + tt->offset;
        tensors[t].ndim = tt->ndim;
        tensors[t].shape = shapes[t];
        tensors[t].dtype = GC_TRACE_F32;
    }
    char step[32], workers[32], batch[32], seed[32], path[4096], source[128];
    snprintf(step, sizeof step, "%ld", s->step);
    snprintf(workers, sizeof workers, "%d", s->cfg.workers);
    snprintf(batch, sizeof batch, "%d", s->cfg.batch / s->cfg.workers);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)s->cfg.seed);
    snprintf(source, sizeof source, "gcsim train (%s), worker 0, gradient before compression",
             s->train->name ? s->train->name : "Fashion-MNIST");
    gc_trace_meta meta[] = {
        {"source", source},
        {"model", (char *)train_model_name(s->cfg.model)},
        {"step", step},
        {"workers", workers},
        {"batch_per_worker", batch},
        {"seed", seed},
    };
    snprintf(path, sizeof path, "%s/%s-step%06ld.safetensors", s->cfg.dump_dir,
             train_model_name(s->cfg.model), s->step);
    return gc_trace_write_safetensors(path, tensors, (size_t)nt, meta, sizeof meta / sizeof meta[0],
                                      err, err_len);
}

static int wants_dump(const train_session *s)
{
    if (!s->cfg.dump_dir) return 0;
    for (size_t i = 0; i < s->cfg.n_dump_steps; i++)
        if (s->cfg.dump_steps[i] == s->step) return 1;
    return 0;
}

int train_session_step(train_session *s, double *loss, char *err, size_t err_len)
{
    const train_config *c = &s->cfg;
    const size_t pixels = s->train->pixels;
    if (s->step_in_epoch == s->steps_per_epoch) {
        shuffle(s);
        s->step_in_epoch = 0;
    }
    const size_t *batch = s->order + (size_t)s->step_in_epoch * (size_t)c->batch;
    for (int b = 0; b < c->batch; b++) {
        train_session_sample(s, batch[b], s->x + (size_t)b * pixels);
        s->y[b] = s->train->labels[batch[b]];
    }
    const int shard = c->batch / c->workers;
    double total = 0.0;
    for (int k = 0; k < c->workers; k++)
        total += train_net_loss_grad(s->net, s->params, s->x + (size_t)k * shard * pixels,
                                     s->y + (size_t)k * shard, shard, s->grads[k]);
    *loss = total / c->workers;
    if (!isfinite(*loss)) {
        snprintf(err, err_len, "training diverged at iteration %ld (loss %g): lower --lr", s->step, *loss);
        return -1;
    }
    if (wants_dump(s) && dump_gradient(s, err, err_len) != 0) return -1;
    if (train_exchange_run(s->exchange, s->grads, s->mean_grad, s->bits, err, err_len) != 0) return -1;
    const float lr = (float)c->lr, mom = (float)s->momentum, wd = (float)c->weight_decay;
    for (size_t j = 0; j < s->n_params; j++) {
        float g = s->mean_grad[j] + wd * s->params[j];
        s->velocity[j] = mom * s->velocity[j] + g;
        s->params[j] -= lr * s->velocity[j];
    }
    s->step++;
    s->step_in_epoch++;
    return 0;
}

void train_session_evaluate(train_session *s, double *loss, double *accuracy)
{
    double loss_sum;
    size_t correct;
    train_net_evaluate(s->net, s->params, s->test_x, s->test->labels, s->test->count, &loss_sum, &correct);
    *loss = s->test->count ? loss_sum / (double)s->test->count : 0.0;
    *accuracy = s->test->count ? (double)correct / (double)s->test->count : 0.0;
}

const float *train_session_params(const train_session *s) { return s->params; }
size_t train_session_param_count(const train_session *s) { return s->n_params; }
const train_net *train_session_net(const train_session *s) { return s->net; }
long train_session_steps(const train_session *s) { return s->step; }
long train_session_steps_per_epoch(const train_session *s) { return s->steps_per_epoch; }
const size_t *train_session_order(const train_session *s) { return s->order; }
const float *train_session_last_gradient(const train_session *s) { return s->mean_grad; }
const char *train_session_compressor_spec(const train_session *s) { return train_exchange_spec(s->exchange); }
double train_session_momentum(const train_session *s) { return s->momentum; }

double train_session_bits_per_worker(const train_session *s)
{
    double sum = 0.0;
    for (int k = 0; k < s->cfg.workers; k++) sum += s->bits[k];
    return sum / s->cfg.workers;
}

int train_run(const train_config *cfg, const fmnist_split *train, const fmnist_split *test,
              train_point_fn on_point, void *ctx, train_summary *summary, char *err,
              size_t err_len)
{
    memset(summary, 0, sizeof *summary);
    train_session *s;
    if (train_session_create(cfg, train, test, &s, err, err_len) != 0) return -1;
    summary->params = s->n_params;
    summary->tensors = train_net_tensors(s->net);
    summary->steps_to_target = -1;
    summary->bits_to_target = -1.0;
    summary->momentum_applied = s->momentum;
    snprintf(summary->compressor_spec, sizeof summary->compressor_spec, "%s",
             train_exchange_spec(s->exchange));
    double loss_sum = 0.0;
    long loss_steps = 0;
    for (int epoch = 1; epoch <= cfg->epochs; epoch++) {
        for (long i = 0; i < s->steps_per_epoch; i++) {
            double loss;
            if (train_session_step(s, &loss, err, err_len) != 0) {
                train_session_free(s);
                return -1;
            }
            loss_sum += loss;
            loss_steps++;
            int last = i == s->steps_per_epoch - 1;
            if (!last && !(cfg->eval_every > 0 && s->step % cfg->eval_every == 0)) continue;
            train_point p = {.epoch = epoch, .step = s->step, .train_loss = loss_sum / loss_steps,
                             .bits_per_worker = train_session_bits_per_worker(s)};
            train_session_evaluate(s, &p.test_loss, &p.test_accuracy);
            loss_sum = 0.0;
            loss_steps = 0;
            if (cfg->target_accuracy > 0.0 && summary->steps_to_target < 0 &&
                p.test_accuracy >= cfg->target_accuracy) {
                summary->steps_to_target = p.step;
                summary->bits_to_target = p.bits_per_worker;
            }
            summary->final_accuracy = p.test_accuracy;
            summary->final_train_loss = p.train_loss;
            if (on_point) on_point(&p, ctx);
            if (cfg->stop_at_target && summary->steps_to_target >= 0) goto done;
        }
    }
done:
    summary->steps = s->step;
    summary->bits_per_worker = train_session_bits_per_worker(s);
    train_session_free(s);
    return 0;
}
