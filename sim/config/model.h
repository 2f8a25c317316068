/*
 * sim/config/model.h: a training workload loaded from model JSON: layers in forward order
 * with parameter counts and FLOPs, and profiled compute times per GPU type.
 */
#ifndef GCSIM_CONFIG_MODEL_H
#define GCSIM_CONFIG_MODEL_H

#include <stddef.h>

#include "gcsim_error.h"

/* The longest compute time gcsim accepts for one layer or one iteration (a model's
 * layer_times and profile points, --step-time, the time --mfu gives): an hour is beyond any
 * iteration gcsim models, and 100,000 layers of an hour each still sum finite. */
#define GCSIM_MAX_COMPUTE_S 3600.0

typedef struct {
    char name[96];
    char kind[16];          /* conv, fc, bn, lstm, embedding, attention, norm, other */
    long long weights;
    long long bias;
    long long other_params; /* batch-norm scale and shift, layer-norm, ... */
    double fwd_flops;       /* forward FLOPs per sample (2 x MACs) */
    int matrices;           /* weight tensors the weights split into (0: one) */
    long long rows;         /* first dimension of each (0: derived, gcsim_layer_tensors_of) */
} gcsim_layer;

/* A layer's parameter tensors as a framework holds them, which per-tensor stacks compress
 * and exchange one by one and low-rank compressors factor: `matrices` weight tensors of
 * matrix_elems each, viewed as rows x cols (PyTorch's view(shape[0], -1): rows are the
 * output channels or features; given, else the bias's or normalization's per-channel
 * count, else the square root); a bias vector per matrix; the normalization's scale and
 * shift (two vectors). */
typedef struct {
    int matrices;
    double matrix_elems, rows, cols;
    int biases;
    double bias_elems;
    int norms;
    double norm_elems;
} gcsim_layer_tensors;

void gcsim_layer_tensors_of(const gcsim_layer *l, gcsim_layer_tensors *t);

typedef struct {
    int batch;              /* samples per measurement */
    double time_s;          /* forward + backward time for that batch on one GPU */
} gcsim_profile_point;

/* Training precision. tf32 keeps fp32 storage (tensor-core math only); bf16 and fp16 are
 * mixed precision: 16-bit working weights, activations and gradients, fp32 master weights
 * and optimizer state. */
typedef enum { GCSIM_PREC_FP32, GCSIM_PREC_TF32, GCSIM_PREC_BF16, GCSIM_PREC_FP16 } gcsim_precision;
/* What the optimizer keeps per parameter: nothing (plain SGD), one fp32 buffer (SGD with
 * momentum) or two (Adam's first and second moments). */
typedef enum { GCSIM_OPT_SGD, GCSIM_OPT_MOMENTUM, GCSIM_OPT_ADAM } gcsim_optimizer;

const char *gcsim_precision_name(gcsim_precision p);
int gcsim_precision_parse(const char *name, gcsim_precision *out);
/* Bytes of one gradient element as the framework all-reduces it: 4 or 2. */
int gcsim_precision_grad_elem_bytes(gcsim_precision p);
/* fp32 and tf32 share a class (4-byte storage), bf16 and fp16 another; a profile serves
 * the precisions of its class. */
int gcsim_precision_class(gcsim_precision p);
const char *gcsim_optimizer_name(gcsim_optimizer o);
int gcsim_optimizer_parse(const char *name, gcsim_optimizer *out);

typedef struct {
    char gpu[64];           /* GPU type, matched against platform gpu.type */
    gcsim_precision precision; /* what was measured (default: the model's precision) */
    char framework[128];
    char source[256];
    int n_points;
    gcsim_profile_point points[8];  /* ascending batch */
    double backward_fraction;       /* share of the time spent in backward (default 2/3) */
    /* Optional measured per-layer times at points[0].batch (one per model layer, forward
     * order; NULL when the profile has none), and how they were measured. Backward shares
     * between gradient buckets follow layer_backward_s when present, else forward FLOPs. */
    double *layer_forward_s;
    double *layer_backward_s;
    char layer_times_source[256];
} gcsim_profile;

typedef struct {
    char name[128];
    char description[512];
    char source_path[512];
    int batch_per_gpu;       /* default mini-batch per GPU */
    gcsim_precision precision;   /* default fp32 */
    gcsim_optimizer optimizer;   /* default SGD with momentum */
    double activation_bytes_per_sample; /* kept for backward, at `precision`; 0: not estimated */
    int tokens_per_sample;       /* sequence length of a sample; 0: not a token model */
    int profiled_batch;          /* the example batch an exporter traced and timed
                                    ("profiled_batch", docs/formats.md); 0: not stated */
    int n_layers;
    gcsim_layer *layers;     /* forward order */
    int n_profiles;
    gcsim_profile *profiles;
} gcsim_model;

int gcsim_model_load(const char *path, gcsim_model *out, gcsim_error *err);
int gcsim_model_parse(const char *json_text, const char *origin, gcsim_model *out,
                      gcsim_error *err);
void gcsim_model_free(gcsim_model *m);

long long gcsim_layer_params(const gcsim_layer *l);
long long gcsim_model_params(const gcsim_model *m);
/* |g|: fp32 gradient bytes of the whole model (what compressors take in). */
double gcsim_model_gradient_bytes(const gcsim_model *m);
/* Gradient bytes as the framework exchanges them uncompressed: half of |g| for bf16/fp16. */
double gcsim_model_exchanged_gradient_bytes(const gcsim_model *m);
/* Train at another precision: profiles are then looked up for it, and the activation
 * estimate scales with the element size (an approximation: autocast keeps some fp32). */
void gcsim_model_set_precision(gcsim_model *m, gcsim_precision p);

/* The units a sharded stack wraps (an FSDP unit, a ZeRO-3 module): consecutive layers
 * whose names share the part before the first '.' ("layer3.attention", "layer3.mlp"),
 * else a layer alone. Fills unit_of[layer] (n_layers entries); returns the unit count. */
int gcsim_model_units(const gcsim_model *m, int *unit_of);

/* Training FLOPs per sample: forward plus a backward of twice the forward (the usual
 * 2x for gradients with respect to inputs and to weights). For MFU. */
double gcsim_model_train_flops_per_sample(const gcsim_model *m);

/* The profile for a GPU type at the model's precision class, or NULL. */
const gcsim_profile *gcsim_model_profile(const gcsim_model *m, const char *gpu_type);

/* T(1,1,K,|g|): time to train a batch of K on one GPU. Exact at a profiled batch; between
 * two profiled batches linear in K through them; outside, the line through the two
 * nearest points (one point: proportional to K). Fails when the result is not positive. */
int gcsim_profile_time_s(const gcsim_profile *p, int batch, double *time_s, gcsim_error *err);

#endif
