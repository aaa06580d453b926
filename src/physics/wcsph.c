/* wcsph.c: the weakly compressible SPH scheme: parameters, initial state, passes and time stepping.
 * The physics itself is in sph_kernel.h, sph_eos.h, sph_forces.h and sph_integrate.h. */
#include "../scene_build.h"
#include "../sim.h"
#include "scheme.h"
#include "sph_eos.h"
#include "sph_forces.h"
#include "sph_integrate.h"
#include "sph_kernel.h"

#include <math.h>
#include <stdlib.h>

typedef struct wcsph_data {
    int ax, ay, az, drho, dt_limit;       /* rates at the last force evaluation (field indices) */
    int x0, y0, z0, vx0, vy0, vz0, rho0;  /* integrator history (field indices, -1 when unused) */
    real dt;                              /* step size for the update passes */
    int euler;                            /* Verlet: this step is the periodic Euler step */
} wcsph_data;

enum { PASS_WCSPH_FORCES = 100, PASS_WCSPH_PREDICT, PASS_WCSPH_CORRECT, PASS_WCSPH_VERLET };

static wcsph_data *data_of(const sim *s)
{
    return (wcsph_data *)s->scheme_data;
}

static real *field_or_null(const sim *s, int k)
{
    return k >= 0 ? s->p.f[k] : NULL;
}

static sph_force_view force_view(const sim *s)
{
    const wcsph_data *d = data_of(s);
    real *const *f = s->p.f;
    sph_force_view v = {f[PF_X], f[PF_Y], f[PF_Z], f[PF_VX], f[PF_VY], f[PF_VZ], f[PF_RHO], f[PF_P],
                        s->p.type, f[d->ax], f[d->ay], f[d->az], f[d->drho], f[d->dt_limit]};
    return v;
}

static sph_state_view state_view(const sim *s)
{
    const wcsph_data *d = data_of(s);
    real *const *f = s->p.f;
    sph_state_view v = {f[PF_X], f[PF_Y], f[PF_Z], f[PF_VX], f[PF_VY], f[PF_VZ], f[PF_RHO], f[PF_P],
                        s->p.type, f[d->ax], f[d->ay], f[d->az], f[d->drho],
                        field_or_null(s, d->x0), field_or_null(s, d->y0), field_or_null(s, d->z0),
                        f[d->vx0], f[d->vy0], f[d->vz0], f[d->rho0]};
    return v;
}

/* ---- CPU pass bodies: each calls the per-particle physics that the GPU kernels call too ---- */

static void forces_cpu(sim *s, size_t b, size_t e)
{
    sph_force_view v = force_view(s);
    for (size_t i = b; i < e; ++i)
        sph_force_particle(&s->P, &s->g.view, &v, (int32_t)i);
}

static void predict_cpu(sim *s, size_t b, size_t e)
{
    sph_state_view v = state_view(s);
    real dt = data_of(s)->dt;
    for (size_t i = b; i < e; ++i)
        sph_symplectic_predict(&s->P, &v, (int32_t)i, dt);
}

static void correct_cpu(sim *s, size_t b, size_t e)
{
    sph_state_view v = state_view(s);
    real dt = data_of(s)->dt;
    for (size_t i = b; i < e; ++i)
        sph_symplectic_correct(&s->P, &v, (int32_t)i, dt);
}

static void verlet_cpu(sim *s, size_t b, size_t e)
{
    sph_state_view v = state_view(s);
    const wcsph_data *d = data_of(s);
    for (size_t i = b; i < e; ++i)
        sph_verlet_step(&s->P, &v, (int32_t)i, d->dt, d->euler);
}

