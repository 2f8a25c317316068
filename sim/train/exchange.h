/*
 * sim/train/exchange.h: one gradient exchange among N simulated workers: per-worker
 * compression (one gc_compressor per worker), TernGrad scaler sharing, decoding, and the
 * mean of the decoded gradients, with payload bits counted per worker.
 */
#ifndef GCSIM_TRAIN_EXCHANGE_H
#define GCSIM_TRAIN_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "net.h"

typedef struct train_exchange train_exchange;

/* One compressor per worker from spec ("none" included: the library's fp32 format);
 * worker k's generator is seeded from worker_seeds[k]. */
int train_exchange_create(const char *spec, int workers, const uint64_t *worker_seeds,
                          const train_net *net, train_exchange **out, char *err,
                          size_t err_len);
void train_exchange_free(train_exchange *x);

/* grads[k] is worker k's gradient (train_net_params floats); mean receives the mean of the
 * decoded gradients. Adds the payload bits of each worker to bits[k]. */
int train_exchange_run(train_exchange *x, float *const *grads, float *mean, double *bits,
                       char *err, size_t err_len);

/* The spec with defaults filled in, and the compressor name. */
const char *train_exchange_spec(const train_exchange *x);
const char *train_exchange_name(const train_exchange *x);

#endif
