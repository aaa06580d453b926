/* mps_passes.h: the passes of semi-implicit and explicit MPS as per-particle bodies, run by the
 * CPU loops and the CUDA kernels alike (the step sequence is in mps.c). The operators are in
 * mps_operators.h, lsmps.h, mps_ppe.h and mps_collision.h. */
#ifndef SLUICE_MPS_PASSES_H
#define SLUICE_MPS_PASSES_H

#include "../pass.h"
#include "../scene.h"
#include "lsmps.h"
#include "mps_collision.h"
#include "mps_operators.h"
#include "mps_ppe.h"
#include "mps_weight.h"

/* The scheme's fields, as pass_ctx slots; pass_ctx.a.flag is 1 for explicit MPS. */
enum mps_slot {
    MS_AX, MS_AY, MS_AZ, /* explicit acceleration */
    MS_N,                /* number density at re_n */
    MS_N_START,          /* number density at the start of the step (mixed source) */
    MS_GX, MS_GY, MS_GZ, /* pressure gradient (the collision velocity change before it) */
    MS_SPEED,            /* |u| of fluid particles, for the time step */
    MS_FALLBACK,         /* LSMPS operators that fell back to MPS for this particle in this step */
    MS_COUNT_EXPLICIT,
    /* Poisson system and CG work fields (semi-implicit only) */
    MS_B = MS_COUNT_EXPLICIT, MS_DIAG, MS_X, MS_R, MS_Z, MS_D, MS_Q,
    MS_COUNT
};

enum { PASS_MPS_ACCEL = 200, PASS_MPS_PREDICT, PASS_MPS_DENSITY, PASS_MPS_PPE_SETUP, PASS_MPS_PPE_APPLY,
       PASS_MPS_PRESSURE, PASS_MPS_GRADIENT, PASS_MPS_CORRECT, PASS_MPS_COLLISION,
       PASS_MPS_COLLISION_APPLY, PASS_MPS_WALL_PRESSURE };

HD static inline mps_view mps_view_of(const pass_ctx *c, unsigned mask)
{
    mps_view v;
    v.x = c->f[PF_X];
    v.y = c->f[PF_Y];
    v.z = c->f[PF_Z];
    v.cls = c->tag;
    v.mask = mask;
    v.dim = c->P.dim;
    return v;
}

HD static inline mps_kernel mps_kernel_n(const sim_params *P)
{
    mps_kernel k = {P->mps.weight, P->mps.re_n, P->mps.n0_n, P->mps.lambda0_n};
    return k;
}

HD static inline mps_kernel mps_kernel_lap(const sim_params *P)
{
    mps_kernel k = {P->mps.weight, P->mps.re_lap, P->mps.n0_lap, P->mps.lambda0_lap};
    return k;
}

/* n at the start of the step; a = nu lap u + g for fluid particles (walls and dummies, u = 0,
 * take part as neighbours). */
HD static inline void mps_accel_body(const pass_ctx *c, int32_t i)
{
    const sim_params *P = &c->P;
    real *const *f = c->f;
    mps_view v = mps_view_of(c, MC_MASK_ALL);
    mps_view all = v;
    all.cls = 0; /* every particle counts in the number density */
    mps_kernel k = mps_kernel_lap(P), kn = mps_kernel_n(P);
    const real *u[3] = {f[PF_VX], f[PF_VY], f[PF_VZ]};
    real a[3] = {0, 0, 0};
    int fallbacks = 0;
    PASS_FIELD(c, MS_N_START)[i] = mps_number_density(&all, &c->nb, &kn, i);
    if (mps_class_is_fluid(c->tag[i])) {
        real lap[3] = {0, 0, 0};
        /* The second-order LSMPS Laplacian only where the Laplacian's domain is full: near a free
         * surface its curvature terms are extrapolated from one side, and the explicit viscous step
         * with them is unstable at dt = 0.2 l0^2/nu (lsmps_full_support). */
        int use_lsmps = P->mps.lsmps && P->nu > 0 &&
                        lsmps_full_support(&all, &c->nb, &k, P->mps.beta, i);
        if (use_lsmps) {
            for (int d = 0; d < P->dim; ++d)
                fallbacks += lsmps_or_mps_laplacian(&v, &c->nb, &k, P->mps.rs, u[d], i, &lap[d]);
        } else if (P->nu > 0) {
            mps_laplacian3(&v, &c->nb, &k, u[0], u[1], P->dim == 3 ? u[2] : 0, i, lap);
            if (P->mps.lsmps)
                fallbacks += P->dim;
        }
        for (int d = 0; d < 3; ++d)
            a[d] = P->nu * lap[d] + P->g[d];
    }
    PASS_FIELD(c, MS_AX)[i] = a[0];
    PASS_FIELD(c, MS_AY)[i] = a[1];
    PASS_FIELD(c, MS_AZ)[i] = P->dim == 3 ? a[2] : 0;
    PASS_FIELD(c, MS_FALLBACK)[i] = (real)fallbacks;
}

