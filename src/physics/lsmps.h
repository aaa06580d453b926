/* lsmps.h: least-squares MPS derivative operators of one particle i (gather form), with the plain
 * MPS operators as fallback where the least-squares system is singular.
 *
 * LSMPS (Tamai & Koshizuka 2014, Comp. Part. Mech. 1:277): phi_j - phi_i is fitted, in the weighted
 * least-squares sense over the neighbours j of i, by a polynomial in r_ij = x_j - x_i scaled by rs:
 *     M_i = sum_j w_ij p(r_ij/rs) p(r_ij/rs)^T,   b_i = sum_j w_ij (phi_j - phi_i) p(r_ij/rs),
 *     M_i a = b_i,   derivatives = H_rs a  (H_rs = the diagonal of the basis scalings below).
 *   First order:  p = (x, y[, z]) / rs                          (2 or 3 unknowns)
 *                 grad phi = (a_x, a_y[, a_z]) / rs; exact for linear fields.
 *   Second order: p = (x, y, x^2, xy, y^2)                        in 2D (5 unknowns),
 *                 p = (x, y, z, x^2, y^2, z^2, xy, yz, zx)        in 3D (9 unknowns),
 *                 the linear terms divided by rs, the quadratic ones by rs^2;
 *                 grad phi = linear coefficients / rs,
 *                 lap phi  = 2 (sum of the pure-square coefficients) / rs^2; exact for quadratics.
 *   Error on scattered particles: O(h) for the first-order gradient, O(h^2) for the second-order
 *   gradient and O(h) for the second-order Laplacian (h the spacing, re/h fixed).
 * The weight is the paper's w = (1 - r/re)^2 on the sphere r < re (used for k->weight ==
 * MPS_WEIGHT_KO or MPS_WEIGHT_QUADRATIC: the KO weight is singular at r = 0, which a least-squares
 * weight has no need for), or the tensor-product weight prod_a (|x_a|/re - 1)^2 on the cube
 * |x_a| < re when k->weight == MPS_WEIGHT_CUBIC. The fit subtracts phi_i, so there is no constant
 * term, and the scale of the weight does not matter (no n0 or lambda0 here).
 *
 * The system is symmetric positive semi-definite; it is solved by Cholesky on the packed lower
 * triangle (at most 9x9), one factorisation for every field fitted over the same neighbours. Rank deficiency (free surface, few neighbours, neighbours on a line or a
 * plane) is detected two ways and reported by a 0 return, the outputs left untouched:
 *   - fewer neighbours with w > 0 than unknowns;
 *   - a Cholesky pivot (the diagonal of the Schur complement, before the square root) at or below
 *     LSMPS_PIVOT_EPS times the largest diagonal entry of M.
 * LSMPS_PIVOT_EPS: the diagonal of M is a sum of up to ~100-200 positive terms; the rounding noise in
 * a pivot that is zero in exact arithmetic is about sqrt(N) u .. N u times the largest diagonal
 * (u = 6e-8 in float, 1.1e-16 in double), i.e. up to ~1e-6 in float and ~2e-14 in double. The
 * threshold sits above that noise with margin: 1e-5 in float, 1e-12 in double. A healthy
 * neighbourhood is far from either: on lattices perturbed by up to 0.2 l0 (re = 2.1 or 3.1 l0,
 * rs = l0, both weights, 2D and 3D) the smallest pivot ratio measured was 0.66 for the first-order
 * fit and 0.22 for the second-order one. With a ratio just above the threshold, the
 * worst-determined coefficient is amplified by up to 1/eps, so its relative error is about u/eps
 * (~1e-2 in float, ~1e-4 in double).
 *
 * The fallback wrappers call the MPS operators of mps_operators.h (k->weight, n0 and lambda0 apply
 * there) when LSMPS returns 0, and return 1 when they fell back, so the caller can count fallbacks.
 *
 * Pair form (mps_operators.h): what a candidate adds to the fit is lsmps_fit_pair; the operators
 * are state machines over sweeps (lsmps_gradient_*: the minimum for the stabilised fit, the fit,
 * the MPS fallback; lsmps2_*: the second-order fit of up to three fields, the MPS fallback), run by
 * the gather loop here and in the passes, and by the CUDA staged kernels. */
