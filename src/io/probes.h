/* probes.h: the probes of a scene (group `probes`) sampled during a run into DIR/probes.csv. */
#ifndef SLUICE_PROBES_H
#define SLUICE_PROBES_H

#include "base/scene.h"
#include "core/sim.h"
#include "base/status.h"

#include <stddef.h>

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
} io_probes;

/* Prepares the probes of sc for a run writing into dir; nothing is opened yet (the engine creates
 * the directory). With restart, the first call keeps the file's rows before the checkpoint's time
 * and continues after them, so the file ends as that of a run that never stopped. */
int io_probes_init(io_probes *pr, const scene *sc, const char *dir, int restart, sl_err *err);

/* The engine observer (engine_observer.after_step): writes a row when one is due. */
int io_probes_after_step(void *ctx, sim *s, sl_err *err);

/* Syncs and closes the file. */
void io_probes_close(io_probes *pr);

/* The header line (no newline) and the number of columns. */
int io_probes_header(const scene *sc, char *buf, size_t len);

/* The number of columns of a row. */
int io_probes_columns(const scene *sc);

/* Samples every column of a row at the current state, from the particles the backend picks near the
 * probes (backend.probe_particles) or else from the host arrays, which it brings up to date:
 * values[0] = time, values[1] = step, then pressures, levels, front, mass/energies, CG. A dry
 * pressure sensor or gauge is NaN here and an empty field in probes.csv. On several MPI ranks every
 * rank calls it (collective): each samples its own particles and the root combines their sums and
 * maxima (domain_max, domain_sum_to_root); values is filled on the root only. Returns SL_OK, or
 * an error with its message in err (out of memory). */
int io_probes_sample(sim *s, double *values, sl_err *err);

/* The wall under a pressure sensor at `at`: the unit normal, pointing to the fluid side, of the
 * nearest face of a tank or obstacle box closer than 2 spacings (ties: the first item, then the
 * faces -x, +x, -y, +y, -z, +z); returns 0 when none is that close. */
int io_probe_wall_normal(const scene *sc, const double at[3], double n[3]);

/* The default distance from a wall sensor to its sampled point: h = h_factor dp (WCSPH), or
 * re_density dp / 2 (the MPS schemes). */
double io_probe_default_offset(const scene *sc);

/* Where sensor pt samples: at + offset * normal (given, else inferred), or at itself when no wall
 * is near and no normal is given. */
void io_probe_sample_point(const scene *sc, const scene_probe_point *pt, double q[3]);

#endif