/* u* = u + dt a, x* = x + dt u* for fluid particles. */
HD static inline void mps_predict_body(const pass_ctx *c, int32_t i)
{
    if (!mps_class_is_fluid(c->tag[i]))
        return;
    real *const *f = c->f;
    for (int d = 0; d < c->P.dim; ++d) {
        real u = f[PF_VX + d][i] + c->a.dt * PASS_FIELD(c, MS_AX + d)[i];
        f[PF_VX + d][i] = u;
        f[PF_X + d][i] += c->a.dt * u;
    }
}

/* Collision velocity change into gx..gz (free until the pressure gradient). */
HD static inline void mps_collision_body(const pass_ctx *c, int32_t i)
{
    real *const *f = c->f;
    mps_view v = mps_view_of(c, MC_MASK_ALL);
    real du[3] = {0, 0, 0};
    if (mps_class_is_fluid(c->tag[i]))
        mps_collision(&v, &c->nb, R(0.5) * c->P.dp, R(0.2), f[PF_VX], f[PF_VY], f[PF_VZ], i, du);
    for (int d = 0; d < 3; ++d)
        PASS_FIELD(c, MS_GX + d)[i] = du[d];
}

HD static inline void mps_collision_apply_body(const pass_ctx *c, int32_t i)
{
    real *const *f = c->f;
    for (int d = 0; d < c->P.dim; ++d) {
        real du = PASS_FIELD(c, MS_GX + d)[i];
        f[PF_VX + d][i] += du;
        f[PF_X + d][i] += c->a.dt * du;
    }
}

/* n* and the free surface; explicit MPS also takes its pressure from n* here. */
HD static inline void mps_density_body(const pass_ctx *c, int32_t i)
{
    const sim_params *P = &c->P;
    real *const *f = c->f;
    mps_view v = mps_view_of(c, MC_MASK_ALL);
    v.cls = 0; /* every particle counts in the number density */
    mps_kernel k = mps_kernel_n(P);
    real n0 = P->mps.n0_n;
    real n = mps_number_density(&v, &c->nb, &k, i);
    uint8_t cls = mps_classify(c->tag[i], n, P->mps.beta * n0);
    c->tag[i] = cls;
    PASS_FIELD(c, MS_N)[i] = n;
    f[PF_RHO][i] = P->rho0 * n / n0;
    if (c->a.flag)
        f[PF_P][i] = mps_admissible_pressure(cls, P->eos_b * (real_pow(n / n0, P->eos_gamma) - R(1.0)),
                                             P->mps.clamp);
}

/* Explicit MPS: wall particles take the pressure extrapolated from the fluid (mps_wall_pressure),
 * after mps_density_body has set the fluid's. Fluid and dummy particles are left as they are. */
HD static inline void mps_wall_pressure_body(const pass_ctx *c, int32_t i)
{
    uint8_t cls = c->tag[i];
    if (cls != MC_WALL && cls != MC_WALL_SURFACE)
        return;
    const sim_params *P = &c->P;
    mps_view fluid = mps_view_of(c, MC_BIT(MC_FLUID) | MC_BIT(MC_FLUID_SURFACE));
    mps_kernel k = mps_kernel_n(P);
    real p = mps_wall_pressure(&fluid, &c->nb, &k, c->f[PF_P], P->rho0, P->g, i);
    c->f[PF_P][i] = P->mps.clamp && p < R(0.0) ? R(0.0) : p;
}

