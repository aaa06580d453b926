/* mps_ppe.h: particle classes, the pressure Poisson equation of semi-implicit MPS, and the
 * divergence and symmetric gradient used by the MPS schemes (gather form).
 *
 * Koshizuka & Oka (1996), Nucl. Sci. Eng. 123:421, eqs. 8-13: the Laplacian model
 *   <lap p>_i = 2d/(lambda0 n0) sum_j (p_j - p_i) w_ij, and the Poisson equation
 *   <lap p>_i = -(rho0/dt^2) (n*_i - n0)/n0,
 * with p = 0 on free-surface particles (n*_i < beta n0, eq. 14). As a linear system for the
 * unknowns (fluid and wall particles not on the surface) A p = b with A = -lap, which is symmetric
 * positive definite when every connected body of fluid touches a free surface:
 *   (A p)_i = c (sum_{j with a pressure} w_ij) p_i - c sum_{j unknown} w_ij p_j,  c = 2d/(lambda0 n0)
 *   b_i = (rho0/dt^2) (n*_i - n0)/n0                                             (density source)
 * times a relaxation factor (0.2 in Koshizuka, Shibata, Kondo & Matsunaga 2018, "Moving Particle
 * Semi-implicit Method", Academic Press, ch. 2, which damps the pressure oscillation the 1/dt^2
 * source drives), and the compressibility term rho0 k / dt^2 on the diagonal (same source);
 *   b_i = gamma (rho0/dt^2) (n^k_i - n0)/n0 - (1 - gamma)(rho0/dt) div u*_i       (mixed source,
 *         Tanaka & Masunaga 2010, J. Comput. Phys. 229:4279, eq. 24; n^k at the start of the step)
 * Divergence model (Koshizuka & Oka 1996, eq. 7 applied to u . r):
 *   <div u>_i = d/n0 sum_j (u_j - u_i) . r_ij w_ij / |r_ij|^2.
 * Symmetric pressure gradient of explicit MPS (Oochi et al. 2010; Shakibaeinia & Jin 2010,
 * Int. J. Numer. Meth. Fluids 63:1208, eq. 14): <grad p>_i = d/n0 sum_j (p_i + p_j) r_ij w_ij / |r_ij|^2,
 * which makes the pair forces antisymmetric (momentum is conserved) and repulsive. */
#ifndef SLUICE_MPS_PPE_H
#define SLUICE_MPS_PPE_H

#include "../nbr_grid.h"
#include "mps_operators.h"
#include "mps_weight.h"

/* The MPS class of a particle, kept in particles.tag. */
enum mps_class {
    MC_FLUID = 0,
    MC_FLUID_SURFACE = 1, /* fluid on the free surface: p = 0 */
    MC_WALL = 2,          /* first wall layer: takes part in the Poisson equation */
    MC_WALL_SURFACE = 3,  /* wall particle with too few neighbours: p = 0 */
    MC_DUMMY = 4          /* deeper wall layers: number density only */
};

#define MC_BIT(c) (1u << (c))
#define MC_MASK_ALL (MC_BIT(MC_FLUID) | MC_BIT(MC_FLUID_SURFACE) | MC_BIT(MC_WALL) | MC_BIT(MC_WALL_SURFACE) | MC_BIT(MC_DUMMY))
#define MC_MASK_PRESSURE (MC_BIT(MC_FLUID) | MC_BIT(MC_FLUID_SURFACE) | MC_BIT(MC_WALL) | MC_BIT(MC_WALL_SURFACE))
#define MC_MASK_UNKNOWN (MC_BIT(MC_FLUID) | MC_BIT(MC_WALL))

HD static inline int mps_class_is_fluid(uint8_t c)
{
    return c == MC_FLUID || c == MC_FLUID_SURFACE;
}

/* Surface detection: fluid and wall particles whose number density is below beta n0. */
HD static inline uint8_t mps_classify(uint8_t c, real n, real beta_n0)
{
    if (c == MC_DUMMY)
        return c;
    int wall = c == MC_WALL || c == MC_WALL_SURFACE;
    int surface = n < beta_n0;
    return wall ? (surface ? MC_WALL_SURFACE : MC_WALL) : (surface ? MC_FLUID_SURFACE : MC_FLUID);
}

