/* mps.c: the MPS schemes: semi-implicit MPS (Koshizuka & Oka 1996) and explicit MPS.
 *
 * One step of semi-implicit MPS:
 *   1. a = nu lap u + g (explicit), u* = u + dt a, x* = x + dt u*         passes accel, predict
 *   2. n* at x*, free surface where n* < beta n0                          pass density
 *   3. A p = b (mps_ppe.h) by Jacobi-preconditioned CG on the backend      passes ppe_setup, ppe_apply
 *   4. u = u* - dt/rho0 grad p, x = x* + dt (u - u*)                      passes gradient, correct
 * Explicit MPS replaces 3 by p = B ((n* / n0)^gamma - 1) and uses the symmetric gradient.
 * The operators are in mps_operators.h, lsmps.h and mps_ppe.h; the lattice constants in
 * mps_lattice.c. */
#include "mps.h"

#include "../scene_build.h"
#include "../sim.h"
#include "lsmps.h"
#include "mps_collision.h"
#include "mps_lattice.h"
#include "mps_operators.h"
#include "mps_ppe.h"
#include "mps_weight.h"
#include "scheme.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mps_data {
    int is_explicit;
    int ax, ay, az;         /* explicit acceleration */
    int n;                  /* number density at re_n */
    int n_start;            /* number density at the start of the step (mixed source) */
    int gx, gy, gz;         /* pressure gradient */
    int speed;              /* |u| of fluid particles, for the time step */
    int fallback;           /* 1 where an LSMPS operator fell back to MPS in this step */
    int b, diag, x, r, z, d, q; /* Poisson system and CG work fields (semi-implicit only) */
    cg_problem cg;
    real dt;
    mps_stats stats;
} mps_data;

enum { PASS_MPS_ACCEL = 200, PASS_MPS_PREDICT, PASS_MPS_DENSITY, PASS_MPS_PPE_SETUP, PASS_MPS_PPE_APPLY,
       PASS_MPS_PRESSURE, PASS_MPS_GRADIENT, PASS_MPS_CORRECT, PASS_MPS_COLLISION,
       PASS_MPS_COLLISION_APPLY };

static mps_data *data_of(const sim *s)
{
    return (mps_data *)s->scheme_data;
}

static mps_view view_of(const sim *s, unsigned mask)
{
    mps_view v;
    v.x = s->p.f[PF_X];
    v.y = s->p.f[PF_Y];
    v.z = s->p.f[PF_Z];
    v.cls = s->p.tag;
    v.mask = mask;
    v.dim = s->P.dim;
    return v;
}

static mps_kernel kernel_n(const sim_params *P)
{
    mps_kernel k = {P->mps.weight, P->mps.re_n, P->mps.n0_n, P->mps.lambda0_n};
    return k;
}

static mps_kernel kernel_lap(const sim_params *P)
{
    mps_kernel k = {P->mps.weight, P->mps.re_lap, P->mps.n0_lap, P->mps.lambda0_lap};
    return k;
}

/* ---- CPU pass bodies ----------------------------------------------------------------------- */

/* a = nu lap u + g for fluid particles; walls and dummies (u = 0) take part as neighbours. */
static void accel_cpu(sim *s, size_t b, size_t e)
{
    const sim_params *P = &s->P;
    mps_data *d = data_of(s);
    real **f = s->p.f;
    mps_view v = view_of(s, MC_MASK_ALL);
    mps_kernel k = kernel_lap(P);
    const real *u[3] = {f[PF_VX], f[PF_VY], f[PF_VZ]};
    mps_view all = view_of(s, MC_MASK_ALL);
    all.cls = NULL;
    mps_kernel kn = kernel_n(P);
    int fallbacks = 0;
    for (size_t i = b; i < e; ++i) {
        real a[3] = {0, 0, 0};
        f[d->n_start][i] = mps_number_density(&all, &s->g.view, &kn, (int32_t)i);
        if (mps_class_is_fluid(s->p.tag[i])) {
            real lap[3] = {0, 0, 0};
            if (P->mps.lsmps && P->nu > 0) {
                for (int c = 0; c < P->dim; ++c)
                    fallbacks += lsmps_or_mps_laplacian(&v, &s->g.view, &k, P->mps.rs, u[c], (int32_t)i, &lap[c]);
            } else if (P->nu > 0) {
                mps_laplacian3(&v, &s->g.view, &k, u[0], u[1], P->dim == 3 ? u[2] : NULL, (int32_t)i, lap);
            }
            for (int c = 0; c < 3; ++c)
                a[c] = P->nu * lap[c] + P->g[c];
        }
        f[d->ax][i] = a[0];
        f[d->ay][i] = a[1];
        f[d->az][i] = P->dim == 3 ? a[2] : 0;
        f[d->fallback][i] = (real)fallbacks;
        fallbacks = 0;
    }
}

