/* sph_integrate.h: per-particle time integration for WCSPH.
 *
 * Symplectic position-Verlet scheme (Leimkuhler, Reich & Skeel 1996; the form used by DualSPHysics,
 * Dominguez et al. 2022, Comp. Part. Mech. 9:867, eqs. 23-26), second order:
 *   predictor: x^{n+1/2} = x^n + dt/2 v^n,  v^{n+1/2} = v^n + dt/2 a^n,  rho^{n+1/2} = rho^n + dt/2 drho^n
 *   corrector: v^{n+1} = v^n + dt a^{n+1/2},  x^{n+1} = x^n + dt/2 (v^n + v^{n+1}),
 *              rho^{n+1} = rho^n (2 - eps)/(2 + eps), eps = -(drho^{n+1/2}/rho^{n+1/2}) dt.
 * Verlet (Verlet 1967, as in DualSPHysics eqs. 19-22): v^{n+1} = v^{n-1} + 2 dt a^n,
 *   x^{n+1} = x^n + dt v^n + dt^2/2 a^n, rho likewise; every N-th step an Euler step
 *   (v^{n+1} = v^n + dt a^n) so the two interleaved solutions do not drift apart.
 * Boundary particles are not moved here (moving walls are placed by their law, boundary/moving.h,
 * at the step's times: schemes/wcsph/wcsph.c); their density never drops below rho0 (DualSPHysics), so a
 * wall never pulls fluid towards itself. */
#ifndef SLUICE_SPH_INTEGRATE_H
#define SLUICE_SPH_INTEGRATE_H

#include "base/particles.h"
#include "params.h"
#include "sph_eos.h"

typedef struct sph_state_view {
    real *x, *y, *z, *vx, *vy, *vz, *rho, *p;
    const uint8_t *type;
    const real *ax, *ay, *az, *drho;
    real *x0, *y0, *z0, *vx0, *vy0, *vz0, *rho0; /* symplectic: state at t^n; Verlet: v, rho at t^{n-1} */
    real *moved; /* symplectic, where the corrector may reuse the cells: how far the predictor moved each
                  * particle; NULL: not asked */
} sph_state_view;

HD static inline real sph_boundary_density(const sim_params *P, int fluid, real rho)
{
    return (!fluid && rho < P->rho0) ? P->rho0 : rho;
}

HD static inline void sph_set_density(const sim_params *P, const sph_state_view *v, int32_t i, int fluid, real rho)
{
    rho = sph_boundary_density(P, fluid, rho);
    v->rho[i] = rho;
    v->p[i] = sph_eos_pressure(P, rho);
}

HD static inline void sph_symplectic_predict(const sim_params *P, const sph_state_view *v, int32_t i, real dt)
{
    int fluid = v->type[i] == PT_FLUID;
    real hdt = R(0.5) * dt;
    real rho = v->rho[i];
    v->rho0[i] = rho;
    sph_set_density(P, v, i, fluid, rho + hdt * v->drho[i]);
    if (!fluid) {
        if (v->moved)
            v->moved[i] = R(0.0); /* walls move by their law only */
        return;
    }
    real x = v->x[i], y = v->y[i], vx = v->vx[i], vy = v->vy[i];
    if (v->moved) {
        real vz = P->dim == 3 ? v->vz[i] : R(0.0);
        v->moved[i] = hdt * real_sqrt(vx * vx + vy * vy + vz * vz);
    }
    v->x0[i] = x;
    v->y0[i] = y;
    v->vx0[i] = vx;
    v->vy0[i] = vy;
    v->x[i] = x + hdt * vx;
    v->y[i] = y + hdt * vy;
    v->vx[i] = vx + hdt * v->ax[i];
    v->vy[i] = vy + hdt * v->ay[i];
    if (P->dim == 3) {
        real z = v->z[i], vz = v->vz[i];
        v->z0[i] = z;
        v->vz0[i] = vz;
        v->z[i] = z + hdt * vz;
        v->vz[i] = vz + hdt * v->az[i];
    }
}

HD static inline void sph_symplectic_correct(const sim_params *P, const sph_state_view *v, int32_t i, real dt)
{
    int fluid = v->type[i] == PT_FLUID;
    real eps = -v->drho[i] / v->rho[i] * dt;
    sph_set_density(P, v, i, fluid, v->rho0[i] * (R(2.0) - eps) / (R(2.0) + eps));
    if (!fluid)
        return;
    real hdt = R(0.5) * dt;
    real vx0 = v->vx0[i], vy0 = v->vy0[i];
    real vx = vx0 + dt * v->ax[i], vy = vy0 + dt * v->ay[i];
    v->vx[i] = vx;
    v->vy[i] = vy;
    v->x[i] = v->x0[i] + hdt * (vx0 + vx);
    v->y[i] = v->y0[i] + hdt * (vy0 + vy);
    if (P->dim == 3) {
        real vz0 = v->vz0[i], vz = vz0 + dt * v->az[i];
        v->vz[i] = vz;
        v->z[i] = v->z0[i] + hdt * (vz0 + vz);
    }
}

/* One Verlet step; euler != 0 for the periodic Euler step. */
HD static inline void sph_verlet_step(const sim_params *P, const sph_state_view *v, int32_t i, real dt, int euler)
{
    int fluid = v->type[i] == PT_FLUID;
    real rho = v->rho[i];
    real rho_new = euler ? rho + dt * v->drho[i] : v->rho0[i] + R(2.0) * dt * v->drho[i];
    v->rho0[i] = rho;
    sph_set_density(P, v, i, fluid, rho_new);
    if (!fluid)
        return;
    real hdt2 = R(0.5) * dt * dt;
    real vx = v->vx[i], vy = v->vy[i];
    v->x[i] += dt * vx + hdt2 * v->ax[i];
    v->y[i] += dt * vy + hdt2 * v->ay[i];
    v->vx[i] = (euler ? vx : v->vx0[i]) + (euler ? dt : R(2.0) * dt) * v->ax[i];
    v->vy[i] = (euler ? vy : v->vy0[i]) + (euler ? dt : R(2.0) * dt) * v->ay[i];
    v->vx0[i] = vx;
    v->vy0[i] = vy;
    if (P->dim == 3) {
        real vz = v->vz[i];
        v->z[i] += dt * vz + hdt2 * v->az[i];
        v->vz[i] = (euler ? vz : v->vz0[i]) + (euler ? dt : R(2.0) * dt) * v->az[i];
        v->vz0[i] = vz;
    }
}

#endif
