/* Progress bar (sweep_progress.h). */
#include "sweep_progress.h"

#include <time.h>

double sweep_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sweep_progress_start(sweep_progress *p, bool enabled, FILE *out, long long total)
{
    *p = (sweep_progress){enabled, out, total, sweep_now_s(), -1.0};
}

static void format_duration(double s, char *buf, size_t size)
{
    if (!(s >= 0) || s > 99.0 * 3600)
        snprintf(buf, size, "--:--");
    else if (s >= 3600)
        snprintf(buf, size, "%d:%02d:%02d", (int)s / 3600, (int)s / 60 % 60, (int)s % 60);
    else
        snprintf(buf, size, "%d:%02d", (int)s / 60, (int)s % 60);
}

static void draw(sweep_progress *p, long long done, double now)
{
    enum { WIDTH = 30 };
    double frac = p->total > 0 ? (double)done / (double)p->total : 1.0;
    int filled = (int)(frac * WIDTH);
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    double elapsed = now - p->start_s;
    double rate = elapsed > 0 ? (double)done / elapsed : 0.0;
    char eta[32], spent[32];
    format_duration(rate > 0 ? (double)(p->total - done) / rate : -1.0, eta, sizeof eta);
    format_duration(elapsed, spent, sizeof spent);
    fprintf(p->out, "\r[%s] %lld/%lld %5.1f%%  %.0f cases/s  elapsed %s  ETA %s ", bar, done,
            p->total, 100.0 * frac, rate, spent, eta);
    fflush(p->out);
    p->last_draw_s = now;
}

void sweep_progress_update(sweep_progress *p, long long done)
{
    if (!p->enabled)
        return;
    double now = sweep_now_s();
    if (p->last_draw_s >= 0 && now - p->last_draw_s < 0.1)
        return;
    draw(p, done, now);
}

void sweep_progress_finish(sweep_progress *p, long long done)
{
    if (!p->enabled)
        return;
    draw(p, done, sweep_now_s());
    fputc('\n', p->out);
}
