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
 * The system is symmetric positive semi-definite; it is solved by Cholesky in fixed-size local
 * arrays (at most 9x9). Rank deficiency (free surface, few neighbours, neighbours on a line or a
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
 * there) when LSMPS returns 0, and return 1 when they fell back, so the caller can count fallbacks. */
#ifndef SLUICE_LSMPS_H
#define SLUICE_LSMPS_H

#include "../nbr_grid.h"
#include "../real.h"
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

/* Solves M a = b for symmetric M (lower triangle read, overwritten by the Cholesky factor); b is
 * overwritten by a. Returns 0, with b partly overwritten, when a pivot is at or below
 * LSMPS_PIVOT_EPS times the largest diagonal entry (or not a number). */
HD static inline int lsmps_cholesky_solve(int n, real M[LSMPS_NMAX][LSMPS_NMAX], real b[LSMPS_NMAX])
{
    real dmax = R(0.0);
    for (int a = 0; a < n; ++a)
        if (M[a][a] > dmax)
            dmax = M[a][a];
    if (!(dmax > R(0.0)))
        return 0;
    real tol = LSMPS_PIVOT_EPS * dmax;
    for (int c = 0; c < n; ++c) {
        real s = M[c][c];
        for (int q = 0; q < c; ++q)
            s -= M[c][q] * M[c][q];
        if (!(s > tol))
            return 0;
        real l = real_sqrt(s);
        M[c][c] = l;
        real inv = R(1.0) / l;
        for (int a = c + 1; a < n; ++a) {
            real t = M[a][c];
            for (int q = 0; q < c; ++q)
                t -= M[a][q] * M[c][q];
            M[a][c] = t * inv;
        }
    }
    for (int a = 0; a < n; ++a) { /* L y = b */
        real t = b[a];
        for (int q = 0; q < a; ++q)
            t -= M[a][q] * b[q];
        b[a] = t / M[a][a];
    }
    for (int a = n - 1; a >= 0; --a) { /* L^T x = y */
        real t = b[a];
        for (int q = a + 1; q < n; ++q)
            t -= M[q][a] * b[q];
        b[a] = t / M[a][a];
    }
    return 1;
}

/* The least-squares fit of order 1 or 2 around particle i of phi_j - base (base = phi_i for the
 * LSMPS operators): coef gets the n unknowns (the basis layout above). Returns n on success, 0 when
 * the neighbourhood is rank-deficient. */
HD static inline int lsmps_fit_relative(const mps_view *v, const nbr_view *nb, const mps_kernel *k, real rs,
                                        const real *phi, real base, int32_t i, int order,
                                        real coef[LSMPS_NMAX])
{
    int dim = v->dim;
    int n = lsmps_unknowns(dim, order);
    int kind = lsmps_weight_kind(k->weight);
    real inv_rs = R(1.0) / rs;
    real M[LSMPS_NMAX][LSMPS_NMAX];
    real b[LSMPS_NMAX];
    for (int a = 0; a < n; ++a) {
        b[a] = R(0.0);
        for (int q = 0; q <= a; ++q)
            M[a][q] = R(0.0);
    }
    int count = 0;
    real pi = base;
    NBR_FOR_CANDIDATES(nb, i, j, {
        if (!mps_counts(v, i, j))
            continue;
        real d[3];
        real r2 = mps_rel(v, i, j, d);
        if (!(r2 > R(0.0)) || !mps_in_domain(kind, dim, d[0], d[1], d[2], r2, k->re))
            continue;
        real w = mps_weight(kind, dim, d[0], d[1], d[2], r2, k->re);
        if (!(w > R(0.0)))
            continue;
        ++count;
        real q3[3] = {d[0] * inv_rs, d[1] * inv_rs, d[2] * inv_rs};
        real p[LSMPS_NMAX];
        lsmps_basis(dim, order, q3, p);
        real wf = w * (phi[j] - pi);
        for (int a = 0; a < n; ++a) {
            real wp = w * p[a];
            b[a] += wf * p[a];
            for (int q = 0; q <= a; ++q)
                M[a][q] += wp * p[q];
        }
    });
    if (count < n || !lsmps_cholesky_solve(n, M, b))
        return 0;
    for (int a = 0; a < n; ++a)
        coef[a] = b[a];
    return n;
}

/* The fit of phi_j - phi_i (the LSMPS operators proper). */
HD static inline int lsmps_fit(const mps_view *v, const nbr_view *nb, const mps_kernel *k, real rs,
                               const real *phi, int32_t i, int order, real coef[LSMPS_NMAX])
{
    return lsmps_fit_relative(v, nb, k, rs, phi, phi[i], i, order, coef);
}

