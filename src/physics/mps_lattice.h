/* mps_lattice.h: the MPS reference constants of the ideal lattice (host only).
 *
 * Koshizuka & Oka (1996), Nucl. Sci. Eng. 123:421: the initial particle number density n0 and the
 * Laplacian model's coefficient lambda0 are sums of the weight over a full neighbourhood. Here they
 * are taken over the ideal square (2D) or cubic (3D) lattice of spacing l0 around a particle at a
 * lattice site, the site itself excluded:
 *     n0      = sum_j w(x_j)
 *     lambda0 = sum_j |x_j|^2 w(x_j) / sum_j w(x_j)
 * with the weight and domain of mps_weight.h (kind = enum mps_weight_kind), evaluated in double. */
#ifndef SLUICE_MPS_LATTICE_H
#define SLUICE_MPS_LATTICE_H

/* Largest re/l0 accepted: the lattice sum visits (2 re/l0 + 3)^dim sites. */
#define MPS_LATTICE_MAX_RATIO 64.0

/* Computes n0 and lambda0 (units of length^2). Returns 0 on success, -1 for bad arguments: unknown
 * kind, dim not 2 or 3, l0 or re not finite and positive, re/l0 above MPS_LATTICE_MAX_RATIO, a NULL
 * output, or no lattice site inside the domain (re <= l0 for the spherical weights), where n0 = 0
 * and lambda0 is undefined. The outputs are written only on success. */
int mps_lattice_constants(int kind, int dim, double l0, double re, double *n0, double *lambda0);

#endif
