/*
 * sim/des/des_progress.c: the simulation child's progress on standard error (long runs
 * only). The exchanges (des_collectives.c) report to it and the simulation's end
 * (des_sim.c) closes it: its own file so that those two do not call each other.
 */
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "des_internal.h"


/* Reports start after this much wall time (short runs print nothing) and come at most
 * this often. */
#define PROGRESS_AFTER_S 3.0
#define PROGRESS_EVERY_S 1.0

static struct {
    int fd;
    bool tty, printed;
    double start_s, last_s;
} progress = {-1, false, false, 0, 0};

static double wall_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void des_progress_init(int fd, bool tty)
{
    progress.fd = fd;
    progress.tty = tty;
    progress.start_s = progress.last_s = wall_now_s();
}

void des_progress(int c, int done, int n, int n_calls)
{
    if (progress.fd < 0)
        return;
    double now = wall_now_s();
    if (now - progress.start_s < PROGRESS_AFTER_S || now - progress.last_s < PROGRESS_EVERY_S)
        return;
    progress.last_s = now;
    progress.printed = true;
    double pct = 100.0 * (c + (double)done / (n > 0 ? n : 1)) / (n_calls > 0 ? n_calls : 1);
    dprintf(progress.fd, "%sgcsim des: %3.0f%% of the exchanges simulated (bucket %d of %d), %.0f s%s",
            progress.tty ? "\r" : "", pct, c + 1, n_calls, now - progress.start_s,
            progress.tty ? "" : "\n");
}

void des_progress_end(void)
{
    if (progress.fd < 0)
        return;
    if (progress.printed && progress.tty)
        dprintf(progress.fd, "\rgcsim des: done in %.0f s%30s\n", wall_now_s() - progress.start_s, "");
    close(progress.fd);
    progress.fd = -1;
}
