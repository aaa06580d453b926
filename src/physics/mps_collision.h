/* mps_collision.h: the inter-particle collision model of MPS (gather form).
 *
 * Two particles closer than alpha l0 (alpha = 0.5) that approach each other exchange momentum along
 * their line of centres as in an inelastic collision with restitution e = 0.2 (Koshizuka, Shibata,
 * Kondo & Matsunaga 2018, "Moving Particle Semi-implicit Method", Academic Press, ch. 2, the
 * collision step after the explicit update). With equal masses, particle i's velocity changes by
 *   du_i = -(1 + e)/2 ((u_i - u_j) . n_ij) n_ij,   n_ij = (x_j - x_i)/|x_j - x_i|,
 * for each approaching pair ((u_j - u_i) . n_ij < 0); a wall neighbour has u_j = 0. The
 * sum over pairs is the gather form of the pairwise exchange, so momentum is conserved between fluid
 * particles. It keeps particles from clustering while the pressure has not yet built up. */
#ifndef SLUICE_MPS_COLLISION_H
#define SLUICE_MPS_COLLISION_H

#include "../nbr_grid.h"
#include "mps_operators.h"

HD static inline void mps_collision(const mps_view *v, const nbr_view *nb, real distance, real restitution,
                                    const real *ux, const real *uy, const real *uz, int32_t i, real du[3])
{
    real d2max = distance * distance;
    real uxi = ux[i], uyi = uy[i], uzi = v->dim == 3 ? uz[i] : R(0.0);
    real cx = R(0.0), cy = R(0.0), cz = R(0.0);
    NBR_FOR_CANDIDATES(nb, i, j, {
        if (!mps_counts(v, i, j))
            continue;
        real d[3];
        real r2 = mps_rel(v, i, j, d);
        if (r2 >= d2max || !(r2 > R(0.0)))
            continue;
        real inv_r = R(1.0) / real_sqrt(r2);
        real nx = d[0] * inv_r, ny = d[1] * inv_r, nz = d[2] * inv_r;
        real ujz = v->dim == 3 ? uz[j] : R(0.0);
        real approach = (uxi - ux[j]) * nx + (uyi - uy[j]) * ny + (uzi - ujz) * nz;
        if (approach <= R(0.0))
            continue;
        real s = -R(0.5) * (R(1.0) + restitution) * approach;
        cx += s * nx;
        cy += s * ny;
        cz += s * nz;
    });
    du[0] = cx;
    du[1] = cy;
    du[2] = v->dim == 3 ? cz : R(0.0);
}

#endif
