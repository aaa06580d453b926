/* mps_common.c: the set-up, time step and step halves that semi-implicit and explicit MPS share
 * (mps_common.h). The operators are in physics/ (mps_operators.h, lsmps.h, mps_ppe.h), the passes
 * in mps_passes.h, the lattice constants in physics/mps_lattice.c. */
#include "mps_common.h"

#include "parallel/domain.h"

#include "boundary/boundary.h"
#include "boundary/floating.h"
#include "boundary/moving.h"
#include "core/floating.h"
#include "core/motion.h"
#include "geometry/scene_build.h"
#include "physics/mps_lattice.h"
#include "schemes/registry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- set-up ------------------------------------------------------------------------------ */

/* Whether slot k's field is transient (base/particles.h): written after each cell rebuild before it
 * is read, so a rebuild need not reorder it. A step rebuilds the cells twice (mps_step_predict): at
 * its start and after the prediction. Only three fields live across one: n_start (the accel pass
 * writes it before the second rebuild, the Poisson rows read it after), fallback (the accel pass's
 * share, which the gradient pass adds to) and speed (written at the step's end, read by the next
 * step's time step before its first rebuild). The others are written and read between two
 * rebuilds: the accelerations before the prediction, the collisions' and the gradient's velocity
 * change, n and the Poisson system from the density pass to the correction. */
static int mps_slot_transient(int k)
{
    return k != MS_N_START && k != MS_FALLBACK && k != MS_SPEED;
}

static int add_fields(particles *p, int *slot, int semi_implicit)
{
    static const char *const names[MS_COUNT] = {"ax", "ay", "az", "n", "n_start", "gx", "gy", "gz", "speed",
                                                "fallback", "ppe_b", "ppe_diag", "ppe_x", "cg_r", "cg_z",
                                                "cg_d", "cg_q", "ppe_block_diag"};
    int count = semi_implicit ? MS_COUNT : MS_COUNT_EXPLICIT;
    for (int k = 0; k < count; ++k)
        if ((slot[k] = particles_add_field(p, names[k], mps_slot_transient(k))) < 0)
            return -1;
    return 0;
}

