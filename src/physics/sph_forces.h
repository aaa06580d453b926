/* sph_forces.h: the weakly compressible SPH interaction of one particle with its neighbours (gather form).
 *
 * Momentum (Monaghan 1992, ARA&A 30:543, eq. 3.3 with the pressure term as in DualSPHysics,
 *   Dominguez et al. 2022, Comp. Part. Mech. 9:867, eq. 5):
 *     dv_i/dt = - sum_j m_j ((p_i + p_j)/(rho_i rho_j) + Pi_ij) grad_i W_ij + g
 *   artificial viscosity (Monaghan 1992, eq. 4.1): Pi_ij = -alpha c0 mu_ij / rhobar_ij when
 *     v_ij . r_ij < 0, mu_ij = h v_ij . r_ij / (r_ij^2 + eta^2) (c0 for the mean sound speed: in a
 *     weakly compressible fluid they differ by well under 1%, and it saves a pow per pair);
 *   or laminar viscosity (Lo & Shao 2002, Appl. Ocean Res. 24:275, eq. 10):
 *     + sum_j m_j 4 nu (r_ij . grad_i W_ij) / ((rho_i + rho_j) r_ij^2) v_ij,
 *   without the usual eta^2 = 0.01 h^2 beside r_ij^2: (r . grad W)/r^2 = W'(r)/r is finite at r = 0
 *   for both kernels here, and eta^2 weakens the nearest neighbours' weights by eta^2/(r^2 + eta^2),
 *   about 2% at h = 1.5 dp, a bias that does not shrink with dp (the periodic Poiseuille channel ran
 *   2.0% fast in the steady state with it, 0.8% without: docs/validation.md).
 * Continuity with delta-SPH diffusion (Molteni & Colagrossi 2009, Comput. Phys. Commun. 180:861, eq. 10):
 *     drho_i/dt = sum_j m_j v_ij . grad_i W_ij
 *               + 2 delta h c0 sum_j (rho_j - rho_i) (r_ji . grad_i W_ij)/(r_ij^2 + eta^2) m_j/rho_j
 *   the diffusion acting between fluid particles only (as in DualSPHysics). With the correction of
 *   Fourtakas et al. (2019), Comput. Fluids 190:346, eq. 12, the hydrostatic part of rho_j - rho_i,
 *   rho0 g . (x_j - x_i) / c0^2 (the linearised Tait difference), is taken out, so a still column
 *   keeps its hydrostatic density next to walls and the free surface, where the kernel is cut.
 * Dynamic boundary particles (Crespo et al. 2007, CMC 5:173): walls and obstacles take part in both
 * sums, evolve their density by continuity and stay in place. With mDBC's no-slip condition the
 * laminar term sees a boundary particle's velocity mirrored through the wall (boundary/mdbc.h), the
 * rest its own (the wall's). */
#ifndef SLUICE_SPH_FORCES_H
#define SLUICE_SPH_FORCES_H

#include "grid/nbr_grid.h"
#include "base/particles.h"
#include "base/scene.h"
#include "params.h"
#include "sph_eos.h"
#include "sph_kernel.h"

/* Inputs and outputs of the force pass, as plain pointers (host or device arrays). */
typedef struct sph_force_view {
    const real *x, *y, *z, *vx, *vy, *vz, *rho, *p;
    const uint8_t *type;
    real *ax, *ay, *az; /* acceleration, fluid only (0 for boundaries) */
    real *drho;         /* density rate */
    real *dt_limit;     /* per-particle stable time step (before the CFL factor) */
    const real *wvx, *wvy, *wvz; /* boundary particles' velocity in the laminar term (mDBC no-slip);
                                  * NULL: their own */
} sph_force_view;

/* What particle i accumulates over its neighbours. */
typedef struct sph_force_acc {
    real ax, ay, az, drho;
    real visc_max; /* max over j of |h v_ij . r_ij / (r^2 + eta^2)|, for the time step */
} sph_force_acc;

