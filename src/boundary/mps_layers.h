/* mps_layers.h: the MPS wall and dummy layers' set-up, which the extrapolated model shares. */
#ifndef SLUICE_BOUNDARY_MPS_LAYERS_H
#define SLUICE_BOUNDARY_MPS_LAYERS_H

#include "base/status.h"

struct sim;

/* Wall particles' classes (MC_WALL for the layer next to the fluid, MC_DUMMY deeper) and their
 * hydrostatic starting pressure. */
int mps_layers_init(struct sim *s, sl_err *err);

#endif
