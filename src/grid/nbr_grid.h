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
    const int32_t *cell_start; /* ncells + 2 entries (the sort's array has one more: nbr_sort_key's) */
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
    real slack;         /* how far particles may have moved since the build (half the grid's skin,
                         * sim_params.cell_skin): a pass's reach is widened by it, since the candidates
                         * are listed where they were (0: cells of the current positions) */
} nbr_view;

typedef struct nbr_grid {
    int dim, ndiv;
    real cell_width;    /* r_max/ndiv: the narrowest cell (view.cell_size has each axis's) */
    double origin[3];   /* lower corner of the first interior cell */
    int interior[3];    /* interior cells per axis (1 along z in 2D) */
    int nc[3];          /* cells per axis including the margins */
    int64_t ncells;     /* all cells; the sink cell is number ncells */
    size_t n_inside;    /* particles inside the domain, sorted first */
    size_t parked;      /* parked MPI ghosts among the particles the next build sorts (nbr_sort_key;
                         * parallel/mpi_halo.c counts them): the build keeps the others, checks that
                         * it found as many, and sets this to 0 */
    nbr_view view;      /* the layout above, and cell_start and cell pointing into the arrays below */
    int32_t *cell_start;
    int32_t *cell;
    int32_t *cell_tmp;  /* scratch for the sort */
    int32_t *order;     /* order[k]: old index of the particle that goes to slot k */
    real *field_tmp;    /* scratch for reordering one field; it trades places with the fields */
    size_t field_cap;   /* particles field_tmp holds: after a build, the room of the particles' arrays
                         * then (one of them became it), which may be less than cap */
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

/* The sort's key of a particle: its cell (the sink, ncells, outside the domain), or ncells + 1 for a
 * parked MPI ghost, a negative id at a NaN x (parallel/mpi_halo.c: the ghosts of a step whose rates
 * are spent, which the next sort drops instead of a compaction of every array before it). */
HD static inline int32_t nbr_sort_key(const nbr_grid *g, real x, real y, real z, int32_t id)
{
    return id < 0 && !(x == x) ? (int32_t)(g->ncells + 1) : nbr_cell_of(g, x, y, z);
}

/* Computes every particle's key (nbr_sort_key), sorts the particles by it with a stable counting
 * sort (exclusive prefix sum into cell_start), and reorders every particle array the same way; the
 * parked ghosts, sorted last, are dropped (p->n shrinks by g->parked; another count is an error).
 * Stable: the order inside a cell is the previous order, so runs are reproducible, and the same as
 * had the parked been taken out first. */
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

/* Where a point lies in its cell, for trimming the runs to a pass's own reach (nbr_run_range_within):
 * a pass whose radius is shorter than the grid's (MPS's density and gradient at re_n on a grid built
 * for the Laplacian's re_lap, its collision at a fraction of a spacing) or a point near a corner of its
 * cell need not read the whole (2 ndiv + 1)^dim block. The SPHERIC box at 10^6 particles: 915
 * candidates for 31 neighbours within re_n (docs/performance.md). */
typedef struct nbr_place {
    real f[3];     /* the point's offset from its cell's lower corner, in cells (in [0, 1) while the cells
                    * are those of the current positions) */
    real reach[3]; /* the reach in cells along each axis, with a margin for rounding */
    int cube;      /* the interaction domain is a cube (the MPS cubic weight): each axis on its own */
} nbr_place;

/* Rounding margin, in cells: fractions of a cell are computed from float positions, so a pair exactly
 * at the reach could otherwise fall out; a thousandth of a cell costs nothing. */
#define NBR_REACH_MARGIN ((real)1.0e-3)

/* The place of point (x, y, z) in cell c (the cell the build gave it), for a pass of reach `reach`
 * (<= the grid's radius; widened by the view's slack). */
HD static inline nbr_place nbr_place_of(const nbr_view *v, int32_t c, real x, real y, real z, real reach, int cube)
{
    const int m = v->ndiv, mz = v->dim == 3 ? m : 0;
    const int64_t n0 = v->nc[0], n1 = v->nc[1];
    const int64_t q[3] = {c % n0 - m, (c / n0) % n1 - m, c / (n0 * n1) - mz};
    const real u[3] = {x, y, z};
    nbr_place p;
    for (int a = 0; a < 3; ++a) {
        p.f[a] = a < v->dim ? (real)(((double)u[a] - v->origin[a]) / v->cell_size[a] - (double)q[a]) : R(0.0);
        p.reach[a] = (real)((double)(reach + v->slack) / v->cell_size[a]) + NBR_REACH_MARGIN;
    }
    p.cube = cube;
    return p;
}

/* Distance in cells from a point at fraction f of its cell to the nearest face of the cell d rows
 * away (0 for its own row). */
HD static inline real nbr_row_gap(int d, real f)
{
    real g = d > 0 ? (real)d - f : d < 0 ? f - (real)d - R(1.0) : R(0.0);
    return g > R(0.0) ? g : R(0.0);
}

/* Run r for a point placed at p in cell c, cut to the cells its reach touches: empty when the row is
 * out of reach, else the cells along x within the reach left in that row. Every candidate closer
 * than the reach (along every axis, for a cube) is in the result, in nbr_run_range's order (a grid
 * without periodic axes). */
HD static inline void nbr_run_range_within(const nbr_view *v, int32_t c, int r, const nbr_place *p, int32_t *begin,
                                           int32_t *end)
{
    const int m = v->ndiv;
    real gy = nbr_row_gap(v->run_dy[r], p->f[1]) / p->reach[1];
    real gz = v->dim == 3 ? nbr_row_gap(v->run_dz[r], p->f[2]) / p->reach[2] : R(0.0);
    real rx; /* the reach left along x, in cells */
    if (p->cube) {
        rx = gy < R(1.0) && gz < R(1.0) ? p->reach[0] : R(-1.0);
    } else {
        real left = R(1.0) - gy * gy - gz * gz;
        rx = left >= R(0.0) ? p->reach[0] * sqrt(left) : R(-1.0);
    }
    int lo = rx < R(0.0) ? 1 : (int)floor(p->f[0] - rx), hi = rx < R(0.0) ? 0 : (int)floor(p->f[0] + rx);
    lo = lo < -m ? -m : lo;
    hi = hi > m ? m : hi;
    int32_t centre = c + v->run_offset[r];
    if (lo > hi) {
        *begin = *end = v->cell_start[centre];
        return;
    }
    *begin = v->cell_start[centre + lo];
    *end = v->cell_start[centre + hi + 1];
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
#define NBR_FOR_CELL_CANDIDATES(nb, cell, j, ...) NBR_FOR_RUNS_(nb, cell, (const nbr_place *)0, j, __VA_ARGS__)

/* The walk both take: the ranges of every run (nbr_run_ranges_within: whole runs where place is
 * NULL), the statements expanded once. */
#define NBR_FOR_RUNS_(nb, cell, place, j, ...)                                                     \
    do {                                                                                          \
        int32_t nbr_c_ = (cell);                                                                  \
        for (int nbr_r_ = 0; nbr_r_ < (nb)->nruns; ++nbr_r_) {                                    \
            int32_t nbr_jb_[2], nbr_je_[2];                                                       \
            int nbr_parts_ = nbr_run_ranges_within(nb, nbr_c_, nbr_r_, place, nbr_jb_, nbr_je_);  \
            int32_t nbr_b0_ = nbr_jb_[0], nbr_e0_ = nbr_je_[0];                                   \
            int32_t nbr_b1_ = nbr_parts_ > 1 ? nbr_jb_[1] : 0, nbr_e1_ = nbr_parts_ > 1 ? nbr_je_[1] : 0; \
            for (int nbr_k_ = 0; nbr_k_ < nbr_parts_; ++nbr_k_)                                   \
                for (int32_t j = nbr_k_ ? nbr_b1_ : nbr_b0_, nbr_end_ = nbr_k_ ? nbr_e1_ : nbr_e0_; \
                     j < nbr_end_; ++j) {                                                         \
                    __VA_ARGS__                                                                   \
                }                                                                                 \
        }                                                                                         \
    } while (0)

/* Run r for a point placed at p in cell c, as ranges: cut to the reach (one range), or on a grid with
 * periodic axes the whole run as nbr_run_ranges gives it (the seam's folding is not cut). */
HD static inline int nbr_run_ranges_within(const nbr_view *v, int32_t c, int r, const nbr_place *p, int32_t begin[2],
                                           int32_t end[2])
{
    if (!p)
        return nbr_run_ranges(v, c, r, begin, end);
#ifndef SLUICE_NO_PERIODIC
    if (v->periodic)
        return nbr_run_ranges_periodic(v, c, r, begin, end);
#endif
    nbr_run_range_within(v, c, r, p, &begin[0], &end[0]);
    return 1;
}

/* The candidates of particle i at (x, y, z) within `reach` (<= the grid's radius; cube: along every
 * axis) and some beyond it, in run order (nbr_run_ranges_within). The statements are expanded once:
 * a second copy for the periodic grids made the CPU's MPS passes a third slower or more (docs/performance.md). */
#define NBR_FOR_CANDIDATES_WITHIN(nb, i, x, y, z, reach, cube, j, ...)                              \
    do {                                                                                          \
        nbr_place nbr_p_ = nbr_place_of(nb, (nb)->cell[i], x, y, z, reach, cube);                 \
        NBR_FOR_RUNS_(nb, (nb)->cell[i], &nbr_p_, j, __VA_ARGS__);                                 \
    } while (0)

/* The candidates of particle i (i itself included). */
#define NBR_FOR_CANDIDATES(nb, i, j, ...) NBR_FOR_CELL_CANDIDATES(nb, (nb)->cell[i], j, __VA_ARGS__)

#endif