int mps_setup(sim *s, int is_explicit, sl_err *err)
{
    const scene *sc = s->sc;
    sim_params *P = &s->P;
    mps_params *M = &P->mps;
    double l0 = sc->dp;
    M->is_explicit = is_explicit;
    M->weight = sc->mps.domain == MPS_DOMAIN_CUBIC ? MPS_WEIGHT_CUBIC
                : sc->mps.weight == MPS_WEIGHT_NAME_QUADRATIC ? MPS_WEIGHT_QUADRATIC
                                                              : MPS_WEIGHT_KO;
    M->lsmps = sc->mps.operators == MPS_OPERATORS_LSMPS;
    M->stabilised = sc->mps.gradient_stabilised;
    M->source = sc->mps.source;
    M->clamp = sc->mps.clamp_negative_pressure;
    M->wall_extrapolated = sc->mps.wall_pressure == MPS_WALL_PRESSURE_EXTRAPOLATED;
    M->re_n = (real)(sc->mps.re_density * l0);
    M->re_lap = (real)(sc->mps.re_laplacian * l0);
    M->rs = (real)(sc->mps.lsmps_scale * l0);
    M->inv_rs = R(1.0) / M->rs;
    M->beta = (real)sc->mps.surface_beta;
    M->collision_distance = (real)(sc->mps.collision_distance * l0);
    M->restitution = (real)sc->mps.collision_restitution;
    M->collision_model = sc->mps.collision_model;
    M->mixed_gamma = (real)sc->mps.mixed_gamma;
    M->relaxation = (real)sc->mps.relaxation;
    M->compressibility = (real)sc->mps.compressibility;
    double n0, lambda0;
    if (mps_lattice_constants(M->weight, sc->dim, l0, M->re_n, &n0, &lambda0))
        return sl_fail(err, SL_ERR_INPUT, "%s: key 'mps.re_density': no lattice neighbour within %g spacings "
                       "(accepted: a radius of more than 1 spacing, up to 6)",
                       sc->path, sc->mps.re_density);
    M->n0_n = (real)n0;
    M->lambda0_n = (real)lambda0;
    if (mps_lattice_constants(M->weight, sc->dim, l0, M->re_lap, &n0, &lambda0))
        return sl_fail(err, SL_ERR_INPUT, "%s: key 'mps.re_laplacian': no lattice neighbour within %g spacings "
                       "(accepted: a radius of more than 1 spacing, up to 6)",
                       sc->path, sc->mps.re_laplacian);
    M->n0_lap = (real)n0;
    M->lambda0_lap = (real)lambda0;

    double gmag = sqrt(sc->gravity[0] * sc->gravity[0] + sc->gravity[1] * sc->gravity[1] +
                       sc->gravity[2] * sc->gravity[2]);
    M->u_ref = (real)sqrt(2.0 * gmag * s->fluid_height);
    double c0 = sc->sound_speed > 0 ? sc->sound_speed : sc->sound_speed_coef * sqrt(gmag * s->fluid_height);
    if (is_explicit && !(c0 > 0))
        return sl_fail(err, SL_ERR_INPUT,
                       "%s: key 'fluid.sound_speed': must be given when gravity or the fluid height is "
                       "zero (accepted: a speed in m/s > 0)", sc->path);
    if (!is_explicit && !(M->u_ref > 0))
        M->u_ref = (real)(sc->dp / sc->end_time); /* no gravity: the time step is bounded by the run */
    P->c0 = (real)c0;
    P->eos_gamma = (real)sc->eos_gamma;
    P->eos_b = (real)(sc->rho0 * c0 * c0 / sc->eos_gamma);
    P->nu = (real)sc->nu;
    P->cfl = (real)sc->cfl;
    /* The grid must reach the larger radius (for the cubic domain the cube's half width). */
    P->r_max = M->re_lap > M->re_n ? M->re_lap : M->re_n;
    P->r2_max = P->r_max * P->r_max;
    P->h = P->r_max; /* reported as the interaction radius */

    mps_data *d = calloc(1, sizeof *d);
    if (!d)
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory");
    s->scheme_data = d;
    int *slot = s->args.slot;
    if (add_fields(&s->p, slot, !is_explicit))
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the MPS particle fields");
    /* floating bodies in semi-implicit MPS: the gradient pass leaves phat_i where their reaction
     * pass reads it (written and read between two cell rebuilds: transient) */
    s->args.floating.mps_phat = -1;
    if (floating_count(sc) > 0 && !is_explicit && (s->args.floating.mps_phat = particles_add_field(&s->p, "mps_phat", 1)) < 0)
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the MPS particle fields");

    /* The fluid's class and hydrostatic pressure; the wall model sets the boundary particles'. */
    particles *p = &s->p;
    for (size_t i = 0; i < p->n; ++i) {
        if (p->type[i] == PT_FLUID) {
            p->tag[i] = MC_FLUID;
            double pos[3] = {p->f[PF_X][i], p->f[PF_Y][i], p->f[PF_Z][i]};
            p->f[PF_P][i] = (real)(sc->rho0 * gmag * scene_fluid_depth_above(sc, pos));
        }
        p->f[PF_RHO][i] = (real)sc->rho0;
        real u2 = 0;
        for (int c = 0; c < 3; ++c)
            u2 += p->f[PF_VX + c][i] * p->f[PF_VX + c][i];
        p->f[slot[MS_SPEED]][i] = p->type[i] == PT_FLUID ? real_sqrt(u2) : 0;
    }
    /* explicit MPS may take the wall layer's pressure from the fluid (scene key mps.wall_pressure) */
    int rc = boundary_setup(s, is_explicit && M->wall_extrapolated ? "mps_extrapolated" : "mps_layers", err);
    if (rc)
        return rc;
    return SL_OK;
}

/* ---- stepping ------------------------------------------------------------------------------ */

int mps_time_step(sim *s, double *dt, sl_err *err)
{
    (void)err;
    const sim_params *P = &s->P;
    /* the particles inside the domain at the last cell build, as every pass sees them: one that has
     * left keeps the speed it left with (no pass writes it again), and a particle thrown out at 70
     * m/s held SPHERIC Test 2's step at 0.135 ms for the rest of the run (docs/validation.md) */
    size_t n = s->g.n_inside;
    double umax = n ? s->be->reduce(s, REDUCE_MAX, s->args.slot[MS_SPEED], 0, n) : 0;
    umax = umax != umax ? umax : fmax(umax, motion_max_speed(s)); /* a moving wall's particles too */
    if (umax != umax) {
        *dt = NAN;
        return SL_OK;
    }
    double l0 = P->dp;
    *dt = P->mps.is_explicit ? P->cfl * l0 / (P->c0 + umax) : P->cfl * l0 / fmax(umax, P->mps.u_ref);
    if (P->nu > 0)
        *dt = fmin(*dt, 0.2 * l0 * l0 / P->nu); /* explicit viscosity */
    return SL_OK;
}

