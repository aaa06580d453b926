/* multigrid_ops.h: the loops of the multigrid preconditioner, one element at a time, run by every
 * backend (backend.mg->run: OpenMP loops on the CPU, a kernel per kind on the GPU), so the
 * arithmetic exists once. The driver (hierarchy, V-cycle) is solver/multigrid.c.
 *
 * The hierarchy is the forward-star cell grid: level 1 aggregates the unknowns of each neighbour
 * cell (unsmoothed aggregation, the prolongation P is 1 from a cell to each of its unknown
 * particles), level l + 1 merges 2 x 2 (x 2) cells of level l. Coarse operators are Galerkin
 * products A_{l+1} = P^T A_l P, so they stay symmetric positive definite, keep A's weak diagonal
 * dominance (a Jacobi weight below 1 smooths on every level), and need no geometry: a cell level
 * is a stencil over the cell offsets within `reach` (the cell width divides the interaction radius
 * ndiv times, so particles that interact sit at most ndiv cells apart; after merging, ceil(reach/2)).
 *
 * Fine-level vectors are particle fields; coarse vectors are arrays of the level. Every element
 * writes only its own entries (no atomics), so the results do not depend on the thread count. */
#ifndef SLUICE_MULTIGRID_OPS_H
#define SLUICE_MULTIGRID_OPS_H

#include "base/real.h"
#include "sparse_ell.h"

#include <stdint.h>

enum {
    MG_MAX_REACH = 3, /* the first level's: ndiv */
    MG_MAX_LEVELS = 16
};

/* A level: cells on a box of n[0] x n[1] x n[2], cell c = ix + n0 (iy + n1 iz), and the stencil
 * a[c * nst + s] of cell c with the cell at offset s, s = mg_entry(offset): x fastest (mg_at). A
 * cell's stencil is contiguous, so the lanes that sum one cell's product (mg_lane_sum) read it
 * together in whole sectors. The ints come first, an even number of them, so that the struct has no
 * padding: the CUDA backend compares loops' operands byte for byte (cuda_mg_replay). */
typedef struct mg_grid {
    int dim;
    int n[3];
    int reach;
    int nst;          /* (2 reach + 1)^dim */
    int merge;        /* cells of this level per cell of the next, along each axis that has more than one */
    int lanes;        /* threads a listed cell's product is summed in (a power of two; mg_lane_sum) */
    int blocks;       /* the GPU's blocks for the listed loops (0: its default) */
    int own_axis;     /* the cells this process lists: the columns [own_lo, own_hi) along own_axis, the */
    int own_lo, own_hi; /* whole level on one process; on several (solver/multigrid.h, mg_ranks) the
                         * other columns are the other processes', whose values a halo brings */
    int64_t ncells;
    real *a;          /* nst * ncells */
    real *b, *x, *t;  /* right-hand side, solution, residual: ncells each */
    int32_t *active;  /* the cells with an unknown (a non-zero diagonal), ascending: the first *nactive
                       * (backend.mg.list_cells, at each set-up); the listed loops (mg_listed) run over
                       * them alone, most of a level's box being air */
    int32_t *nactive; /* their count: one int in the backend's memory, where the GPU's loops read it */
    real *d;          /* the diagonal by cell, contiguous (list_cells copies it out of a) */
} mg_grid;

enum mg_kind {
    /* particles: in, out, work are particle fields; `coarse` is the first cell level */
    MG_FINE_PRODUCT,  /* out = A in */
    MG_FINE_SMOOTH,   /* out = omega in / diag: the first Jacobi step, from out = 0 */
    MG_FINE_RESIDUAL, /* work = in - A out */
    MG_FINE_CORRECT,  /* out += omega work / diag */
    MG_FINE_PROLONG,  /* out_i += alpha coarse.x[cell of i] */
    MG_CELL_UNKNOWN,  /* cell_unknown[i] = cell of i where i is an unknown (diag != 0), else -1 */
    MG_ROW_PARTIALS,  /* partial[s][i]: row i's entries summed by the stencil entry of their cell */
    MG_FINE_POST,     /* out += alpha coarse.x[cell of i] + omega (work - alpha (A P coarse.x)) / diag,
                       * A P from the row partials: FINE_PROLONG, FINE_RESIDUAL and FINE_CORRECT in one */
    MG_FINE_POST_ZERO, /* the same from out = 0 (the hybrid cycle: work is r) */
    /* over the cells of `coarse`, from the particles */
    MG_FINE_RESTRICT, /* coarse.b[c] = sum of work over the particles of cell c */
    MG_FINE_RESTRICT_ROWS,     /* scratch: (P^T A work) by stencil row (dy, dz), from the partials
                                * (over the listed cells of `coarse`, mg_listed_coarse) */
    MG_FINE_RESTRICT_SMOOTHED, /* coarse.b = P^T in - the rows' sums: P^T (in - A work) (work = S in;
                                * over the listed cells of `coarse`) */
    MG_FIRST_DIAGONAL, /* coarse.a's centre entries (the diagonal) of P^T A P, from the row partials */
    MG_FIRST_LEVEL,   /* coarse.a = P^T A P, from the row partials (over the entries of the listed
                       * cells of `coarse`: the others' stencils are never read) */
    /* over the listed cells of `fine` (fine.active: mg_listed) */
    MG_SMOOTH,        /* fine.x = omega fine.b / diag */
    MG_RESIDUAL,      /* fine.t = fine.b - A fine.x */
    MG_SWEEP,         /* fine.t = fine.x + omega (fine.b - A fine.x) / diag: a Jacobi step, the new
                       * iterate written beside the old (the caller swaps x and t) */
    MG_PROLONG,       /* fine.x[c] += alpha coarse.x[parent of c] */
    /* over the listed cells of `coarse` */
    MG_RESTRICT,      /* coarse.b[c] = sum of fine.t over the children of c */
    MG_GALERKIN_DIAGONAL, /* coarse.a's centre entries of P^T fine.a P */
    MG_GALERKIN,      /* coarse.a = P^T fine.a P (over the entries of the listed cells of `coarse`) */
    MG_KINDS
};

