/* packing.h: particle packing, a relaxation run once before a simulation (numerics.packing): the fluid
 * particles repel each other and the fixed walls until they lie evenly inside the shape of the
 * fluid's geometry items, fitted to its surface. The neighbour work is two passes
 * (schemes/packing/packing_passes.h) run through the backend, so the CUDA backend runs the same
 * code; the shape's surface (boxes, primitives, STL meshes) is known on the host only, so each
 * particle near it carries the tangent plane of its nearest surface point, and after every move the
 * host keeps the free-surface particles inside the exact shape and renews the planes (on the CUDA
 * backend: one copy of the particles each way per iteration). */
#ifndef SLUICE_RUN_PACKING_H
#define SLUICE_RUN_PACKING_H

#include "core/sim.h"
#include "geometry/stl.h"

#include <stdint.h>
#include <stdio.h>

typedef struct packing_result {
    int iterations;
    double first_step, last_step; /* the largest displacement of the first and last iteration, in dp */
    double seconds;
} packing_result;

/* Packs the fluid of s: called by sim_create once the particles exist and before the scheme's init
 * (which then sets densities, pressures and histories from the packed positions). Leaves s as it
 * found it but for the fluid's positions: the particle order, the fields, no neighbour grid, nothing
 * on the backend. Prints a progress line now and then to `progress` (NULL: none) when it runs long.
 * max_cells: the largest neighbour grid allowed. */
int packing_run(sim *s, int64_t max_cells, FILE *progress, packing_result *res, sl_err *err);

/* The signed distance to the fluid's shape, the union of the fluid items (their meshes loaded). */
typedef struct packing_shape {
    const scene *sc;
    int nitems;
    const scene_geom **item;
    stl_mesh *mesh;    /* mesh[k] of item k (ntri 0 for the other shapes) */
    unsigned *seamless; /* bit a of item k: it spans the period of periodic axis a, whose faces are
                         * seams, not surface */
} packing_shape;

int packing_shape_open(const scene *sc, packing_shape *ps, sl_err *err);
void packing_shape_close(packing_shape *ps);
/* The signed distance from p to the shape, negative inside, and its outward unit normal (central
 * differences) into n where n is not NULL. */
double packing_shape_distance(const packing_shape *ps, const double p[3], double n[3]);

/* What the steps of a packing keep between them. */
typedef struct packing_state {
    packing_shape shape;
    sim_params saved;   /* s->P before: the scheme sets its own afterwards */
    int keep_fields;    /* s->p.nfields before */
} packing_state;

/* The steps of packing_run, for the tests. begin: the packing's parameters in s->P, its fields and
 * slots, its neighbour grid, the first sort and the tangent planes (s->P and s->args are taken
 * over: call it before the scheme's init). iterate: one relaxation step (k from 0), *step its
 * largest net displacement in dp. end: the last projection onto the exact shape and the undoing of
 * begin, also after a failure. */
int packing_begin(sim *s, packing_state *st, int64_t max_cells, sl_err *err);
int packing_iterate(sim *s, packing_state *st, int k, double *step, sl_err *err);
int packing_end(sim *s, packing_state *st, sl_err *err);

/* The tangent planes of the fluid particles (fields PK_NX..PK_C) from the exact shape, on the host
 * arrays of s (the caller syncs). */
void packing_planes(sim *s, const packing_shape *ps);

#endif
