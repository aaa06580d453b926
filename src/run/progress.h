/* progress.h: progress of a long run: a bar with ETA on a terminal, periodic lines otherwise. */
#ifndef SLUICE_PROGRESS_H
#define SLUICE_PROGRESS_H

#include <stdio.h>

typedef struct progress {
    FILE *out;
    int tty;            /* redraw one line in place */
    int quiet;          /* print nothing */
    double start, end;  /* simulated start and end time */
    double start_wall;  /* s */
    double last_print;  /* wall time of the last output */
    double last_frac;   /* fraction at the last plain line */
    double particles;
} progress;

double progress_now(void); /* monotonic wall clock, s */

void progress_start(progress *pr, FILE *out, int quiet, double start_time, double end_time, double particles);

/* Called after each step; prints at most a few times per second. */
void progress_update(progress *pr, double t, long step);

/* Ends the bar (newline on a terminal). */
void progress_finish(progress *pr, double t, long step);

#endif
