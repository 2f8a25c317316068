/* sim/train/exchange.c: compress, share scalers, decode and average; see exchange.h. */
#include "exchange.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../compressors/compressor.h"

struct train_exchange {
    const train_net *net;
    int workers;
    gc_compressor **comp;      /* [workers] */
    gc_rng *rng;               /* [workers] */
    gc_bytes payload;
    float *decoded;            /* largest tensor */
    char spec[256], name[64];
};

int train_exchange_create(const char *spec, int workers, const uint64_t *worker_seeds,
                          const train_net *net, train_exchange **out, char *err,
                          size_t err_len)
{
    *out = NULL;
    train_exchange *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    x->net = net;
    x->workers = workers;
    size_t largest = 0;
    for (int t = 0; t < train_net_tensors(net); t++)
        if (train_net_tensor(net, t)->count > largest) largest = train_net_tensor(net, t)->count;
    x->comp = calloc((size_t)workers, sizeof *x->comp);
    x->rng = calloc((size_t)workers, sizeof *x->rng);
    x->decoded = malloc(largest * sizeof(float));
    if (!x->comp || !x->rng || !x->decoded) {
        train_exchange_free(x);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    for (int k = 0; k < workers; k++) {
        char cerr[512];
        if (gc_compressor_create(spec, &x->comp[k], cerr, sizeof cerr) != 0) {
            snprintf(err, err_len, "--compressor: %s", cerr);
            train_exchange_free(x);
            return -1;
        }
        gc_rng_seed(&x->rng[k], worker_seeds[k]);
    }
    snprintf(x->spec, sizeof x->spec, "%s", gc_compressor_spec(x->comp[0]));
    snprintf(x->name, sizeof x->name, "%s", gc_compressor_name(x->comp[0]));
    *out = x;
    return 0;
}

void train_exchange_free(train_exchange *x)
{
    if (!x) return;
    if (x->comp)
        for (int k = 0; k < x->workers; k++) gc_compressor_free(x->comp[k]);
    gc_bytes_free(&x->payload);
    free(x->comp);
    free(x->rng);
    free(x->decoded);
    free(x);
}

const char *train_exchange_spec(const train_exchange *x) { return x->spec; }
const char *train_exchange_name(const train_exchange *x) { return x->name; }

int train_exchange_run(train_exchange *x, float *const *grads, float *mean, double *bits,
                       char *err, size_t err_len)
{
    const float inv = 1.0f / (float)x->workers;
    for (int t = 0; t < train_net_tensors(x->net); t++) {
        const train_tensor *tt = train_net_tensor(x->net, t);
        float *m = mean + tt->offset;
        /* Scaler sharing (TernGrad section 3.2): every worker quantizes with the largest
         * local scaler, so the sum of N ternary tensors has at most 2N+1 levels. */
        float shared = 0.0f, local;
        int sharing = 0;
        for (int k = 0; k < x->workers; k++)
            if (gc_compressor_local_scale(x->comp[k], t, grads[k] + tt->offset, tt->count, &local)) {
                sharing = 1;
                if (local > shared) shared = local;
            }
        if (sharing)
            for (int k = 0; k < x->workers; k++) gc_compressor_set_shared_scale(x->comp[k], t, shared);
        memset(m, 0, tt->count * sizeof(float));
        for (int k = 0; k < x->workers; k++) {
            char cerr[512];
            if (gc_compressor_encode(x->comp[k], t, grads[k] + tt->offset, tt->count, &x->rng[k],
                                     &x->payload, NULL, cerr, sizeof cerr) != 0) {
                snprintf(err, err_len, "worker %d, tensor %s: encode: %s", k, tt->name, cerr);
                return -1;
            }
            if (gc_compressor_decode(x->comp[k], x->payload.data, x->payload.len, x->decoded,
                                     tt->count, cerr, sizeof cerr) != 0) {
                snprintf(err, err_len, "worker %d, tensor %s: decode: %s", k, tt->name, cerr);
                return -1;
            }
            bits[k] += 8.0 * (double)x->payload.len;
            for (size_t j = 0; j < tt->count; j++) m[j] += x->decoded[j];
        }
        for (size_t j = 0; j < tt->count; j++) m[j] *= inv;
    }
    for (int k = 0; k < x->workers; k++) gc_compressor_next_step(x->comp[k]);
    return 0;
}