#ifndef SLUICE_LSMPS_H
#define SLUICE_LSMPS_H

#include "grid/nbr_grid.h"
#include "base/real.h"
#include "mps_operators.h"
#include "mps_weight.h"

#include <stdint.h>

#define LSMPS_NMAX 9 /* unknowns of the second-order 3D fit */

#ifdef SLUICE_DOUBLE
#define LSMPS_PIVOT_EPS 1e-12
#else
#define LSMPS_PIVOT_EPS 1e-5f
#endif

/* The weight LSMPS uses for a given MPS kernel weight. */
HD static inline int lsmps_weight_kind(int kind)
{
    return kind == MPS_WEIGHT_CUBIC ? MPS_WEIGHT_CUBIC : MPS_WEIGHT_QUADRATIC;
}

/* The scope of the fit: the MPS scope with the weight mapped by lsmps_weight_kind. */
HD static inline mps_scope lsmps_scope_of(const mps_scope *s)
{
    mps_scope f = *s;
    f.k.weight = lsmps_weight_kind(s->k.weight);
    return f;
}

/* Unknowns of the fit of the given order (1 or 2) and dimension. */
HD static inline int lsmps_unknowns(int dim, int order)
{
    if (order == 1)
        return dim;
    return dim == 3 ? 9 : 5;
}

/* The basis at q = r_ij / rs (already scaled): the layout documented above. */
HD static inline void lsmps_basis(int dim, int order, const real q[3], real p[LSMPS_NMAX])
{
    p[0] = q[0];
    p[1] = q[1];
    if (dim == 3) {
        p[2] = q[2];
        if (order == 2) {
            p[3] = q[0] * q[0];
            p[4] = q[1] * q[1];
            p[5] = q[2] * q[2];
            p[6] = q[0] * q[1];
            p[7] = q[1] * q[2];
            p[8] = q[2] * q[0];
        }
    } else if (order == 2) {
        p[2] = q[0] * q[0];
        p[3] = q[0] * q[1];
        p[4] = q[1] * q[1];
    }
}

/* Index of M[a][q], q <= a, in the packed lower triangle. */
#define LSMPS_TRI(a, q) ((a) * ((a) + 1) / 2 + (q))

/* What one neighbour (offset g, weight w, differences dphi[r] of the nrhs fields) adds to the sums
 * of the fit: M += w p p^T (packed lower triangle), b_r += w dphi_r p (row r of b, n entries). */
HD static inline void lsmps_sums_add(int dim, int order, int nrhs, real inv_rs, const mps_pair *g, real w,
                                     const real dphi[3], real *M, real *b)
{
    int n = lsmps_unknowns(dim, order);
    real q3[3] = {g->dx * inv_rs, g->dy * inv_rs, g->dz * inv_rs};
    real p[LSMPS_NMAX];
    lsmps_basis(dim, order, q3, p);
    real wf[3];
    for (int r = 0; r < nrhs; ++r)
        wf[r] = w * dphi[r];
    for (int a = 0; a < n; ++a) {
        real wp = w * p[a];
        for (int r = 0; r < nrhs; ++r)
            b[r * n + a] += wf[r] * p[a];
        for (int q = 0; q <= a; ++q)
            M[LSMPS_TRI(a, q)] += wp * p[q];
    }
}

/* The fit's pair function: neighbour j of i (the scope's filter, the fit's weight, r_ij != 0) adds
 * to the sums of an order-`order` fit of u[r] - base[r], r < nrhs; count counts the neighbours. */
