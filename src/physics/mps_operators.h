/* mps_operators.h: the MPS particle interaction models of one particle i, in pair form (gather: they
 * read the neighbours and give particle i's value; nothing else is written).
 *
 * Koshizuka & Oka (1996), Nucl. Sci. Eng. 123:421, with r_ij = x_j - x_i and w_ij = w(r_ij) of
 * mps_weight.h:
 *   particle number density   n_i = sum_j w_ij
 *   gradient model            <grad phi>_i = d/n0 sum_j (phi_j - phihat_i) r_ij w_ij / |r_ij|^2
 *     phihat_i = min(phi_i, min_j phi_j) over the neighbours in the domain (the stabilised form of
 *     the paper, which keeps the pressure force repulsive), or phihat_i = phi_i (the plain form);
 *   Laplacian model           <lap phi>_i = 2d/(lambda0 n0) sum_j (phi_j - phi_i) w_ij
 * where d is the dimension and n0, lambda0 come from mps_lattice_constants() for the same weight.
 *
 * Neighbours: j runs over the grid's runs around particle i (nbr_grid.h); j counts when j != i, its
 * class passes the filter of the scope, and it lies in the weight's domain (mps_in_domain). The
 * grid's cells must be built with r_max >= re: the runs then cover the cube |x_ij,a| < re, which
 * contains the spherical domains and is the cubic one. A neighbour at r_ij = 0 has no direction and
 * is skipped by the gradient (it still counts in n_i for the QUADRATIC and CUBIC weights).
 *
 * Pair form. Each operator is written once over particles as values (mps_particle: position,
 * class, up to three field values):
 *   X_pair(scope, a, i, b, j, ...)  the physics of one candidate j of particle i: the neighbour test
 *                                   (mps_neighbour_weight) and what j adds to i's sums;
 * operators of more than one sweep (the stabilised gradient takes the minimum first; LSMPS falls
 * back to MPS where its fit is singular) are small state machines over such pair functions:
 *   X_begin(op, a, acc)             particle i's initial state; 1 when it needs a sweep;
 *   X_add(op, a, i, b, j, acc)      candidate j, in the current stage;
 *   X_next(op, a, acc)              the end of a sweep; 1 when another sweep is needed.
 * The gather loop below (the functions of this header, the passes' CPU bodies and the CUDA
 * par-part / par-cell kernels, mps_passes.h) and the CUDA kernels that stage candidates in shared
 * memory (src/gpu/pass_kernels.cu) call the same functions, so the pair physics exists once. Every
 * sum runs over the candidates in candidate order; independent sums may share a sweep without
 * changing a bit.
 *
 * Everything is HD static inline with no allocation, no globals and no recursion: the CPU loops and
 * the CUDA kernels call the same code. */
#ifndef SLUICE_MPS_OPERATORS_H
#define SLUICE_MPS_OPERATORS_H

#include "grid/nbr_grid.h"
#include "base/real.h"
#include "mps_weight.h"
#include "periodic.h"

#include <stdint.h>

/* Positions and the neighbour filter. Neighbour j counts iff cls == NULL or cls[j] < 32 and
 * (mask >> cls[j]) & 1; j == i never counts. In 2D z may be NULL (it is not read). */
typedef struct mps_view {
    const real *x, *y, *z;
    const uint8_t *cls;
    unsigned mask;
    int dim;
    const periodic_box *periodic; /* NULL: no periodic axis */
} mps_view;

/* The weight (enum mps_weight_kind), its radius, and the lattice constants for that weight. */
typedef struct mps_kernel {
    int weight;
    real re;
    real n0;
    real lambda0;
} mps_kernel;

/* Who counts as a neighbour (classes c < 32 with bit c of mask set) and with which weight. */
typedef struct mps_scope {
    mps_kernel k;
    unsigned mask;
    int dim;
    const periodic_box *periodic; /* pairs take the nearest image along its axes; NULL: none. A
                                   * pointer: a copy in every pair's scope cost the GPU's MPS passes
                                   * registers (8-26% slower) */
} mps_scope;

