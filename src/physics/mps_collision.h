/* mps_collision.h: what MPS does with a pair of particles closer than alpha l0
 * (mps.collision_distance, in spacings: 0.5 by default as in Koshizuka et al.; with it the semi-implicit
 * dam break blows up in some runs, docs/validation.md), in gather form. n_ij = (x_j - x_i)/|x_j - x_i|.
 *
 * mps.collision_model = "koshizuka" (the default): an approaching pair exchanges momentum along its
 * line of centres as in an inelastic collision with restitution e (mps.collision_restitution, 0.2
 * by default; Koshizuka, Shibata, Kondo & Matsunaga 2018, "Moving Particle Semi-implicit Method",
 * Academic Press, ch. 2, the collision step after the explicit update). With equal masses,
 *   du_i = -(1 + e)/2 ((u_i - u_j) . n_ij) n_ij   for each pair with (u_j - u_i) . n_ij < 0.
 *
 * mps.collision_model = "dynamic": dynamic stabilisation after Tsuruta, Khayyer & Gotoh (2013,
 * Comput. Fluids 82:158). Every pair closer than d = alpha l0, approaching or not, gets the momentum
 * that carries it back to d within the step, shared as equal masses share it:
 *   du_i = -(d - |x_j - x_i|) / (2 dt) n_ij,
 * so the pass's position change dt du moves the pair apart by exactly d - r (this form is ours, not
 * checked against the paper's). The paper adds its term beside the pressure gradient after the
 * solve; here it takes the collision model's place
 * (after the prediction, before the number density), so that the Poisson equation sees the pair at
 * d rather than the spike in the number density that a close pair makes (docs/validation.md, "What
 * drives the noise: the collision distance").
 *
 * A wall neighbour's u_j is the wall's velocity (0, or a moving wall's: boundary/moving.h), and it
 * counts as a particle of the same mass (it takes no share: the wall does not move). The sum over
 * pairs is the gather form of the pairwise exchange, so momentum is conserved between fluid
 * particles. The pass (mps_passes.h, collision) sums the pair over a particle's candidates. */
#ifndef SLUICE_MPS_COLLISION_H
#define SLUICE_MPS_COLLISION_H

#include "base/scene.h"
#include "mps_operators.h"
#include "params.h"

/* The collision law of one step, from the scene's parameters. */
typedef struct mps_collision_law {
    real d, d2;          /* the distance, metres, and its square */
    real restitution;    /* koshizuka */
    real half_inv_dt;    /* dynamic: 1 / (2 dt) */
    int dynamic;
} mps_collision_law;

HD static inline mps_collision_law mps_collision_law_of(const mps_params *M, real dt)
{
    mps_collision_law L;
    L.d = M->collision_distance;
    L.d2 = L.d * L.d;
    L.restitution = M->restitution;
    L.dynamic = M->collision_model == MPS_COLLISION_DYNAMIC;
    L.half_inv_dt = dt > R(0.0) ? R(0.5) / dt : R(0.0);
    return L;
}

/* What neighbour j (u in u[0..2]) adds to particle i's velocity change c under law L. */
HD static inline void mps_collision_pair(int dim, const periodic_box *pb, unsigned mask, const mps_collision_law *L,
                                         const mps_particle *a, int32_t i, const mps_particle *b, int32_t j, real c[3])
{
    if (!mps_admits(mask, i, b, j))
        return;
    mps_pair g = mps_pair_of(dim, pb, a, b);
    if (g.r2 >= L->d2 || !(g.r2 > R(0.0)))
        return;
    real r = real_sqrt(g.r2);
    real inv_r = R(1.0) / r;
    real nx = g.dx * inv_r, ny = g.dy * inv_r, nz = g.dz * inv_r;
    real s;
    if (L->dynamic) {
        s = -(L->d - r) * L->half_inv_dt;
    } else {
        real uzi = dim == 3 ? a->u[2] : R(0.0);
        real ujz = dim == 3 ? b->u[2] : R(0.0);
        real approach = (a->u[0] - b->u[0]) * nx + (a->u[1] - b->u[1]) * ny + (uzi - ujz) * nz;
        if (approach <= R(0.0))
            return;
        s = -R(0.5) * (R(1.0) + L->restitution) * approach;
    }
    c[0] += s * nx;
    c[1] += s * ny;
    c[2] += s * nz;
}

#endif