HD static inline void lsmps_fit_pair(const mps_scope *s, int order, real inv_rs, const mps_particle *a, int32_t i,
                                     const mps_particle *b, int32_t j, int nrhs, const real base[3], real *M,
                                     real *bv, int *count)
{
    if (!mps_admits(s->mask, i, b, j))
        return;
    mps_pair g = mps_pair_of(s->dim, s->periodic, a, b);
    int kind = lsmps_weight_kind(s->k.weight);
    if (!(g.r2 > R(0.0)) || !mps_in_domain(kind, s->dim, g.dx, g.dy, g.dz, g.r2, s->k.re))
        return;
    real w = mps_weight(kind, s->dim, g.dx, g.dy, g.dz, g.r2, s->k.re);
    if (!(w > R(0.0)))
        return;
    ++*count;
    real dphi[3];
    for (int r = 0; r < nrhs; ++r)
        dphi[r] = b->u[r] - base[r];
    /* constant sizes in each branch: the CUDA compiler keeps the sums in registers */
    if (s->dim == 3)
        lsmps_sums_add(3, order, nrhs, inv_rs, &g, w, dphi, M, bv);
    else
        lsmps_sums_add(2, order, nrhs, inv_rs, &g, w, dphi, M, bv);
}

/* Solves M a_r = b_r for symmetric M (packed lower triangle, overwritten by the Cholesky factor)
 * and the nrhs right-hand sides (rows of n in b, overwritten by the solutions). Returns 0, with b
 * untouched, when a pivot is at or below LSMPS_PIVOT_EPS times the largest diagonal entry (or not
 * a number). */
HD static inline int lsmps_solve(int n, int nrhs, real *M, real *b)
{
    real dmax = R(0.0);
    for (int a = 0; a < n; ++a)
        if (M[LSMPS_TRI(a, a)] > dmax)
            dmax = M[LSMPS_TRI(a, a)];
    if (!(dmax > R(0.0)))
        return 0;
    real tol = LSMPS_PIVOT_EPS * dmax;
    for (int c = 0; c < n; ++c) {
        real s = M[LSMPS_TRI(c, c)];
        for (int q = 0; q < c; ++q)
            s -= M[LSMPS_TRI(c, q)] * M[LSMPS_TRI(c, q)];
        if (!(s > tol))
            return 0;
        real l = real_sqrt(s);
        M[LSMPS_TRI(c, c)] = l;
        real inv = R(1.0) / l;
        for (int a = c + 1; a < n; ++a) {
            real t = M[LSMPS_TRI(a, c)];
            for (int q = 0; q < c; ++q)
                t -= M[LSMPS_TRI(a, q)] * M[LSMPS_TRI(c, q)];
            M[LSMPS_TRI(a, c)] = t * inv;
        }
    }
    for (int r = 0; r < nrhs; ++r) {
        real *x = b + r * n;
        for (int a = 0; a < n; ++a) { /* L y = b */
            real t = x[a];
            for (int q = 0; q < a; ++q)
                t -= M[LSMPS_TRI(a, q)] * x[q];
            x[a] = t / M[LSMPS_TRI(a, a)];
        }
        for (int a = n - 1; a >= 0; --a) { /* L^T x = y */
            real t = x[a];
            for (int q = a + 1; q < n; ++q)
                t -= M[LSMPS_TRI(q, a)] * x[q];
            x[a] = t / M[LSMPS_TRI(a, a)];
        }
    }
    return 1;
}

/* ---- the first-order gradient ----------------------------------------------------------------- */

enum lsmps_stage {
    LS_MIN, /* phat_i over the fit's domain (stabilised fit) */
    LS_FIT, /* the fit's sums */
    LS_MPS, /* the MPS fallback (mps_gradient_* or the Laplacian's sum) */
    LS_DONE
};

typedef struct lsmps_gradient_op {
    mps_scope s;         /* the neighbours and the MPS weight (the fit maps it: lsmps_weight_kind) */
    real inv_rs;         /* 1 / rs */
    int stabilised_fit;  /* fit p_j - phat_i (phat over the fit's domain) rather than p_j - p_i */
    int fallback;        /* where the fit is singular: -1 no result, 0 the MPS gradient, 1 the
                          * stabilised MPS gradient */
} lsmps_gradient_op;

/* First-order sums: M 3x3 packed, one right-hand side. */
typedef struct lsmps_sums1 {
    real M[6];
    real b[3];
    int count;
} lsmps_sums1;