/* The pressure a particle of class c may have: 0 on the free surface and in the dummy layers,
 * negative values set to 0 when clamp is on. */
HD static inline real mps_admissible_pressure(uint8_t c, real p, int clamp)
{
    if (c != MC_FLUID && c != MC_WALL)
        return R(0.0);
    return clamp && p < R(0.0) ? R(0.0) : p;
}

/* c sum_j w_ij over the neighbours that have a pressure (the view's mask): A's diagonal. */
HD static inline real mps_ppe_diagonal(const mps_view *v, const nbr_view *nb, const mps_kernel *k, int32_t i)
{
    real sum = R(0.0);
    MPS_FOR_NEIGHBOURS(v, nb, k, i, { (void)dx; (void)dy; (void)dz; (void)r2; sum += w; });
    return R(2.0) * (real)v->dim / (k->lambda0 * k->n0) * sum;
}

/* (A x)_i for an unknown i: diag_i x_i - c sum over unknown neighbours (the view's mask) of w_ij x_j. */
HD static inline real mps_ppe_apply(const mps_view *v, const nbr_view *nb, const mps_kernel *k, const real *x,
                                    real diag_i, int32_t i)
{
    real sum = R(0.0);
    MPS_FOR_NEIGHBOURS(v, nb, k, i, { (void)dx; (void)dy; (void)dz; (void)r2; sum += w * x[j]; });
    return diag_i * x[i] - R(2.0) * (real)v->dim / (k->lambda0 * k->n0) * sum;
}

HD static inline real mps_divergence(const mps_view *v, const nbr_view *nb, const mps_kernel *k, const real *ux,
                                     const real *uy, const real *uz, int32_t i)
{
    real sum = R(0.0);
    real uxi = ux[i], uyi = uy[i], uzi = v->dim == 3 ? uz[i] : R(0.0);
    MPS_FOR_NEIGHBOURS(v, nb, k, i, {
        if (!(r2 > R(0.0)))
            continue;
        real duz = v->dim == 3 ? uz[j] - uzi : R(0.0);
        sum += ((ux[j] - uxi) * dx + (uy[j] - uyi) * dy + duz * dz) * w / r2;
    });
    return (real)v->dim / k->n0 * sum;
}

/* Wall pressure of explicit MPS extrapolated from the fluid neighbours (Adami, Hu & Adams 2012,
 * J. Comput. Phys. 231:7057, eq. 27, for a wall at rest and rho_f ~ rho0):
 *   p_w = ( sum_f p_f w_wf + rho0 g . sum_f (x_w - x_f) w_wf ) / sum_f w_wf
 * over the fluid neighbours f (the view's mask). A wall particle's own number density counts the
 * rigid wall and dummy lattice, which does not compress with the fluid above it, so the equation
 * of state gives it too low a pressure; with the extrapolation the wall carries the fluid's
 * hydrostatic pressure. Returns 0 when no fluid is in reach. */
HD static inline real mps_wall_pressure(const mps_view *v, const nbr_view *nb, const mps_kernel *k, const real *p,
                                        real rho0, const real g[3], int32_t i)
{
    real sw = R(0.0), sp = R(0.0);
    MPS_FOR_NEIGHBOURS(v, nb, k, i, {
        (void)r2;
        /* dx = x_f - x_w: the hydrostatic term uses x_w - x_f = -dx */
        sp += (p[j] - rho0 * (g[0] * dx + g[1] * dy + g[2] * dz)) * w;
        sw += w;
    });
    return sw > R(0.0) ? sp / sw : R(0.0);
}

HD static inline void mps_symmetric_gradient(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                             const real *phi, int32_t i, real grad[3])
{
    real gx = R(0.0), gy = R(0.0), gz = R(0.0), pi = phi[i];
    MPS_FOR_NEIGHBOURS(v, nb, k, i, {
        if (!(r2 > R(0.0)))
            continue;
        real s = (pi + phi[j]) * w / r2;
        gx += s * dx;
        gy += s * dy;
        gz += s * dz;
    });
    real c = (real)v->dim / k->n0;
    grad[0] = c * gx;
    grad[1] = c * gy;
    grad[2] = v->dim == 3 ? c * gz : R(0.0);
}

#endif
