/* periodic.h: periodic boundaries as the pair functions see them: the minimum-image displacement.
 *
 * Along a periodic axis the domain [lo, lo + L) wraps around: a particle that leaves at one face
 * comes back at the other (the neighbour grid folds positions back when it sorts: nbr_fold_position), and a pair
 * interacts through the nearest of its images. The neighbour grid hands out the candidates across
 * the seam (grid/nbr_grid.h); every pair function folds its displacement with periodic_fold, so the
 * images exist only as arithmetic: no ghost copies to update between passes. The period must exceed
 * twice the interaction radius (the grid demands 2 ndiv + 1 cells along the axis), so the nearest
 * image is the only one within reach.
 *
 * A translation unit that defines SLUICE_NO_PERIODIC before including this (the GPU's kernels for
 * grids without a periodic axis, gpu/pass_kernels.cu) gets folds that do nothing, and candidate loops
 * without seams (grid/nbr_grid.h): fewer registers per thread in every neighbour kernel. */
#ifndef SLUICE_PERIODIC_H
#define SLUICE_PERIODIC_H

#include "base/real.h"

typedef struct periodic_box {
    unsigned axes;  /* bit a: periodic along axis a (0 x, 1 y, 2 z); 0: no periodic axis */
    real length[3]; /* the period along each periodic axis (the domain's extent) */
} periodic_box;

/* The displacement d along axis a taken to its nearest image. */
HD static inline real periodic_delta(const periodic_box *pb, int a, real d)
{
#ifdef SLUICE_NO_PERIODIC
    (void)pb;
    (void)a;
    return d;
#endif
    if ((pb->axes >> a) & 1u) {
        real L = pb->length[a];
        if (d > R(0.5) * L)
            d -= L;
        else if (d < R(-0.5) * L)
            d += L;
    }
    return d;
}

/* A pair's displacement (dx, dy, dz) taken to its nearest image; nothing to do without periodic
 * axes, the common case, which costs one uniform branch. */
HD static inline void periodic_fold(const periodic_box *pb, real *dx, real *dy, real *dz)
{
#ifdef SLUICE_NO_PERIODIC
    (void)pb;
    (void)dx;
    (void)dy;
    (void)dz;
    return;
#endif
    if (!pb->axes)
        return;
    *dx = periodic_delta(pb, 0, *dx);
    *dy = periodic_delta(pb, 1, *dy);
    *dz = periodic_delta(pb, 2, *dz);
}

#endif
