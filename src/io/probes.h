/* probes.h: the probes of a scene (group `probes`) sampled during a run into DIR/probes.csv. */
#ifndef SLUICE_PROBES_H
#define SLUICE_PROBES_H

#include "base/scene.h"
#include "core/sim.h"
#include "base/status.h"
#include "probe_points.h"
#include "physics/probe_sample.h"

#include <pthread.h>
#include <stddef.h>

/* What a row reads of the simulation besides the particles, fixed when the row is gathered. */
typedef struct probe_view {
    const scene *sc;
    real mass;
    periodic_box periodic;
    double domain_min[3], domain_max[3]; /* the bins' box */
    double t;
    long step;
} probe_view;

/* A row's inputs at one state: what io_probes_compute reads. */
typedef struct io_probe_row {
    probe_view view;
    probe_regions q;      /* what the probes reach, and the front's axis */
    particles picked;     /* the backend's picks, in host memory it keeps until its next pick */
    const particles *p;   /* the host arrays s->p, unless from_backend */
    int from_backend;     /* p is the backend's copy, which the simulation's steps leave alone */
    probe_totals tot;     /* the fluid's count, front and energies */
    double cg[2];         /* the last solve's iterations and residual (MPS), else NaN */
} io_probe_row;

typedef struct io_probes {
    const scene *sc;
    char path[4200];    /* DIR/probes.csv */
    int fd;             /* -1 until the first call opens the file */
    int restart;        /* continue the rows of an existing file */
    double interval;    /* s */
    long next_k;        /* the next row is due at t >= next_k * interval */
    int ncols;
    double *values;     /* one row */
    int rows;           /* rows written by this run */
    /* the row on its way (probes_file.c): computed and appended by `worker` while the run goes on */
    int background;     /* rows may be finished on the worker (SLUICE_PROBES_SYNC unset) */
    int busy;           /* the worker has a row */
    int background_rows; /* rows this run handed to the worker */
    pthread_t worker;
    sim *s;             /* the run, for io_probes_compute's reductions */
    io_probe_row row;
    int worker_rc;
    sl_err worker_err;
} io_probes;

/* Prepares the probes of sc for a run writing into dir; nothing is opened yet (the engine creates
 * the directory). With restart, the first call keeps the file's rows before the checkpoint's time
 * and continues after them, so the file ends as that of a run that never stopped. */
int io_probes_init(io_probes *pr, const scene *sc, const char *dir, int restart, sl_err *err);

/* The engine observer (engine_observer.after_step): writes a row when one is due. */
int io_probes_after_step(void *ctx, sim *s, sl_err *err);

/* Waits for the row the worker may still be finishing (an engine_observer's settle: before a
 * checkpoint, so that the file holds every row before the checkpoint's time); returns its status. */
int io_probes_settle(void *ctx, sl_err *err);

/* Waits for the worker's row, syncs and closes the file. */
void io_probes_close(io_probes *pr);

/* The header line (no newline) and the number of columns. */
int io_probes_header(const scene *sc, char *buf, size_t len);

/* The number of columns of a row. */
int io_probes_columns(const scene *sc);


/* Gathers a row's inputs at the current state: the particles the backend picks near the probes
 * (backend.probe_particles) or else the host arrays, brought up to date; the time, step and the
 * solve's numbers. On several MPI ranks every rank calls it. */
int io_probes_gather(sim *s, io_probe_row *row, sl_err *err);

/* Computes the row gathered in *row into values: values[0] = time, values[1] = step, then
 * pressures, levels, front, mass/energies, CG. A dry pressure sensor or gauge is NaN here and an
 * empty field in probes.csv. On several MPI ranks every rank calls it (collective): each samples
 * its own particles and the root combines their sums and maxima (domain_max, domain_sum_to_root);
 * values is filled on the root only. s is read by those reductions alone (on one rank: not at all),
 * so a row whose particles are the backend's copy may be computed while s steps on. Returns SL_OK,
 * or an error with its message in err (out of memory). */
int io_probes_compute(sim *s, const io_probe_row *row, double *values, sl_err *err);

/* Gathers and computes a row at the current state (the two calls above). */
int io_probes_sample(sim *s, double *values, sl_err *err);

#endif