/* Collision velocity change into gx..gz (free until the pressure gradient). */
static void collision_cpu(sim *s, size_t b, size_t e)
{
    const mps_data *d = data_of(s);
    real **f = s->p.f;
    mps_view v = view_of(s, MC_MASK_ALL);
    for (size_t i = b; i < e; ++i) {
        real du[3] = {0, 0, 0};
        if (mps_class_is_fluid(s->p.tag[i]))
            mps_collision(&v, &s->g.view, R(0.5) * s->P.dp, R(0.2), f[PF_VX], f[PF_VY], f[PF_VZ], (int32_t)i, du);
        for (int c = 0; c < 3; ++c)
            f[d->gx + c][i] = du[c];
    }
}

static void collision_apply_cpu(sim *s, size_t b, size_t e)
{
    const mps_data *d = data_of(s);
    real **f = s->p.f;
    for (size_t i = b; i < e; ++i)
        for (int c = 0; c < s->P.dim; ++c) {
            real du = f[d->gx + c][i];
            f[PF_VX + c][i] += du;
            f[PF_X + c][i] += d->dt * du;
        }
}

static void predict_cpu(sim *s, size_t b, size_t e)
{
    const mps_data *d = data_of(s);
    real **f = s->p.f;
    real dt = d->dt;
    for (size_t i = b; i < e; ++i) {
        if (!mps_class_is_fluid(s->p.tag[i]))
            continue;
        for (int c = 0; c < s->P.dim; ++c) {
            real u = f[PF_VX + c][i] + dt * f[d->ax + c][i];
            f[PF_VX + c][i] = u;
            f[PF_X + c][i] += dt * u;
        }
    }
}

/* n* and the free surface; explicit MPS also takes its pressure from n* here. */
static void density_cpu(sim *s, size_t b, size_t e)
{
    const sim_params *P = &s->P;
    const mps_data *d = data_of(s);
    real **f = s->p.f;
    mps_view v = view_of(s, MC_MASK_ALL);
    v.cls = NULL; /* every particle counts in the number density */
    mps_kernel k = kernel_n(P);
    real n0 = P->mps.n0_n;
    for (size_t i = b; i < e; ++i) {
        real n = mps_number_density(&v, &s->g.view, &k, (int32_t)i);
        uint8_t c = mps_classify(s->p.tag[i], n, P->mps.beta * n0);
        s->p.tag[i] = c;
        f[d->n][i] = n;
        f[PF_RHO][i] = P->rho0 * n / n0;
        if (d->is_explicit)
            f[PF_P][i] = mps_admissible_pressure(c, P->eos_b * (real_pow(n / n0, P->eos_gamma) - R(1.0)),
                                                 P->mps.clamp);
    }
}