/* The state of one particle that a pair needs. */
typedef struct sph_particle {
    real x, y, z, vx, vy, vz, rho, p;
    real uvx, uvy, uvz; /* the velocity the laminar term sees (boundary particles: see wvx) */
    int fluid;
    real inv_rho; /* 1/rho: one division per load instead of two per pair */
} sph_particle;

/* The scene's options that change a pair's arithmetic. The CPU takes them from P once per particle;
 * a GPU kernel compiled for one set passes constants, so the per-pair tests on them drop out. */
typedef struct sph_pair_options {
    int dim;       /* 2 or 3 */
    int kernel;    /* enum kernel_kind */
    int viscosity; /* enum viscosity_kind */
    int diffusion; /* enum diffusion_kind, or SPH_NO_DIFFUSION when delta is 0 */
    int gamma7;    /* the Tait exponent is 7 (sph_eos_sound_speed_with) */
} sph_pair_options;

enum { SPH_NO_DIFFUSION = -1 };

HD static inline sph_pair_options sph_pair_options_of(const sim_params *P)
{
    sph_pair_options o = {P->dim, P->kernel, P->viscosity, P->delta > R(0.0) ? P->diffusion : SPH_NO_DIFFUSION,
                          P->eos_gamma == R(7.0)};
    return o;
}

/* Particle i with its position, density and kind given (the GPU's packed neighbour data carries
 * them) and the rest from the view. */
HD static inline sph_particle sph_particle_at(sph_pair_options o, const sph_force_view *v, int32_t i, real x,
                                              real y, real z, real rho, int fluid)
{
    sph_particle a;
    a.x = x;
    a.y = y;
    a.z = z;
    a.vx = v->vx[i];
    a.vy = v->vy[i];
    a.vz = o.dim == 3 ? v->vz[i] : R(0.0);
    a.uvx = a.vx;
    a.uvy = a.vy;
    a.uvz = a.vz;
    if (o.viscosity == VISCOSITY_LAMINAR && !fluid && v->wvx) {
        a.uvx = v->wvx[i];
        a.uvy = v->wvy[i];
        a.uvz = o.dim == 3 ? v->wvz[i] : R(0.0);
    }
    a.rho = rho;
    a.inv_rho = R(1.0) / rho;
    a.p = v->p[i];
    a.fluid = fluid;
    return a;
}

HD static inline sph_particle sph_load_with(sph_pair_options o, const sph_force_view *v, int32_t i)
{
    return sph_particle_at(o, v, i, v->x[i], v->y[i], o.dim == 3 ? v->z[i] : R(0.0), v->rho[i],
                           v->type[i] == PT_FLUID);
}

HD static inline sph_particle sph_load(const sim_params *P, const sph_force_view *v, int32_t i)
{
    return sph_load_with(sph_pair_options_of(P), v, i);
}

/* Whether pair (i, j) adds anything: two boundary particles, both at rest, add exactly zero (no
 * relative velocity for continuity or viscosity, no diffusion or acceleration for boundaries), so
 * a pass may skip the pair before loading j, and every pass does. */
HD static inline int sph_pair_matters(int fluid_i, int fluid_j)
{
    return fluid_i || fluid_j;
}

/* Pair (i, j) = (a, b), r2 = |x_i - x_j|^2 with 0 <= r2 < r2_max: adds what j contributes to i to
 * acc_a and, unless acc_b is NULL (the gather form), what i contributes to j to acc_b, so a pair
 * can be evaluated once for both. The sums are symmetric: v_ji . grad_j W_ji = v_ij . grad_i W_ij
 * (continuity), grad_j W_ji = -grad_i W_ij with a pressure and viscous factor symmetric in i and j
 * (momentum), and the diffusion term changes sign with rho_j - rho_i (equal masses throughout). */
