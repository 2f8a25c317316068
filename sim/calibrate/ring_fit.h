/*
 * sim/calibrate/ring_fit.h: alpha and B of a ring all-reduce, fitted to measured times.
 *
 * The model is the one gcsim's engines cost a ring all-reduce with: S bytes over n GPUs
 * take 2(n-1) steps of alpha + (S/n)/B,
 *     t(S) = 2(n-1) alpha + 2(n-1)/n S / B,
 * so nccl-tests' busbw = (S/t) 2(n-1)/n tends to B for large S. The fit is weighted least
 * squares on relative time error (weights 1/t^2), which is linear in alpha and 1/B and so
 * has a closed form. Only rows with S >= min_size take part: below about 1 MiB NCCL
 * switches protocols (LL, LL128) and one alpha-beta line does not describe them.
 *  - When the least-squares alpha is negative, alpha is clamped to 0 and B refitted.
 *  - When the rows used all have one size, alpha cannot be told from B: alpha is fixed to
 *    the caller's value and only B is fitted.
 */
#ifndef GCSIM_CALIBRATE_RING_FIT_H
#define GCSIM_CALIBRATE_RING_FIT_H

#include <stdbool.h>

#include "gcsim_error.h"

typedef struct {
    double alpha_s;
    double B_Bps;
    bool alpha_fitted;       /* false: fixed to the caller's value (rows of one size) */
    bool alpha_clamped;      /* least squares gave alpha < 0: alpha = 0, B refitted */
    double alpha_unclamped_s;
    int rows_used;
    double max_abs_rel_error; /* over the rows used: |t_fit - t| / t */
    double rms_rel_error;
} ring_fit;

double ring_allreduce_time_s(int gpus, double size_bytes, double alpha_s, double B_Bps);

/* Fits alpha and B to n_rows (size, time) pairs measured on `gpus` GPUs; origin names the
 * data in messages. Fails (bad input) when no row has S >= min_size_bytes or the times do
 * not grow with size (B would not be positive). */
int ring_fit_allreduce(const char *origin, int gpus, const double *size_bytes,
                       const double *time_s, int n_rows, double min_size_bytes,
                       double alpha_if_one_size_s, ring_fit *out, gcsim_error *err);

#endif
