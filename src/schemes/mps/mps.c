/* mps.c: the MPS schemes: semi-implicit MPS (Koshizuka & Oka 1996) and explicit MPS.
 *
 * One step of semi-implicit MPS:
 *   1. a = nu lap u + g (explicit), u* = u + dt a, x* = x + dt u*         passes accel, predict
 *   2. n* at x*, free surface where n* < beta n0                          pass density
 *   3. A p = b (mps_ppe.h) by Jacobi-preconditioned CG on the backend      passes ppe_setup, ppe_apply
 *   4. u = u* - dt/rho0 grad p, x = x* + dt (u - u*)                      passes gradient, correct
 * Explicit MPS replaces 3 by p = B ((n* / n0)^gamma - 1), the wall layer's pressure extrapolated
 * from the fluid (pass wall_pressure, Adami et al. 2012), and uses the symmetric gradient.
 * The operators are in mps_operators.h, lsmps.h and mps_ppe.h; the lattice constants in
 * mps_lattice.c. */
#include "mps.h"

#include "geometry/scene_build.h"
#include "core/sim.h"
#include "physics/mps_lattice.h"
#include "mps_passes.h"
#include "core/scheme.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mps_data {
    cg_problem cg;          /* semi-implicit only */
    mps_stats stats;
} mps_data;

static mps_data *data_of(const sim *s)
{
    return (mps_data *)s->scheme_data;
}

static int is_explicit(const sim *s)
{
    return s->args.flag;
}

/* The CPU loops over the per-particle bodies of mps_passes.h (the GPU has kernels for them). */
PASS_CPU_RANGE(mps_accel_body)
PASS_CPU_RANGE(mps_predict_body)
PASS_CPU_RANGE(mps_collision_body)
PASS_CPU_RANGE(mps_collision_apply_body)
PASS_CPU_RANGE(mps_density_body)
PASS_CPU_RANGE(mps_wall_pressure_body)
PASS_CPU_RANGE(mps_ppe_setup_body)
PASS_CPU_RANGE(mps_ppe_apply_body)
PASS_CPU_RANGE(mps_pressure_body)
PASS_CPU_RANGE(mps_gradient_body)
PASS_CPU_RANGE(mps_correct_body)
PASS_CPU_RANGE(mps_op_gradient_body)
PASS_CPU_RANGE(mps_op_laplacian_body)
PASS_CPU_RANGE(mps_op_lsmps_gradient_body)

static const pass pass_accel = {"mps.accel", PASS_MPS_ACCEL, mps_accel_body_range, PASS_NEIGHBOURS | PASS_REPEATABLE};
static const pass pass_predict = {"mps.predict", PASS_MPS_PREDICT, mps_predict_body_range, 0};
static const pass pass_collision = {"mps.collision", PASS_MPS_COLLISION, mps_collision_body_range, PASS_NEIGHBOURS | PASS_REPEATABLE};
static const pass pass_collision_apply = {"mps.collision_apply", PASS_MPS_COLLISION_APPLY,
                                          mps_collision_apply_body_range, 0};
static const pass pass_density = {"mps.density", PASS_MPS_DENSITY, mps_density_body_range, PASS_NEIGHBOURS | PASS_REPEATABLE};
static const pass pass_wall_pressure = {"mps.wall_pressure", PASS_MPS_WALL_PRESSURE,
                                        mps_wall_pressure_body_range, PASS_NEIGHBOURS | PASS_REPEATABLE};
static const pass pass_ppe_setup = {"mps.ppe_setup", PASS_MPS_PPE_SETUP, mps_ppe_setup_body_range, PASS_NEIGHBOURS | PASS_REPEATABLE};
static const pass pass_ppe_apply = {"mps.ppe_apply", PASS_MPS_PPE_APPLY, mps_ppe_apply_body_range, PASS_NEIGHBOURS | PASS_REPEATABLE};
static const pass pass_pressure = {"mps.pressure", PASS_MPS_PRESSURE, mps_pressure_body_range, 0};
static const pass pass_gradient = {"mps.gradient", PASS_MPS_GRADIENT, mps_gradient_body_range, PASS_NEIGHBOURS | PASS_REPEATABLE};
static const pass pass_correct = {"mps.correct", PASS_MPS_CORRECT, mps_correct_body_range, 0};

const pass mps_pass_op_gradient = {"mps.op.gradient", PASS_MPS_OP_GRADIENT, mps_op_gradient_body_range,
                                   PASS_NEIGHBOURS | PASS_REPEATABLE};