/* One loop's operands; pointers in the backend's memory. No padding (mg_grid). */
typedef struct mg_args {
    int kind;
    int smooth_coarse;             /* the kinds that write coarse.b (MG_FINE_RESTRICT,
                                    * MG_FINE_RESTRICT_SMOOTHED, MG_RESTRICT) also take the coarse
                                    * level's first Jacobi step from zero beside it (MG_SMOOTH's
                                    * coarse.x = omega b / diag at its unknowns): one loop fewer a
                                    * level and cycle, the same values (mg_set_coarse_b) */
    int64_t n;                     /* particles */
    sparse_ell A;                  /* the fine operator's off-diagonal entries */
    const real *diag;              /* its diagonal; 0: not an unknown */
    const int32_t *cell;           /* cell of each particle (the first level's numbering) */
    const int32_t *cell_start;     /* particles of cell c: [cell_start[c], cell_start[c + 1]) */
    const real *in;
    real *out, *work;
    real *partial;                 /* nst (first level) x A.stride: MG_ROW_PARTIALS */
    real *scratch;                 /* stencil rows x the first level's cells: MG_FINE_RESTRICT_ROWS */
    int32_t *cell_unknown;         /* MG_CELL_UNKNOWN's output, MG_ROW_PARTIALS' input */
    mg_grid fine, coarse;
    real omega, alpha;
} mg_args;

/* A kind's name in profile tables. */
static inline const char *mg_kind_label(int kind)
{
    switch (kind) {
    case MG_FINE_PRODUCT: return "mg.product";
    case MG_FINE_SMOOTH: case MG_FINE_CORRECT: case MG_FINE_RESIDUAL: return "mg.fine_smooth";
    case MG_FINE_PROLONG: case MG_FINE_RESTRICT: return "mg.fine_transfer";
    case MG_FINE_POST: case MG_FINE_POST_ZERO: return "mg.fine_post";
    case MG_FINE_RESTRICT_ROWS: case MG_FINE_RESTRICT_SMOOTHED: return "mg.fine_restrict";
    case MG_CELL_UNKNOWN: case MG_ROW_PARTIALS: case MG_FIRST_DIAGONAL: case MG_FIRST_LEVEL:
    case MG_GALERKIN_DIAGONAL: case MG_GALERKIN:
        return "mg.setup";
    default: return "mg.levels";
    }
}

/* The rows (dy, dz) of a level's stencil: (2 reach + 1)^(dim - 1). */
HD static inline int mg_stencil_rows(const mg_grid *g)
{
    const int w = 2 * g->reach + 1;
    return g->dim == 3 ? w * w : w;
}

/* The kinds whose element e is the cell fine.active[e]: a level's cells without unknowns hold x = t
 * = 0 (list_cells clears them), which no loop over the listed cells changes. */
HD static inline int mg_listed(int kind)
{
    return kind == MG_SMOOTH || kind == MG_RESIDUAL || kind == MG_SWEEP || kind == MG_PROLONG;
}

/* The kinds that run over the listed cells of `coarse`, a few elements a cell: the restrictions
 * (b is read at the listed cells alone) and the coarse operators' entries, whose loops over every cell of the box were mostly
 * cells without unknowns. The coarse operators' diagonals come first, over every cell, so that the
 * level can be listed (list_cells) before its other entries are computed. */
HD static inline int mg_listed_coarse(int kind)
{
    return kind == MG_FINE_RESTRICT_ROWS || kind == MG_FINE_RESTRICT_SMOOTHED || kind == MG_FIRST_LEVEL ||
           kind == MG_GALERKIN || kind == MG_RESTRICT;
}

/* A listed-coarse kind's elements a listed cell. */
HD static inline int mg_listed_coarse_per_cell(const mg_args *m)
{
    return m->kind == MG_FINE_RESTRICT_ROWS ? mg_stencil_rows(&m->coarse)
           : m->kind == MG_FIRST_LEVEL || m->kind == MG_GALERKIN ? m->coarse.nst
                                                                   : 1;
}

/* How many elements a kind's loop runs over, at most: a listed kind's bound is the level's cells,
 * which the host knows without reading the count from the backend's memory. */