HD static inline void mps_ppe_setup_body(const pass_ctx *c, int32_t i)
{
    const sim_params *P = &c->P;
    real *const *f = c->f;
    uint8_t cls = c->tag[i];
    real *diag = PASS_FIELD(c, MS_DIAG), *b = PASS_FIELD(c, MS_B), *x = PASS_FIELD(c, MS_X);
    if (cls != MC_FLUID && cls != MC_WALL) {
        diag[i] = b[i] = x[i] = 0;
        return;
    }
    mps_view with_pressure = mps_view_of(c, MC_MASK_PRESSURE);
    mps_view all = mps_view_of(c, MC_MASK_ALL);
    mps_kernel kl = mps_kernel_lap(P), kn = mps_kernel_n(P);
    real dt = c->a.dt, n0 = P->mps.n0_n;
    int mixed = P->mps.source == MPS_SOURCE_MIXED;
    /* weight of the density term: gamma in the mixed source, the relaxation factor otherwise */
    real k_density = mixed ? P->mps.mixed_gamma : P->mps.relaxation;
    diag[i] = mps_ppe_diagonal(&with_pressure, &c->nb, &kl, i) + P->rho0 * P->mps.compressibility / (dt * dt);
    /* the mixed source corrects the density error left at the start of the step; the divergence
     * term takes care of this step's motion */
    real n_src = mixed ? PASS_FIELD(c, MS_N_START)[i] : PASS_FIELD(c, MS_N)[i];
    real rhs = k_density * P->rho0 / (dt * dt) * (n_src - n0) / n0;
    if (mixed)
        rhs -= (R(1.0) - P->mps.mixed_gamma) * P->rho0 / dt *
               mps_divergence(&all, &c->nb, &kn, f[PF_VX], f[PF_VY], f[PF_VZ], i);
    b[i] = rhs;
    x[i] = f[PF_P][i] > 0 ? f[PF_P][i] : 0; /* warm start from the last pressure */
}

/* out = A in, the Poisson matrix applied (the CG solver sets c->a.in and c->a.out). */
HD static inline void mps_ppe_apply_body(const pass_ctx *c, int32_t i)
{
    mps_view unknown = mps_view_of(c, MC_MASK_UNKNOWN);
    mps_kernel kl = mps_kernel_lap(&c->P);
    real d = PASS_FIELD(c, MS_DIAG)[i];
    c->f[c->a.out][i] = d != 0 ? mps_ppe_apply(&unknown, &c->nb, &kl, c->f[c->a.in], d, i) : 0;
}

HD static inline void mps_pressure_body(const pass_ctx *c, int32_t i)
{
    c->f[PF_P][i] = mps_admissible_pressure(c->tag[i], PASS_FIELD(c, MS_X)[i], c->P.mps.clamp);
}

HD static inline void mps_gradient_body(const pass_ctx *c, int32_t i)
{
    const sim_params *P = &c->P;
    real *const *f = c->f;
    mps_view v = mps_view_of(c, MC_MASK_PRESSURE);
    mps_kernel k = mps_kernel_n(P);
    real g[3] = {0, 0, 0};
    int fell_back = 0;
    if (mps_class_is_fluid(c->tag[i])) {
        if (P->mps.lsmps && P->mps.stabilised && !c->a.flag)
            fell_back = lsmps_or_mps_stabilised_gradient(&v, &c->nb, &k, P->mps.rs, f[PF_P], i, g);
        else if (P->mps.lsmps)
            fell_back = lsmps_or_mps_gradient(&v, &c->nb, &k, P->mps.rs, f[PF_P], P->mps.stabilised, i, g);
        else if (c->a.flag)
            mps_symmetric_gradient(&v, &c->nb, &k, f[PF_P], i, g);
        else
            mps_gradient(&v, &c->nb, &k, f[PF_P], P->mps.stabilised, i, g);
    }
    PASS_FIELD(c, MS_GX)[i] = g[0];
    PASS_FIELD(c, MS_GY)[i] = g[1];
    PASS_FIELD(c, MS_GZ)[i] = g[2];
    PASS_FIELD(c, MS_FALLBACK)[i] += (real)fell_back;
}

/* u = u* - dt/rho0 grad p, x += dt du; the speed for the next time step. */
HD static inline void mps_correct_body(const pass_ctx *c, int32_t i)
{
    real *const *f = c->f;
    real dt = c->a.dt, k = dt / c->P.rho0;
    real sp = 0;
    if (mps_class_is_fluid(c->tag[i])) {
        real u2 = 0;
        for (int d = 0; d < c->P.dim; ++d) {
            real du = -k * PASS_FIELD(c, MS_GX + d)[i];
            real u = f[PF_VX + d][i] + du;
            f[PF_VX + d][i] = u;
            f[PF_X + d][i] += dt * du;
            u2 += u * u;
        }
        sp = real_sqrt(u2);
    }
    PASS_FIELD(c, MS_SPEED)[i] = sp;
}

#endif
