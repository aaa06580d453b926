/* mdbc.h: the formulas of modified dynamic boundary conditions (mDBC; English, Dominguez, Vacondio,
 * Crespo, Stansby, Lind, Chiapponi & Gomez-Gesteira 2022, Comp. Part. Mech. 9:1-15), host-device.
 *
 * Each boundary particle b has a ghost node g, its mirror image across the wall surface into the
 * fluid (x_g = x_b + 2 d n; boundary/mdbc.c places them). The density at g is interpolated from the
 * fluid particles j around it with the first-order consistent, kernel-gradient-corrected SPH
 * interpolation (Liu & Liu 2006, Appl. Numer. Math. 56:19, eqs. 14-15; the paper's eqs. 7-9): the
 * Taylor expansion f_j = f_g + (x_j - x_g) . grad f_g, multiplied by V_j W_gj and by V_j grad_g W_gj
 * and summed over j, gives dim + 1 equations for (f_g, grad f_g):
 *
 *   [ sum V W        sum V (x_j - x_g)^T W       ] [ f_g      ]   [ sum V f_j W      ]
 *   [ sum V grad W   sum V grad W (x_j - x_g)^T  ] [ grad f_g ] = [ sum V f_j grad W ]
 *
 * (3x3 in 2D, 4x4 in 3D; grad W = grad_g W(x_g - x_j), V_j = m / rho_j, f = rho so V_j f_j = m).
 * It is exact for a field linear in space whatever the neighbour layout, as long as the matrix is
 * regular. The boundary particle takes the value extrapolated back along the mirror line:
 *   rho_b = rho_g + (x_b - x_g) . grad rho_g                                      (paper, eq. 10).
 * Where the matrix is close to singular (few fluid neighbours, all on one side: near the free
 * surface or at the front of a flow over a dry wall), |det A| < MDBC_DET_MIN, the zeroth-order
 * (Shepard) value sum m W / sum V W is taken instead; without any fluid neighbour, rho0. The
 * determinant is free of units: an entry (r, c) scales as length^((c > 0) - (r > 0)) and every term
 * of the determinant takes each row and column once, so the powers cancel; with a full kernel
 * support A is close to the identity and det A close to 1. The threshold 1e-3 is DualSPHysics's
 * (its mDBC correction, `determlimit`, the value for first order). */
#ifndef SLUICE_PHYSICS_MDBC_H
#define SLUICE_PHYSICS_MDBC_H

#include "base/real.h"

#define MDBC_DET_MIN 1e-3

/* The sums of one ghost node, in double: a few dozen terms of mixed sign whose near-cancellation
 * (the off-diagonal moments of a full support are zero) the solve must see. Row and column 0 are
 * the value, 1..dim the gradient's components. */
typedef struct mdbc_sums {
    double a[4][4];
    double b[4];
} mdbc_sums;

HD static inline void mdbc_sums_zero(mdbc_sums *s)
{
    for (int r = 0; r < 4; ++r) {
        s->b[r] = 0.0;
        for (int k = 0; k < 4; ++k)
            s->a[r][k] = 0.0;
    }
}

/* Adds neighbour j: d = x_g - x_j (d[2] = 0 in 2D, which leaves row and column 3 zero: the 2D system
 * is the leading 3x3 block), w = W(|d|), gf = (dW/dr)/r so that grad_g W = gf d (sph_kernel.h),
 * vol = V_j, value = f_j. The loops have constant bounds, so a GPU compiler keeps the sums in
 * registers (with bounds of dim + 1 they went to local memory: 3x slower). */
HD static inline void mdbc_sums_add(mdbc_sums *s, real w, real gf, const real d[3], real vol, double value)
{
    double vw = (double)vol * (double)w, vg = (double)vol * (double)gf;
    double t[4] = {vw, vg * (double)d[0], vg * (double)d[1], vg * (double)d[2]}; /* V W, V grad W */
    double m[4] = {1.0, -(double)d[0], -(double)d[1], -(double)d[2]};             /* 1, x_j - x_g */
    for (int r = 0; r < 4; ++r) {
        s->b[r] += t[r] * value;
        for (int k = 0; k < 4; ++k)
            s->a[r][k] += t[r] * m[k];
    }
}

/* The right-hand side of another field g over the same neighbours (the matrix is the same): adds
 * neighbour j's V W g_j, V grad W g_j to rhs, with w, gf, d, vol as mdbc_sums_add takes them. */
