/*
 * sim/report/predict_first.h: the first screen, what `gcsim predict` prints with no options:
 * the embedded paper cluster and model with fp32 and TernGrad side by side (the same
 * analytic engine as `predict`), a reading of the result generated from the numbers and a
 * legend of the columns that surprise, in at most 100 columns. `predict --wide` (or any
 * option) prints the full table instead; JSON and CSV are unchanged.
 */
#ifndef GCSIM_REPORT_PREDICT_FIRST_H
#define GCSIM_REPORT_PREDICT_FIRST_H

#include <stdio.h>

#include "sweep_case.h"

/* The screen's width: every line it prints fits. */
#define PREDICT_FIRST_COLUMNS 100

/* Prints the first screen to out, the embedded platform and model read through loaders
 * (a NULL path: the embedded default). Returns an exit status (0, or the error's: 2 bad
 * input, 3 an internal failure). */
int predict_first_screen(FILE *out, const sweep_loaders *loaders);

#endif
