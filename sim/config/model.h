/*
 * sim/config/model.h: a training workload loaded from model JSON: layers in forward order
 * with parameter counts and FLOPs, and profiled compute times per GPU type.
 */
#ifndef GCSIM_CONFIG_MODEL_H
#define GCSIM_CONFIG_MODEL_H

#include <stddef.h>

#include "gcsim_error.h"

typedef struct {
    char name[96];
    char kind[16];          /* conv, fc, bn, lstm, embedding, attention, norm, other */
    long long weights;
    long long bias;
    long long other_params; /* batch-norm scale and shift, layer-norm, ... */
    double fwd_flops;       /* forward FLOPs per sample (2 x MACs) */
} gcsim_layer;

typedef struct {
    int batch;              /* samples per measurement */
    double time_s;          /* forward + backward time for that batch on one GPU */
} gcsim_profile_point;

typedef struct {
    char gpu[64];           /* GPU type, matched against platform gpu.type */
    char framework[128];
    char source[256];
    int n_points;
    gcsim_profile_point points[8];  /* ascending batch */
    double backward_fraction;       /* share of the time spent in backward (default 2/3) */
} gcsim_profile;

typedef struct {
    char name[128];
    char description[512];
    char source_path[512];
    int batch_per_gpu;       /* default mini-batch per GPU */
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
/* |g|: fp32 gradient bytes of the whole model. */
double gcsim_model_gradient_bytes(const gcsim_model *m);

/* The profile for a GPU type, or NULL. */
const gcsim_profile *gcsim_model_profile(const gcsim_model *m, const char *gpu_type);

/* T(1,1,K,|g|): time to train a batch of K on one GPU. Exact at a profiled batch; between
 * two profiled batches linear in K through them; outside, the line through the two
 * nearest points (one point: proportional to K). Fails when the result is not positive. */
int gcsim_profile_time_s(const gcsim_profile *p, int batch, double *time_s, gcsim_error *err);

#endif