HD static inline void sph_force_pair_with(const sim_params *P, sph_pair_options o, const sph_particle *a,
                                          const sph_particle *b, real dx, real dy, real dz, real r2,
                                          sph_force_acc *acc_a, sph_force_acc *acc_b)
{
    real r = real_sqrt(r2);
    real f = sph_grad_factor(o.kernel, P->kernel_norm, r, P->inv_h); /* grad_i W = f (dx, dy, dz) */
    real dvx = a->vx - b->vx, dvy = a->vy - b->vy, dvz = a->vz - b->vz;
    real vdotr = dvx * dx + dvy * dy + dvz * dz;
    real m = P->mass;
    real inv_r2eta = R(1.0) / (r2 + P->eta2);
    real inv_rho_b = b->inv_rho;

    real continuity = m * vdotr * f;
    acc_a->drho += continuity;
    real mu = P->h * vdotr * inv_r2eta;
    real amu = real_fabs(mu);
    if (amu > acc_a->visc_max)
        acc_a->visc_max = amu;
    if (acc_b) {
        acc_b->drho += continuity;
        if (amu > acc_b->visc_max)
            acc_b->visc_max = amu;
    }
    if (a->fluid && b->fluid && o.diffusion != SPH_NO_DIFFUSION) {
        real drho_ji = b->rho - a->rho;
        if (o.diffusion == DIFFUSION_FOURTAKAS) /* x_j - x_i = -(dx, dy, dz) */
            drho_ji += P->hydro_drho[0] * dx + P->hydro_drho[1] * dy + P->hydro_drho[2] * dz;
        /* r_ji . grad_i W = -f r^2 */
        real diffusion = R(2.0) * P->delta * P->h * P->c0 * drho_ji * (-f * r2) * inv_r2eta * m;
        acc_a->drho += diffusion * inv_rho_b;
        if (acc_b) /* for j the density difference is rho_i - rho_j */
            acc_b->drho -= diffusion * a->inv_rho;
    }
    int accelerate_b = acc_b && b->fluid;
    if (!a->fluid && !accelerate_b)
        return;
    real s = -m * (a->p + b->p) * a->inv_rho * inv_rho_b;
    /* 1/(rho_i + rho_j) as a reciprocal: on the GPU a fast one, where a quotient checks its range */
    real inv_rho_sum = R(1.0) / (a->rho + b->rho);
    real gx, gy, gz; /* the force on i per unit mass; j gets minus it */
    if (o.viscosity == VISCOSITY_ARTIFICIAL) {
        if (vdotr < R(0.0))
            s += R(2.0) * m * P->alpha * P->c0 * mu * inv_rho_sum; /* -m Pi_ij, rhobar = (rho_i + rho_j)/2 */
        gx = s * f * dx;
        gy = s * f * dy;
        gz = s * f * dz;
    } else {
        real lam = m * R(4.0) * P->nu * f * inv_rho_sum; /* f = (r . grad W)/r^2: see the header */
        gx = s * f * dx + lam * (a->uvx - b->uvx);
        gy = s * f * dy + lam * (a->uvy - b->uvy);
        gz = s * f * dz + lam * (a->uvz - b->uvz);
    }
    if (a->fluid) {
        acc_a->ax += gx;
        acc_a->ay += gy;
        acc_a->az += gz;
    }
    if (accelerate_b) {
        acc_b->ax -= gx;
        acc_b->ay -= gy;
        acc_b->az -= gz;
    }
}

HD static inline void sph_force_pair(const sim_params *P, const sph_particle *a, const sph_particle *b,
                                     real dx, real dy, real dz, real r2, sph_force_acc *acc_a,
                                     sph_force_acc *acc_b)
{
    sph_force_pair_with(P, sph_pair_options_of(P), a, b, dx, dy, dz, r2, acc_a, acc_b);
}

/* The acoustic-viscous time step condition of a particle of density rho whose largest viscous
 * term is visc_max (Monaghan & Kos 1999, eq. 14): h over the signal speed c + visc_max. The step
 * falls as the speed grows, so the smallest step of a set of particles is h over their largest
 * signal speed: a pass that sees each pair once can take the largest c_j + |mu_ij| pair by pair
 * instead of the largest |mu_ij| per particle. */
