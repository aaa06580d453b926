/* mps_collision.h: the inter-particle collision model of MPS (gather form).
 *
 * Two particles closer than alpha l0 (mps.collision_distance: 0.5 by default as in Koshizuka et al.;
 * the semi-implicit dam break needs 0.8 to stay stable, docs/validation.md) that approach each other
 * exchange momentum along their line of centres as in an inelastic collision with restitution e
 * (mps.collision_restitution, 0.2 by default; Koshizuka, Shibata,
 * Kondo & Matsunaga 2018, "Moving Particle Semi-implicit Method", Academic Press, ch. 2, the
 * collision step after the explicit update). With equal masses, particle i's velocity changes by
 *   du_i = -(1 + e)/2 ((u_i - u_j) . n_ij) n_ij,   n_ij = (x_j - x_i)/|x_j - x_i|,
 * for each approaching pair ((u_j - u_i) . n_ij < 0); a wall neighbour's u_j is the wall's velocity
 * (0, or a moving wall's: boundary/moving.h). The
 * sum over pairs is the gather form of the pairwise exchange, so momentum is conserved between fluid
 * particles. It keeps particles from clustering while the pressure has not yet built up. The pass
 * (mps_passes.h, collision) sums the pair over a particle's candidates. */
#ifndef SLUICE_MPS_COLLISION_H
#define SLUICE_MPS_COLLISION_H

#include "mps_operators.h"

/* What neighbour j (u in u[0..2]) adds to particle i's velocity change c when the two are closer
 * than sqrt(d2max) and approach each other. */
HD static inline void mps_collision_pair(int dim, const periodic_box *pb, unsigned mask, real d2max, real restitution,
                                         const mps_particle *a, int32_t i, const mps_particle *b, int32_t j, real c[3])
{
    if (!mps_admits(mask, i, b, j))
        return;
    mps_pair g = mps_pair_of(dim, pb, a, b);
    if (g.r2 >= d2max || !(g.r2 > R(0.0)))
        return;
    real inv_r = R(1.0) / real_sqrt(g.r2);
    real nx = g.dx * inv_r, ny = g.dy * inv_r, nz = g.dz * inv_r;
    real uzi = dim == 3 ? a->u[2] : R(0.0);
    real ujz = dim == 3 ? b->u[2] : R(0.0);
    real approach = (a->u[0] - b->u[0]) * nx + (a->u[1] - b->u[1]) * ny + (uzi - ujz) * nz;
    if (approach <= R(0.0))
        return;
    real s = -R(0.5) * (R(1.0) + restitution) * approach;
    c[0] += s * nx;
    c[1] += s * ny;
    c[2] += s * nz;
}

#endif