/* Floating bodies: the reaction of one term of the step on every body (boundary/floating_mps.h), at
 * the state the fluid's pass has just seen; added to the bodies' force when `add` is set. */
static int floating_stage(sim *s, int stage, int add, sl_err *err)
{
    if (!s->floating)
        return SL_OK;
    s->args.floating.mps_stage = stage;
    s->be->run_pass(s, &floating_mps_force_pass, s->g.n_inside);
    return floating_sums(s, add, err);
}

/* Floating bodies (boundary/floating_mps.h) take the fluid's semi-implicit Euler step beside it: the
 * viscous term's reaction at t^n gives their predicted state (with gravity), where they are placed
 * for the collisions, the number density and the pressure; the reactions of the collisions and the
 * pressure gradient then correct it (mps_step_correct), and they are placed again at t + dt with
 * the velocity the next step's wall terms see. */
int mps_step_predict(sim *s, double dt, sl_err *err)
{
    const backend *be = s->be;
    s->args.dt = (real)dt;
    /* on several MPI ranks also the neighbouring slabs' particles within reach, as read-only ghosts */
    int rc = domain_build_cells(s, err);
    if (rc)
        return rc;
    be->run_pass(s, &mps_accel_pass, s->g.n_inside);
    if (s->floating) {
        floating_contact_params(s, dt);
        if ((rc = floating_stage(s, FLOAT_MPS_VISCOUS, 0, err)))
            return rc;
        floating_euler_predict(s, dt);
    }
    if ((rc = domain_drop_halo(s, err))) /* only this rank's particles are moved */
        return rc;
    be->run_pass(s, &mps_predict_pass, s->g.n_inside);
    /* moving walls to t + dt, where the pressure is solved (the correction keeps them there) */
    if ((rc = moving_walls_place(s, s->t + dt, err)) || (rc = domain_build_cells(s, err)))
        return rc;
    size_t n = s->g.n_inside;
    be->run_pass(s, &mps_collision_pass, n);
    if ((rc = floating_stage(s, FLOAT_MPS_COLLISION, 0, err)))
        return rc;
    be->run_pass(s, &mps_collision_apply_pass, n);
    /* the ghosts as their owners' collisions left them */
    if ((rc = domain_refresh_halo(s, err)))
        return rc;
    be->run_pass(s, &mps_density_pass, n);
    return SL_OK;
}

int mps_step_correct(sim *s, sl_err *err)
{
    mps_data *d = mps_data_of(s);
    const backend *be = s->be;
    /* the ghosts' pressure (and class) of this step, as their owners computed it */
    int rc = domain_refresh_halo(s, err);
    if (rc)
        return rc;
    be->run_pass(s, &mps_gradient_pass, s->g.n_inside);
    if ((rc = floating_stage(s, FLOAT_MPS_PRESSURE, 1, err)))
        return rc;
    if ((rc = domain_drop_halo(s, err))) /* only this rank's particles are corrected and counted */
        return rc;
    size_t n = s->g.n_inside;
    be->run_pass(s, &mps_correct_pass, n);
    if (s->floating) {
        floating_euler_correct(s, (double)s->args.dt);
        if ((rc = moving_walls_place(s, s->t + (double)s->args.dt, err)))
            return rc;
    }
    d->stats.steps++;
    if (!s->P.mps.lsmps) /* the MPS operators never fall back: no sum (on a GPU, a wait for it) */
        return SL_OK;
    double fallbacks = be->reduce(s, REDUCE_SUM, s->args.slot[MS_FALLBACK], 0, n);
    if ((rc = domain_sum(s, &fallbacks, 1, err))) /* every rank's particles */
        return rc;
    d->stats.lsmps_fallbacks += (long)fallbacks;
    return SL_OK;
}

int mps_get_stats(const sim *s, mps_stats *st)
{
    if (!s->sch || (strcmp(s->sch->name, "mps") != 0 && strcmp(s->sch->name, "emps") != 0))
        return -1;
    *st = mps_data_of(s)->stats;
    st->surface_particles = 0;
    for (size_t i = 0; i < s->p.n; ++i)
        st->surface_particles += s->p.tag[i] == MC_FLUID_SURFACE;
    return 0;
}
