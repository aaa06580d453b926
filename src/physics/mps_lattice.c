/* mps_lattice.c: n0 and lambda0 of the ideal lattice, by direct summation in double. */
#include "mps_lattice.h"

#include "mps_weight.h"

#include <math.h>

/* The weights of mps_weight.h in double, so the constants do not carry float round-off. */
static double weight_d(int kind, int dim, double dx, double dy, double dz, double re)
{
    if (kind == MPS_WEIGHT_CUBIC) {
        double ax = 1.0 - fabs(dx) / re, ay = 1.0 - fabs(dy) / re;
        double az = dim == 3 ? 1.0 - fabs(dz) / re : 1.0;
        if (!(ax > 0.0 && ay > 0.0 && az > 0.0))
            return 0.0;
        double w = ax * ay * az;
        return w * w;
    }
    double r2 = dx * dx + dy * dy + dz * dz;
    if (!(r2 > 0.0 && r2 < re * re))
        return 0.0;
    double r = sqrt(r2);
    if (kind == MPS_WEIGHT_KO)
        return re / r - 1.0;
    double q = 1.0 - r / re;
    return q * q;
}

int mps_lattice_constants(int kind, int dim, double l0, double re, double *n0, double *lambda0)
{
    if (kind != MPS_WEIGHT_KO && kind != MPS_WEIGHT_QUADRATIC && kind != MPS_WEIGHT_CUBIC)
        return -1;
    if ((dim != 2 && dim != 3) || !n0 || !lambda0)
        return -1;
    if (!(isfinite(l0) && isfinite(re) && l0 > 0.0 && re > 0.0 && re / l0 <= MPS_LATTICE_MAX_RATIO))
        return -1;
    int m = (int)ceil(re / l0) + 1; /* sites beyond m l0 along any axis are outside every domain */
    int mz = dim == 3 ? m : 0;
    double sw = 0.0, sr2w = 0.0;
    for (int k = -mz; k <= mz; ++k)
        for (int j = -m; j <= m; ++j)
            for (int i = -m; i <= m; ++i) {
                if (i == 0 && j == 0 && k == 0)
                    continue;
                double dx = i * l0, dy = j * l0, dz = k * l0;
                double w = weight_d(kind, dim, dx, dy, dz, re);
                sw += w;
                sr2w += (dx * dx + dy * dy + dz * dz) * w;
            }
    if (!(sw > 0.0))
        return -1;
    *n0 = sw;
    *lambda0 = sr2w / sw;
    return 0;
}
