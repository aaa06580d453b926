/* bodies.h: bodies.csv beside probes.csv: each floating body's state (core/floating.h) a row at a time,
 * sampled by an engine observer every output.interval / 10 of simulated time. */
#ifndef SLUICE_IO_BODIES_H
#define SLUICE_IO_BODIES_H

#include "base/scene.h"
#include "base/status.h"

#include <stdio.h>

struct sim;

typedef struct io_bodies {
    char path[SCENE_PATH_MAX + 16];
    FILE *f;
    double interval;
    long next_k; /* the next row is at the first step with t >= next_k interval */
    int rows;
    int restart;
} io_bodies;

/* Opens out_dir/bodies.csv (appended to on a restart, else written with its header). */
int io_bodies_init(io_bodies *b, const scene *sc, const char *out_dir, int restart, sl_err *err);

/* The engine observer: a row per body when a sample time has passed. */
int io_bodies_after_step(void *ctx, struct sim *s, sl_err *err);

void io_bodies_close(io_bodies *b);

#endif