/* One particle as the pair functions see it: position (z = 0 in 2D), class, and the field values
 * the operator reads (which ones: see each operator; unused ones are 0). Aligned to 16 bytes: the
 * staged GPU kernels read a candidate from shared memory as two 16-byte loads, not seven 4-byte
 * ones (the MPS passes were bound by their load instructions, docs/performance.md). */
typedef struct mps_particle {
    SL_ALIGNED(4 * sizeof(real)) real x;
    real y, z;
    real u[3];
    uint8_t cls;
} mps_particle;

/* r_ij = x_j - x_i (its nearest image) and |r_ij|^2. */
typedef struct mps_pair {
    real dx, dy, dz, r2;
} mps_pair;

HD static inline mps_scope mps_scope_of(const mps_view *v, const mps_kernel *k)
{
    mps_scope s;
    s.k = *k;
    s.mask = v->cls ? v->mask : ~0u; /* no classes: every particle is class 0 */
    s.dim = v->dim;
    s.periodic = v->periodic;
    return s;
}

/* Particle j of a view with the values u0[j], u1[j], u2[j] (NULL: 0). */
HD static inline mps_particle mps_load(const mps_view *v, const real *u0, const real *u1, const real *u2,
                                       int32_t j)
{
    mps_particle p;
    p.x = v->x[j];
    p.y = v->y[j];
    p.z = v->dim == 3 ? v->z[j] : R(0.0);
    p.u[0] = u0 ? u0[j] : R(0.0);
    p.u[1] = u1 ? u1[j] : R(0.0);
    p.u[2] = u2 ? u2[j] : R(0.0);
    p.cls = v->cls ? v->cls[j] : 0;
    return p;
}

/* Whether j may count for i: j != i and its class passes the mask (the domain test is separate). */
HD static inline int mps_admits(unsigned mask, int32_t i, const mps_particle *b, int32_t j)
{
    unsigned c = b->cls;
    return j != i && c < 32u && ((mask >> c) & 1u);
}

HD static inline mps_pair mps_pair_of(int dim, const periodic_box *pb, const mps_particle *a, const mps_particle *b)
{
    mps_pair g;
    g.dx = b->x - a->x;
    g.dy = b->y - a->y;
    g.dz = dim == 3 ? b->z - a->z : R(0.0);
    if (pb)
        periodic_fold(pb, &g.dx, &g.dy, &g.dz);
    g.r2 = g.dx * g.dx + g.dy * g.dy + g.dz * g.dz;
    return g;
}

/* The neighbour test of every MPS operator: w_ij when j counts for i and lies in the domain of the
 * scope's weight, 0 otherwise (callers skip j unless w > 0). Fills *g when j is admitted. */
HD static inline real mps_neighbour_weight(const mps_scope *s, const mps_particle *a, int32_t i,
                                           const mps_particle *b, int32_t j, mps_pair *g)
{
    if (!mps_admits(s->mask, i, b, j))
        return R(0.0);
    *g = mps_pair_of(s->dim, s->periodic, a, b);
    return mps_in_domain(s->k.weight, s->dim, g->dx, g->dy, g->dz, g->r2, s->k.re)
               ? mps_weight(s->k.weight, s->dim, g->dx, g->dy, g->dz, g->r2, s->k.re)
               : R(0.0);
}

/* 2d / (lambda0 n0): the Laplacian's factor. */
HD static inline real mps_laplacian_factor(const mps_scope *s)
{
    return R(2.0) * (real)s->dim / (s->k.lambda0 * s->k.n0);
}

/* ---- pair functions: the physics of one candidate ---------------------------------------------- */

/* n_i += w_ij. */
HD static inline void mps_density_pair(const mps_scope *s, const mps_particle *a, int32_t i, const mps_particle *b,
                                       int32_t j, real *n)
{
    mps_pair g;
    real w = mps_neighbour_weight(s, a, i, b, j, &g);
    if (w > R(0.0))
        *n += w;
}

