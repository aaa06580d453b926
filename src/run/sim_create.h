/* sim_create.h: creating a simulation from a scene (sim_free in core/sim.h releases it). */
#ifndef SLUICE_SIM_CREATE_H
#define SLUICE_SIM_CREATE_H

#include "core/sim.h"

/* Builds the particles from the scene, derives the parameters, initialises the scheme and sorts
 * the particles into the grid. */
int sim_create(sim *s, const scene *sc, const backend *be, sl_err *err);

#endif
