/* floating_mps.h: the floating bodies' reaction pass of the MPS schemes (`floating.mps_force`): for
 * each particle j of a floating body, minus what j adds to the acceleration of every fluid particle i
 * in one term of the MPS step, computed with the fluid pass's own pair function at the same state
 * (so the exchange of momentum between body and fluid is exact by construction, as in WCSPH's
 * floating.force), plus in the last stage the soft contact with walls' and other bodies' particles.
 * Per stage (pass_args.floating.mps_stage), with r_ij = x_j - x_i, d the dimension:
 *   viscous    (after mps.accel, x^n, u^n; the MPS Laplacian, re_laplacian, every class):
 *     a_j = -nu 2d/(lambda0 n0) sum_i (u_j - u_i) w_ij                  (mps_laplacian_pair)
 *   collision  (after mps.collision, before its velocity change is applied; mps_collision_pair):
 *     a_j = -(1/dt) sum_i du_i(j)
 *   pressure   (after mps.gradient, at x*; re_density, classes with a pressure):
 *     semi-implicit MPS: a_j = +(1/rho0) d/n0 sum_i (p_j - phat_i) r_ij w_ij / |r_ij|^2
 *                        (mps_gradient_pair; phat_i as the gradient pass left it, field mps_phat)
 *     explicit MPS:      a_j = +(1/rho0) d/n0 sum_i (p_i + p_j) r_ij w_ij / |r_ij|^2
 *                        (mps_symmetric_gradient_pair)
 *     plus the soft contact (rigid_body_contact_add).
 * The particle masses are equal (rho0 l0^d), so the body's force is m sum_j a_j (backend.body_sums,
 * boundary/floating.c). The LSMPS operators are refused with floating bodies (io/scene_check.c):
 * their pair weight holds the inverse of i's moment matrix, which is not kept. A neighbour pass in
 * gather form (FORM BODY): par-part and par-cell run it on the GPU. */
#ifndef SLUICE_BOUNDARY_FLOATING_MPS_H
#define SLUICE_BOUNDARY_FLOATING_MPS_H

#include "core/pass_mps.h"
#include "physics/mps_collision.h"
#include "physics/mps_ppe.h"
#include "physics/rigid_body.h"

enum floating_mps_stage { FLOAT_MPS_VISCOUS, FLOAT_MPS_COLLISION, FLOAT_MPS_PRESSURE };

HD static inline void floating_mps_force_body(const pass_ctx *c, int32_t j)
{
    const floating_args *fa = &c->a.floating;
    real *const *f = c->f;
    const sim_params *P = &c->P;
    if (fa->nfloat <= 0)
        return;
    const real *body = f[c->a.motion.body];
    real bj = body[j];
    if (bj < R(0.0) || bj >= (real)fa->nfloat)
        return;
    int dim = P->dim, stage = fa->mps_stage, nv = dim == 3 ? 3 : 2;
    int pressure = stage == FLOAT_MPS_PRESSURE;
    mps_particle b = pressure ? mps_pass_particle(c, j, 1, f[PF_P], 0, 0) : mps_pass_velocity(c, j);
    mps_scope lap = mps_pass_scope(c, mps_kernel_lap(P), MC_MASK_ALL);
    mps_scope grad = mps_pass_scope(c, mps_kernel_n(P), MC_MASK_PRESSURE);
    mps_collision_law law = mps_collision_law_of(&P->mps, c->a.dt);
    real sum[3] = {0, 0, 0}, cc[3] = {0, 0, 0};
    NBR_FOR_CANDIDATES(&c->nb, j, i, {
        if (mps_class_is_fluid(c->tag[i])) {
            if (stage == FLOAT_MPS_VISCOUS) {
                mps_particle a = mps_pass_velocity(c, i);
                mps_laplacian_pair(&lap, &a, i, &b, j, nv, sum);
            } else if (stage == FLOAT_MPS_COLLISION) {
                mps_particle a = mps_pass_velocity(c, i);
                mps_collision_pair(dim, &P->periodic, MC_MASK_ALL, &law, &a, i, &b, j, sum);
            } else if (P->mps.is_explicit) {
                mps_particle a = mps_pass_particle(c, i, 1, f[PF_P], 0, 0);
                mps_symmetric_gradient_pair(&grad, &a, i, &b, j, sum);
            } else {
                mps_particle a = mps_pass_particle(c, i, 1, f[PF_P], 0, 0);
                real phat = fa->mps_phat >= 0 ? f[fa->mps_phat][i] : a.u[0];
                mps_gradient_pair(&grad, &a, i, &b, j, phat, sum);
            }
        } else if (pressure && body[i] != bj && i != j) { /* a wall's or another body's */
            real dx = f[PF_X][j] - f[PF_X][i], dy = f[PF_Y][j] - f[PF_Y][i];
            real dz = dim == 3 ? f[PF_Z][j] - f[PF_Z][i] : R(0.0);
            periodic_fold(&P->periodic, &dx, &dy, &dz);
            rigid_body_contact_add(fa, dim, dx, dy, dz, dx * dx + dy * dy + dz * dz, f[PF_VX][j] - f[PF_VX][i],
                                   f[PF_VY][j] - f[PF_VY][i], dim == 3 ? f[PF_VZ][j] - f[PF_VZ][i] : R(0.0), cc);
        }
    });
    real a[3];
    if (stage == FLOAT_MPS_VISCOUS) {
        real k = -P->nu * mps_laplacian_factor(&lap);
        for (int d = 0; d < 3; ++d)
            a[d] = k * sum[d];
    } else if (stage == FLOAT_MPS_COLLISION) {
        for (int d = 0; d < 3; ++d)
            a[d] = -sum[d] / c->a.dt;
    } else {
        real g[3];
        mps_gradient_scale(&grad, sum, g);
        for (int d = 0; d < 3; ++d)
            a[d] = g[d] / P->rho0 + cc[d];
    }
    f[fa->acc[0]][j] = a[0];
    f[fa->acc[1]][j] = a[1];
    if (dim == 3)
        f[fa->acc[2]][j] = a[2];
}

#endif
