/* probe_sample.h: what one particle adds to a probe: Shepard-interpolated pressure, water level on a
 * vertical, surge front, mass and energy. Host-device, so a CUDA reduction can call the same code.
 *
 * Pressure at a point x (Shepard 1968 normalisation of the SPH interpolant, e.g. Monaghan 2005,
 * Rep. Prog. Phys. 68:1703, eq. 2.5 with the sum of weights in the denominator):
 *   p(x) = sum_j p_j W(x - x_j) V_j / sum_j W(x - x_j) V_j,   V_j = m / rho_j, fluid particles j only.
 * The denominator S(x) = sum_j W V_j is 1 inside the fluid, 0.5 on a flat free surface or on a
 * wall the water covers, 0.25 at a convex edge the water covers (a quarter-space), and falls to
 * 0.17 one spacing outside the fluid, 0.07 at 1.5 spacings (Wendland C2, h = 2 dp; 2D and 3D agree
 * to 0.01, computed on a lattice). A point with S < PROBE_MIN_SHEPARD = 0.1 is outside the fluid:
 * its pressure is NaN. 0.1 keeps sensors on walls and box edges, and drops points more than about
 * 1.3 spacings from the water. */
#ifndef SLUICE_PROBE_SAMPLE_H
#define SLUICE_PROBE_SAMPLE_H

#include "base/real.h"
#include "sph_kernel.h"

#define PROBE_MIN_SHEPARD 0.1

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

/* The interpolated pressure, or NaN when the point is outside the fluid (see above). */
HD static inline double probe_pressure_value(double sw, double swp)
{
    return sw >= PROBE_MIN_SHEPARD ? swp / sw : (double)NAN;
}

/* Water level at a gauge: the top of the highest fluid particle whose horizontal distance from the
 * gauge's vertical is below one spacing (the particle's own extent reaches dp/2 above its centre).
 * h2 = squared horizontal distance. Updates *level, which starts at -INFINITY (dry). */
HD static inline void probe_level_add(real h2, real dp, real up, double *level)
{
    if (h2 < dp * dp && (double)(up + R(0.5) * dp) > *level)
        *level = (double)(up + R(0.5) * dp);
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

#endif
