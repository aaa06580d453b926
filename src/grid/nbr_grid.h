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

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#define NBR_MAX_RUNS 49 /* (2*3+1)^2 */

/* What a pass needs to walk neighbours; plain pointers, valid on the host or the device, and the
 * grid's layout, so a pass can also find the cell of a point that is not a particle (mDBC's ghost
 * nodes). */
typedef struct nbr_view {
    const int32_t *cell_start; /* ncells + 2 entries */
    const int32_t *cell;       /* cell of each (sorted) particle */
    int dim, ndiv;
    int nruns;
    int32_t run_offset[NBR_MAX_RUNS]; /* centre cell of each run, relative to the particle's cell */
    int8_t run_dy[NBR_MAX_RUNS], run_dz[NBR_MAX_RUNS]; /* the run's row offset in cells */
    unsigned periodic;  /* bit a: the grid wraps around along axis a */
    double origin[3];   /* lower corner of the first interior cell */
    double cell_size[3]; /* cell width along each axis (r_max/ndiv, or a little more along a periodic
                          * axis so that a whole number of cells spans the period) */
    int interior[3];    /* interior cells per axis (1 along z in 2D) */
    int nc[3];          /* cells per axis including the margins */
    int64_t ncells;     /* all cells; the sink cell is number ncells */
} nbr_view;

typedef struct nbr_grid {
    int dim, ndiv;
    real cell_width;    /* r_max/ndiv: the narrowest cell (view.cell_size has each axis's) */
    double origin[3];   /* lower corner of the first interior cell */
    int interior[3];    /* interior cells per axis (1 along z in 2D) */
    int nc[3];          /* cells per axis including the margins */
    int64_t ncells;     /* all cells; the sink cell is number ncells */
    size_t n_inside;    /* particles inside the domain, sorted first */
    nbr_view view;      /* the layout above, and cell_start and cell pointing into the arrays below */
    int32_t *cell_start;
    int32_t *cell;
    int32_t *cell_tmp;  /* scratch for the sort */
    int32_t *order;     /* order[k]: old index of the particle that goes to slot k */
    real *field_tmp;    /* scratch for reordering one field */
    size_t cap;         /* particles the scratch arrays hold */
} nbr_grid;

/* Lays out the cells over [dmin, dmax] for interaction radius r_max; allocates cell_start.
 * periodic: bit a makes axis a periodic with period dmax[a] - dmin[a], which must span at least
 * 2 ndiv + 1 cells. Fails when the grid would need more than max_cells cells. */
int nbr_grid_init(nbr_grid *g, int dim, int ndiv, real r_max, const double dmin[3], const double dmax[3],
                  unsigned periodic, int64_t max_cells, sl_err *err);

void nbr_grid_free(nbr_grid *g);

/* Cell of a position: its index in the margin-padded grid, or v->ncells when outside. Along a
 * periodic axis every position has a cell: the index is taken modulo the period's cells. */
HD static inline int32_t nbr_view_cell_of(const nbr_view *v, real x, real y, real z)
{
    double f[3] = {((double)x - v->origin[0]) / v->cell_size[0], ((double)y - v->origin[1]) / v->cell_size[1],
                   v->dim == 3 ? ((double)z - v->origin[2]) / v->cell_size[2] : 0.0};
    int64_t q[3];
    for (int a = 0; a < 3; ++a) {
        if (!(f[a] == f[a]) || f[a] > 4.0e9 || f[a] < -4.0e9)
            return (int32_t)v->ncells; /* NaN or far away: also along a periodic axis */
        if ((v->periodic >> a) & 1u) {
            int64_t k = (int64_t)floor(f[a]) % v->interior[a];
            q[a] = k < 0 ? k + v->interior[a] : k;
        } else {
            if (!(f[a] >= 0.0))
                return (int32_t)v->ncells;
            q[a] = (int64_t)f[a];
            if (q[a] >= v->interior[a])
                return (int32_t)v->ncells;
        }
    }
    int m = v->ndiv;
    int64_t mz = v->dim == 3 ? m : 0;
    return (int32_t)((q[0] + m) + v->nc[0] * ((q[1] + m) + (int64_t)v->nc[1] * (q[2] + mz)));
}

/* A position folded back into the period along each periodic axis, so positions keep their
 * precision however far the flow carries them. Particles move less than a cell per step, so one
 * period is all that is ever added or taken; rounding may leave the result a hair outside, which
 * nbr_view_cell_of folds. */
HD static inline void nbr_fold_position(const nbr_view *v, real *x, real *y, real *z)
{
    real *q[3] = {x, y, z};
    for (int a = 0; a < v->dim; ++a)
        if ((v->periodic >> a) & 1u) {
            double lo = v->origin[a], L = v->cell_size[a] * v->interior[a], u = (double)*q[a];
            if (u < lo)
                *q[a] = (real)(u + L);
            else if (u >= lo + L)
                *q[a] = (real)(u - L);
        }
}

HD static inline int32_t nbr_cell_of(const nbr_grid *g, real x, real y, real z)
{
    return nbr_view_cell_of(&g->view, x, y, z);
}

/* Computes every particle's cell, sorts the particles by cell with a stable counting sort
 * (exclusive prefix sum into cell_start), and reorders every particle array the same way.
 * Stable: the order inside a cell is the previous order, so runs are reproducible. */
int nbr_grid_build(nbr_grid *g, particles *p, sl_err *err);