HD static inline int64_t mg_range_bound(const mg_args *m)
{
    switch (m->kind) {
    case MG_FINE_PRODUCT: case MG_FINE_SMOOTH: case MG_FINE_RESIDUAL: case MG_FINE_CORRECT: case MG_FINE_PROLONG:
    case MG_ROW_PARTIALS: case MG_FINE_POST: case MG_FINE_POST_ZERO: case MG_CELL_UNKNOWN:
        return m->n;
    case MG_SMOOTH: case MG_RESIDUAL: case MG_SWEEP: case MG_PROLONG:
        return m->fine.ncells;
    case MG_FIRST_LEVEL: case MG_GALERKIN: /* one element per entry */
        return m->coarse.ncells * m->coarse.nst;
    case MG_FINE_RESTRICT_ROWS: /* one element per stencil row of a cell */
        return m->coarse.ncells * mg_stencil_rows(&m->coarse);
    default:
        return m->coarse.ncells;
    }
}

/* How many elements a kind's loop runs over: a listed kind's count read where the backend keeps it
 * (host memory on the CPU; on the GPU, from device code only). */
HD static inline int64_t mg_range(const mg_args *m)
{
    if (mg_listed(m->kind))
        return *m->fine.nactive;
    if (mg_listed_coarse(m->kind))
        return *m->coarse.nactive * mg_listed_coarse_per_cell(m);
    return mg_range_bound(m);
}

/* ---- grid geometry -------------------------------------------------------------------------- */

HD static inline void mg_coords(const mg_grid *g, int64_t c, int q[3])
{
    q[0] = (int)(c % g->n[0]);
    q[1] = (int)((c / g->n[0]) % g->n[1]);
    q[2] = (int)(c / ((int64_t)g->n[0] * g->n[1]));
}

HD static inline int64_t mg_index(const mg_grid *g, const int q[3])
{
    return q[0] + (int64_t)g->n[0] * (q[1] + (int64_t)g->n[1] * q[2]);
}

/* The stencil entry of offset o (each |o[k]| <= reach). */
HD static inline int mg_entry(const mg_grid *g, const int o[3])
{
    int w = 2 * g->reach + 1;
    return (o[0] + g->reach) + w * ((o[1] + g->reach) + (g->dim == 3 ? w * (o[2] + g->reach) : 0));
}

/* Where entry s of cell c's stencil lies in a. */
HD static inline int64_t mg_at(const mg_grid *g, int64_t c, int s)
{
    return c * g->nst + s;
}

/* The diagonal as the set-up writes it (MG_FIRST_LEVEL, MG_GALERKIN): a cell's centre entry. */
HD static inline real mg_centre(const mg_grid *g, int64_t c)
{
    return g->a[mg_at(g, c, g->nst / 2)];
}

/* The diagonal once the level is listed (list_cells): contiguous, for the loops that read one cell's
 * diagonal a thread. */
HD static inline real mg_diagonal(const mg_grid *g, int64_t c)
{
    return g->d[c];
}

HD static inline int mg_inside(const mg_grid *g, const int q[3])
{
    return q[0] >= 0 && q[0] < g->n[0] && q[1] >= 0 && q[1] < g->n[1] && q[2] >= 0 && q[2] < g->n[2];
}

/* Whether cell c lies in the columns this process owns (mg_grid.own_axis). */
HD static inline int mg_owned(const mg_grid *g, int64_t c)
{
    const int64_t k = g->own_axis == 0   ? c % g->n[0]
                      : g->own_axis == 1 ? (c / g->n[0]) % g->n[1]
                                         : c / ((int64_t)g->n[0] * g->n[1]);
    return k >= g->own_lo && k < g->own_hi;
}

/* Whether list_cells lists cell c, of diagonal d: an unknown of this process's columns. */
HD static inline int mg_lists(const mg_grid *g, int64_t c, real d)
{
    return d != R(0.0) && mg_owned(g, c);
}

/* Columns [k0, k1) along `axis` of a level's array of per_cell values a cell, as `count` runs of
 * `run` values, `pitch` apart, from `first` (all in values): what a halo between processes copies
 * (backend.mg.columns). */
typedef struct mg_span {
    int64_t first, run, count, pitch;
} mg_span;

static inline mg_span mg_columns_span(const mg_grid *g, int axis, int k0, int k1, int per_cell)
{
    const int64_t n0 = g->n[0], n01 = n0 * g->n[1], pc = per_cell, cols = k1 - k0;
    mg_span sp;
    if (axis == 0)
        sp = (mg_span){k0 * pc, cols * pc, (int64_t)g->n[1] * g->n[2], n0 * pc};
    else if (axis == 1)
        sp = (mg_span){k0 * n0 * pc, cols * n0 * pc, g->n[2], n01 * pc};
    else
        sp = (mg_span){k0 * n01 * pc, cols * n01 * pc, 1, cols * n01 * pc};
    return sp;
}

/* ---- the fine level: the assembled particle operator ------------------------------------------ */

