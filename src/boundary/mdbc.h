/* mdbc.h: the pass of modified dynamic boundary conditions (mDBC, English et al. 2022; the formulas
 * are in physics/mdbc.h): every wall and obstacle particle takes the density extrapolated from the
 * fluid around its ghost node, and the pressure of that density, never below 0. The ghost node's
 * offset x_g - x_b is a field set once at initialisation (boundary/mdbc.c); the pass finds the
 * ghost's neighbour cells from the grid's layout in P.mdbc, since a ghost node lies up to several
 * spacings from its particle, beyond the particle's own forward star. It reads only fluid particles
 * and writes only boundary particles, so running it twice gives what running it once does. A body
 * (FORM BODY): par-part and par-cell run it on the GPU. */
#ifndef SLUICE_BOUNDARY_MDBC_H
#define SLUICE_BOUNDARY_MDBC_H

#include "core/pass.h"
#include "physics/mdbc.h"
#include "physics/sph_eos.h"
#include "physics/sph_kernel.h"

/* The wall model's slots in pass_args.slot: the ghost node's offset x_g - x_b per axis (z: -1 in
 * 2D). The last slots of the table, clear of every scheme's. */
enum mdbc_slot { MDBC_SLOT_GX = PASS_MAX_SLOTS - 3, MDBC_SLOT_GY, MDBC_SLOT_GZ };

/* The cell of point (x, y, z) in the margin-padded grid of P.mdbc (nbr_cell_of's arithmetic), or -1
 * outside the grid's interior. */
HD static inline int32_t mdbc_cell_of(const sim_params *P, int ndiv, real x, real y, real z)
{
    const mdbc_params *g = &P->mdbc;
    double fx = ((double)x - g->origin[0]) / g->cell_width;
    double fy = ((double)y - g->origin[1]) / g->cell_width;
    double fz = P->dim == 3 ? ((double)z - g->origin[2]) / g->cell_width : 0.0;
    /* compared as doubles before the casts: also false for NaN and inf (a grid not yet set) */
    if (!(fx >= 0.0 && fy >= 0.0 && fz >= 0.0 && fx < (double)g->interior[0] && fy < (double)g->interior[1] &&
          fz < (double)g->interior[2]))
        return -1;
    int64_t ix = (int64_t)fx, iy = (int64_t)fy, iz = (int64_t)fz;
    int64_t mz = P->dim == 3 ? ndiv : 0;
    return (int32_t)((ix + ndiv) + g->nc[0] * ((iy + ndiv) + (int64_t)g->nc[1] * (iz + mz)));
}

/* The sums of the ghost node at (gx, gy, gz) over the fluid particles of its forward star. */
HD static inline void mdbc_ghost_sums(const pass_ctx *c, real gx, real gy, real gz, mdbc_sums *s)
{
    const sim_params *P = &c->P;
    real *const *f = c->f;
    int dim = P->dim;
    mdbc_sums_zero(s);
    int32_t cell = mdbc_cell_of(P, c->nb.ndiv, gx, gy, gz);
    if (cell < 0)
        return;
    for (int r = 0; r < c->nb.nruns; ++r) {
        int32_t jb, je;
        nbr_run_range(&c->nb, cell, r, &jb, &je);
        for (int32_t j = jb; j < je; ++j) {
            if (c->type[j] != PT_FLUID)
                continue;
            real d[3] = {gx - f[PF_X][j], gy - f[PF_Y][j], dim == 3 ? gz - f[PF_Z][j] : R(0.0)};
            real r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (r2 >= P->r2_max)
                continue;
            real rr = real_sqrt(r2);
            real w = sph_w(P->kernel, P->kernel_norm, rr, P->inv_h);
            real gf = sph_grad_factor(P->kernel, P->kernel_norm, rr, P->inv_h);
            real rho = f[PF_RHO][j];
            mdbc_sums_add(s, w, gf, d, P->mass / rho, rho);
        }
    }
}

/* Boundary particle i: rho and p from its ghost node. Fluid particles and boundary particles
 * without a ghost node (offset 0: no open wall face, boundary/mdbc.c) are left as they are. */
HD static inline void mdbc_density_body(const pass_ctx *c, int32_t i)
{
    if (c->type[i] == PT_FLUID)
        return;
    const sim_params *P = &c->P;
    real *const *f = c->f;
    int dim = P->dim;
    real off[3] = {PASS_FIELD(c, MDBC_SLOT_GX)[i], PASS_FIELD(c, MDBC_SLOT_GY)[i],
                   dim == 3 ? PASS_FIELD(c, MDBC_SLOT_GZ)[i] : R(0.0)};
    if (off[0] == R(0.0) && off[1] == R(0.0) && off[2] == R(0.0))
        return;
    mdbc_sums s;
    mdbc_ghost_sums(c, f[PF_X][i] + off[0], f[PF_Y][i] + off[1], dim == 3 ? f[PF_Z][i] + off[2] : R(0.0), &s);
    real back[3] = {-off[0], -off[1], -off[2]}; /* x_b - x_g */
    int order;
    real rho = mdbc_extrapolate(&s, dim, back, P->rho0, &order);
    f[PF_RHO][i] = rho;
    f[PF_P][i] = mdbc_wall_pressure(sph_eos_pressure(P, rho));
}

#endif
