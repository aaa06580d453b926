/* packing.h: the formulas of particle packing, the relaxation that arranges the fluid evenly inside
 * its shape before a run: a repulsive particle system driven by a constant background pressure
 * (Colagrossi, Bouscasse, Antuono & Marrone 2012, Comput. Phys. Commun. 183:1641: a_i = -2 p0/rho0
 * sum_j V_j grad_i W_ij), in its fully damped limit (the displacement, not the acceleration, is
 * proportional to the force: a gradient descent), with the kernel truncation at the shape's surface
 * compensated by the integral of the kernel gradient over the half-space beyond the surface's
 * tangent plane (the surface term of the level-set relaxation of Zhu et al. 2021, J. Hydrodyn.
 * 33:195, with a plane for the level set), and particles that would leave a free surface moved back
 * onto a plane half a spacing inside it.
 *
 * Everything is in terms of the Wendland C2 kernel of params.h (P->kernel, h, norm) and of
 * V = dp^dim, the volume of every particle. */
#ifndef SLUICE_PHYSICS_PACKING_H
#define SLUICE_PHYSICS_PACKING_H

#include "base/real.h"
#include "physics/params.h"
#include "physics/sph_kernel.h"

#include <math.h>

/* The step of the damped relaxation, dx = -PACKING_BETA h^2 (sum_j V_j grad W_ij + surface term)
 * (twice this converged no faster on the tests' circle and sphere), and never more than
 * PACKING_MAX_STEP spacings per iteration, so that the first iterations of a crowded start cannot
 * throw particles through each other. */
#define PACKING_BETA 0.1
#define PACKING_MAX_STEP 0.2

/* The packing's kernel: Wendland C2 with its slope held at its steepest inside q = 1/2 (a cone
 * there), so that the repulsion never fades as two particles close in: Wendland's own gradient
 * vanishes at r = 0, where nothing would part two particles that something pressed together. The
 * surface term below integrates this kernel, so the two stay consistent. */
#define PACKING_Q_STEEPEST 0.5

/* dW/dr of the packing's kernel. */
HD static inline real packing_dwdr(const sim_params *P, real r)
{
    real rs = (real)PACKING_Q_STEEPEST * P->h, q = r * P->inv_h;
    r = q < (real)PACKING_Q_STEEPEST ? rs : r;
    return sph_grad_factor(P->kernel, P->kernel_norm, r, P->inv_h) * r;
}

/* W of the packing's kernel. */
HD static inline real packing_w(const sim_params *P, real r)
{
    real rs = (real)PACKING_Q_STEEPEST * P->h;
    if (r >= rs)
        return sph_w(P->kernel, P->kernel_norm, r, P->inv_h);
    return sph_w(P->kernel, P->kernel_norm, rs, P->inv_h) + packing_dwdr(P, rs) * (r - rs);
}

/* g(d) = the integral of W over a plane at distance d from the particle. It is also |integral of
 * grad W over the half-space beyond that plane| (the divergence theorem: grad_x W(x - y) = -grad_y),
 * the kernel gradient that the particles missing beyond a free surface would have added, directed
 * along the outward normal. 2D: 2 int_0^T W(sqrt(d^2 + t^2)) dt, T = sqrt(R^2 - d^2); 3D:
 * 2 pi int_d^R W(r) r dr, W the packing's kernel. Eight-point Gauss-Legendre: for Wendland C2
 * itself exact in 3D (W r a polynomial of degree 6) and within 3e-6 g(0) in 2D (checked against a
 * fine trapezoidal rule); the cone inside h/2 costs a little of that (tests/test_packing.c checks
 * g against a fine midpoint rule). */
HD static inline real packing_plane_integral(const sim_params *P, real d)
{
    const real x[4] = {R(0.1834346424956498), R(0.5255324099163290), R(0.7966664774136267),
                       R(0.9602898564975363)};
    const real w[4] = {R(0.3626837833783620), R(0.3137066458778873), R(0.2223810344533745),
                       R(0.1012285362903763)};
    real rm = P->r_max;
    d = real_fabs(d);
    if (d >= rm)
        return R(0.0);
    real sum = R(0.0);
    if (P->dim == 2) {
        real T = real_sqrt(rm * rm - d * d), half = R(0.5) * T;
        for (int k = 0; k < 8; ++k) {
            real t = half + (k < 4 ? -x[k] : x[k - 4]) * half;
            sum += w[k & 3] * packing_w(P, real_sqrt(d * d + t * t));
        }
        return R(2.0) * half * sum;
    }
    real half = R(0.5) * (rm - d);
    for (int k = 0; k < 8; ++k) {
        real r = d + half + (k < 4 ? -x[k] : x[k - 4]) * half;
        sum += w[k & 3] * packing_w(P, r) * r;
    }
    return (real)(2.0 * M_PI) * half * sum;
}

