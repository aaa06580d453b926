/* particles.h: particle state as structure-of-arrays; every array travels together when particles are reordered. */
#ifndef SLUICE_PARTICLES_H
#define SLUICE_PARTICLES_H

#include "real.h"
#include "status.h"

#include <stddef.h>
#include <stdint.h>

/* Particle types as written to /particles/type. */
enum particle_type {
    PT_FLUID = 0,
    PT_WALL = 1,     /* tank walls */
    PT_OBSTACLE = 2  /* obstacle boxes */
};

/* Fields every scheme has. Schemes add their own (rates, integrator history) with
 * particles_add_field(); those follow PF_CORE and are reordered and checkpointed the same way,
 * except transient ones: rates that every step computes again after the cells are rebuilt, which
 * the rebuild therefore leaves as they are (unordered, and on the GPU overwritten). */
enum {
    PF_X, PF_Y, PF_Z,
    PF_VX, PF_VY, PF_VZ,
    PF_RHO,  /* density, kg/m^3 */
    PF_P,    /* pressure, Pa */
    PF_CORE,
    PF_MAX = 32
};

typedef struct particles {
    size_t n;                 /* particles */
    size_t cap;               /* particles every array has room for (>= n, >= 1) */
    int nfields;              /* real fields in use, >= PF_CORE */
    real *f[PF_MAX];          /* f[k][i]: field k of particle i */
    const char *fname[PF_MAX];
    uint8_t transient[PF_MAX]; /* 1: not reordered by a cell rebuild (see above) */
    int32_t *id;              /* permanent index 0..n-1, travels with the particle */
    uint8_t *type;            /* enum particle_type */
    uint8_t *tag;             /* the scheme's class of the particle (MPS: fluid, surface, wall, dummy);
                               * scene building leaves each wall particle's layer (0 = next to the fluid) */
} particles;

/* Allocates the core fields for n particles, zeroed; id = 0..n-1. */
int particles_alloc(particles *p, size_t n, sl_err *err);

/* Makes every array hold n particles (fields, id, type, tag); particles beyond the old count are
 * zeroed. The room grows by an eighth beyond n when it must grow and never shrinks, so a rank of an
 * MPI run, whose count changes every cell build as particles arrive and leave (parallel/), does not
 * copy its arrays each time. */
int particles_resize(particles *p, size_t n, sl_err *err);

/* Gives every array room for n particles (p->cap >= n), growing as particles_resize does; the count
 * and the values stay as they are. */
int particles_reserve(particles *p, size_t n, sl_err *err);

/* Gives back the room beyond the count and an eighth (what an MPI rank keeps of the whole state it
 * started from). */
void particles_fit(particles *p);

/* Adds a zeroed real field and returns its index (>= PF_CORE), or -1 when out of memory or slots.
 * transient: the scheme computes it again after every cell rebuild before reading it. */
int particles_add_field(particles *p, const char *name, int transient);

/* Frees the fields from index `keep` on (>= PF_CORE), the last ones added: what a pre-pass that
 * added fields of its own (run/packing.c) leaves behind. */
void particles_drop_fields(particles *p, int keep);

/* Index of a field by name, or -1. */
int particles_field_index(const particles *p, const char *name);

void particles_free(particles *p);

/* Counts particles of type t. */
size_t particles_count_type(const particles *p, enum particle_type t);

#endif