HD static inline real sph_signal_speed_with(const sim_params *P, sph_pair_options o, real rho, real visc_max)
{
    return sph_eos_sound_speed_with(P, o.gamma7, rho) + visc_max;
}

HD static inline real sph_signal_speed(const sim_params *P, real rho, real visc_max)
{
    return sph_signal_speed_with(P, sph_pair_options_of(P), rho, visc_max);
}

HD static inline real sph_dt_acoustic(const sim_params *P, real signal_speed)
{
    return P->h / signal_speed;
}

/* Writes particle i's rates from its accumulated sums (gravity, boundaries at rest, time step). */
HD static inline void sph_force_finish(const sim_params *P, const sph_force_view *v, int32_t i,
                                       const sph_particle *a, const sph_force_acc *acc)
{
    real ax = acc->ax, ay = acc->ay, az = acc->az;
    if (a->fluid) {
        ax += P->g[0];
        ay += P->g[1];
        az += P->g[2];
    } else {
        ax = ay = az = R(0.0);
    }
    v->ax[i] = ax;
    v->ay[i] = ay;
    v->az[i] = P->dim == 3 ? az : R(0.0);
    v->drho[i] = acc->drho;
    /* Force and acoustic-viscous conditions (Monaghan & Kos 1999, J. Waterw. Port Coast. Ocean Eng.
     * 125:145, eqs. 13-14): dt_f = sqrt(h/|a|), dt_cv = h/(c + visc_max). */
    real amag = real_sqrt(ax * ax + ay * ay + az * az);
    real dt_f = amag > R(0.0) ? real_sqrt(P->h / amag) : R(1e30);
    real dt_cv = sph_dt_acoustic(P, sph_signal_speed(P, a->rho, acc->visc_max));
    real dt = dt_f < dt_cv ? dt_f : dt_cv;
    if (P->viscosity == VISCOSITY_LAMINAR && P->nu > R(0.0)) {
        real dt_v = R(0.125) * P->h * P->h / P->nu; /* viscous diffusion condition */
        dt = dt < dt_v ? dt : dt_v;
    }
    v->dt_limit[i] = dt;
}

/* Adds the pair (i, j) when j is a neighbour other than i; the distance test every strategy uses. */
HD static inline void sph_force_candidate(const sim_params *P, const sph_particle *a, int32_t i,
                                          const sph_particle *b, int32_t j, sph_force_acc *acc)
{
    real dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
    periodic_fold(&P->periodic, &dx, &dy, &dz);
    real r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < P->r2_max && j != i && sph_pair_matters(a->fluid, b->fluid))
        sph_force_pair(P, a, b, dx, dy, dz, r2, acc, (sph_force_acc *)0);
}

/* The whole interaction of particle i (gather: writes only particle i). */
HD static inline void sph_force_particle(const sim_params *P, const nbr_view *nb, const sph_force_view *v,
                                         int32_t i)
{
    sph_pair_options o = sph_pair_options_of(P);
    sph_particle a = sph_load_with(o, v, i);
    sph_force_acc acc = {0, 0, 0, 0, 0};
    NBR_FOR_CANDIDATES(nb, i, j, {
        real dx = a.x - v->x[j], dy = a.y - v->y[j];
        real dz = P->dim == 3 ? a.z - v->z[j] : R(0.0);
        periodic_fold(&P->periodic, &dx, &dy, &dz);
        real r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= P->r2_max || j == i || !sph_pair_matters(a.fluid, v->type[j] == PT_FLUID))
            continue;
        sph_particle b = sph_load_with(o, v, j);
        sph_force_pair_with(P, o, &a, &b, dx, dy, dz, r2, &acc, (sph_force_acc *)0);
    });
    sph_force_finish(P, v, i, &a, &acc);
}

#endif
