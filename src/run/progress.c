/* progress.c: terminal progress bar and periodic progress lines. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <time.h>
#include <unistd.h>

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void progress_start(progress *pr, FILE *out, int quiet, double start_time, double end_time, double particles)
{
    pr->start = start_time;
    pr->out = out;
    pr->tty = isatty(fileno(out));
    pr->quiet = quiet;
    pr->end = end_time;
    pr->start_wall = progress_now();
    pr->last_print = pr->start_wall;
    pr->last_frac = 0;
    pr->particles = particles;
}

static void format_duration(char *buf, size_t len, double s)
{
    if (!(s >= 0) || s > 1e7) {
        snprintf(buf, len, "--:--");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

static void print(progress *pr, double t, long step, int final)
{
    double now = progress_now();
    double wall = now - pr->start_wall;
    double frac = pr->end > pr->start ? (t - pr->start) / (pr->end - pr->start) : 1.0;
    if (frac > 1)
        frac = 1;
    double sps = wall > 0 ? step / wall : 0;
    double eta = frac > 0 ? wall * (1 - frac) / frac : -1;
    char eta_s[32];
    format_duration(eta_s, sizeof eta_s, final ? 0 : eta);
    if (pr->tty) {
        enum { W = 30 };
        char bar[W + 1];
        int filled = (int)(frac * W);
        for (int k = 0; k < W; ++k)
            bar[k] = k < filled ? '#' : '.';
        bar[W] = 0;
        fprintf(pr->out, "\r[%s] %5.1f%%  t = %.4g / %.4g s  step %ld  %.0f steps/s  %.3g particle-steps/s  ETA %s \033[K",
                bar, 100 * frac, t, pr->end, step, sps, sps * pr->particles, eta_s);
        if (final)
            fputc('\n', pr->out);
    } else {
        fprintf(pr->out, "progress: %5.1f%%  t = %.6g / %.6g s  step %ld  %.0f steps/s  %.3g particle-steps/s  ETA %s\n",
                100 * frac, t, pr->end, step, sps, sps * pr->particles, eta_s);
    }
    fflush(pr->out);
    pr->last_print = now;
    pr->last_frac = frac;
}

void progress_update(progress *pr, double t, long step)
{
    if (pr->quiet)
        return;
    double now = progress_now();
    if (pr->tty) {
        if (now - pr->last_print >= 0.2)
            print(pr, t, step, 0);
        return;
    }
    /* Plain lines: every 10% of the run, or every 30 s, whichever comes first. */
    double frac = pr->end > pr->start ? (t - pr->start) / (pr->end - pr->start) : 1.0;
    if (frac - pr->last_frac >= 0.1 || now - pr->last_print >= 30.0)
        print(pr, t, step, 0);
}

void progress_finish(progress *pr, double t, long step)
{
    if (!pr->quiet && pr->tty)
        print(pr, t, step, 1);
}
