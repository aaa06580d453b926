/* boundary.h: a wall model: how the boundary particles (tank walls, obstacles) take part in a scheme.
 * The scheme picks its model (boundary_setup) in its init and calls the model's hooks at fixed
 * points of its step; a model's passes are listed in boundary_passes.h. */
#ifndef SLUICE_BOUNDARY_H
#define SLUICE_BOUNDARY_H

#include "base/status.h"

struct sim;

typedef struct boundary_model {
    const char *name;
    const char *description;
    /* Classes and initial state of the boundary particles, after the scheme has added its fields and
     * set the fluid's (NULL: the scheme's initial state serves them too). */
    int (*init)(struct sim *s, sl_err *err);
    /* After the density pass: the boundary particles' pressure from the fluid's (NULL: the scheme's
     * own pressure step covers them). WCSPH calls it after every cell rebuild, before the forces
     * (mdbc: the walls' density and pressure from their ghost nodes). */
    void (*after_density)(struct sim *s);
    /* How far beyond the interaction radius the model's passes read around a particle, m (NULL: not
     * beyond); several MPI ranks widen their ghost bands by it (mdbc: the longest ghost-node offset). */
    double (*reach)(const struct sim *s);
} boundary_model;

/* The model registered under `name` (registry.c), or NULL. */
const boundary_model *boundary_find(const char *name);

/* Makes `name` the simulation's wall model and runs its init: the scheme calls it once its fields
 * exist and the fluid's initial state is set. An error names the scheme when the model is not
 * registered (a model a scheme asks for must exist). */
int boundary_setup(struct sim *s, const char *name, sl_err *err);

#endif
