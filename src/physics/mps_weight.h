/* mps_weight.h: MPS weight functions w(r_ij) and their interaction domains, for 2D and 3D.
 *
 * KO: Koshizuka & Oka (1996), Nucl. Sci. Eng. 123:421, the kernel of the original MPS method:
 *     w = re/r - 1 for 0 < r < re, 0 otherwise (spherical domain; singular at r = 0, so coincident
 *     particles are outside its domain).
 * QUADRATIC: w = (1 - r/re)^2 for r < re (spherical domain); the weight of LSMPS, Tamai & Koshizuka
 *     (2014), Comp. Part. Mech. 1:277.
 * CUBIC: the tensor-product weight w = prod_a (|x_ij,a|/re - 1)^2 over the dim axes, nonzero inside
 *     the cube |x_ij,a| < re for every axis (cubic interaction domain).
 * All three vanish at the edge of their domain, so a neighbour exactly on the edge contributes
 * nothing whichever side of the test it falls on.
 *
 * The functions take r2 = |x_ij|^2 (the callers have it) and take the square root only when the
 * weight needs r. dz and the z axis are ignored when dim == 2. */
#ifndef SLUICE_MPS_WEIGHT_H
#define SLUICE_MPS_WEIGHT_H

#include "base/real.h"

#include <math.h>

enum mps_weight_kind { MPS_WEIGHT_KO, MPS_WEIGHT_QUADRATIC, MPS_WEIGHT_CUBIC };

/* 1 when the neighbour at (dx, dy, dz), r2 = dx^2 + dy^2 + dz^2, lies in the interaction domain. */
HD static inline int mps_in_domain(int kind, int dim, real dx, real dy, real dz, real r2, real re)
{
    if (kind == MPS_WEIGHT_CUBIC)
        return real_fabs(dx) < re && real_fabs(dy) < re && (dim < 3 || real_fabs(dz) < re);
    if (kind == MPS_WEIGHT_KO)
        return r2 > R(0.0) && r2 < re * re;
    return r2 < re * re;
}

/* w(x_ij); 0 outside the domain. */
HD static inline real mps_weight(int kind, int dim, real dx, real dy, real dz, real r2, real re)
{
    if (kind == MPS_WEIGHT_CUBIC) {
        real ax = R(1.0) - real_fabs(dx) / re;
        real ay = R(1.0) - real_fabs(dy) / re;
        real az = dim == 3 ? R(1.0) - real_fabs(dz) / re : R(1.0);
        if (!(ax > R(0.0) && ay > R(0.0) && az > R(0.0)))
            return R(0.0);
        real w = ax * ay * az;
        return w * w;
    }
    if (!(r2 < re * re))
        return R(0.0);
    if (kind == MPS_WEIGHT_KO)
        return r2 > R(0.0) ? re / real_sqrt(r2) - R(1.0) : R(0.0);
    real q = R(1.0) - real_sqrt(r2) / re;
    return q * q;
}

#endif
