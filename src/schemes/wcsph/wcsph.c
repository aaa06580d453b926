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
                                                "vx0", "vy0", "vz0", "rho0", "moved"};
    particles *p = &s->p;
    int *slot = s->args.slot;
    for (int k = 0; k < WS_COUNT; ++k) {
        int history_of_position = k == WS_X0 || k == WS_Y0 || k == WS_Z0;
        /* the predictor's displacement too: every symplectic run has the same fields, so that a
         * checkpoint restarts on any number of ranks (only several use it, below) */
        if ((history_of_position || k == WS_MOVED) && sc->integrator != INTEGRATOR_SYMPLECTIC) {
            slot[k] = -1;
            continue;
        }
        /* transient: the rates (every force pass follows a cell rebuild and writes them all) and the
         * predictor's displacement (read before the next rebuild) */
        int transient = k <= WS_DT_LIMIT || k == WS_MOVED;
        if ((slot[k] = particles_add_field(p, names[k], transient)) < 0)
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
    int rc = boundary_setup(s, sc->boundary == WALL_MODEL_MDBC ? "mdbc" : "dynamic", err);
    if (rc)
        return rc;
    /* On several MPI ranks a cell build moves particles between ranks and sends the ghosts, so the
     * corrector takes its rates on the step's first cells when the predictor moved no particle more
     * than half the skin (numerics.cell_skin). Not with moving walls or bodies, which their laws move
     * (the predictor's displacement does not count them), nor across periodic seams, where the build
     * folds the positions back into the period. */
    if (sc->integrator == INTEGRATOR_SYMPLECTIC && sc->cell_skin > 0 && !sc->periodic && !s->motion &&
        domain_world_size() > 1)
        P->cell_skin = (real)(sc->cell_skin * P->r_max);
    return SL_OK;
}

/* The rates at the current positions. reuse_cells: on the cells (and ghosts) kept from the step's
 * start, their ghosts' fields sent again. On several MPI ranks the ghosts stay after the rates: the
 * integration passes go through them too (each particle integrates alone), and wcsph_step drops
 * them after the last one, with the rates spent (domain_drop_spent_halo: a device then moves only
 * the persistent fields), unless the corrector's build drops them first. For the time step
 * (for_time_step) their limits are set out of the minimum: their owners count them. */
static int rates(sim *s, int for_time_step, int reuse_cells, sl_err *err)
{
    /* on several MPI ranks also the neighbouring slabs' particles within reach, as read-only ghosts */
    int rc = reuse_cells ? domain_reuse_cells(s, err) : domain_build_cells(s, err);
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
    return for_time_step ? domain_set_ghosts(s, s->args.slot[WS_DT_LIMIT], R(1e30), err) : SL_OK;
}

/* Whether the corrector may reuse the step's first cells (numerics.cell_skin, wcsph_init). */
static int cells_reusable(const sim *s)
{
    return s->P.cell_skin > 0;
}

/* After the predictor: whether every particle on every rank moved less than half the skin, so that
 * the cells still hold every pair within reach (nbr_grid.h: nbr_view.slack). */
static int cells_still_hold(sim *s, int *hold, sl_err *err)
{
    double moved = s->g.n_inside ? s->be->reduce(s, REDUCE_MAX, s->args.slot[WS_MOVED], 0, s->g.n_inside) : 0;
    SL_TRY(domain_max(s, &moved, 1, err));
    *hold = moved <= 0.5 * (double)s->P.cell_skin; /* (a NaN rebuilds, and the time step reports it) */
    return SL_OK;
}

static int wcsph_time_step(sim *s, double *dt, sl_err *err)
{
    int rc = rates(s, 1, 0, err);
    if (rc)
        return rc;
    *dt = s->g.n_inside == 0 ? INFINITY
                             : s->P.cfl * s->be->reduce(s, REDUCE_MIN, s->args.slot[WS_DT_LIMIT], 0, s->g.n_inside);
    return SL_OK;
}

/* The moving walls placed at t + dt, then the ghosts dropped (parked: after the placing, which
 * would give a parked ghost of a wall its place again): only this rank's particles are reduced and
 * written. */
static int end_of_step(sim *s, double dt, sl_err *err)
{
    SL_TRY(moving_walls_place(s, s->t + dt, err));
    return domain_drop_spent_halo(s, err);
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
        return end_of_step(s, dt, err);
    }
    /* (the ghosts are predicted too: the corrector's build drops them, or with the cells kept their
     * owners' values overwrite them) */
    s->be->run_pass(s, &wcsph_predict_pass, s->g.n_inside);
    floating_predict(s, dt); /* floating bodies: the same predictor and corrector, beside the fluid's */
    int reuse = 0;
    if ((rc = moving_walls_place(s, s->t + 0.5 * dt, err)) ||
        (cells_reusable(s) && (rc = cells_still_hold(s, &reuse, err))) || (rc = rates(s, 0, reuse, err)))
        return rc;
    s->be->run_pass(s, &wcsph_correct_pass, s->g.n_inside);
    floating_correct(s, dt);
    return end_of_step(s, dt, err);
}

const scheme scheme_wcsph = {
    .name = "wcsph",
    .description = "weakly compressible SPH (Tait EOS, delta-SPH, dynamic boundaries)",
    .init = wcsph_init,
    .time_step = wcsph_time_step,
    .step = wcsph_step,
    .prepare_output = NULL,
};