typedef struct lsmps_gradient_acc {
    int stage;       /* enum lsmps_stage */
    int ok;          /* grad holds the result */
    int fell_back;   /* ... of the MPS gradient */
    real m;          /* the running minimum, then the fit's reference value */
    lsmps_sums1 fit;
    mps_gradient_acc mps;
    real grad[3];
} lsmps_gradient_acc;

HD static inline lsmps_gradient_op lsmps_gradient_op_of(const mps_scope *s, real inv_rs, int stabilised_fit,
                                                       int fallback)
{
    lsmps_gradient_op op;
    op.s = *s;
    op.inv_rs = inv_rs;
    op.stabilised_fit = stabilised_fit;
    op.fallback = fallback;
    return op;
}

HD static inline mps_gradient_op lsmps_fallback_op(const mps_scope *s, int fallback)
{
    mps_gradient_op m;
    m.s = *s;
    m.stabilised = fallback > 0;
    return m;
}

HD static inline int lsmps_gradient_begin(const lsmps_gradient_op *op, const mps_particle *a, lsmps_gradient_acc *s)
{
    s->stage = op->stabilised_fit ? LS_MIN : LS_FIT;
    s->ok = s->fell_back = 0;
    s->m = a->u[0];
    for (int c = 0; c < 6; ++c)
        s->fit.M[c] = R(0.0);
    for (int c = 0; c < 3; ++c)
        s->fit.b[c] = s->grad[c] = R(0.0);
    s->fit.count = 0;
    s->mps.stage = MG_DONE;
    return 1;
}

HD static inline void lsmps_gradient_add(const lsmps_gradient_op *op, const mps_particle *a, int32_t i,
                                         const mps_particle *b, int32_t j, lsmps_gradient_acc *s)
{
    if (s->stage == LS_MIN) {
        mps_scope fs = lsmps_scope_of(&op->s);
        mps_min_pair(&fs, a, i, b, j, &s->m);
    } else if (s->stage == LS_FIT) {
        real base[3] = {s->m, R(0.0), R(0.0)};
        lsmps_fit_pair(&op->s, 1, op->inv_rs, a, i, b, j, 1, base, s->fit.M, s->fit.b, &s->fit.count);
    } else if (s->stage == LS_MPS) {
        mps_gradient_op m = lsmps_fallback_op(&op->s, op->fallback);
        mps_gradient_add(&m, a, i, b, j, &s->mps);
    }
}

HD static inline int lsmps_gradient_next(const lsmps_gradient_op *op, const mps_particle *a, lsmps_gradient_acc *s)
{
    int dim = op->s.dim;
    if (s->stage == LS_MIN) {
        s->stage = LS_FIT;
        return 1;
    }
    if (s->stage == LS_FIT) {
        /* constant sizes in each branch: the CUDA compiler keeps the sums in registers */
        int solved = s->fit.count >= dim &&
                     (dim == 3 ? lsmps_solve(3, 1, s->fit.M, s->fit.b) : lsmps_solve(2, 1, s->fit.M, s->fit.b));
        if (solved) {
            s->grad[0] = s->fit.b[0] * op->inv_rs;
            s->grad[1] = s->fit.b[1] * op->inv_rs;
            s->grad[2] = dim == 3 ? s->fit.b[2] * op->inv_rs : R(0.0);
            s->ok = 1;
        } else if (op->fallback >= 0) {
            mps_gradient_op m = lsmps_fallback_op(&op->s, op->fallback);
            s->fell_back = 1;
            s->stage = LS_MPS;
            return mps_gradient_begin(&m, a, &s->mps);
        }
        s->stage = LS_DONE;
        return 0;
    }
    if (s->stage == LS_MPS) {
        mps_gradient_op m = lsmps_fallback_op(&op->s, op->fallback);
        if (mps_gradient_next(&m, a, &s->mps))
            return 1;
        for (int c = 0; c < 3; ++c)
            s->grad[c] = s->mps.grad[c];
        s->ok = 1;
    }
    s->stage = LS_DONE;
    return 0;
}

/* ---- the second-order fit of up to three fields ----------------------------------------------- */

