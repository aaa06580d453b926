/* packing_passes.h: the passes of particle packing (run/packing.c drives them; the formulas are in
 * physics/packing.h), declared once as a pass list that schemes/registry.h joins with the schemes'
 * and the wall models', so the CUDA backend runs the same bodies. Their ids follow the wall
 * models' range. Two passes per iteration because a pass writes only its own particle: the first
 * reads the neighbours' positions and writes the displacement, the second moves. The surface is
 * known on the host only (STL meshes): each particle near it carries its tangent plane, which the
 * host renews after every move (run/packing.c). */
#ifndef SLUICE_PACKING_PASSES_H
#define SLUICE_PACKING_PASSES_H

#include "core/pass.h"
#include "physics/packing.h"

/* The packing's fields in pass_args.slot: the displacement of this iteration and 1 where the
 * particle lies at a free surface, walls giving less than half of what lies beyond (written by
 * packing.shift after every cell rebuild), and, set on the host from the geometry, the tangent
 * plane n . y = c of the nearest surface point of the fluid's shape and 1 where the particle keeps
 * its place (within reach of an edge of the shape: run/packing.c). */
enum packing_slot { PK_DX, PK_DY, PK_DZ, PK_FREE, PK_NX, PK_NY, PK_NZ, PK_C, PK_FIX, PK_COUNT };

/* The sums of fluid particle i over the candidates of its forward star. */
HD static inline void packing_sums(const pass_ctx *c, int32_t i, real fl[3], real wl[3], real *mag)
{
    real *const *f = c->f;
    int dim = c->P.dim;
    real xi = f[PF_X][i], yi = f[PF_Y][i], zi = f[PF_Z][i];
    NBR_FOR_CANDIDATES(&c->nb, i, j, {
        real d[3] = {xi - f[PF_X][j], yi - f[PF_Y][j], dim == 3 ? zi - f[PF_Z][j] : R(0.0)};
        periodic_fold(&c->P.periodic, &d[0], &d[1], &d[2]);
        packing_pair(&c->P, d, c->type[j] == PT_FLUID, fl, wl, mag);
    });
}

/* Fluid particle i: its displacement from the current positions, and whether it lies at a free
 * surface (where the host keeps it inside the exact shape); walls and fixed fluid do not move. */
HD static inline void packing_shift_body(const pass_ctx *c, int32_t i)
{
    real *const *f = c->f;
    real out[3] = {R(0.0), R(0.0), R(0.0)}, free_surface = R(0.0);
    if (c->type[i] == PT_FLUID && PASS_FIELD(c, PK_FIX)[i] == R(0.0)) {
        real fl[3] = {R(0.0), R(0.0), R(0.0)}, wl[3] = {R(0.0), R(0.0), R(0.0)}, mag = R(0.0);
        packing_sums(c, i, fl, wl, &mag);
        real x[3] = {f[PF_X][i], f[PF_Y][i], f[PF_Z][i]};
        real n[3] = {PASS_FIELD(c, PK_NX)[i], PASS_FIELD(c, PK_NY)[i], PASS_FIELD(c, PK_NZ)[i]};
        real covered = packing_displacement(&c->P, x, fl, wl, n, PASS_FIELD(c, PK_C)[i], out);
        free_surface = n[0] * n[0] + n[1] * n[1] + n[2] * n[2] > R(0.0) && covered < R(0.5) ? R(1.0) : R(0.0);
        if (c->P.dim == 2)
            out[2] = R(0.0);
    }
    PASS_FIELD(c, PK_DX)[i] = out[0];
    PASS_FIELD(c, PK_DY)[i] = out[1];
    PASS_FIELD(c, PK_DZ)[i] = out[2];
    PASS_FIELD(c, PK_FREE)[i] = free_surface;
}

/* Particle i moved by its displacement (0 for walls). */
HD static inline void packing_move_body(const pass_ctx *c, int32_t i)
{
    real *const *f = c->f;
    f[PF_X][i] += PASS_FIELD(c, PK_DX)[i];
    f[PF_Y][i] += PASS_FIELD(c, PK_DY)[i];
    f[PF_Z][i] += PASS_FIELD(c, PK_DZ)[i];
}

#define PACKING_PASSES(X)                                                                          \
    X(packing_shift, PASS_PACKING_SHIFT, "packing.shift", PASS_NEIGHBOURS | PASS_REPEATABLE, BODY) \
    X(packing_move, PASS_PACKING_MOVE, "packing.move", 0, BODY)

#define PACKING_PASS_ID(NAME, ID, LABEL, FLAGS, FORM) ID,
enum packing_pass_id { PACKING_PASS_FIRST = 2000 - 1, PACKING_PASSES(PACKING_PASS_ID) PACKING_PASS_END };
#undef PACKING_PASS_ID

#ifdef __cplusplus
extern "C" {
#endif
PACKING_PASSES(PASS_EXTERN)
#ifdef __cplusplus
}
#endif

#endif