/* m = min(m, phi_j) over the neighbours in the domain (phi in u[0]). */
HD static inline void mps_min_pair(const mps_scope *s, const mps_particle *a, int32_t i, const mps_particle *b,
                                   int32_t j, real *m)
{
    mps_pair g;
    real w = mps_neighbour_weight(s, a, i, b, j, &g);
    if (w > R(0.0) && b->u[0] < *m)
        *m = b->u[0];
}

/* sum += (phi_j - phat) r_ij w_ij / |r_ij|^2 (phi in u[0]). */
HD static inline void mps_gradient_pair(const mps_scope *s, const mps_particle *a, int32_t i, const mps_particle *b,
                                        int32_t j, real phat, real sum[3])
{
    mps_pair g;
    real w = mps_neighbour_weight(s, a, i, b, j, &g);
    if (!(w > R(0.0)) || !(g.r2 > R(0.0)))
        return;
    real q = (b->u[0] - phat) * w / g.r2;
    sum[0] += q * g.dx;
    sum[1] += q * g.dy;
    sum[2] += q * g.dz;
}

/* <grad phi>_i from its sum; grad[2] = 0 in 2D. */
HD static inline void mps_gradient_scale(const mps_scope *s, const real sum[3], real grad[3])
{
    real f = (real)s->dim / s->k.n0;
    grad[0] = f * sum[0];
    grad[1] = f * sum[1];
    grad[2] = s->dim == 3 ? f * sum[2] : R(0.0);
}

/* sum[c] += (phi_j - phi_i) w_ij for the nv fields u[0..nv). */
HD static inline void mps_laplacian_pair(const mps_scope *s, const mps_particle *a, int32_t i, const mps_particle *b,
                                         int32_t j, int nv, real sum[3])
{
    mps_pair g;
    real w = mps_neighbour_weight(s, a, i, b, j, &g);
    if (!(w > R(0.0)))
        return;
    for (int c = 0; c < nv; ++c)
        sum[c] += (b->u[c] - a->u[c]) * w;
}

/* ---- the gather loop ------------------------------------------------------------------------- */

/* Runs the sweeps of operator OP (OP_begin, OP_add, OP_next) for particle i over the grid's
 * candidates in run order; LOAD is an expression of j giving candidate j as an mps_particle. */