static const pass pass_forces = {"wcsph.forces", PASS_WCSPH_FORCES, forces_cpu};
static const pass pass_predict = {"wcsph.predict", PASS_WCSPH_PREDICT, predict_cpu};
static const pass pass_correct = {"wcsph.correct", PASS_WCSPH_CORRECT, correct_cpu};
static const pass pass_verlet = {"wcsph.verlet", PASS_WCSPH_VERLET, verlet_cpu};

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

    wcsph_data *d = calloc(1, sizeof *d);
    if (!d)
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory");
    s->scheme_data = d;
    particles *p = &s->p;
    d->ax = particles_add_field(p, "ax");
    d->ay = particles_add_field(p, "ay");
    d->az = particles_add_field(p, "az");
    d->drho = particles_add_field(p, "drho");
    d->dt_limit = particles_add_field(p, "dt_limit");
    d->x0 = d->y0 = d->z0 = -1;
    if (sc->integrator == INTEGRATOR_SYMPLECTIC) {
        d->x0 = particles_add_field(p, "x0");
        d->y0 = particles_add_field(p, "y0");
        d->z0 = particles_add_field(p, "z0");
    }
    d->vx0 = particles_add_field(p, "vx0");
    d->vy0 = particles_add_field(p, "vy0");
    d->vz0 = particles_add_field(p, "vz0");
    d->rho0 = particles_add_field(p, "rho0");
    int ok = d->ax >= 0 && d->ay >= 0 && d->az >= 0 && d->drho >= 0 && d->dt_limit >= 0 && d->vx0 >= 0 &&
             d->vy0 >= 0 && d->vz0 >= 0 && d->rho0 >= 0 &&
             (sc->integrator != INTEGRATOR_SYMPLECTIC || (d->x0 >= 0 && d->y0 >= 0 && d->z0 >= 0));
    if (!ok)
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the WCSPH particle fields");

    /* Hydrostatic start: each particle gets the density whose pressure carries the fluid above it. */
    real **f = p->f;
    for (size_t i = 0; i < p->n; ++i) {
        double pos[3] = {f[PF_X][i], f[PF_Y][i], f[PF_Z][i]};
        double pres = sc->rho0 * gmag * scene_fluid_depth_above(sc, pos);
        double rho = sph_eos_density(P, pres);
        f[PF_RHO][i] = (real)rho;
        f[PF_P][i] = sph_eos_pressure(P, (real)rho);
        f[d->rho0][i] = (real)rho; /* Verlet's rho^{n-1} */
        f[d->vx0][i] = f[PF_VX][i];
        f[d->vy0][i] = f[PF_VY][i];
        f[d->vz0][i] = f[PF_VZ][i];
    }
    return SL_OK;
}

static int rates(sim *s, sl_err *err)
{
    int rc = s->be->build_cells(s, err);
    if (rc)
        return rc;
    s->be->run_pass(s, &pass_forces, s->g.n_inside);
    return SL_OK;
}

static double wcsph_time_step(sim *s)
{
    sl_err err;
    if (rates(s, &err))
        return NAN;
    if (s->g.n_inside == 0)
        return INFINITY;
    return s->P.cfl * s->be->reduce(s, REDUCE_MIN, data_of(s)->dt_limit, 0, s->g.n_inside);
}

static int wcsph_step(sim *s, double dt, sl_err *err)
{
    wcsph_data *d = data_of(s);
    d->dt = (real)dt;
    if (s->sc->integrator == INTEGRATOR_VERLET) {
        /* an Euler step first (there is no v^{n-1} yet) and every verlet_steps steps after */
        d->euler = s->step % s->sc->verlet_steps == 0;
        s->be->run_pass(s, &pass_verlet, s->g.n_inside);
        return SL_OK;
    }
    s->be->run_pass(s, &pass_predict, s->g.n_inside);
    int rc = rates(s, err);
    if (rc)
        return rc;
    s->be->run_pass(s, &pass_correct, s->g.n_inside);
    return SL_OK;
}

const scheme scheme_wcsph = {
    .name = "wcsph",
    .description = "weakly compressible SPH (Tait EOS, delta-SPH, dynamic boundaries)",
    .init = wcsph_init,
    .time_step = wcsph_time_step,
    .step = wcsph_step,
    .prepare_output = NULL,
};
