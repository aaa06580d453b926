/* dynamic.c: dynamic boundary particles (DBC; Crespo, Gomez-Gesteira & Dalrymple 2007), the WCSPH
 * wall model: wall and obstacle particles carry density and pressure through the same continuity
 * equation and equation of state as the fluid (physics/sph_forces.h: every pair but wall-wall, with
 * the wall's velocity in the relative velocity) and are not moved by the integrator
 * (physics/sph_integrate.h); walls with a motion law are placed by boundary/moving.h. Their hydrostatic start is the fluid's (schemes/wcsph), so
 * the model has no hook of its own. */
#include "boundary.h"

#include <stddef.h>

const boundary_model boundary_dynamic = {
    .name = "dynamic",
    .description = "dynamic boundary particles (WCSPH)",
    .init = NULL,
    .after_density = NULL,
};
