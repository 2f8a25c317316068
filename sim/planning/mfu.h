/*
 * sim/planning/mfu.h: model FLOPs utilization's denominator, as predict reports it (and as
 * plan and sweep rows will, issue 46): the GPU's peak at the training precision.
 */
#ifndef GCSIM_PLANNING_MFU_H
#define GCSIM_PLANNING_MFU_H

#include "model.h"
#include "platform.h"

/* The peak for the training precision: the platform's 16-bit one (gpu.speed_16bit) for
 * 2-byte gradients when it gives one, else gpu.speed. FLOP/s. */
double gcsim_mfu_peak_flops(const gcsim_model *m, const gcsim_platform *pf);
/* Which of the two it is: "gpu.speed" or "gpu.speed_16bit". */
const char *gcsim_mfu_peak_name(const gcsim_model *m, const gcsim_platform *pf);

#endif
