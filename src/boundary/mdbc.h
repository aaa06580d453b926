/* mdbc.h: the pass of modified dynamic boundary conditions (mDBC, English et al. 2022; the formulas
 * are in physics/mdbc.h): every wall and obstacle particle takes the density extrapolated from the
 * fluid around its ghost node, and the pressure of that density, never below 0. The ghost node's
 * offset x_g - x_b is a field set once at initialisation (boundary/mdbc.c); the pass finds the
 * ghost's neighbour cells from the grid's layout (the pass context's nbr_view), since a ghost node
 * lies up to several spacings from its particle, beyond the particle's own forward star. It reads only fluid particles
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

/* The sums of the ghost node at (gx, gy, gz) over the fluid particles of its forward star; with
 * urhs, also the right-hand sides of the fluid velocity's components (mdbc_rhs_add). */
HD static inline void mdbc_ghost_sums(const pass_ctx *c, real gx, real gy, real gz, mdbc_sums *s, double urhs[3][4])
{
    const sim_params *P = &c->P;
    real *const *f = c->f;
    int dim = P->dim;
    mdbc_sums_zero(s);
    if (urhs)
        for (int k = 0; k < 3; ++k)
            urhs[k][0] = urhs[k][1] = urhs[k][2] = urhs[k][3] = 0.0;
    /* a ghost node across a periodic seam is found at its image inside the period */
    nbr_fold_position(&c->nb, &gx, &gy, &gz);
    int32_t cell = nbr_view_cell_of(&c->nb, gx, gy, gz);
    if (cell >= c->nb.ncells)
        return;
    NBR_FOR_CELL_CANDIDATES(&c->nb, cell, j, {
        if (c->type[j] != PT_FLUID)
            continue;
        real d[3] = {gx - f[PF_X][j], gy - f[PF_Y][j], dim == 3 ? gz - f[PF_Z][j] : R(0.0)};
        periodic_fold(&P->periodic, &d[0], &d[1], &d[2]);
        real r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (r2 >= P->r2_max)
            continue;
        real rr = real_sqrt(r2);
        real w = sph_w(P->kernel, P->kernel_norm, rr, P->inv_h);
        real gf = sph_grad_factor(P->kernel, P->kernel_norm, rr, P->inv_h);
        real rho = f[PF_RHO][j];
        mdbc_sums_add(s, w, gf, d, P->mass / rho, rho);
        if (urhs)
            for (int k = 0; k < dim; ++k)
                mdbc_rhs_add(urhs[k], w, gf, d, P->mass / rho, (double)f[PF_VX + k][j]);
    });
}

/* Boundary particle i: rho and p from its ghost node. Fluid particles and boundary particles
 * without a ghost node (offset 0: no open wall face, boundary/mdbc.c) are left as they are.
 * No-slip (pass_args.wall_visc set): the velocity the viscous term sees at the boundary particle is
 * its own (the wall's) mirrored through the wall surface, 2 v_wall - v_ghost, with v_ghost the
 * fluid's velocity interpolated at the ghost node as the density is (first order, Shepard where the
 * matrix is near singular; English et al. 2022, the no-slip condition), so the velocity between
 * ghost and particle is the wall's on the surface midway; without a ghost node, the wall's own. */
HD static inline void mdbc_density_body(const pass_ctx *c, int32_t i)
{
    if (c->type[i] == PT_FLUID)
        return;
    const sim_params *P = &c->P;
    real *const *f = c->f;
    int dim = P->dim;
    const int *wv = c->a.wall_visc;
    int no_slip = wv[0] > 0;
    if (no_slip)
        for (int k = 0; k < dim; ++k)
            f[wv[k]][i] = f[PF_VX + k][i];
    real off[3] = {PASS_FIELD(c, MDBC_SLOT_GX)[i], PASS_FIELD(c, MDBC_SLOT_GY)[i],
                   dim == 3 ? PASS_FIELD(c, MDBC_SLOT_GZ)[i] : R(0.0)};
    if (off[0] == R(0.0) && off[1] == R(0.0) && off[2] == R(0.0))
        return;
    mdbc_sums s;
    double u[3][4];
    mdbc_ghost_sums(c, f[PF_X][i] + off[0], f[PF_Y][i] + off[1], dim == 3 ? f[PF_Z][i] + off[2] : R(0.0), &s,
                    no_slip ? u : (double(*)[4])0);
    real back[3] = {-off[0], -off[1], -off[2]}; /* x_b - x_g */
    int order;
    real rho = mdbc_extrapolate(&s, dim, back, P->rho0, &order);
    f[PF_RHO][i] = rho;
    f[PF_P][i] = mdbc_wall_pressure(sph_eos_pressure(P, rho));
    if (no_slip)
        for (int k = 0; k < dim; ++k) {
            double vb = (double)f[PF_VX + k][i];
            f[wv[k]][i] = (real)(2.0 * vb - mdbc_ghost_value(&s, u[k], dim, vb));
        }
}

#endif