/* (A v)_i from the rows of A and its diagonal. */
HD static inline real mg_fine_product(const mg_args *m, int64_t i, const real *v)
{
    real sum = m->diag[i] * v[i];
    int32_t len = m->A.count[i] < m->A.width ? m->A.count[i] : m->A.width;
    if (m->A.shift == 0) { /* column-major, the index's arithmetic left to the compiler (CPU) */
        const int64_t st = m->A.stride;
        for (int32_t k = 0; k < len; ++k)
            sum += m->A.val[(int64_t)k * st + i] * v[m->A.col[(int64_t)k * st + i]];
        return sum;
    }
    for (int32_t k0 = 0; k0 < len; k0 += SPARSE_ELL_GROUP) { /* the width is whole groups */
        int32_t col[SPARSE_ELL_GROUP];
        real val[SPARSE_ELL_GROUP];
        sparse_ell_load_group(&m->A, (int32_t)i, k0, col, val);
        for (int b = 0; b < SPARSE_ELL_GROUP; ++b)
            if (k0 + b < len)
                sum += val[b] * v[col[b]];
    }
    return sum;
}

/* The stencil entry of the cell `delta` cells after a cell (in the linear numbering), for a cell
 * within reach on every axis: delta + reach (1 + n0 + n0 n1) has the digits ox + reach, oy + reach,
 * oz + reach in the radices n0, n1 (each digit below its radix: the grid is wider than a stencil,
 * the neighbour grid's margins see to that). Two 32-bit divisions instead of two coordinate
 * decompositions. -1 for a cell beyond reach: a neighbour across a periodic seam, which the cell
 * levels leave out (they are a preconditioner; dropping a symmetric pair of negative couplings keeps
 * the coarse operators diagonally dominant, so still positive definite). *ox_out is the x digit,
 * ox + reach. */
HD static inline int mg_entry_of_delta(const mg_grid *g, int32_t delta, int *ox_out)
{
    uint32_t n0 = (uint32_t)g->n[0], n1 = (uint32_t)g->n[1], r = (uint32_t)g->reach, w = 2 * r + 1;
    uint32_t shifted = (uint32_t)delta + r * (1 + n0 + (g->dim == 3 ? n0 * n1 : 0));
    uint32_t ox = shifted % n0, rest = shifted / n0;
    uint32_t oy = rest % n1, oz = rest / n1;
    if (ox >= w || oy >= w || oz >= w)
        return -1;
    *ox_out = (int)ox;
    return (int)(ox + w * (oy + w * oz));
}

/* Row i's part of P^T A P: its entries summed by the stencil entry of their cell relative to i's
 * (columns that are not unknowns left out), into out[s * ostride] for every s (the partials' own
 * place, or a staging tile: the GPU's kernel). The rows are assembled in candidate order, runs of
 * cells by (dz, dy) with x increasing inside a run, so the entry index only grows along a row: a
 * running sum is written when it moves on, each slot once, slots skipped written as zeros; and the
 * next cell along x in reach is the next slot, so the divisions of mg_entry_of_delta are taken once
 * a run, not once an entry. Should a row go back, its entry is added to the slot written before, so
 * any order is right; this one is fast. A group of entries is read at a time, then its columns' cells
 * (cell_unknown: the cell and whether j is an unknown in one gather), so that the loads are in
 * flight together. */
HD static inline void mg_row_partials_into(const mg_args *m, int64_t i, real *out, int64_t ostride)
{
    const mg_grid *g = &m->coarse;
    const int w = 2 * g->reach + 1;
    int next = 0; /* slots below `next` are written */
    int cur = g->nst / 2;
    real acc = R(0.0);
    if (m->diag[i] != R(0.0)) {
        const int32_t len = m->A.count[i] < m->A.width ? m->A.count[i] : m->A.width;
        const int32_t ci = m->cell[i];
        int open = 0;                       /* `cur` holds a running sum not yet written */
        int32_t last_cell = -1;             /* the cell of the last entry that had a slot */
        int last_slot = 0, last_x = w;      /* its slot and x digit (w: none yet) */
        for (int32_t k0 = 0; k0 < len; k0 += SPARSE_ELL_GROUP) {
            int32_t col[SPARSE_ELL_GROUP], cj[SPARSE_ELL_GROUP];
            real val[SPARSE_ELL_GROUP];
            sparse_ell_load_group(&m->A, (int32_t)i, k0, col, val);
            for (int b = 0; b < SPARSE_ELL_GROUP; ++b) /* P has no column for j unless it is an unknown */
                cj[b] = k0 + b < len ? m->cell_unknown[col[b]] : -1;
            for (int b = 0; b < SPARSE_ELL_GROUP; ++b) {
                if (cj[b] < 0)
                    continue;
                const int32_t step = cj[b] - last_cell;
                int s;
                if (step >= 0 && last_x + step < w) { /* further along the same run of cells */
                    s = last_slot + step;
                    last_x += step;
                } else if ((s = mg_entry_of_delta(g, cj[b] - ci, &last_x)) < 0) {
                    last_x = w;
                    continue; /* across a periodic seam */
                }
                last_cell = cj[b];
                last_slot = s;
                if (open && s == cur) {
                    acc += val[b];
                    continue;
                }
                if (open) {
                    out[cur * ostride] = acc;
                    next = cur + 1;
                }
                if (s < next) { /* gone back: add to the slot written before */
                    out[s * ostride] += val[b];
                    open = 0;
                    continue;
                }
                for (; next < s; ++next)
                    out[next * ostride] = R(0.0);
                cur = s;
                acc = val[b];
                open = 1;
            }
        }
        if (open) {
            out[cur * ostride] = acc;
            next = cur + 1;
        }
        /* the diagonal, into the centre slot (written by now: fill up to it first) */
        const int centre = g->nst / 2;
        for (; next <= centre; ++next)
            out[next * ostride] = R(0.0);
        out[centre * ostride] += m->diag[i];
    }
    for (; next < g->nst; ++next)
        out[next * ostride] = R(0.0);
}

