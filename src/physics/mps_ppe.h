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
 *   b_i = -(1 + |e|)(rho0/dt) div u*_i + |dt div u*_i| (rho0/dt^2) e,  e = (n^k_i - n0)/n0
 *         (the divergence source with the error-compensating parts of Khayyer & Gotoh 2011,
 *         J. Comput. Phys. 230:3093; their (Dn/Dt)/n0 taken as -div u*: both weights
 *         follow the particle's own state, where the mixed source fixes gamma; mps_ppe_source)
 * Divergence model (Koshizuka & Oka 1996, eq. 7 applied to u . r):
 *   <div u>_i = d/n0 sum_j (u_j - u_i) . r_ij w_ij / |r_ij|^2.
 * Symmetric pressure gradient of explicit MPS (Oochi et al. 2010; Shakibaeinia & Jin 2010,
 * Int. J. Numer. Meth. Fluids 63:1208, eq. 14): <grad p>_i = d/n0 sum_j (p_i + p_j) r_ij w_ij / |r_ij|^2,
 * which makes the pair forces antisymmetric (momentum is conserved) and repulsive.
 * Each is a pair function (mps_operators.h) and an operator of one particle built on it. */
#ifndef SLUICE_MPS_PPE_H
#define SLUICE_MPS_PPE_H

#include "base/scene.h"
#include "grid/nbr_grid.h"
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

/* The Poisson source b_i (header) of a particle with a pressure unknown, from n - n0 (n^k for the
 * mixed and ECS sources, n* for the density source) and the divergence of u* (0 for the density
 * source). k_density: gamma (mixed) or the relaxation factor (density). The density term is rounded
 * in the order it always was (test_bitwise_reference holds runs to their bits). */
HD static inline real mps_ppe_source(int kind, real k_density, real rho0, real dt, real dn, real n0, real div)
{
    if (kind == MPS_SOURCE_ECS) {
        real e = dn / n0;
        real rate = -div; /* (Dn/Dt)/n0 */
        real e_abs = e < R(0.0) ? -e : e, step_abs = dt * (rate < R(0.0) ? -rate : rate);
        return (R(1.0) + e_abs) * rho0 / dt * rate + step_abs * rho0 / (dt * dt) * e;
    }
    real b = k_density * rho0 / (dt * dt) * dn / n0;
    if (kind == MPS_SOURCE_MIXED)
        b -= (R(1.0) - k_density) * rho0 / dt * div;
    return b;
}

/* ---- pair functions ---------------------------------------------------------------------------- */

/* sum += w_ij x_j (x in u[0]): the off-diagonal part of (A x)_i. */
HD static inline void mps_ppe_apply_pair(const mps_scope *s, const mps_particle *a, int32_t i, const mps_particle *b,
                                         int32_t j, real *sum)
{
    mps_pair g;
    real w = mps_neighbour_weight(s, a, i, b, j, &g);
    if (w > R(0.0))
        *sum += w * b->u[0];
}

/* (A x)_i = diag_i x_i - c sum, from the sum of mps_ppe_apply_pair over the unknowns. */
HD static inline real mps_ppe_apply_finish(const mps_scope *s, real diag_i, real x_i, real sum)
{
    return diag_i * x_i - mps_laplacian_factor(s) * sum;
}

/* sum += (u_j - u_i) . r_ij w_ij / |r_ij|^2 (u in u[0..2]). */
HD static inline void mps_divergence_pair(const mps_scope *s, const mps_particle *a, int32_t i,
                                          const mps_particle *b, int32_t j, real *sum)
{
    mps_pair g;
    real w = mps_neighbour_weight(s, a, i, b, j, &g);
    if (!(w > R(0.0)) || !(g.r2 > R(0.0)))
        return;
    real uzi = s->dim == 3 ? a->u[2] : R(0.0);
    real duz = s->dim == 3 ? b->u[2] - uzi : R(0.0);
    *sum += ((b->u[0] - a->u[0]) * g.dx + (b->u[1] - a->u[1]) * g.dy + duz * g.dz) * w / g.r2;
}

/* Wall pressure of explicit MPS extrapolated from the fluid neighbours (Adami, Hu & Adams 2012,
 * J. Comput. Phys. 231:7057, eq. 27, for a wall at rest and rho_f ~ rho0):
 *   p_w = ( sum_f p_f w_wf + rho0 g . sum_f (x_w - x_f) w_wf ) / sum_f w_wf
 * over the fluid neighbours f (the view's mask), 0 when no fluid is in reach. A wall particle's own
 * number density counts the rigid wall and dummy lattice, which does not compress with the fluid
 * above it, so the equation of state gives it too low a pressure; with the extrapolation the wall
 * carries the fluid's hydrostatic pressure. This pair adds (p in u[0]; gravity g)
 * sp += (p_f - rho0 g . (x_f - x_w)) w and sw += w; the pass divides. */
HD static inline void mps_wall_pressure_pair(const mps_scope *s, const mps_particle *a, int32_t i,
                                             const mps_particle *b, int32_t j, real rho0, const real g[3],
                                             real *sp, real *sw)
{
    mps_pair d;
    real w = mps_neighbour_weight(s, a, i, b, j, &d);
    if (!(w > R(0.0)))
        return;
    /* d = x_f - x_w: the hydrostatic term uses x_w - x_f = -d */
    *sp += (b->u[0] - rho0 * (g[0] * d.dx + g[1] * d.dy + g[2] * d.dz)) * w;
    *sw += w;
}

/* sum += (phi_i + phi_j) r_ij w_ij / |r_ij|^2 (phi in u[0]). */
HD static inline void mps_symmetric_gradient_pair(const mps_scope *s, const mps_particle *a, int32_t i,
                                                  const mps_particle *b, int32_t j, real sum[3])
{
    mps_pair g;
    real w = mps_neighbour_weight(s, a, i, b, j, &g);
    if (!(w > R(0.0)) || !(g.r2 > R(0.0)))
        return;
    real q = (a->u[0] + b->u[0]) * w / g.r2;
    sum[0] += q * g.dx;
    sum[1] += q * g.dy;
    sum[2] += q * g.dz;
}

#endif
