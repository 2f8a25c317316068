/*
 * tests/des/des_test_model.h: a synthetic model built in code for the DES tests: 10 layers
 * of 2,500,000 fp32 weights each (|g| = 100,000,000 bytes), equal forward FLOPs, and one
 * profile point on "testgpu": a batch of 128 in 1.0 s, two thirds of it backward.
 */
#ifndef GCSIM_TESTS_DES_MODEL_H
#define GCSIM_TESTS_DES_MODEL_H

#include <stdio.h>
#include <string.h>

#include "model.h"

typedef struct {
    gcsim_model model;
    gcsim_layer layers[10];
    gcsim_profile profile;
} des_test_model;

static inline void des_test_model_init(des_test_model *t)
{
    memset(t, 0, sizeof *t);
    strcpy(t->model.name, "synthetic-10x2.5M");
    strcpy(t->model.source_path, "<des test model>");
    t->model.batch_per_gpu = 128;
    t->model.n_layers = 10;
    t->model.layers = t->layers;
    for (int l = 0; l < 10; l++) {
        snprintf(t->layers[l].name, sizeof t->layers[l].name, "fc%d", l);
        strcpy(t->layers[l].kind, "fc");
        t->layers[l].weights = 2500000;
        t->layers[l].fwd_flops = 5e6;
    }
    strcpy(t->profile.gpu, "testgpu");
    strcpy(t->profile.framework, "synthetic");
    strcpy(t->profile.source, "test fixture");
    t->profile.n_points = 1;
    t->profile.points[0].batch = 128;
    t->profile.points[0].time_s = 1.0;
    t->profile.backward_fraction = 2.0 / 3.0;
    t->model.n_profiles = 1;
    t->model.profiles = &t->profile;
}

#endif
