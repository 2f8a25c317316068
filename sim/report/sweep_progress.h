/*
 * sim/report/sweep_progress.h: a progress bar on stderr with the rate (cases per second) and
 * the time left, redrawn at most ten times a second so that drawing never slows a fast
 * sweep down.
 */
#ifndef GCSIM_REPORT_SWEEP_PROGRESS_H
#define GCSIM_REPORT_SWEEP_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

typedef struct {
    bool enabled;
    FILE *out;
    long long total;
    double start_s, last_draw_s;
} sweep_progress;

/* Seconds on a monotonic clock. */
double sweep_now_s(void);

void sweep_progress_start(sweep_progress *p, bool enabled, FILE *out, long long total);
/* done cases of total finished. */
void sweep_progress_update(sweep_progress *p, long long done);
/* Draws the final state and ends the line. */
void sweep_progress_finish(sweep_progress *p, long long done);

#endif