/* What a candidate j adds to particle i's sums (W: the packing's kernel above): the fluid's
 * sum_j V grad_i W_ij into fl, the walls'
 * into wl (fixed particles; they repel the fluid like fluid does), and sum_j |V grad_i W_ij| into
 * *mag (the scale of the round-off of the sums, for the tests' tolerance). d = x_i - x_j. */
HD static inline void packing_pair(const sim_params *P, const real d[3], int j_is_fluid, real fl[3], real wl[3],
                                   real *mag)
{
    real r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (r2 >= P->r2_max || r2 == R(0.0)) /* itself, or a particle on top of it: no direction */
        return;
    real r = real_sqrt(r2);
    real f = P->mass * P->inv_rho0 * packing_dwdr(P, r) / r;
    real *acc = j_is_fluid ? fl : wl;
    for (int a = 0; a < 3; ++a)
        acc[a] += f * d[a];
    *mag += real_fabs(f) * r;
}

/* The displacement of fluid particle i at x from its sums, and its surface: the tangent plane
 * n . y = c of the nearest point of the shape's surface (n the outward unit normal, all 0 where the
 * surface is beyond the kernel's reach). The surface term g(phi) n, phi = c - n . x the distance
 * inside, stands for the particles missing beyond the plane, less the part that wall particles
 * already supply there (their sum along n over g: 1 where the walls fill the kernel, 0 at a free
 * surface). Where the walls supply half or more, the particle stays: the walls stay on the lattice,
 * and fluid and walls together start as one lattice, which relaxing the fluid towards the smooth
 * surface only spoils (a still circular tank moved 50 times more afterwards, docs/validation.md).
 * The step is capped; then the particle may come no closer to the plane than half a spacing, where
 * the lattice's outermost layer sits. Out: the displacement; returns the walls' share (0 without a
 * plane). */
HD static inline real packing_displacement(const sim_params *P, const real x[3], const real fl[3], const real wl[3],
                                           const real n[3], real c, real out[3])
{
    real grad[3] = {fl[0] + wl[0], fl[1] + wl[1], fl[2] + wl[2]};
    real nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    real phi = c - (n[0] * x[0] + n[1] * x[1] + n[2] * x[2]);
    real covered = R(0.0);
    if (nn > R(0.0)) {
        real g = packing_plane_integral(P, phi);
        covered = g > R(0.0) ? (wl[0] * n[0] + wl[1] * n[1] + wl[2] * n[2]) / g : R(0.0);
        covered = covered < R(0.0) ? R(0.0) : covered > R(1.0) ? R(1.0) : covered;
        if (covered >= R(0.5)) { /* next to walls: kept where the lattice put it, see above */
            out[0] = out[1] = out[2] = R(0.0);
            return covered;
        }
        for (int a = 0; a < 3; ++a)
            grad[a] += (R(1.0) - covered) * g * n[a];
    }
    real s = -(real)PACKING_BETA * P->h * P->h;
    real len2 = R(0.0);
    for (int a = 0; a < 3; ++a) {
        out[a] = s * grad[a];
        len2 += out[a] * out[a];
    }
    real cap = (real)PACKING_MAX_STEP * P->dp;
    if (len2 > cap * cap) {
        real k = cap / real_sqrt(len2);
        for (int a = 0; a < 3; ++a)
            out[a] *= k;
    }
    if (nn > R(0.0)) { /* phi after the step at least dp/2 */
        real phi1 = phi - (n[0] * out[0] + n[1] * out[1] + n[2] * out[2]);
        real lack = R(0.5) * P->dp - phi1;
        if (lack > R(0.0))
            for (int a = 0; a < 3; ++a)
                out[a] -= lack * n[a];
    }
    return covered;
}

#endif