/* cell_start and n_inside again from the cells of the sorted particles [0, n) (g->cell), after some
 * were taken out of a built grid keeping the others' order (parallel/: an MPI rank's ghosts). */
void nbr_grid_recount(nbr_grid *g, size_t n);

/* Makes the per-particle arrays (cell and the sort scratch) hold n particles. */
int nbr_grid_reserve(nbr_grid *g, size_t n, sl_err *err);

/* Range of particles of run r for a particle in cell c (a grid without periodic axes). */
HD static inline void nbr_run_range(const nbr_view *v, int32_t c, int r, int32_t *begin, int32_t *end)
{
    int32_t centre = c + v->run_offset[r];
    *begin = v->cell_start[centre - v->ndiv];
    *end = v->cell_start[centre + v->ndiv + 1];
}

/* Run r of cell c on a grid with periodic axes: the row (dy, dz) folded back across a periodic
 * seam, and along a periodic x the 2 ndiv + 1 cells split in two ranges where they cross it. */
HD static inline int nbr_run_ranges_periodic(const nbr_view *v, int32_t c, int r, int32_t begin[2], int32_t end[2])
{
    const int m = v->ndiv, mz = v->dim == 3 ? m : 0;
    const int64_t n0 = v->nc[0], n1 = v->nc[1];
    int ix = (int)(c % n0) - m, iy = (int)((c / n0) % n1) - m, iz = (int)(c / (n0 * n1)) - mz;
    int y = iy + v->run_dy[r], z = iz + v->run_dz[r];
    if (v->periodic & 2u)
        y = y < 0 ? y + v->interior[1] : y >= v->interior[1] ? y - v->interior[1] : y;
    if (v->periodic & 4u)
        z = z < 0 ? z + v->interior[2] : z >= v->interior[2] ? z - v->interior[2] : z;
    const int64_t row = m + n0 * ((y + m) + n1 * (int64_t)(z + mz)); /* interior x = 0 of the row */
    int lo = ix - m, hi = ix + m, nx = v->interior[0];
    if ((v->periodic & 1u) && (lo < 0 || hi >= nx)) {
        int wlo = lo < 0 ? lo + nx : 0, whi = lo < 0 ? nx - 1 : hi - nx; /* the part across the seam */
        lo = lo < 0 ? 0 : lo;
        hi = hi >= nx ? nx - 1 : hi;
        begin[0] = v->cell_start[row + lo];
        end[0] = v->cell_start[row + hi + 1];
        begin[1] = v->cell_start[row + wlo];
        end[1] = v->cell_start[row + whi + 1];
        return 2;
    }
    begin[0] = v->cell_start[row + lo];
    end[0] = v->cell_start[row + hi + 1];
    return 1;
}

/* The particle ranges of run r for a particle in cell c: one, or two where a periodic seam splits
 * the run. Returns how many. */
HD static inline int nbr_run_ranges(const nbr_view *v, int32_t c, int r, int32_t begin[2], int32_t end[2])
{
#ifndef SLUICE_NO_PERIODIC
    if (v->periodic)
        return nbr_run_ranges_periodic(v, c, r, begin, end);
#endif
    nbr_run_range(v, c, r, &begin[0], &end[0]);
    return 1;
}

/* The runs ascend through the grid (rows by y, then layers by z) and the middle one is the particle's
 * own row, so the runs before it hold only particles of earlier cells: a pass that takes only the
 * candidates j > i starts at this run. Not so across a periodic seam: the strategies that rely on it
 * are not used there (gpu_strategy_valid). */
HD static inline int nbr_own_row_run(const nbr_view *v)
{
    return v->nruns / 2;
}

/* Runs the statements after the arguments for every candidate neighbour j of a point in cell
 * `cell`: the particles of the forward-star runs and, across periodic seams, those whose nearest
 * image is within reach, in run order. `continue` skips to the next candidate. The second range of a
 * run is taken by a select, not an array index: an array indexed by the loop counter would live in
 * the GPU's local memory (a 16-byte stack frame in every neighbour kernel, measured with ptxas -v). */
#define NBR_FOR_CELL_CANDIDATES(nb, cell, j, ...)                                                  \
    do {                                                                                          \
        int32_t nbr_c_ = (cell);                                                                  \
        for (int nbr_r_ = 0; nbr_r_ < (nb)->nruns; ++nbr_r_) {                                    \
            int32_t nbr_jb_[2], nbr_je_[2];                                                       \
            int nbr_parts_ = nbr_run_ranges(nb, nbr_c_, nbr_r_, nbr_jb_, nbr_je_);                \
            int32_t nbr_b0_ = nbr_jb_[0], nbr_e0_ = nbr_je_[0];                                   \
            int32_t nbr_b1_ = nbr_parts_ > 1 ? nbr_jb_[1] : 0, nbr_e1_ = nbr_parts_ > 1 ? nbr_je_[1] : 0; \
            for (int nbr_k_ = 0; nbr_k_ < nbr_parts_; ++nbr_k_)                                   \
                for (int32_t j = nbr_k_ ? nbr_b1_ : nbr_b0_, nbr_end_ = nbr_k_ ? nbr_e1_ : nbr_e0_; \
                     j < nbr_end_; ++j) {                                                         \
                    __VA_ARGS__                                                                   \
                }                                                                                 \
        }                                                                                         \
    } while (0)

/* The candidates of particle i (i itself included). */
#define NBR_FOR_CANDIDATES(nb, i, j, ...) NBR_FOR_CELL_CANDIDATES(nb, (nb)->cell[i], j, __VA_ARGS__)

#endif
