/* probe_sample.h: what one particle adds to a probe: Shepard-interpolated pressure, surge front,
 * mass and energy. Host-device, so a CUDA reduction can call the same code.
 *
 * Pressure at a point x (Shepard 1968 normalisation of the SPH interpolant, e.g. Monaghan 2005,
 * Rep. Prog. Phys. 68:1703, eq. 2.5 with the sum of weights in the denominator):
 *   p(x) = sum_j p_j W(x - x_j) V_j / sum_j W(x - x_j) V_j,   V_j = m / rho_j, fluid particles j only.
 * A sensor is wet when the Shepard sum S = sum_j W V_j at its sampled point (io/probes.c: the sensor
 * moved along the wall normal into the fluid) reaches 1/4, half its value on a free surface. With
 * the sampled point h (= 2 dp) off the wall, S is 0.98 under deep water, 0.69 with the water's edge
 * (the particles' surfaces) 1.5 spacings off the wall, 0.5 at 2 spacings, 0.31 at 2.5; at the MPS
 * offset 1.05 dp, 0.85, 0.52 at 1 spacing, 0.33 at 1.5 (Wendland C2 on a lattice, 2D and 3D within
 * 0.01). One particle alone gives at most W(0) dp^dim = 0.14 (2D) or 0.05 (3D): a droplet flying
 * past is not water on the sensor. The level gauges (occupancy along the vertical) are in
 * io/probes.c. */
#ifndef SLUICE_PROBE_SAMPLE_H
#define SLUICE_PROBE_SAMPLE_H

#include "base/real.h"
#include "periodic.h"
#include "sph_kernel.h"

#define PROBE_WET_SHEPARD 0.25

/* Kernel-weighted pressure of a fluid particle at offset (dx, dy, dz) = x_probe - x_j: adds
 * W V_j to *sw and W V_j p_j to *swp. Sums are in double: hundreds of terms of mixed size. */
HD static inline void probe_pressure_add(int kernel, real norm, real inv_h, real r2_max, real dx, real dy, real dz,
                                         real mass, real rho, real p, double *sw, double *swp)
{
    real r2 = dx * dx + dy * dy + dz * dz;
    if (r2 >= r2_max || !(rho > R(0.0)))
        return;
    double wv = (double)sph_w(kernel, norm, real_sqrt(r2), inv_h) * (double)mass / (double)rho;
    *sw += wv;
    *swp += wv * (double)p;
}

/* The interpolated pressure, or NaN when the point is dry (see above). */
HD static inline double probe_pressure_value(double sw, double swp)
{
    return sw >= PROBE_WET_SHEPARD ? swp / sw : (double)NAN;
}

/* Surge front along axis `axis` (0..2) in direction `sign` (+1/-1): the farthest particle surface,
 * sign * (x_axis) + dp/2, maximised. The front is then sign * (max). */
HD static inline void probe_front_add(real coord, int sign, real dp, double *best)
{
    double v = (double)sign * (double)coord + 0.5 * (double)dp;
    if (v > *best)
        *best = v;
}

/* Kinetic energy m |v|^2 / 2 and potential energy -m g.x (zero at the origin) of one particle. */
HD static inline void probe_energy_add(real mass, real vx, real vy, real vz, real x, real y, real z, const real g[3],
                                       double *ke, double *pe)
{
    *ke += 0.5 * (double)mass * ((double)vx * vx + (double)vy * vy + (double)vz * vz);
    *pe -= (double)mass * ((double)g[0] * x + (double)g[1] * y + (double)g[2] * z);
}

/* ---- where the probes read, for a backend that keeps the particles elsewhere ------------------ */

/* A probe's reach: a ball around a sensor's sampled point, or a vertical column around a gauge's
 * vertical (the last axis: y in 2D, z in 3D), of squared radius r2. A backend holding the particles
 * on a device (backend.probe_particles) hands the host only the particles some region holds, and
 * the fluid's totals below, instead of every particle. */
enum { PROBE_REGIONS_MAX = 128 };

typedef struct probe_region {
    real at[3]; /* the centre; a column's vertical coordinate is not read */
    real r2;
    int column;
} probe_region;

typedef struct probe_regions {
    int count, dim;
    probe_region region[PROBE_REGIONS_MAX];
    periodic_box periodic;
    int front_axis, front_sign; /* the surge front's axis and direction; front_sign 0: no front */
    int energy;                 /* the energies wanted */
    real dp, mass, g[3];
} probe_regions;

/* Whether a particle at (x, y, z) lies in some region (periodic images count). */
HD static inline int probe_regions_hold(const probe_regions *q, real x, real y, real z)
{
    for (int k = 0; k < q->count; ++k) {
        const probe_region *rg = &q->region[k];
        real d[3] = {rg->at[0] - x, rg->at[1] - y, q->dim == 3 ? rg->at[2] - z : R(0.0)};
        periodic_fold(&q->periodic, &d[0], &d[1], &d[2]);
        if (rg->column)
            d[q->dim - 1] = R(0.0);
        if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= rg->r2)
            return 1;
    }
    return 0;
}

/* The fluid's totals over a rank's particles: the front (-inf: no fluid or none wanted), the fluid
 * particles' count, kinetic and potential energy. */
typedef struct probe_totals {
    double front, nfluid, ke, pe;
} probe_totals;

#endif
