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

#include <stdbool.h>

#include "gcsim_error.h"
#include "model.h"
#include "platform.h"

/* Training time of a batch on one GPU by the roofline; fails when the platform lacks the
 * peak for the model's precision (gpu.speed_16bit for bf16/fp16). */
int gcsim_roofline_time_s(const gcsim_model *m, const gcsim_platform *pf, int batch,
                          double *time_s, gcsim_error *err);

/* The model's profile for the platform's GPU and the model's precision: for gpu.type, else
 * for gpu.profile_as (a GPU whose measurements stand in for this one); NULL when neither. */
const gcsim_profile *gcsim_platform_profile(const gcsim_model *m, const gcsim_platform *pf);

/* The profile the engines use for this platform: gcsim_platform_profile, else a roofline
 * profile written into *scratch (one point, at `batch`). NULL,
 * with the reason, when neither exists. */
const gcsim_profile *gcsim_compute_profile(const gcsim_model *m, const gcsim_platform *pf,
                                           int batch, gcsim_profile *scratch,
                                           gcsim_error *err);

/* Whether the model is a token transformer (tokens_per_sample and attention layers): one
 * whose compute, without a profile for the GPU, the transformer efficiency model gives
 * instead of the roofline (llm_efficiency_fit.h, docs/sharding.md "Compute"). */
bool gcsim_model_is_transformer(const gcsim_model *m);

/* The fraction of the GPU's 16-bit peak that training the transformer reaches on this
 * platform's GPU type (else its gpu.profile_as) by the fit, which grows with the model's
 * hidden size (the width of its GEMMs); 0 when the fit has no value for either: then the
 * roofline applies. */
double gcsim_transformer_efficiency(const gcsim_model *m, const gcsim_platform *pf);

/* Replaces the model's compute for the platform's GPU by a one-point profile at `batch`:
 * step_time_s when > 0, else the training FLOPs at mfu of the precision's peak. Fails
 * without the peak. */
int gcsim_compute_override(gcsim_model *m, const gcsim_platform *pf, int batch, double mfu,
                           double step_time_s, gcsim_error *err);

/* How the compute of the model on this platform was obtained: "measured", "derived",
 * "fitted", "given" (--mfu, --step-time), "measured+derived" (points of both kinds),
 * "transformer-model", "roofline-model", or "profile" when the
 * profile's source says none of these. */
const char *gcsim_compute_source(const gcsim_model *m, const gcsim_platform *pf);

#endif