static void ppe_setup_cpu(sim *s, size_t b, size_t e)
{
    const sim_params *P = &s->P;
    const mps_data *d = data_of(s);
    real **f = s->p.f;
    mps_view with_pressure = view_of(s, MC_MASK_PRESSURE);
    mps_view all = view_of(s, MC_MASK_ALL);
    mps_kernel kl = kernel_lap(P), kn = kernel_n(P);
    real dt = d->dt, n0 = P->mps.n0_n;
    int mixed = P->mps.source == MPS_SOURCE_MIXED;
    /* weight of the density term: gamma in the mixed source, the relaxation factor otherwise */
    real k_density = mixed ? P->mps.mixed_gamma : P->mps.relaxation;
    for (size_t i = b; i < e; ++i) {
        uint8_t c = s->p.tag[i];
        if (c != MC_FLUID && c != MC_WALL) {
            f[d->diag][i] = f[d->b][i] = f[d->x][i] = 0;
            continue;
        }
        f[d->diag][i] = mps_ppe_diagonal(&with_pressure, &s->g.view, &kl, (int32_t)i) +
                        P->rho0 * P->mps.compressibility / (dt * dt);
        /* the mixed source corrects the density error left at the start of the step; the divergence
         * term takes care of this step's motion */
        real n_src = mixed ? f[d->n_start][i] : f[d->n][i];
        real rhs = k_density * P->rho0 / (dt * dt) * (n_src - n0) / n0;
        if (mixed)
            rhs -= (R(1.0) - P->mps.mixed_gamma) * P->rho0 / dt *
                   mps_divergence(&all, &s->g.view, &kn, f[PF_VX], f[PF_VY], f[PF_VZ], (int32_t)i);
        f[d->b][i] = rhs;
        f[d->x][i] = f[PF_P][i] > 0 ? f[PF_P][i] : 0; /* warm start from the last pressure */
    }
}

static void ppe_apply_cpu(sim *s, size_t b, size_t e)
{
    const mps_data *d = data_of(s);
    real **f = s->p.f;
    mps_view unknown = view_of(s, MC_MASK_UNKNOWN);
    mps_kernel kl = kernel_lap(&s->P);
    const real *in = f[d->cg.in], *diag = f[d->diag];
    real *out = f[d->cg.out];
    for (size_t i = b; i < e; ++i)
        out[i] = diag[i] != 0 ? mps_ppe_apply(&unknown, &s->g.view, &kl, in, diag[i], (int32_t)i) : 0;
}

static void pressure_cpu(sim *s, size_t b, size_t e)
{
    const mps_data *d = data_of(s);
    real **f = s->p.f;
    for (size_t i = b; i < e; ++i)
        f[PF_P][i] = mps_admissible_pressure(s->p.tag[i], f[d->x][i], s->P.mps.clamp);
}

static void gradient_cpu(sim *s, size_t b, size_t e)
{
    const sim_params *P = &s->P;
    const mps_data *d = data_of(s);
    real **f = s->p.f;
    mps_view v = view_of(s, MC_MASK_PRESSURE);
    mps_kernel k = kernel_n(P);
    for (size_t i = b; i < e; ++i) {
        real g[3] = {0, 0, 0};
        int fell_back = 0;
        if (mps_class_is_fluid(s->p.tag[i])) {
            if (P->mps.lsmps)
                fell_back = lsmps_or_mps_gradient(&v, &s->g.view, &k, P->mps.rs, f[PF_P], P->mps.stabilised,
                                                  (int32_t)i, g);
            else if (d->is_explicit)
                mps_symmetric_gradient(&v, &s->g.view, &k, f[PF_P], (int32_t)i, g);
            else
                mps_gradient(&v, &s->g.view, &k, f[PF_P], P->mps.stabilised, (int32_t)i, g);
        }
        f[d->gx][i] = g[0];
        f[d->gy][i] = g[1];
        f[d->gz][i] = g[2];
        f[d->fallback][i] += (real)fell_back;
    }
}

static void correct_cpu(sim *s, size_t b, size_t e)
{
    const mps_data *d = data_of(s);
    real **f = s->p.f;
    real dt = d->dt, k = dt / s->P.rho0;
    for (size_t i = b; i < e; ++i) {
        real sp = 0;
        if (mps_class_is_fluid(s->p.tag[i])) {
            real u2 = 0;
            for (int c = 0; c < s->P.dim; ++c) {
                real du = -k * f[d->gx + c][i];
                real u = f[PF_VX + c][i] + du;
                f[PF_VX + c][i] = u;
                f[PF_X + c][i] += dt * du;
                u2 += u * u;
            }
            sp = real_sqrt(u2);
        }
        f[d->speed][i] = sp;
    }
}

