/* mps_extrapolated.c: explicit MPS's wall model with the wall layer's pressure extrapolated from
 * the fluid after every density pass (the pass is in mps_extrapolated.h); the layers are those of
 * mps_layers.c. */
#include "boundary.h"
#include "boundary_passes.h"
#include "mps_layers.h"

#include "core/sim.h"

static void extrapolate_wall_pressure(sim *s)
{
    s->be->run_pass(s, &mps_wall_pressure_pass, s->g.n_inside);
}

const boundary_model boundary_mps_extrapolated = {
    .name = "mps_extrapolated",
    .description = "MPS wall layers, the wall pressure extrapolated from the fluid (Adami et al. 2012)",
    .init = mps_layers_init,
    .after_density = extrapolate_wall_pressure,
};