const pass mps_pass_op_laplacian = {"mps.op.laplacian", PASS_MPS_OP_LAPLACIAN, mps_op_laplacian_body_range,
                                    PASS_NEIGHBOURS | PASS_REPEATABLE};
const pass mps_pass_op_lsmps_gradient = {"mps.op.lsmps_gradient", PASS_MPS_OP_LSMPS_GRADIENT,
                                         mps_op_lsmps_gradient_body_range, PASS_NEIGHBOURS | PASS_REPEATABLE};

/* ---- set-up ------------------------------------------------------------------------------ */

static int add_fields(particles *p, int *slot, int semi_implicit)
{
    static const char *const names[MS_COUNT] = {"ax", "ay", "az", "n", "n_start", "gx", "gy", "gz", "speed",
                                                "fallback", "ppe_b", "ppe_diag", "ppe_x", "cg_r", "cg_z",
                                                "cg_d", "cg_q"};
    int count = semi_implicit ? MS_COUNT : MS_COUNT_EXPLICIT;
    for (int k = 0; k < count; ++k)
        if ((slot[k] = particles_add_field(p, names[k], 0)) < 0)
            return -1;
    return 0;
}

static int mps_init_common(sim *s, int is_explicit, sl_err *err)
{
    const scene *sc = s->sc;
    sim_params *P = &s->P;
    mps_params *M = &P->mps;
    double l0 = sc->dp;
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
    M->mixed_gamma = (real)sc->mps.mixed_gamma;
    M->relaxation = (real)sc->mps.relaxation;
    M->compressibility = (real)sc->mps.compressibility;
    double n0, lambda0;
    if (mps_lattice_constants(M->weight, sc->dim, l0, M->re_n, &n0, &lambda0))
        return sl_fail(err, SL_ERR_INPUT, "%s: key 'mps.re_density': no lattice neighbour within %g spacings",
                       sc->path, sc->mps.re_density);
    M->n0_n = (real)n0;
    M->lambda0_n = (real)lambda0;
    if (mps_lattice_constants(M->weight, sc->dim, l0, M->re_lap, &n0, &lambda0))
        return sl_fail(err, SL_ERR_INPUT, "%s: key 'mps.re_laplacian': no lattice neighbour within %g spacings",
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
    s->args.flag = is_explicit;
    int *slot = s->args.slot;
    if (add_fields(&s->p, slot, !is_explicit))
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the MPS particle fields");

    /* Classes: fluid; the wall layer next to the fluid takes part in the pressure; deeper layers are
     * dummies that only fill the number density. Pressure starts hydrostatic. */
    particles *p = &s->p;
    for (size_t i = 0; i < p->n; ++i) {
        p->tag[i] = p->type[i] == PT_FLUID ? MC_FLUID : p->tag[i] == 0 ? MC_WALL : MC_DUMMY;
        double pos[3] = {p->f[PF_X][i], p->f[PF_Y][i], p->f[PF_Z][i]};
        p->f[PF_P][i] = p->tag[i] == MC_DUMMY ? 0 : (real)(sc->rho0 * gmag * scene_fluid_depth_above(sc, pos));
        p->f[PF_RHO][i] = (real)sc->rho0;
        real u2 = 0;
        for (int c = 0; c < 3; ++c)
            u2 += p->f[PF_VX + c][i] * p->f[PF_VX + c][i];
        p->f[slot[MS_SPEED]][i] = p->type[i] == PT_FLUID ? real_sqrt(u2) : 0;
    }
    if (!is_explicit) {
        cg_problem *cg = &d->cg;
        cg->matvec = &pass_ppe_apply;
        cg->x = slot[MS_X];
        cg->b = slot[MS_B];
        cg->diag = slot[MS_DIAG];
        cg->r = slot[MS_R];
        cg->z = slot[MS_Z];
        cg->d = slot[MS_D];
        cg->q = slot[MS_Q];
        cg->tolerance = sc->mps.cg_tolerance;
        cg->max_iterations = sc->mps.cg_max_iterations;
    }
    return SL_OK;
}

static int mps_init(sim *s, sl_err *err)
{
    return mps_init_common(s, 0, err);
}

static int emps_init(sim *s, sl_err *err)
{
    return mps_init_common(s, 1, err);
}

/* ---- stepping ------------------------------------------------------------------------------ */

static int mps_time_step(sim *s, double *dt, sl_err *err)
{
    (void)err;
    const sim_params *P = &s->P;
    size_t n = s->p.n; /* the grid may not be built yet; speeds of particles outside are 0 */
    double umax = n ? s->be->reduce(s, REDUCE_MAX, s->args.slot[MS_SPEED], 0, n) : 0;
    if (umax != umax) {
        *dt = NAN;
        return SL_OK;
    }
    double l0 = P->dp;
    *dt = is_explicit(s) ? P->cfl * l0 / (P->c0 + umax) : P->cfl * l0 / fmax(umax, P->mps.u_ref);
    if (P->nu > 0)
        *dt = fmin(*dt, 0.2 * l0 * l0 / P->nu); /* explicit viscosity */
    return SL_OK;
}

static int mps_step(sim *s, double dt, sl_err *err)
{
    mps_data *d = data_of(s);
    const backend *be = s->be;
    s->args.dt = (real)dt;
    int rc = be->build_cells(s, err);
    if (rc)
        return rc;
    be->run_pass(s, &pass_accel, s->g.n_inside);
    be->run_pass(s, &pass_predict, s->g.n_inside);
    if ((rc = be->build_cells(s, err)))
        return rc;
    size_t n = s->g.n_inside;
    be->run_pass(s, &pass_collision, n);
    be->run_pass(s, &pass_collision_apply, n);
    be->run_pass(s, &pass_density, n);
    if (is_explicit(s) && s->P.mps.wall_extrapolated)
        be->run_pass(s, &pass_wall_pressure, n);
    if (!is_explicit(s)) {
        be->run_pass(s, &pass_ppe_setup, n);
        d->cg.n = n;
        be->cg_solve(s, &d->cg);
        mps_stats *st = &d->stats;
        st->cg_iterations += d->cg.iterations;
        st->cg_last_iterations = d->cg.iterations;
        st->cg_last_residual = d->cg.residual;
        if (d->cg.iterations > st->cg_max_iterations)
            st->cg_max_iterations = d->cg.iterations;
        if (d->cg.residual > st->cg_max_residual)
            st->cg_max_residual = d->cg.residual;
        if (!d->cg.converged)
            st->cg_unconverged++;
        be->run_pass(s, &pass_pressure, n);
    }
    be->run_pass(s, &pass_gradient, n);
    be->run_pass(s, &pass_correct, n);
    d->stats.steps++;
    d->stats.lsmps_fallbacks += (long)be->reduce(s, REDUCE_SUM, s->args.slot[MS_FALLBACK], 0, n);
    return SL_OK;
}

static void mps_summary(const sim *s, char *buf, unsigned long len)
{
    const mps_data *d = data_of(s);
    const mps_stats *st = &d->stats;
    if (is_explicit(s)) {
        snprintf(buf, len, "explicit MPS: %ld steps; LSMPS fell back to MPS %ld times", st->steps,
                 st->lsmps_fallbacks);
        return;
    }
    snprintf(buf, len,
             "pressure Poisson solve: %.1f CG iterations per step (at most %d), residual at most %.2g "
             "(tolerance %.2g), %ld of %ld steps unconverged; LSMPS fell back to MPS %ld times",
             st->steps ? (double)st->cg_iterations / (double)st->steps : 0.0, st->cg_max_iterations,
             st->cg_max_residual, d->cg.tolerance, st->cg_unconverged, st->steps, st->lsmps_fallbacks);
}

int mps_get_stats(const sim *s, mps_stats *st)
{
    if (!s->sch || (strcmp(s->sch->name, "mps") != 0 && strcmp(s->sch->name, "emps") != 0))
        return -1;
    *st = data_of(s)->stats;
    st->surface_particles = 0;
    for (size_t i = 0; i < s->p.n; ++i)
        st->surface_particles += s->p.tag[i] == MC_FLUID_SURFACE;
    return 0;
}

const scheme scheme_mps = {
    .name = "mps",
    .description = "semi-implicit MPS (pressure Poisson equation, CG)",
    .init = mps_init,
    .time_step = mps_time_step,
    .step = mps_step,
    .prepare_output = NULL,
    .summary = mps_summary,
};

const scheme scheme_emps = {
    .name = "emps",
    .description = "explicit (weakly compressible) MPS",
    .init = emps_init,
    .time_step = mps_time_step,
    .step = mps_step,
    .prepare_output = NULL,
    .summary = mps_summary,
};