HD static inline void mdbc_rhs_add(double rhs[4], real w, real gf, const real d[3], real vol, double value)
{
    double vw = (double)vol * (double)w, vg = (double)vol * (double)gf;
    rhs[0] += vw * value;
    for (int k = 0; k < 3; ++k)
        rhs[1 + k] += vg * (double)d[k] * value;
}

/* Solves the (dim+1) x (dim+1) system of s's matrix and right-hand side rhs by Gaussian elimination
 * with partial pivoting; x[0] = f_g, x[1..dim] = grad f_g. Returns the determinant (0 when a pivot
 * is exactly zero, x then unset). */
HD static inline double mdbc_solve_rhs(const mdbc_sums *s, const double rhs[4], int dim, double x[4])
{
    int n = dim + 1;
    double a[4][5];
    for (int r = 0; r < n; ++r) {
        for (int k = 0; k < n; ++k)
            a[r][k] = s->a[r][k];
        a[r][n] = rhs[r];
    }
    double det = 1.0;
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r)
            if ((a[r][c] < 0 ? -a[r][c] : a[r][c]) > (a[p][c] < 0 ? -a[p][c] : a[p][c]))
                p = r;
        if (a[p][c] == 0.0)
            return 0.0;
        if (p != c) {
            for (int k = c; k <= n; ++k) {
                double tmp = a[c][k];
                a[c][k] = a[p][k];
                a[p][k] = tmp;
            }
            det = -det;
        }
        det *= a[c][c];
        for (int r = c + 1; r < n; ++r) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k <= n; ++k)
                a[r][k] -= f * a[c][k];
        }
    }
    for (int r = n - 1; r >= 0; --r) {
        double v = a[r][n];
        for (int k = r + 1; k < n; ++k)
            v -= a[r][k] * x[k];
        x[r] = v / a[r][r];
    }
    return det;
}

/* The system of s itself (the density's). */
HD static inline double mdbc_solve(const mdbc_sums *s, int dim, double x[4])
{
    return mdbc_solve_rhs(s, s->b, dim, x);
}

/* The value of the field whose right-hand side is rhs at the ghost node itself: first order where
 * det A is large enough, else Shepard's rhs[0] / sum V W, else `fallback`. */
HD static inline double mdbc_ghost_value(const mdbc_sums *s, const double rhs[4], int dim, double fallback)
{
    double x[4] = {0.0, 0.0, 0.0, 0.0};
    double det = mdbc_solve_rhs(s, rhs, dim, x);
    if ((det < 0 ? -det : det) >= MDBC_DET_MIN && x[0] == x[0])
        return x[0];
    return s->a[0][0] > 0.0 ? rhs[0] / s->a[0][0] : fallback;
}

/* How a boundary particle's value was found (mdbc_extrapolate's return). */
enum mdbc_order { MDBC_NONE, MDBC_SHEPARD, MDBC_FIRST_ORDER };

/* The value at the boundary particle, xb_g = x_b - x_g, from its ghost node's sums: first order
 * where det A is large enough (and the result finite and positive: a density), else the Shepard
 * value, else `fallback` (no fluid around the ghost node). */
HD static inline real mdbc_extrapolate(const mdbc_sums *s, int dim, const real xb_g[3], real fallback, int *order)
{
    double x[4] = {0.0, 0.0, 0.0, 0.0};
    double det = mdbc_solve(s, dim, x);
    if ((det < 0 ? -det : det) >= MDBC_DET_MIN) {
        double v = x[0];
        for (int k = 0; k < dim; ++k)
            v += (double)xb_g[k] * x[1 + k];
        if (v > 0.0 && v < 1e300) { /* also false for NaN */
            *order = MDBC_FIRST_ORDER;
            return (real)v;
        }
    }
    if (s->a[0][0] > 0.0) {
        *order = MDBC_SHEPARD;
        return (real)(s->b[0] / s->a[0][0]);
    }
    *order = MDBC_NONE;
    return fallback;
}

/* The pressure of a boundary particle from that of its extrapolated density: at least 0, so that a
 * wall particle never pulls fluid (the density itself is not clamped; see boundary/mdbc.c). */
HD static inline real mdbc_wall_pressure(real p_eos)
{
    return p_eos > R(0.0) ? p_eos : R(0.0);
}

#endif