#define MPS_GATHER(OP, op, nb, i, a, acc, LOAD)                                                     \
    do {                                                                                          \
        if (OP##_begin(op, a, acc)) {                                                             \
            do {                                                                                  \
                NBR_FOR_CANDIDATES(nb, i, j, {                                                    \
                    mps_particle mps_b_ = (LOAD);                                                 \
                    OP##_add(op, a, i, &mps_b_, j, acc);                                          \
                });                                                                               \
            } while (OP##_next(op, a, acc));                                                      \
        }                                                                                         \
    } while (0)

/* One sweep of the statement PAIR, which sees candidate j as mps_b_ (LOAD: as for MPS_GATHER). */
#define MPS_SWEEP(nb, i, LOAD, PAIR)                                                               \
    NBR_FOR_CANDIDATES(nb, i, j, {                                                                \
        mps_particle mps_b_ = (LOAD);                                                             \
        PAIR;                                                                                     \
    })

/* ---- the MPS gradient as an operator of one or two sweeps ------------------------------------ */

typedef struct mps_gradient_op {
    mps_scope s;
    int stabilised; /* relative to phat_i = min(phi_i, phi_j): a sweep for the minimum first */
} mps_gradient_op;

enum mps_gradient_stage { MG_MIN, MG_SUM, MG_DONE };

typedef struct mps_gradient_acc {
    int stage;   /* enum mps_gradient_stage */
    real m;      /* the running minimum, then phat */
    real sum[3];
    real grad[3]; /* the result, once stage is MG_DONE */
} mps_gradient_acc;

HD static inline int mps_gradient_begin(const mps_gradient_op *op, const mps_particle *a, mps_gradient_acc *s)
{
    s->stage = op->stabilised ? MG_MIN : MG_SUM;
    s->m = a->u[0];
    for (int c = 0; c < 3; ++c)
        s->sum[c] = s->grad[c] = R(0.0);
    return 1;
}

HD static inline void mps_gradient_add(const mps_gradient_op *op, const mps_particle *a, int32_t i,
                                       const mps_particle *b, int32_t j, mps_gradient_acc *s)
{
    if (s->stage == MG_MIN)
        mps_min_pair(&op->s, a, i, b, j, &s->m);
    else if (s->stage == MG_SUM)
        mps_gradient_pair(&op->s, a, i, b, j, s->m, s->sum);
}

HD static inline int mps_gradient_next(const mps_gradient_op *op, const mps_particle *a, mps_gradient_acc *s)
{
    (void)a;
    if (s->stage == MG_MIN) {
        s->stage = MG_SUM;
        return 1;
    }
    if (s->stage == MG_SUM)
        mps_gradient_scale(&op->s, s->sum, s->grad);
    s->stage = MG_DONE;
    return 0;
}

/* ---- operators of one particle over a view ---------------------------------------------------- */

/* n_i = sum_j w_ij. */
HD static inline real mps_number_density(const mps_view *v, const nbr_view *nb, const mps_kernel *k, int32_t i)
{
    mps_scope s = mps_scope_of(v, k);
    mps_particle a = mps_load(v, 0, 0, 0, i);
    real n = R(0.0);
    MPS_SWEEP(nb, i, mps_load(v, 0, 0, 0, j), mps_density_pair(&s, &a, i, &mps_b_, j, &n));
    return n;
}

/* <grad phi>_i; stabilised != 0 uses phihat_i = min(phi_i, min_j phi_j) (one extra sweep).
 * grad[2] = 0 in 2D. */
HD static inline void mps_gradient(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                   const real *phi, int stabilised, int32_t i, real grad[3])
{
    mps_gradient_op op = {mps_scope_of(v, k), stabilised};
    mps_gradient_acc acc;
    mps_particle a = mps_load(v, phi, 0, 0, i);
    MPS_GATHER(mps_gradient, &op, nb, i, &a, &acc, mps_load(v, phi, 0, 0, j));
    for (int c = 0; c < 3; ++c)
        grad[c] = acc.grad[c];
}

/* <lap phi>_i = 2d/(lambda0 n0) sum_j (phi_j - phi_i) w_ij. */
HD static inline real mps_laplacian(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                    const real *phi, int32_t i)
{
    mps_scope s = mps_scope_of(v, k);
    mps_particle a = mps_load(v, phi, 0, 0, i);
    real sum[3] = {R(0.0), R(0.0), R(0.0)};
    MPS_SWEEP(nb, i, mps_load(v, phi, 0, 0, j), mps_laplacian_pair(&s, &a, i, &mps_b_, j, 1, sum));
    return mps_laplacian_factor(&s) * sum[0];
}

/* The Laplacian of the vector field (fx, fy, fz) in one sweep; fz may be NULL in 2D (out[2] = 0). */
HD static inline void mps_laplacian3(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                     const real *fx, const real *fy, const real *fz, int32_t i,
                                     real out[3])
{
    int nv = v->dim == 3 && fz != NULL ? 3 : 2;
    mps_scope s = mps_scope_of(v, k);
    mps_particle a = mps_load(v, fx, fy, fz, i);
    real sum[3] = {R(0.0), R(0.0), R(0.0)};
    MPS_SWEEP(nb, i, mps_load(v, fx, fy, fz, j), mps_laplacian_pair(&s, &a, i, &mps_b_, j, nv, sum));
    real f = mps_laplacian_factor(&s);
    out[0] = f * sum[0];
    out[1] = f * sum[1];
    out[2] = nv == 3 ? f * sum[2] : R(0.0);
}

#endif
