/* mps_layers.c: the MPS wall model of Koshizuka & Oka (1996): the wall layer next to the fluid takes
 * part in the pressure (it is a row of the Poisson equation, or takes the equation of state's
 * pressure in explicit MPS), the deeper layers are dummies that only fill the number density.
 * Scene building leaves each wall particle's layer in its tag (0 next to the fluid). */
#include "boundary.h"
#include "mps_layers.h"

#include "core/sim.h"
#include "geometry/scene_build.h"
#include "physics/mps_ppe.h"

#include <math.h>

int mps_layers_init(sim *s, sl_err *err)
{
    (void)err;
    const scene *sc = s->sc;
    particles *p = &s->p;
    double gmag = sqrt(sc->gravity[0] * sc->gravity[0] + sc->gravity[1] * sc->gravity[1] +
                       sc->gravity[2] * sc->gravity[2]);
    /* the wall layer's pressure starts hydrostatic, as the fluid's; dummies hold none */
    for (size_t i = 0; i < p->n; ++i) {
        if (p->type[i] == PT_FLUID)
            continue;
        p->tag[i] = p->tag[i] == 0 ? MC_WALL : MC_DUMMY;
        double pos[3] = {p->f[PF_X][i], p->f[PF_Y][i], p->f[PF_Z][i]};
        p->f[PF_P][i] = p->tag[i] == MC_DUMMY ? 0 : (real)(sc->rho0 * gmag * scene_fluid_depth_above(sc, pos));
    }
    return SL_OK;
}

const boundary_model boundary_mps_layers = {
    .name = "mps_layers",
    .description = "MPS wall layer and dummy layers",
    .init = mps_layers_init,
    .after_density = NULL,
};