/* Entry s of cell c of P^T A P on the first level: the partials of slot s of the particles of c
 * summed. One element per (listed cell, entry), entries fastest (MG_FIRST_LEVEL), or per cell for
 * the centre entry (MG_FIRST_DIAGONAL): a warp writes consecutive entries, each thread reading its
 * slot's partials of the cell's particles, which are consecutive. */
HD static inline void mg_first_level_entry(const mg_args *m, int64_t c, int s)
{
    const mg_grid *g = &m->coarse;
    const real *p = m->partial + s * m->A.stride;
    real sum = R(0.0);
    for (int32_t i = m->cell_start[c]; i < m->cell_start[c + 1]; ++i)
        sum += p[i];
    g->a[mg_at(g, c, s)] = sum;
}

/* Line q of a level's stencil at cell c added to sum: the entries s = q w .. q w + w - 1 (w = 2 reach
 * + 1 offsets along x, x increasing) of coef[s * stride] v[c + offset(s)], where coef is a cell
 * level's a at cell c or a particle's row partials (coef at row i, c its cell); q = (oz + reach) w +
 * (oy + reach). A non-zero coefficient has its cell inside the grid, so the neighbour is the linear
 * offset alone, and a zero one's neighbour is not read. A kernel loads the line whole before summing
 * it, so a GPU thread waits for two loads a line instead of two an entry (the cell levels at 217k
 * particles were bound by that latency: a residual on 4,300 cells took as long as on 33,000); the
 * CPU, whose caches and prefetch hide it, sums the line as it reads it (the staged form took its
 * cell levels from 9-12 to 13-19 ms a step at 3e4 particles). The same order on every backend. */
HD static inline real mg_line_add(const mg_grid *g, int64_t c, int q, const real *coef, int64_t stride, const real *v,
                                  real sum)
{
    const int r = g->reach, w = 2 * r + 1;
    const int oy = q % w - r, oz = g->dim == 3 ? q / w - r : 0;
    const int64_t first = c - r + (int64_t)g->n[0] * (oy + (int64_t)g->n[1] * oz); /* the neighbour at ox = -r */
    const int s = q * w;
#ifdef __CUDA_ARCH__
    enum { W = 2 * MG_MAX_REACH + 1 }; /* the widest line, unrolled into registers */
    real a[W], x[W];
    SL_UNROLL for (int k = 0; k < W; ++k)
        a[k] = k < w ? coef[(int64_t)(s + k) * stride] : R(0.0);
    SL_UNROLL for (int k = 0; k < W; ++k)
        x[k] = a[k] != R(0.0) ? v[first + k] : R(0.0);
    SL_UNROLL for (int k = 0; k < W; ++k)
        if (a[k] != R(0.0))
            sum += a[k] * x[k];
#else
    for (int k = 0; k < w; ++k) {
        const real a = coef[(int64_t)(s + k) * stride];
        if (a != R(0.0))
            sum += a * v[first + k];
    }
#endif
    return sum;
}

/* The whole stencil's sum, line after line into one running sum: a particle's row partials
 * (mg_fine_post), one thread a particle. */
HD static inline real mg_stencil_sum(const mg_grid *g, int64_t c, const real *coef, int64_t stride, const real *v)
{
    const int lines = mg_stencil_rows(g);
    real sum = R(0.0);
    for (int q = 0; q < lines; ++q)
        sum = mg_line_add(g, c, q, coef, stride, v, sum);
    return sum;
}

/* ---- a cell level's product in lanes ---------------------------------------------------------- */

/* A cell level's product (A v)_c is summed in g->lanes parts, lane j taking lines j, j + lanes, ...
 * into a running sum of its own, and the parts folded pairwise (mg_fold). On the GPU each lane is a
 * thread and the fold goes by shuffles, so a cell's 25 lines (reach 2) cost a thread two waits for
 * memory instead of fifty where the level has too few unknowns to hide that latency with other cells
 * (SPHERIC Test 2 at 217k particles: about 30,000 of level 0's 255,000 cells); where it has many, one
 * lane a cell reads less (docs/performance.md). The backend chooses the lanes (list_cells); the CPU
 * takes one. Any lanes give the same sum up to the order of its additions. */
enum { MG_MAX_LANES = 32 }; /* a warp */

/* The most lanes a level's product can use: its stencil's lines rounded up to a power of two, at
 * most a warp. */
