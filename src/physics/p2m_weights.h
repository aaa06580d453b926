/* p2m_weights.h: B-spline weights of particle-to-mesh spreading, one particle and one grid axis at a
 * time, and a node's fields from its sums. Host-device: the OpenMP spreading (src/io/p2m_grid.c) and the
 * CUDA one (src/gpu/p2m_cuda.cu) call the same code.
 *
 * A particle at grid coordinate u (position - origin, in node spacings) gives node i the weight
 * M_p(u - i) per axis, M_p the cardinal B-spline of order p (degree p - 1; Hockney & Eastwood,
 * "Computer Simulation Using Particles", 1988, sec. 5-3: NGP p = 1, CIC p = 2, TSC p = 3, and the
 * cubic p = 4). M_p is non-zero on p nodes, the stencil i0 .. i0 + p - 1. The weights are written
 * in the offset t of u from a base node b, so they sum to 1 for any t (partition of unity: the
 * mass on the grid is the particles' mass):
 *   p = 1: b = round(u), i0 = b;     w0 = 1
 *   p = 2: b = floor(u), i0 = b;     w0 = 1 - t, w1 = t
 *   p = 3: b = round(u), i0 = b - 1; w0 = (1/2 - t)^2 / 2, w1 = 3/4 - t^2, w2 = (1/2 + t)^2 / 2
 *   p = 4: b = floor(u), i0 = b - 1; w0 = (1 - t)^3 / 6, w1 = (3t^3 - 6t^2 + 4) / 6,
 *                                    w2 = (-3t^3 + 3t^2 + 3t + 1) / 6, w3 = t^3 / 6
 * Weights are in double: the total mass then holds to ~1e-15 in both builds. */
#ifndef SLUICE_P2M_WEIGHTS_H
#define SLUICE_P2M_WEIGHTS_H

#include "base/real.h"

#include <math.h>

#define P2M_MAX_ORDER 4

/* Plain description of the grid, valid on the host and the device. Node (i, j, k) sits at
 * origin + spacing * (i, j, k) and has the linear index i + n[0] (j + n[1] k): x runs fastest. */
typedef struct p2m_layout {
    int dim, order;
    int n[3];          /* nodes per axis; n[2] = 1 in 2D */
    double origin[3];  /* m */
    double spacing;    /* m */
} p2m_layout;

/* First stencil node i0 of a particle at grid coordinate u, and its offset t from the base node. */
HD static inline long p2m_stencil(int order, double u, double *t)
{
    double b = (order & 1) ? floor(u + 0.5) : floor(u);
    *t = u - b;
    return (long)b - (order - 1) / 2;
}

/* Weight of stencil node k (0 .. order - 1) for offset t. */
HD static inline double p2m_weight(int order, double t, int k)
{
    switch (order) {
    case 1:
        return 1.0;
    case 2:
        return k == 0 ? 1.0 - t : t;
    case 3: {
        double a = k == 0 ? 0.5 - t : 0.5 + t;
        return k == 1 ? 0.75 - t * t : 0.5 * a * a;
    }
    default: {
        double t2 = t * t, t3 = t2 * t;
        switch (k) {
        case 0: {
            double a = 1.0 - t;
            return a * a * a / 6.0;
        }
        case 1:
            return (3.0 * t3 - 6.0 * t2 + 4.0) / 6.0;
        case 2:
            return (-3.0 * t3 + 3.0 * t2 + 3.0 * t + 1.0) / 6.0;
        default:
            return t3 / 6.0;
        }
    }
    }
}

/* Stencil of a particle at x along every axis: first nodes i0[] and offsets t[]. Returns 0 when the
 * whole stencil lies on the grid, -1 otherwise (the particle is then not spread: the grid's margin
 * keeps every particle of the domain on it). */
HD static inline int p2m_particle_stencil(const p2m_layout *L, const real x[3], long i0[3], double t[3])
{
    for (int a = 0; a < 3; ++a) {
        if (a >= L->dim) {
            i0[a] = 0;
            t[a] = 0.0;
            continue;
        }
        double u = ((double)x[a] - L->origin[a]) / L->spacing;
        if (!(u > -1e9 && u < 1e9)) /* NaN or far away */
            return -1;
        i0[a] = p2m_stencil(L->order, u, &t[a]);
        if (i0[a] < 0 || i0[a] + L->order > L->n[a])
            return -1;
    }
    return 0;
}

/* Weight of node (i0 + k) for a particle with stencil (i0, t): the tensor product of the axes. */
HD static inline double p2m_node_weight(const p2m_layout *L, const double t[3], const int k[3])
{
    double w = p2m_weight(L->order, t[0], k[0]) * p2m_weight(L->order, t[1], k[1]);
    return L->dim == 3 ? w * p2m_weight(L->order, t[2], k[2]) : w;
}

/* A node's fields from its sums (sum m w, sum m w v, sum m w p): density = mass / cell volume `vol`,
 * velocity and pressure mass-weighted; 0 where no mass arrived (finite values for ParaView). */
HD static inline void p2m_node_fields(double m, const double mom[3], double pm, double vol, real *density,
                                      real velocity[3], real *pressure)
{
    *density = (real)(m / vol);
    for (int a = 0; a < 3; ++a)
        velocity[a] = m > 0 ? (real)(mom[a] / m) : R(0.0);
    *pressure = m > 0 ? (real)(pm / m) : R(0.0);
}

#endif