/* The first-order fit of phi_j - ref (no constant term) as a gradient. Returns 1 on success, 0
 * (grad untouched) when rank-deficient. grad[2] = 0 in 2D. */
HD static inline int lsmps_gradient_relative(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                             real rs, const real *phi, real ref, int32_t i, real grad[3])
{
    real a[LSMPS_NMAX];
    if (!lsmps_fit_relative(v, nb, k, rs, phi, ref, i, 1, a))
        return 0;
    real inv_rs = R(1.0) / rs;
    grad[0] = a[0] * inv_rs;
    grad[1] = a[1] * inv_rs;
    grad[2] = v->dim == 3 ? a[2] * inv_rs : R(0.0);
    return 1;
}

/* First-order LSMPS gradient. Returns 1 on success, 0 (grad untouched) when rank-deficient.
 * grad[2] = 0 in 2D. */
HD static inline int lsmps_gradient(const mps_view *v, const nbr_view *nb, const mps_kernel *k, real rs,
                                    const real *phi, int32_t i, real grad[3])
{
    return lsmps_gradient_relative(v, nb, k, rs, phi, phi[i], i, grad);
}

/* Second-order LSMPS gradient and Laplacian. Returns 1 on success, 0 (outputs untouched) when
 * rank-deficient. grad[2] = 0 in 2D. */
HD static inline int lsmps_gradient_laplacian(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                              real rs, const real *phi, int32_t i, real grad[3],
                                              real *lap)
{
    real a[LSMPS_NMAX];
    if (!lsmps_fit(v, nb, k, rs, phi, i, 2, a))
        return 0;
    real inv_rs = R(1.0) / rs;
    grad[0] = a[0] * inv_rs;
    grad[1] = a[1] * inv_rs;
    if (v->dim == 3) {
        grad[2] = a[2] * inv_rs;
        *lap = R(2.0) * (a[3] + a[4] + a[5]) * inv_rs * inv_rs;
    } else {
        grad[2] = R(0.0);
        *lap = R(2.0) * (a[2] + a[4]) * inv_rs * inv_rs;
    }
    return 1;
}

/* First-order LSMPS gradient, or the MPS gradient (stabilised as asked) where LSMPS is
 * rank-deficient. Returns 1 when it fell back to MPS, 0 otherwise. */
HD static inline int lsmps_or_mps_gradient(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                           real rs, const real *phi, int stabilised, int32_t i,
                                           real grad[3])
{
    if (lsmps_gradient(v, nb, k, rs, phi, i, grad))
        return 0;
    mps_gradient(v, nb, k, phi, stabilised, i, grad);
    return 1;
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
    mps_kernel kl = *k;
    kl.weight = lsmps_weight_kind(k->weight); /* phat over the fit's own domain */
    return lsmps_gradient_relative(v, nb, k, rs, phi, mps_min_neighbour(v, nb, &kl, phi, i), i, grad);
}

/* The stabilised LSMPS gradient, or the stabilised MPS gradient where LSMPS is rank-deficient.
 * Returns 1 when it fell back to MPS, 0 otherwise. */
HD static inline int lsmps_or_mps_stabilised_gradient(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                                      real rs, const real *phi, int32_t i, real grad[3])
{
    if (lsmps_stabilised_gradient(v, nb, k, rs, phi, i, grad))
        return 0;
    mps_gradient(v, nb, k, phi, 1, i, grad);
    return 1;
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
    real g[3];
    if (lsmps_gradient_laplacian(v, nb, k, rs, phi, i, g, lap))
        return 0;
    *lap = mps_laplacian(v, nb, k, phi, i);
    return 1;
}

/* Both from one second-order fit, or both from MPS where it is rank-deficient (one sweep instead of
 * two when the scheme needs the gradient and the Laplacian of the same field). Returns 1 when it
 * fell back to MPS, 0 otherwise. */
HD static inline int lsmps_or_mps_gradient_laplacian(const mps_view *v, const nbr_view *nb,
                                                     const mps_kernel *k, real rs, const real *phi,
                                                     int stabilised, int32_t i, real grad[3], real *lap)
{
    if (lsmps_gradient_laplacian(v, nb, k, rs, phi, i, grad, lap))
        return 0;
    mps_gradient(v, nb, k, phi, stabilised, i, grad);
    *lap = mps_laplacian(v, nb, k, phi, i);
    return 1;
}

#endif