HD static inline int mg_lanes(const mg_grid *g)
{
    const int lines = mg_stencil_rows(g);
    int lanes = 1;
    while (lanes < lines && lanes < MG_MAX_LANES)
        lanes *= 2;
    return lanes;
}

/* Lane `lane`'s part of (A v)_c. */
HD static inline real mg_lane_sum(const mg_grid *g, int64_t c, const real *v, int lane, int lanes)
{
    const int lines = mg_stencil_rows(g);
    real sum = R(0.0);
    for (int q = lane; q < lines; q += lanes)
        sum = mg_line_add(g, c, q, g->a + mg_at(g, c, 0), 1, v, sum);
    return sum;
}

/* The parts folded: part[i] += part[i + half] for i < half, half = lanes / 2, lanes / 4, ... 1; the
 * GPU's shuffles down add in the same pairs and order. */
HD static inline real mg_fold(real *part, int lanes)
{
    for (int half = lanes / 2; half > 0; half /= 2)
        for (int i = 0; i < half; ++i)
            part[i] += part[i + half];
    return part[0];
}

/* The V-cycle's particle loops after the coarse correction, in one: with z1 the Jacobi step before
 * it, z2 = z1 + alpha P e and then z = z2 + omega D^-1 (r - A z2). The residual needs no product of
 * the rows: r - A z2 = (r - A z1) - alpha (A P) e, where r - A z1 is `work` (the residual the
 * restriction took, untouched by the cell levels) and the rows of A P are the row partials, summed
 * over the row's stencil of cells (125 in 3D) instead of its entries (about 240 of 8 bytes): a
 * quarter of the bytes of a product. The same operator as the three loops, so the V-cycle stays
 * symmetric, wherever the partials are all of A P: not across a periodic seam, which they leave out
 * (solver/multigrid.c keeps the three loops there). A non-zero partial is a cell inside the grid. */
HD static inline void mg_fine_post(const mg_args *m, int64_t i, int from_zero)
{
    const real d = m->diag[i];
    if (d == R(0.0))
        return;
    const mg_grid *g = &m->coarse;
    const int64_t c = m->cell[i];
    const real ape = mg_stencil_sum(g, c, m->partial + i, m->A.stride, g->x);
    const real z2 = (from_zero ? R(0.0) : m->out[i]) + m->alpha * g->x[c];
    m->out[i] = z2 + m->omega * (m->work[i] - m->alpha * ape) / d;
}

/* The restriction of the hybrid cycle without a product of the rows: P^T (in - A work) with work =
 * S in (S = omega / diag, MG_FINE_SMOOTH's), (P^T A work)_c = ((A P)^T work)_c gathered from the rows'
 * partials: the particles i of each cell c' within reach of c, partial i's entry at c's offset from
 * c', times work_i. One element per listed cell c (the cells with unknowns: b of the others is
 * not read) and stencil row (dy, dz) (e = row x listed + the cell's place in the list: a thread per
 * cell read its whole stencil one run after another, bound by latency), its sum into scratch[row x
 * cells + c]; the row's cells c' are consecutive, so their particles' bounds are read together first (clamped
 * to the grid: a bound outside makes an empty range; cells across the grid's x edge are margin
 * cells, empty, as mg_level_product relies on). */
HD static inline void mg_fine_restrict_row(const mg_args *m, int64_t e)
{
    const mg_grid *g = &m->coarse;
    const int r = g->reach, w = 2 * r + 1;
    const int64_t listed = *g->nactive;
    const int q = (int)(e / listed);
    const int64_t c = g->active[e - (int64_t)q * listed];
    const int oy = q % w - r, oz = g->dim == 3 ? q / w - r : 0;
    const int64_t first = c - (int64_t)g->n[0] * (oy + (int64_t)g->n[1] * oz) - r; /* cells first .. first + 2r */
    int32_t bound[2 * MG_MAX_REACH + 2];
    for (int k = 0; k <= w; ++k) {
        int64_t at = first + k;
        at = at < 0 ? 0 : at > g->ncells ? g->ncells : at;
        bound[k] = m->cell_start[at];
    }
    real sum = R(0.0);
    for (int k = 0; k < w; ++k) { /* cell first + k sees c at ox = r - k: slot q w + 2r - k */
        const real *part = m->partial + (int64_t)(q * w + w - 1 - k) * m->A.stride;
        for (int32_t i = bound[k]; i < bound[k + 1]; ++i)
            sum += part[i] * m->work[i];
    }
    m->scratch[(int64_t)q * g->ncells + c] = sum;
}

/* v summed over cell c's unknowns (P^T v). */
HD static inline real mg_cell_sum(const mg_args *m, int64_t c, const real *v)
{
    real sum = R(0.0);
    for (int32_t i = m->cell_start[c]; i < m->cell_start[c + 1]; ++i)
        if (m->diag[i] != R(0.0))
            sum += v[i];
    return sum;
}

/* coarse.b[c] = b; with m->smooth_coarse also MG_SMOOTH's step at c, from the b just stored (the
 * same value MG_SMOOTH would read), where c holds unknowns (a listed cell on one process). */