static const pass pass_accel = {"mps.accel", PASS_MPS_ACCEL, accel_cpu};
static const pass pass_predict = {"mps.predict", PASS_MPS_PREDICT, predict_cpu};
static const pass pass_collision = {"mps.collision", PASS_MPS_COLLISION, collision_cpu};
static const pass pass_collision_apply = {"mps.collision_apply", PASS_MPS_COLLISION_APPLY, collision_apply_cpu};
static const pass pass_density = {"mps.density", PASS_MPS_DENSITY, density_cpu};
static const pass pass_ppe_setup = {"mps.ppe_setup", PASS_MPS_PPE_SETUP, ppe_setup_cpu};
static const pass pass_ppe_apply = {"mps.ppe_apply", PASS_MPS_PPE_APPLY, ppe_apply_cpu};
static const pass pass_pressure = {"mps.pressure", PASS_MPS_PRESSURE, pressure_cpu};
static const pass pass_gradient = {"mps.gradient", PASS_MPS_GRADIENT, gradient_cpu};
static const pass pass_correct = {"mps.correct", PASS_MPS_CORRECT, correct_cpu};

/* ---- set-up ------------------------------------------------------------------------------ */

static int add_fields(particles *p, mps_data *d, int semi_implicit)
{
    static const char *const names[] = {"ax", "ay", "az", "n", "n_start", "gx", "gy", "gz", "speed", "fallback"};
    int *slots[] = {&d->ax, &d->ay, &d->az, &d->n, &d->n_start, &d->gx, &d->gy, &d->gz, &d->speed, &d->fallback};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k)
        if ((*slots[k] = particles_add_field(p, names[k])) < 0)
            return -1;
    /* ax..az and gx..gz are used as consecutive indices */
    if (d->ay != d->ax + 1 || d->az != d->ax + 2 || d->gy != d->gx + 1 || d->gz != d->gx + 2)
        return -1;
    if (!semi_implicit)
        return 0;
    static const char *const cg_names[] = {"ppe_b", "ppe_diag", "ppe_x", "cg_r", "cg_z", "cg_d", "cg_q"};
    int *cg_slots[] = {&d->b, &d->diag, &d->x, &d->r, &d->z, &d->d, &d->q};
    for (size_t k = 0; k < sizeof cg_names / sizeof cg_names[0]; ++k)
        if ((*cg_slots[k] = particles_add_field(p, cg_names[k])) < 0)
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
    M->re_n = (real)(sc->mps.re_density * l0);
    M->re_lap = (real)(sc->mps.re_laplacian * l0);
    M->rs = (real)(sc->mps.lsmps_scale * l0);
    M->beta = (real)sc->mps.surface_beta;
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
    d->is_explicit = is_explicit;
    if (add_fields(&s->p, d, !is_explicit))
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
        p->f[d->speed][i] = p->type[i] == PT_FLUID ? real_sqrt(u2) : 0;
    }
    if (!is_explicit) {
        cg_problem *cg = &d->cg;
        cg->matvec = &pass_ppe_apply;
        cg->x = d->x;
        cg->b = d->b;
        cg->diag = d->diag;
        cg->r = d->r;
        cg->z = d->z;
        cg->d = d->d;
        cg->q = d->q;
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

static double mps_time_step(sim *s)
{
    const sim_params *P = &s->P;
    const mps_data *d = data_of(s);
    size_t n = s->p.n; /* the grid may not be built yet; speeds of particles outside are 0 */
    double umax = n ? s->be->reduce(s, REDUCE_MAX, d->speed, 0, n) : 0;
    if (umax != umax)
        return NAN;
    double l0 = P->dp;
    double dt = d->is_explicit ? P->cfl * l0 / (P->c0 + umax) : P->cfl * l0 / fmax(umax, P->mps.u_ref);
    if (P->nu > 0)
        dt = fmin(dt, 0.2 * l0 * l0 / P->nu); /* explicit viscosity */
    return dt;
}

static int mps_step(sim *s, double dt, sl_err *err)
{
    mps_data *d = data_of(s);
    const backend *be = s->be;
    d->dt = (real)dt;
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
    if (!d->is_explicit) {
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
    d->stats.lsmps_fallbacks += (long)be->reduce(s, REDUCE_SUM, d->fallback, 0, n);
    return SL_OK;
}

static void mps_summary(const sim *s, char *buf, unsigned long len)
{
    const mps_data *d = data_of(s);
    const mps_stats *st = &d->stats;
    if (d->is_explicit) {
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