typedef struct lsmps2_op {
    mps_scope s;
    real inv_rs;
    int nv;         /* fields fitted: u[0..nv) */
    int want_grad;  /* the gradient of u[0] as well as the Laplacians */
    int fallback;   /* where the fit is singular: -1 no result; otherwise the MPS Laplacians (and
                     * the MPS gradient, stabilised when fallback is 1) */
} lsmps2_op;

/* Second-order sums: M 9x9 packed, three right-hand sides. */
typedef struct lsmps_sums2 {
    real M[LSMPS_TRI(LSMPS_NMAX, 0)];
    real b[3 * LSMPS_NMAX];
    int count;
} lsmps_sums2;

typedef struct lsmps2_acc {
    int stage;      /* enum lsmps_stage */
    int ok;
    int fell_back;
    lsmps_sums2 fit;
    mps_gradient_acc mps;
    real lsum[3];   /* the MPS Laplacians' sums */
    real grad[3];   /* of u[0] */
    real lap[3];    /* of u[0..nv) */
} lsmps2_acc;

HD static inline lsmps2_op lsmps2_op_of(const mps_scope *s, real inv_rs, int nv, int want_grad, int fallback)
{
    lsmps2_op op;
    op.s = *s;
    op.inv_rs = inv_rs;
    op.nv = nv;
    op.want_grad = want_grad;
    op.fallback = fallback;
    return op;
}

HD static inline int lsmps2_begin(const lsmps2_op *op, const mps_particle *a, lsmps2_acc *s)
{
    (void)op;
    (void)a;
    s->stage = LS_FIT;
    s->ok = s->fell_back = 0;
    for (int c = 0; c < LSMPS_TRI(LSMPS_NMAX, 0); ++c)
        s->fit.M[c] = R(0.0);
    for (int c = 0; c < 3 * LSMPS_NMAX; ++c)
        s->fit.b[c] = R(0.0);
    s->fit.count = 0;
    for (int c = 0; c < 3; ++c)
        s->lsum[c] = s->grad[c] = s->lap[c] = R(0.0);
    s->mps.stage = MG_DONE;
    return 1;
}

HD static inline void lsmps2_add(const lsmps2_op *op, const mps_particle *a, int32_t i, const mps_particle *b,
                                 int32_t j, lsmps2_acc *s)
{
    if (s->stage == LS_FIT) {
        lsmps_fit_pair(&op->s, 2, op->inv_rs, a, i, b, j, op->nv, a->u, s->fit.M, s->fit.b, &s->fit.count);
    } else if (s->stage == LS_MPS) {
        if (op->want_grad) {
            mps_gradient_op m = lsmps_fallback_op(&op->s, op->fallback);
            mps_gradient_add(&m, a, i, b, j, &s->mps);
        }
        if (!op->want_grad || s->mps.stage == MG_SUM) /* the Laplacians in the gradient's last sweep */
            mps_laplacian_pair(&op->s, a, i, b, j, op->nv, s->lsum);
    }
}

HD static inline int lsmps2_next(const lsmps2_op *op, const mps_particle *a, lsmps2_acc *s)
{
    int dim = op->s.dim, n = lsmps_unknowns(dim, 2);
    if (s->stage == LS_FIT) {
        if (s->fit.count >= n && lsmps_solve(n, op->nv, s->fit.M, s->fit.b)) {
            real inv_rs = op->inv_rs;
            const real *c0 = s->fit.b;
            s->grad[0] = c0[0] * inv_rs;
            s->grad[1] = c0[1] * inv_rs;
            s->grad[2] = dim == 3 ? c0[2] * inv_rs : R(0.0);
            for (int r = 0; r < op->nv; ++r) {
                const real *c = s->fit.b + r * n;
                s->lap[r] = dim == 3 ? R(2.0) * (c[3] + c[4] + c[5]) * inv_rs * inv_rs
                                     : R(2.0) * (c[2] + c[4]) * inv_rs * inv_rs;
            }
            s->ok = 1;
        } else if (op->fallback >= 0) {
            s->fell_back = 1;
            s->stage = LS_MPS;
            if (op->want_grad) {
                mps_gradient_op m = lsmps_fallback_op(&op->s, op->fallback);
                mps_gradient_begin(&m, a, &s->mps);
            }
            return 1;
        }
        s->stage = LS_DONE;
        return 0;
    }
    if (s->stage == LS_MPS) {
        if (op->want_grad) {
            mps_gradient_op m = lsmps_fallback_op(&op->s, op->fallback);
            if (mps_gradient_next(&m, a, &s->mps))
                return 1;
            for (int c = 0; c < 3; ++c)
                s->grad[c] = s->mps.grad[c];
        }
        real f = mps_laplacian_factor(&op->s);
        for (int r = 0; r < op->nv; ++r)
            s->lap[r] = f * s->lsum[r];
        s->ok = 1;
    }
    s->stage = LS_DONE;
    return 0;
}