HD static inline void mg_set_coarse_b(const mg_args *m, int64_t c, real b)
{
    m->coarse.b[c] = b;
    if (m->smooth_coarse) {
        const real d = mg_diagonal(&m->coarse, c);
        if (d != R(0.0))
            m->coarse.x[c] = m->omega * b / d;
    }
}

/* b_c = (P^T in)_c minus the stencil rows' sums, in row order, for the e-th listed cell c. */
HD static inline void mg_fine_restrict_smoothed(const mg_args *m, int64_t e)
{
    const int64_t c = m->coarse.active[e];
    const int rows = mg_stencil_rows(&m->coarse);
    real sum = R(0.0);
    for (int q = 0; q < rows; ++q)
        sum += m->scratch[(int64_t)q * m->coarse.ncells + c];
    mg_set_coarse_b(m, c, mg_cell_sum(m, c, m->in) - sum);
}

/* ---- cell levels ------------------------------------------------------------------------------ */

/* (A v)_c on a level: its stencil's row of cell c, in g->lanes parts (mg_lane_sum, mg_fold). */
HD static inline real mg_level_product(const mg_grid *g, int64_t c, const real *v)
{
    real part[MG_MAX_LANES];
    const int lanes = g->lanes > 1 ? g->lanes : 1;
    for (int j = 0; j < lanes; ++j)
        part[j] = mg_lane_sum(g, c, v, j, lanes);
    return mg_fold(part, lanes);
}

/* The cell of the next level holding cell q of this one. */
HD static inline void mg_parent(const mg_grid *fine, const int q[3], int p[3])
{
    for (int d = 0; d < 3; ++d)
        p[d] = fine->n[d] > 1 ? q[d] / fine->merge : q[d];
}

/* The children of coarse cell k: lo[d] .. hi[d] on each axis of the fine level. */
HD static inline void mg_children(const mg_grid *fine, const int k[3], int lo[3], int hi[3])
{
    for (int d = 0; d < 3; ++d) {
        lo[d] = fine->n[d] > 1 ? fine->merge * k[d] : k[d];
        hi[d] = fine->n[d] > 1 ? fine->merge * k[d] + fine->merge - 1 : k[d];
        if (hi[d] >= fine->n[d])
            hi[d] = fine->n[d] - 1;
    }
}

/* The offsets o along one axis at which a child at q of the fine level (coarse cell k) sees a cell
 * whose parent lies o' = oc coarse cells from k: [lo, hi] within the fine reach (empty when lo > hi). */
HD static inline void mg_fine_offsets(const mg_grid *f, int d, int q, int k, int oc, int *lo, int *hi)
{
    const int r = d == 2 && f->dim != 3 ? 0 : f->reach;
    if (f->n[d] > 1) { /* parents of q + o: (q + o) / merge == k + oc */
        *lo = f->merge * (k + oc) - q;
        *hi = *lo + f->merge - 1;
    } else { /* an axis of one cell is not merged */
        *lo = *hi = oc;
    }
    *lo = *lo < -r ? -r : *lo;
    *hi = *hi > r ? r : *hi;
}

/* Entry s of coarse cell kc of P^T A P: the entries of kc's children at the fine offsets whose cells
 * have their parent at kc's neighbour of entry s. An empty child (no unknowns: a zero diagonal) is
 * skipped, which is most cells where the domain holds air. One element per (listed coarse cell,
 * entry), entries fastest (MG_GALERKIN), or per coarse cell for the centre entry
 * (MG_GALERKIN_DIAGONAL): each writes its own entry, coalesced, and the threads of a cell read the
 * same children's stencils. */
HD static inline void mg_galerkin_entry(const mg_args *m, int64_t kc, int s)
{
    const mg_grid *f = &m->fine, *g = &m->coarse;
    int k[3], lo[3], hi[3], q[3], oc[3];
    const int w = 2 * g->reach + 1, fw = 2 * f->reach + 1;
    oc[0] = s % w - g->reach;
    oc[1] = (s / w) % w - g->reach;
    oc[2] = g->dim == 3 ? s / (w * w) - g->reach : 0;
    mg_coords(g, kc, k);
    mg_children(f, k, lo, hi);
    real sum = R(0.0);
    for (q[2] = lo[2]; q[2] <= hi[2]; ++q[2])
        for (q[1] = lo[1]; q[1] <= hi[1]; ++q[1])
            for (q[0] = lo[0]; q[0] <= hi[0]; ++q[0]) {
                const int64_t c = mg_index(f, q);
                if (mg_diagonal(f, c) == R(0.0))
                    continue;
                int olo[3], ohi[3];
                for (int d = 0; d < 3; ++d)
                    mg_fine_offsets(f, d, q[d], k[d], oc[d], &olo[d], &ohi[d]);
                for (int oz = olo[2]; oz <= ohi[2]; ++oz)
                    for (int oy = olo[1]; oy <= ohi[1]; ++oy)
                        for (int ox = olo[0]; ox <= ohi[0]; ++ox) {
                            const int fs = (ox + f->reach) + fw * ((oy + f->reach) + (f->dim == 3 ? fw * (oz + f->reach) : 0));
                            sum += f->a[mg_at(f, c, fs)];
                        }
            }
    g->a[mg_at(g, kc, s)] = sum;
}

