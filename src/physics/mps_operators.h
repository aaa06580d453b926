/* mps_operators.h: the MPS particle interaction models of one particle i (gather form: they read the
 * neighbours and return particle i's value; nothing else is written).
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
 * class passes the filter of mps_view, and it lies in the weight's domain (mps_in_domain). The
 * grid's cells must be built with r_max >= re: the runs then cover the cube |x_ij,a| < re, which
 * contains the spherical domains and is the cubic one. A neighbour at r_ij = 0 has no direction and
 * is skipped by the gradient (it still counts in n_i for the QUADRATIC and CUBIC weights).
 *
 * Everything is HD static inline with no allocation, no globals and no recursion: the CPU loops and
 * the CUDA kernels call the same code. */
#ifndef SLUICE_MPS_OPERATORS_H
#define SLUICE_MPS_OPERATORS_H

#include "../nbr_grid.h"
#include "../real.h"
#include "mps_weight.h"

#include <stdint.h>

/* Positions and the neighbour filter. Neighbour j counts iff cls == NULL or cls[j] < 32 and
 * (mask >> cls[j]) & 1; j == i never counts. In 2D z may be NULL (it is not read). */
typedef struct mps_view {
    const real *x, *y, *z;
    const uint8_t *cls;
    unsigned mask;
    int dim;
} mps_view;

/* The weight (enum mps_weight_kind), its radius, and the lattice constants for that weight. */
typedef struct mps_kernel {
    int weight;
    real re;
    real n0;
    real lambda0;
} mps_kernel;

/* Whether neighbour j passes the filter of v (the domain test is separate). */
HD static inline int mps_counts(const mps_view *v, int32_t i, int32_t j)
{
    if (j == i)
        return 0;
    if (!v->cls)
        return 1;
    unsigned c = v->cls[j];
    return c < 32u && ((v->mask >> c) & 1u);
}

/* r_ij = x_j - x_i into d[3]; returns |r_ij|^2. */
HD static inline real mps_rel(const mps_view *v, int32_t i, int32_t j, real d[3])
{
    d[0] = v->x[j] - v->x[i];
    d[1] = v->y[j] - v->y[i];
    d[2] = v->dim == 3 ? v->z[j] - v->z[i] : R(0.0);
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

/* Runs the statements after the arguments for every neighbour j != i of i that the view's filter
 * admits and that lies inside the weight's domain with w > 0; they see j, dx, dy, dz (x_j - x_i),
 * r2 and w. `continue` skips to the next neighbour. */
#define MPS_FOR_NEIGHBOURS(v, nb, k, i, ...)                                                      \
    do {                                                                                          \
        NBR_FOR_CANDIDATES(nb, i, j, {                                                            \
            if (!mps_counts(v, i, j))                                                             \
                continue;                                                                         \
            real d_[3];                                                                           \
            real r2 = mps_rel(v, i, j, d_);                                                       \
            real dx = d_[0], dy = d_[1], dz = d_[2];                                              \
            real w = mps_in_domain((k)->weight, (v)->dim, dx, dy, dz, r2, (k)->re)                \
                         ? mps_weight((k)->weight, (v)->dim, dx, dy, dz, r2, (k)->re)             \
                         : R(0.0);                                                                \
            if (!(w > R(0.0)))                                                                    \
                continue;                                                                         \
            __VA_ARGS__                                                                           \
        });                                                                                       \
    } while (0)

/* n_i = sum_j w_ij. */
HD static inline real mps_number_density(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                         int32_t i)
{
    real n = R(0.0);
    MPS_FOR_NEIGHBOURS(v, nb, k, i, { (void)dx; (void)dy; (void)dz; (void)r2; n += w; });
    return n;
}

/* phihat_i = min(phi_i, phi_j over the counted neighbours in the domain). */
HD static inline real mps_min_neighbour(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                        const real *phi, int32_t i)
{
    real m = phi[i];
    MPS_FOR_NEIGHBOURS(v, nb, k, i, {
        (void)dx; (void)dy; (void)dz; (void)r2; (void)w;
        if (phi[j] < m)
            m = phi[j];
    });
    return m;
}

/* <grad phi>_i; stabilised != 0 uses phihat_i = min(phi_i, min_j phi_j) (one extra sweep).
 * grad[2] = 0 in 2D. */
HD static inline void mps_gradient(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                   const real *phi, int stabilised, int32_t i, real grad[3])
{
    real phat = stabilised ? mps_min_neighbour(v, nb, k, phi, i) : phi[i];
    real gx = R(0.0), gy = R(0.0), gz = R(0.0);
    MPS_FOR_NEIGHBOURS(v, nb, k, i, {
        if (!(r2 > R(0.0)))
            continue;
        real s = (phi[j] - phat) * w / r2;
        gx += s * dx;
        gy += s * dy;
        gz += s * dz;
    });
    real f = (real)v->dim / k->n0;
    grad[0] = f * gx;
    grad[1] = f * gy;
    grad[2] = v->dim == 3 ? f * gz : R(0.0);
}

/* <lap phi>_i = 2d/(lambda0 n0) sum_j (phi_j - phi_i) w_ij. */
HD static inline real mps_laplacian(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                    const real *phi, int32_t i)
{
    real s = R(0.0);
    real pi = phi[i];
    MPS_FOR_NEIGHBOURS(v, nb, k, i, { (void)dx; (void)dy; (void)dz; (void)r2; s += (phi[j] - pi) * w; });
    return R(2.0) * (real)v->dim / (k->lambda0 * k->n0) * s;
}

/* The Laplacian of the vector field (fx, fy, fz) in one sweep; fz may be NULL in 2D (out[2] = 0). */
HD static inline void mps_laplacian3(const mps_view *v, const nbr_view *nb, const mps_kernel *k,
                                     const real *fx, const real *fy, const real *fz, int32_t i,
                                     real out[3])
{
    int three = v->dim == 3 && fz != NULL;
    real sx = R(0.0), sy = R(0.0), sz = R(0.0);
    real xi = fx[i], yi = fy[i], zi = three ? fz[i] : R(0.0);
    MPS_FOR_NEIGHBOURS(v, nb, k, i, {
        (void)dx; (void)dy; (void)dz; (void)r2;
        sx += (fx[j] - xi) * w;
        sy += (fy[j] - yi) * w;
        if (three)
            sz += (fz[j] - zi) * w;
    });
    real f = R(2.0) * (real)v->dim / (k->lambda0 * k->n0);
    out[0] = f * sx;
    out[1] = f * sy;
    out[2] = three ? f * sz : R(0.0);
}

#endif
