/* sph_kernel.h: SPH smoothing kernels W(r, h) and their radial derivative, for 2D and 3D.
 *
 * Wendland C2: Wendland (1995), Adv. Comput. Math. 4:389-396, in the form of Dehnen & Aly (2012),
 *   MNRAS 425:1068, Table 1, with support 2h:  W = aD (1 - q/2)^4 (2q + 1), q = r/h, 0 <= q <= 2,
 *   aD = 7/(4 pi h^2) in 2D, 21/(16 pi h^3) in 3D;  dW/dr = aD/h (-5 q) (1 - q/2)^3.
 * Cubic spline: Monaghan & Lattanzio (1985), A&A 149:135, eq. (21), support 2h:
 *   W = aD (1 - 1.5 q^2 + 0.75 q^3) for q < 1, aD 0.25 (2 - q)^3 for 1 <= q < 2,
 *   aD = 10/(7 pi h^2) in 2D, 1/(pi h^3) in 3D.
 * Functions return the factor F = (dW/dr)/r, so that grad_i W_ij = F * (x_i - x_j). */
#ifndef SLUICE_SPH_KERNEL_H
#define SLUICE_SPH_KERNEL_H

#include "base/real.h"
#include "base/scene.h"

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Normalisation alpha_D for kernel k, dimension dim and smoothing length h. */
static inline double sph_kernel_norm(int k, int dim, double h)
{
    if (k == KERNEL_WENDLAND_C2)
        return dim == 2 ? 7.0 / (4.0 * M_PI * h * h) : 21.0 / (16.0 * M_PI * h * h * h);
    return dim == 2 ? 10.0 / (7.0 * M_PI * h * h) : 1.0 / (M_PI * h * h * h);
}

/* inv_h = 1/h: the callers keep it, so no division happens per pair. */
HD static inline real sph_w(int k, real norm, real r, real inv_h)
{
    real q = r * inv_h;
    if (q >= R(2.0))
        return R(0.0);
    if (k == KERNEL_WENDLAND_C2) {
        real a = R(1.0) - R(0.5) * q;
        real a2 = a * a;
        return norm * a2 * a2 * (R(2.0) * q + R(1.0));
    }
    if (q < R(1.0))
        return norm * (R(1.0) - R(1.5) * q * q + R(0.75) * q * q * q);
    real b = R(2.0) - q;
    return norm * R(0.25) * b * b * b;
}

/* (dW/dr) / r; finite at r = 0 for both kernels. */
HD static inline real sph_grad_factor(int k, real norm, real r, real inv_h)
{
    real q = r * inv_h;
    if (k == KERNEL_WENDLAND_C2) { /* 1 - q/2 clamped at 0 is the support: no branch per pair */
        real a = R(1.0) - R(0.5) * q;
        a = a > R(0.0) ? a : R(0.0);
        return norm * R(-5.0) * a * a * a * inv_h * inv_h;
    }
    if (q >= R(2.0))
        return R(0.0);
    /* dW/dq / (q h^2): -3 + 2.25 q for q < 1, -0.75 (2 - q)^2 / q beyond */
    if (q < R(1.0))
        return norm * (R(-3.0) + R(2.25) * q) * inv_h * inv_h;
    real b = R(2.0) - q;
    return norm * R(-0.75) * b * b / q * inv_h * inv_h;
}

#endif
