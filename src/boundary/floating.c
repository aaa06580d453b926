/* floating.c: the floating bodies' force and torque after each force evaluation: the pass
 * `floating.force` (floating.h) over the particles, then the backend's per-body sums. Here, in the
 * wall models' layer, because it runs a pass of theirs; the bodies' state and integrator are
 * core/floating.c. */
#include "floating.h"

#include "boundary_passes.h"
#include "core/floating.h"
#include "core/sim.h"

int floating_forces(sim *s, sl_err *err)
{
    floating *fl = s->floating;
    if (!fl)
        return SL_OK;
    floating_args *fa = &s->args.floating;
    fa->contact_k = s->P.c0 * s->P.c0 / (real)s->sc->dp;
    fa->contact_c = R(2.0) * s->P.c0 / (real)s->sc->dp;
    s->be->run_pass(s, &floating_force_pass, s->g.n_inside);
    if (s->be->body_sums(s, s->args.motion.body, fl->n, fa->acc, fl->sums))
        return sim_backend_error(s, err);
    for (int b = 0; b < fl->n; ++b) {
        const double *u = &fl->sums[6 * b];
        double xf[3];
        rigid_cross(fl->state[b].x, u, xf); /* the moment about the origin less X x F */
        for (int a = 0; a < 3; ++a) {
            fl->force[b][a] = u[a];
            fl->torque[b][a] = u[3 + a] - xf[a];
        }
        if (s->sc->dim == 2) {
            fl->force[b][2] = 0.0;
            fl->torque[b][0] = fl->torque[b][1] = 0.0;
        }
    }
    return SL_OK;
}

