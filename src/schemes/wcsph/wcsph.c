/* wcsph.c: the weakly compressible SPH scheme: parameters, initial state, passes and time stepping.
 * The physics itself is in sph_kernel.h, sph_eos.h, sph_forces.h and sph_integrate.h. */
#include "boundary/boundary.h"
#include "boundary/floating.h"
#include "boundary/moving.h"
#include "core/floating.h"
#include "geometry/scene_build.h"
#include "parallel/domain.h"
#include "core/sim.h"
#include "core/scheme.h"
#include "physics/sph_eos.h"
#include "physics/sph_kernel.h"
#include "schemes/registry.h"

#include <math.h>
#include <stdlib.h>

/* ---- set-up ------------------------------------------------------------------------------ */

static int wcsph_init(sim *s, sl_err *err)
{
    const scene *sc = s->sc;
    sim_params *P = &s->P;
    double h = sc->h_factor * sc->dp;
    P->kernel = sc->kernel;
    P->h = (real)h;
    P->inv_h = (real)(1.0 / h);
    P->r_max = (real)(2.0 * h);
    P->r2_max = P->r_max * P->r_max;
    P->kernel_norm = (real)sph_kernel_norm(sc->kernel, sc->dim, h);
    double gmag = sqrt(sc->gravity[0] * sc->gravity[0] + sc->gravity[1] * sc->gravity[1] +
                       sc->gravity[2] * sc->gravity[2]);
    double c0 = sc->sound_speed > 0 ? sc->sound_speed : sc->sound_speed_coef * sqrt(gmag * s->fluid_height);
    if (!(c0 > 0))
        return sl_fail(err, SL_ERR_INPUT,
                       "%s: key 'fluid.sound_speed': must be given when gravity or the fluid height is "
                       "zero (accepted: a speed in m/s > 0)", sc->path);
    P->c0 = (real)c0;
    P->eos_gamma = (real)sc->eos_gamma;
    P->eos_b = (real)(sc->rho0 * c0 * c0 / sc->eos_gamma);
    P->nu = (real)sc->nu;
    P->viscosity = sc->viscosity;
    P->alpha = (real)sc->alpha;
    P->delta = (real)sc->delta;
    P->diffusion = sc->diffusion;
    for (int a = 0; a < 3; ++a)
        P->hydro_drho[a] = (real)(sc->rho0 * sc->gravity[a] / (c0 * c0));
    P->eta2 = (real)(0.01 * h * h);
    P->cfl = (real)sc->cfl;

    /* the scheme's fields; x0..z0 only for the symplectic integrator */
    static const char *const names[WS_COUNT] = {"ax", "ay", "az", "drho", "dt_limit", "x0", "y0", "z0",
                                                "vx0", "vy0", "vz0", "rho0"};
    particles *p = &s->p;
    int *slot = s->args.slot;
    for (int k = 0; k < WS_COUNT; ++k) {
        int history_of_position = k == WS_X0 || k == WS_Y0 || k == WS_Z0;
        if (history_of_position && sc->integrator != INTEGRATOR_SYMPLECTIC) {
            slot[k] = -1;
            continue;
        }
        /* the rates: every force pass follows a cell rebuild and writes them all */
        int rate = k <= WS_DT_LIMIT;
        if ((slot[k] = particles_add_field(p, names[k], rate)) < 0)
            return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the WCSPH particle fields");
    }

    /* Hydrostatic start: each particle gets the density whose pressure carries the fluid above it. */
    real **f = p->f;
    real *rho_prev = f[slot[WS_RHO0]];
    real *v_prev[3] = {f[slot[WS_VX0]], f[slot[WS_VY0]], f[slot[WS_VZ0]]};
    for (size_t i = 0; i < p->n; ++i) {
        double pos[3] = {f[PF_X][i], f[PF_Y][i], f[PF_Z][i]};
        double pres = sc->rho0 * gmag * scene_fluid_depth_above(sc, pos);
        double rho = sph_eos_density(P, pres);
        f[PF_RHO][i] = (real)rho;
        f[PF_P][i] = sph_eos_pressure(P, (real)rho);
        rho_prev[i] = (real)rho; /* Verlet's rho^{n-1} */
        for (int a = 0; a < 3; ++a)
            v_prev[a][i] = f[PF_VX + a][i];
    }
    /* walls: dynamic boundary particles, or their modified form (numerics.boundary) */
    return boundary_setup(s, sc->boundary == WALL_MODEL_MDBC ? "mdbc" : "dynamic", err);
}

static int rates(sim *s, sl_err *err)
{
    /* on several MPI ranks also the neighbouring slabs' particles within reach, as read-only ghosts */
    int rc = domain_build_cells(s, err);
    if (rc)
        return rc;
    if (s->bnd->after_density) { /* mdbc: the walls' density from the fluid, before the forces */
        s->bnd->after_density(s);
        if ((rc = domain_refresh_halo(s, err))) /* the ghost walls' as their owners extrapolated it */
            return rc;
    }
    s->be->run_pass(s, &wcsph_forces_pass, s->g.n_inside);
    if ((rc = floating_forces(s, err))) /* the bodies' force and torque at the same state */
        return rc;
    return domain_drop_halo(s, err); /* only this rank's particles are integrated and reduced */
}

static int wcsph_time_step(sim *s, double *dt, sl_err *err)
{
    int rc = rates(s, err);
    if (rc)
        return rc;
    *dt = s->g.n_inside == 0 ? INFINITY
                             : s->P.cfl * s->be->reduce(s, REDUCE_MIN, s->args.slot[WS_DT_LIMIT], 0, s->g.n_inside);
    return SL_OK;
}

/* Moving walls (boundary/moving.h) are placed by their law (floating bodies by their state,
 * core/floating.h), never by the particle integrator: at the end of
 * the step, where the next rates are taken, and with the symplectic integrator also at t + dt/2,
 * where the corrector's rates are. */
static int wcsph_step(sim *s, double dt, sl_err *err)
{
    s->args.dt = (real)dt;
    int rc;
    if (s->sc->integrator == INTEGRATOR_VERLET) {
        /* an Euler step first (there is no v^{n-1} yet) and every verlet_steps steps after */
        s->args.euler_step = s->step % s->sc->verlet_steps == 0;
        s->be->run_pass(s, &wcsph_verlet_pass, s->g.n_inside);
        return moving_walls_place(s, s->t + dt, err);
    }
    s->be->run_pass(s, &wcsph_predict_pass, s->g.n_inside);
    floating_predict(s, dt); /* floating bodies: the same predictor and corrector, beside the fluid's */
    if ((rc = moving_walls_place(s, s->t + 0.5 * dt, err)) || (rc = rates(s, err)))
        return rc;
    s->be->run_pass(s, &wcsph_correct_pass, s->g.n_inside);
    floating_correct(s, dt);
    return moving_walls_place(s, s->t + dt, err);
}

const scheme scheme_wcsph = {
    .name = "wcsph",
    .description = "weakly compressible SPH (Tait EOS, delta-SPH, dynamic boundaries)",
    .init = wcsph_init,
    .time_step = wcsph_time_step,
    .step = wcsph_step,
    .prepare_output = NULL,
};