/* A listed kind's lanes: its product's (MG_RESIDUAL, MG_SWEEP), else 1. */
HD static inline int mg_listed_lanes(const mg_args *m)
{
    return (m->kind == MG_RESIDUAL || m->kind == MG_SWEEP) && m->fine.lanes > 1 ? m->fine.lanes : 1;
}

/* A listed kind at cell c (an unknown of `fine`), given ax = (A fine.x)_c where the kind needs it. */
HD static inline void mg_listed_finish(const mg_args *m, int kind, int64_t c, real ax)
{
    const mg_grid *g = &m->fine;
    const real d = mg_diagonal(g, c);
    switch (kind) {
    case MG_SMOOTH:
        g->x[c] = m->omega * g->b[c] / d;
        break;
    case MG_RESIDUAL:
        g->t[c] = g->b[c] - ax;
        break;
    case MG_SWEEP: /* MG_RESIDUAL's residual, unstored, then the weighted correction */
        g->t[c] = g->x[c] + m->omega * (g->b[c] - ax) / d;
        break;
    case MG_PROLONG: {
        int q[3], p[3];
        mg_coords(g, c, q);
        mg_parent(g, q, p);
        g->x[c] += m->alpha * m->coarse.x[mg_index(&m->coarse, p)];
        break;
    }
    default:
        break;
    }
}

/* ---- one element of any kind ------------------------------------------------------------------ */

HD static inline void mg_element(const mg_args *m, int kind, int64_t e)
{
    switch (kind) {
    case MG_FINE_PRODUCT:
        m->out[e] = m->diag[e] != R(0.0) ? mg_fine_product(m, e, m->in) : R(0.0);
        break;
    case MG_FINE_SMOOTH:
        m->out[e] = m->diag[e] != R(0.0) ? m->omega * m->in[e] / m->diag[e] : R(0.0);
        break;
    case MG_FINE_RESIDUAL:
        m->work[e] = m->diag[e] != R(0.0) ? m->in[e] - mg_fine_product(m, e, m->out) : R(0.0);
        break;
    case MG_FINE_CORRECT:
        if (m->diag[e] != R(0.0))
            m->out[e] += m->omega * m->work[e] / m->diag[e];
        break;
    case MG_FINE_PROLONG:
        if (m->diag[e] != R(0.0))
            m->out[e] += m->alpha * m->coarse.x[m->cell[e]];
        break;
    case MG_FINE_RESTRICT: {
        real sum = R(0.0);
        for (int32_t i = m->cell_start[e]; i < m->cell_start[e + 1]; ++i)
            sum += m->work[i];
        mg_set_coarse_b(m, e, sum);
        break;
    }
    case MG_CELL_UNKNOWN:
        m->cell_unknown[e] = m->diag[e] != R(0.0) ? m->cell[e] : -1;
        break;
    case MG_ROW_PARTIALS:
        mg_row_partials_into(m, e, m->partial + e, m->A.stride);
        break;
    case MG_FINE_POST:
        mg_fine_post(m, e, 0);
        break;
    case MG_FINE_POST_ZERO:
        mg_fine_post(m, e, 1);
        break;
    case MG_FINE_RESTRICT_ROWS:
        mg_fine_restrict_row(m, e);
        break;
    case MG_FINE_RESTRICT_SMOOTHED:
        mg_fine_restrict_smoothed(m, e);
        break;
    case MG_FIRST_DIAGONAL:
        mg_first_level_entry(m, e, m->coarse.nst / 2);
        break;
    case MG_FIRST_LEVEL: /* e: a listed cell's entry */
        mg_first_level_entry(m, m->coarse.active[e / m->coarse.nst], (int)(e % m->coarse.nst));
        break;
    case MG_SMOOTH: case MG_RESIDUAL: case MG_SWEEP: case MG_PROLONG: { /* e: a listed cell */
        const int64_t c = m->fine.active[e];
        const int product = kind == MG_RESIDUAL || kind == MG_SWEEP;
        mg_listed_finish(m, kind, c, product ? mg_level_product(&m->fine, c, m->fine.x) : R(0.0));
        break;
    }
    case MG_RESTRICT: {
        const int64_t c = m->coarse.active[e]; /* e: a listed cell */
        int k[3], lo[3], hi[3], q[3];
        mg_coords(&m->coarse, c, k);
        mg_children(&m->fine, k, lo, hi);
        real sum = R(0.0);
        for (q[2] = lo[2]; q[2] <= hi[2]; ++q[2])
            for (q[1] = lo[1]; q[1] <= hi[1]; ++q[1])
                for (q[0] = lo[0]; q[0] <= hi[0]; ++q[0])
                    sum += m->fine.t[mg_index(&m->fine, q)];
        mg_set_coarse_b(m, c, sum);
        break;
    }
    case MG_GALERKIN_DIAGONAL:
        mg_galerkin_entry(m, e, m->coarse.nst / 2);
        break;
    case MG_GALERKIN: /* e: a listed cell's entry */
        mg_galerkin_entry(m, m->coarse.active[e / m->coarse.nst], (int)(e % m->coarse.nst));
        break;
    default:
        break;
    }
}

#endif