/* ---- operators of one particle over a view ---------------------------------------------------- */

/* The first-order gradient operator; returns acc->ok, with the result in grad when ok. */
HD static inline int lsmps_gradient_run(const lsmps_gradient_op *op, const mps_view *v, const nbr_view *nb,
                                        const real *phi, int32_t i, lsmps_gradient_acc *acc, real grad[3])
{
    mps_particle a = mps_load(v, phi, 0, 0, i);
    MPS_GATHER(lsmps_gradient, op, nb, i, &a, acc, mps_load(v, phi, 0, 0, j));
    if (acc->ok)
        for (int c = 0; c < 3; ++c)
            grad[c] = acc->grad[c];
    return acc->ok;
}

/* The second-order operator of phi; returns acc->ok, with the results in grad (when asked) and lap. */
HD static inline int lsmps2_run(const lsmps2_op *op, const mps_view *v, const nbr_view *nb, const real *phi,
                                int32_t i, lsmps2_acc *acc, real grad[3], real *lap)
{
    mps_particle a = mps_load(v, phi, 0, 0, i);
    MPS_GATHER(lsmps2, op, nb, i, &a, acc, mps_load(v, phi, 0, 0, j));
    if (acc->ok) {
        if (grad)
            for (int c = 0; c < 3; ++c)
                grad[c] = acc->grad[c];
        *lap = acc->lap[0];
    }
    return acc->ok;
}

/* First-order LSMPS gradient. Returns 1 on success, 0 (grad untouched) when rank-deficient.
 * grad[2] = 0 in 2D. */
HD static inline int lsmps_gradient(const mps_view *v, const nbr_view *nb, const mps_kernel *k, real rs,
                                    const real *phi, int32_t i, real grad[3])
{
    mps_scope s = mps_scope_of(v, k);
    lsmps_gradient_op op = lsmps_gradient_op_of(&s, R(1.0) / rs, 0, -1);
    lsmps_gradient_acc acc;
    return lsmps_gradient_run(&op, v, nb, phi, i, &acc, grad);
}

/* Second-order LSMPS gradient and Laplacian. Returns 1 on success, 0 (outputs untouched) when
 * rank-deficient. grad[2] = 0 in 2D. */
HD static inline int lsmps_gradient_laplacian(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                              real rs, const real *phi, int32_t i, real grad[3],
                                              real *lap)
{
    mps_scope s = mps_scope_of(v, k);
    lsmps2_op op = lsmps2_op_of(&s, R(1.0) / rs, 1, 1, -1);
    lsmps2_acc acc;
    return lsmps2_run(&op, v, nb, phi, i, &acc, grad, lap);
}

/* First-order LSMPS gradient, or the MPS gradient (stabilised as asked) where LSMPS is
 * rank-deficient. Returns 1 when it fell back to MPS, 0 otherwise. */
HD static inline int lsmps_or_mps_gradient(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                           real rs, const real *phi, int stabilised, int32_t i,
                                           real grad[3])
{
    mps_scope s = mps_scope_of(v, k);
    lsmps_gradient_op op = lsmps_gradient_op_of(&s, R(1.0) / rs, 0, stabilised != 0);
    lsmps_gradient_acc acc;
    lsmps_gradient_run(&op, v, nb, phi, i, &acc, grad);
    return acc.fell_back;
}

