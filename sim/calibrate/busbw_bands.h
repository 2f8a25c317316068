/*
 * sim/calibrate/busbw_bands.h: the per-size-band busbw factors calibrate writes as a
 * platform's "busbw_correction" (sim/config/platform_busbw_correction.h) when the model's
 * fields cannot follow a log (docs/calibrate.md, "Steps no field explains").
 *
 * Given the written platform's busbw error per row, the fewest contiguous size bands
 * (rows in size order) whose factors bring the median |busbw error| of each regime, of each
 * size band (< 1 MiB, 1-64 MiB, >= 64 MiB) and of all rows to at most `target`: for k = 1, 2, ... bands, the segmentation of least total |log error| (an
 * exact dynamic programme), each band's factor the exp of its rows' median log ratio
 * measured / modelled busbw. A band's edge is the geometric middle of the sizes it
 * separates (the first band reaches down to 0, the last up to any size).
 */
#ifndef GCSIM_CALIBRATE_BUSBW_BANDS_H
#define GCSIM_CALIBRATE_BUSBW_BANDS_H

#include "platform.h"

/* The bands are fitted only so far: each regime's and size band's median at most 2.5%, half the 5% the
 * written platform must meet, so that a row's rounding cannot take it over. */
#define CALIB_BANDS_TARGET 0.025

typedef struct {
    int n_bands;
    double below_bytes[GCSIM_BUSBW_MAX_BANDS]; /* the last: INFINITY */
    double factor[GCSIM_BUSBW_MAX_BANDS];
} calib_bands;

/* sizes ascending (n rows, those that take part), rel_error = modelled / measured busbw - 1,
 * regime 0/1 per row. Returns 0 and the bands; -1 when n < 1 or memory runs out. */
int calib_bands_fit(const double *size_bytes, const double *rel_error, const int *regime,
                    int n, double target, calib_bands *out);
/* The factor of the band holding `bytes`. */
double calib_bands_factor(const calib_bands *b, double bytes);
/* The per-regime median |error| once the bands are applied (either may be 0: no row). */
void calib_bands_medians(const calib_bands *b, const double *size_bytes,
                         const double *rel_error, const int *regime, int n, double med[2]);
/* Size bands of issue 42's "within 5% median at every size": below 1 MiB, 1-64 MiB, 64 MiB
 * and up (the bands nccl_logs.py reports). */
#define CALIB_SIZE_BAND_MID_BYTES (1024.0 * 1024.0)
#define CALIB_SIZE_BAND_LARGE_BYTES (64.0 * 1024.0 * 1024.0)
/* The largest median |error| once the bands are applied: over each regime, each size band
 * and all rows (0 where a group has no row). What the bands are fitted to bring to the
 * target, and what decides whether they are needed at all. */
double calib_bands_worst(const calib_bands *b, const double *size_bytes,
                         const double *rel_error, const int *regime, int n);

#endif
