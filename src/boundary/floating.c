/* floating.c: the floating bodies' force and torque after each force evaluation: the pass
 * `floating.force` (floating.h; the MPS schemes' `floating.mps_force`, floating_mps.h) over the
 * particles, then the backend's per-body sums. Here, in the
 * wall models' layer, because it runs a pass of theirs; the bodies' state and integrator are
 * core/floating.c. */
#include "floating.h"

#include "boundary_passes.h"
#include "core/floating.h"
#include "core/sim.h"
#include "parallel/domain.h"

void floating_contact_params(sim *s, double dt)
{
    floating_args *fa = &s->args.floating;
    double dp = s->sc->dp, w = s->P.c0 / dp; /* the spring's frequency: k / dp = w^2 */
    if (dt > 0 && w * dt > 0.5) {
        w = 0.5 / dt;
        fa->contact_k = (real)(w * w * dp);
        fa->contact_c = (real)(2.0 * w);
        return;
    }
    fa->contact_k = s->P.c0 * s->P.c0 / (real)dp;
    fa->contact_c = R(2.0) * s->P.c0 / (real)dp;
}

int floating_forces(sim *s, sl_err *err)
{
    floating *fl = s->floating;
    if (!fl)
        return SL_OK;
    floating_contact_params(s, 0.0);
    s->be->run_pass(s, &floating_force_pass, s->g.n_inside);
    return floating_sums(s, 0, err);
}

int floating_sums(sim *s, int add, sl_err *err)
{
    floating *fl = s->floating;
    if (!fl)
        return SL_OK;
    const floating_args *fa = &s->args.floating;
    /* on several MPI ranks: each particle's share from its owner alone, then the sum over the ranks */
    int rc = domain_zero_ghosts(s, fa->acc, 3, err);
    if (rc)
        return rc;
    if (s->be->body_sums(s, s->args.motion.body, fl->n, fa->acc, fl->sums))
        return sim_backend_error(s, err);
    if ((rc = domain_sum(s, fl->sums, 6 * fl->n, err)))
        return rc;
    for (int b = 0; b < fl->n; ++b) {
        const double *u = &fl->sums[6 * b];
        double xf[3];
        rigid_cross(fl->state[b].x, u, xf); /* the moment about the origin less X x F */
        for (int a = 0; a < 3; ++a) {
            double f = u[a], t = u[3 + a] - xf[a];
            if (s->sc->dim == 2 && a != 2)
                t = 0.0;
            if (s->sc->dim == 2 && a == 2)
                f = 0.0;
            fl->force[b][a] = add ? fl->force[b][a] + f : f;
            fl->torque[b][a] = add ? fl->torque[b][a] + t : t;
        }
    }
    return SL_OK;
}
