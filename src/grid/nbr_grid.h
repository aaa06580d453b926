/* nbr_grid.h: the forward-star neighbour grid: particles sorted by cell, each cell a contiguous range.
 *
 * Cells have width r_max/ndiv. A margin of ndiv empty cells surrounds the domain, so the cells
 * around any particle exist and the loops need no bounds checks. The neighbours of a particle in
 * cell c are read as (2 ndiv + 1)^(dim-1) runs along x: for each (dy, dz) offset the cells
 * c + off - ndiv .. c + off + ndiv are consecutive, hence one range of particles
 * [cell_start[c + off - ndiv], cell_start[c + off + ndiv + 1]).
 * Particles outside the domain go to a sink cell after the last one; they take no part in the
 * physics (cell_start[ncells] is the number of particles inside). */
#ifndef SLUICE_NBR_GRID_H
#define SLUICE_NBR_GRID_H

#include "base/particles.h"
#include "base/real.h"
#include "base/status.h"

#include <stddef.h>
#include <stdint.h>

#define NBR_MAX_RUNS 49 /* (2*3+1)^2 */

/* What a pass needs to walk neighbours; plain pointers, valid on the host or the device. */
typedef struct nbr_view {
    const int32_t *cell_start; /* ncells + 2 entries */
    const int32_t *cell;       /* cell of each (sorted) particle */
    int ndiv;
    int nruns;
    int32_t run_offset[NBR_MAX_RUNS]; /* centre cell of each run, relative to the particle's cell */
} nbr_view;

typedef struct nbr_grid {
    int dim, ndiv;
    real cell_width;
    double origin[3];   /* lower corner of the first interior cell */
    int interior[3];    /* interior cells per axis (1 along z in 2D) */
    int nc[3];          /* cells per axis including the margins */
    int64_t ncells;     /* all cells; the sink cell is number ncells */
    size_t n_inside;    /* particles inside the domain, sorted first */
    nbr_view view;      /* cell_start and cell point into the arrays below */
    int32_t *cell_start;
    int32_t *cell;
    int32_t *cell_tmp;  /* scratch for the sort */
    int32_t *order;     /* order[k]: old index of the particle that goes to slot k */
    real *field_tmp;    /* scratch for reordering one field */
    size_t cap;         /* particles the scratch arrays hold */
} nbr_grid;

/* Lays out the cells over [dmin, dmax] for interaction radius r_max; allocates cell_start.
 * Fails when the grid would need more than max_cells cells. */
int nbr_grid_init(nbr_grid *g, int dim, int ndiv, real r_max, const double dmin[3],
                  const double dmax[3], int64_t max_cells, sl_err *err);

void nbr_grid_free(nbr_grid *g);

/* Cell of a position: its index in the margin-padded grid, or g->ncells when outside. */
HD static inline int32_t nbr_cell_of(const nbr_grid *g, real x, real y, real z)
{
    double fx = (x - g->origin[0]) / g->cell_width;
    double fy = (y - g->origin[1]) / g->cell_width;
    double fz = g->dim == 3 ? (z - g->origin[2]) / g->cell_width : 0.0;
    if (!(fx >= 0.0 && fy >= 0.0 && fz >= 0.0))
        return (int32_t)g->ncells; /* also catches NaN */
    int64_t ix = (int64_t)fx, iy = (int64_t)fy, iz = (int64_t)fz;
    if (ix >= g->interior[0] || iy >= g->interior[1] || iz >= g->interior[2])
        return (int32_t)g->ncells;
    int m = g->ndiv;
    int64_t mz = g->dim == 3 ? m : 0;
    return (int32_t)((ix + m) + g->nc[0] * ((iy + m) + (int64_t)g->nc[1] * (iz + mz)));
}

/* Computes every particle's cell, sorts the particles by cell with a stable counting sort
 * (exclusive prefix sum into cell_start), and reorders every particle array the same way.
 * Stable: the order inside a cell is the previous order, so runs are reproducible. */
int nbr_grid_build(nbr_grid *g, particles *p, sl_err *err);

/* Makes the per-particle arrays (cell and the sort scratch) hold n particles. */
int nbr_grid_reserve(nbr_grid *g, size_t n, sl_err *err);

/* Range of particles of run r for a particle in cell c. */
HD static inline void nbr_run_range(const nbr_view *v, int32_t c, int r, int32_t *begin, int32_t *end)
{
    int32_t centre = c + v->run_offset[r];
    *begin = v->cell_start[centre - v->ndiv];
    *end = v->cell_start[centre + v->ndiv + 1];
}

/* The runs ascend through the grid (rows by y, then layers by z) and the middle one is the particle's
 * own row, so the runs before it hold only particles of earlier cells: a pass that takes only the
 * candidates j > i starts at this run. */
HD static inline int nbr_own_row_run(const nbr_view *v)
{
    return v->nruns / 2;
}

/* Runs the statements after the arguments for every candidate neighbour j of particle i (all
 * particles of the forward-star runs, i itself included), in run order. `continue` skips to the
 * next candidate. */
#define NBR_FOR_CANDIDATES(nb, i, j, ...)                                                          \
    do {                                                                                          \
        int32_t nbr_c_ = (nb)->cell[i];                                                           \
        for (int nbr_r_ = 0; nbr_r_ < (nb)->nruns; ++nbr_r_) {                                    \
            int32_t nbr_jb_, nbr_je_;                                                             \
            nbr_run_range(nb, nbr_c_, nbr_r_, &nbr_jb_, &nbr_je_);                                \
            for (int32_t j = nbr_jb_; j < nbr_je_; ++j) {                                         \
                __VA_ARGS__                                                                       \
            }                                                                                     \
        }                                                                                         \
    } while (0)

#endif