/* Stabilised first-order LSMPS pressure gradient: the fit of p_j - phat_i with no constant term,
 * phat_i = min(p_i, min_j p_j) over the neighbours in the domain. This is Koshizuka & Oka's (1996)
 * stabilisation of the MPS gradient carried over to the least-squares gradient, as done in the
 * LSMPS-based semi-implicit solvers (Tamai & Koshizuka 2014, the pressure gradient of their
 * incompressible-flow examples; Matsunaga, Soedersten, Shibata & Koshizuka 2020, Comput. Methods
 * Appl. Mech. Engrg. 358:112624). Without a constant term in the basis the offset p_i - phat_i >= 0
 * enters the linear coefficients through M^-1 sum_j w_ij p(r_ij): zero where the neighbourhood is
 * symmetric (the gradient of a linear field stays exact on a regular lattice), and pointing towards
 * the side with more (or closer) neighbours where it is not, so -grad p pushes a particle away from
 * crowded neighbours: the repulsion that keeps particles from clustering, which the plain
 * first-order gradient lacks. (The hydrostatic tank stays at rest with either gradient; what made it
 * unstable was the viscous LSMPS Laplacian near the surface, see lsmps_full_support.) Returns 1 on
 * success, 0 (grad untouched) when rank-deficient. */
HD static inline int lsmps_stabilised_gradient(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                               real rs, const real *phi, int32_t i, real grad[3])
{
    mps_scope s = mps_scope_of(v, k);
    lsmps_gradient_op op = lsmps_gradient_op_of(&s, R(1.0) / rs, 1, -1);
    lsmps_gradient_acc acc;
    return lsmps_gradient_run(&op, v, nb, phi, i, &acc, grad);
}

/* Whether particle i's neighbourhood fills the domain of k: its number density at k's radius (the
 * neighbours that v's filter admits) is at least beta n0 for that radius. Where it does not (within
 * about re of a free surface) the second-order fit takes the curvature from neighbours on one side:
 * the system stays regular, but the Laplacian's weights grow, and an explicit viscous step
 * dt = 0.2 l0^2/nu that is stable with the MPS Laplacian is not stable with them (the hydrostatic
 * tank of scenes/hydrostatic_2d_mps.cfg with the LSMPS viscous term reached 10 m/s by t = 0.2 s, the
 * surface particles moving first). The callers use the MPS Laplacian there. */
HD static inline int lsmps_full_support(const mps_view *v, const nbr_view *nb, const mps_kernel *k, real beta,
                                        int32_t i)
{
    return mps_number_density(v, nb, k, i) >= beta * k->n0;
}

/* Second-order LSMPS Laplacian, or the MPS Laplacian where LSMPS is rank-deficient. Returns 1 when
 * it fell back to MPS, 0 otherwise. */
HD static inline int lsmps_or_mps_laplacian(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                            real rs, const real *phi, int32_t i, real *lap)
{
    mps_scope s = mps_scope_of(v, k);
    lsmps2_op op = lsmps2_op_of(&s, R(1.0) / rs, 1, 0, 0);
    lsmps2_acc acc;
    lsmps2_run(&op, v, nb, phi, i, &acc, NULL, lap);
    return acc.fell_back;
}

/* Both from one second-order fit, or both from MPS where it is rank-deficient (one sweep instead of
 * two when the scheme needs the gradient and the Laplacian of the same field). Returns 1 when it
 * fell back to MPS, 0 otherwise. */
HD static inline int lsmps_or_mps_gradient_laplacian(const mps_view *v, const nbr_view *nb,
                                                     const mps_kernel *k, real rs, const real *phi,
                                                     int stabilised, int32_t i, real grad[3], real *lap)
{
    mps_scope s = mps_scope_of(v, k);
    lsmps2_op op = lsmps2_op_of(&s, R(1.0) / rs, 1, 1, stabilised != 0);
    lsmps2_acc acc;
    lsmps2_run(&op, v, nb, phi, i, &acc, grad, lap);
    return acc.fell_back;
}

#endif
