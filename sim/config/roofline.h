/*
 * sim/config/roofline.h: compute time on a GPU the model has no profile for.
 *
 * Per layer, max(FLOPs at the GPU's peak for the precision, parameter bytes at its memory
 * bandwidth), divided by an efficiency for the layer's kind that models/fit_roofline.py
 * fits to the catalog's measured profiles (roofline_fit.h says to which; docs/catalog.md
 * tabulates its leave-one-out error). A profile in the model always wins.
 */
#ifndef GCSIM_CONFIG_ROOFLINE_H
#define GCSIM_CONFIG_ROOFLINE_H

#include "gcsim_error.h"
#include "model.h"
#include "platform.h"

/* Training time of a batch on one GPU by the roofline; fails when the platform lacks the
 * peak for the model's precision (gpu.speed_16bit for bf16/fp16). */
int gcsim_roofline_time_s(const gcsim_model *m, const gcsim_platform *pf, int batch,
                          double *time_s, gcsim_error *err);

/* The profile the engines use for this platform: the model's own for the GPU type and
 * precision, else a roofline profile written into *scratch (one point, at `batch`). NULL,
 * with the reason, when neither exists. */
const gcsim_profile *gcsim_compute_profile(const gcsim_model *m, const gcsim_platform *pf,
                                           int batch, gcsim_profile *scratch,
                                           gcsim_error *err);

#endif
