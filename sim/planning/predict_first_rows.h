/*
 * sim/planning/predict_first_rows.h: the numbers of `gcsim predict`'s first screen
 * (sim/report/predict_first.h): one compressor on the embedded cluster and model at every
 * count, each case built as predict builds its own (case_build.h).
 */
#ifndef GCSIM_PLANNING_PREDICT_FIRST_ROWS_H
#define GCSIM_PLANNING_PREDICT_FIRST_ROWS_H

#include "gcsim_error.h"
#include "scenario.h"
#include "stack.h"

#define PREDICT_FIRST_MAX_COUNTS 32

typedef struct {
    int gpus, machines;
    double comm_s, tput, speedup, mfu_pct;
} predict_first_row;

typedef struct {
    const char *label;
    double payload_bytes; /* per GPU, what crosses PCIe and the network */
    predict_first_row rows[PREDICT_FIRST_MAX_COUNTS];
} predict_first_config;

/* One compressor at every count, as `predict --compressor SPEC` with no other option runs it
 * (the platform's stack and collective, weak scaling, the model's batch); MFU over
 * peak_flops per GPU. 0, or -1 with err. */
int predict_first_run(const char *spec, const gcsim_platform *pf, const gcsim_model *m,
                      const gcsim_stack *st, int batch, const int *counts, int n,
                      double peak_flops, predict_first_config *cfg, gcsim_error *err);

#endif
