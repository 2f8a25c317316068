/*
 * tests/calibrate/synth_log.h: nccl-tests all_reduce_perf logs generated from a known alpha
 * and B (t = 2(n-1) alpha + 2(n-1)/n S / B), printed with six decimals so that the printed
 * rounding (5e-7 us) stays far below the tolerances the tests use.
 */
#ifndef GCSIM_TESTS_SYNTH_LOG_H
#define GCSIM_TESTS_SYNTH_LOG_H

#include <stdbool.h>
#include <stdio.h>

typedef struct {
    int gpus, hosts;
    double alpha_s, B_Bps;
    int columns;          /* 13 (root column) or 12 */
    bool rank_lines;      /* "# Rank" lines: gpus over hosts */
    bool op_line;         /* "# Collective test starting: all_reduce_perf" */
    double min_bytes, max_bytes; /* sizes min, 2 min, 4 min, ... up to max */
    double out_of_place_B_Bps;   /* 0: the out-of-place columns repeat the in-place ones */
} synth_spec;

/* Writes the log to f; returns the number of data rows. */
static inline int synth_log_write(FILE *f, const synth_spec *s)
{
    double steps = 2.0 * (s->gpus - 1), factor = steps / s->gpus;
    if (s->op_line)
        fprintf(f, "# Collective test starting: all_reduce_perf\n");
    fprintf(f, "# synthetic: alpha = %.9g s, B = %.9g B/s\n#\n", s->alpha_s, s->B_Bps);
    if (s->rank_lines) {
        fprintf(f, "# Using devices\n");
        int per_host = s->gpus / s->hosts;
        for (int r = 0; r < s->gpus; r++)
            fprintf(f, "#  Rank %2d Group  0 Pid %6d on synth-host-%d device %2d [0x%02x] "
                       "Synthetic GPU\n",
                    r, 1000 + r, r / per_host, r % per_host, r % per_host);
    }
    fprintf(f, "#\n#       size   count   type  redop%s  time  algbw  busbw #wrong  time  algbw "
               "busbw #wrong\n",
            s->columns == 13 ? "  root" : "");
    int rows = 0;
    for (double size = s->min_bytes; size <= s->max_bytes; size *= 2) {
        double oop_B = s->out_of_place_B_Bps > 0 ? s->out_of_place_B_Bps : s->B_Bps;
        fprintf(f, "%12.0f %12.0f  float  sum", size, size / 4);
        if (s->columns == 13)
            fprintf(f, "  -1");
        for (int half = 0; half < 2; half++) {
            double t_us = (steps * s->alpha_s + factor * size / (half ? s->B_Bps : oop_B)) * 1e6;
            double algbw = size / t_us / 1e3;
            fprintf(f, "  %.6f  %.6f  %.6f  %s", t_us, algbw, algbw * factor,
                    half ? "N/A" : "0");
        }
        fprintf(f, "\n");
        rows++;
    }
    fprintf(f, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.5\n#\n");
    return rows;
}

static inline int synth_log_file(const char *path, const synth_spec *s)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int rows = synth_log_write(f, s);
    return fclose(f) == 0 ? rows : -1;
}

#endif
