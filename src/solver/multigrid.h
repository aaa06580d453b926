/* multigrid.h: the multigrid preconditioner of the pressure solve: aggregation on the neighbour
 * grid's cells, Galerkin coarse operators, a V-cycle with Jacobi smoothing on the cell levels and,
 * on the particles, the V-cycle's steps or the hybrid cycle's, whose projections come from the
 * rows of A P (enum mg_cycle; core/multigrid_ops.h has the loops and their reasons). Built every
 * step from the assembled particle operator; the same code drives the CPU and the GPU through
 * backend.mg.
 *
 * Use with a scheme whose matrix set-up pass can assemble its rows (pass_args.ell):
 *   multigrid_assemble (runs that pass) -> multigrid_setup -> pcg_solve with cg->precondition,
 *   cg->product of this header. */
#ifndef SLUICE_MULTIGRID_H
#define SLUICE_MULTIGRID_H

#include "core/backend.h"
#include "core/multigrid_ops.h"

struct sim;

/* The cell levels cut among processes (MPI ranks, parallel/domain.h) as the particles are: each
 * lists the cells of its slab of columns alone (mg_grid.own_lo .. own_hi) and reads its neighbours'
 * columns within a stencil's reach as a halo, made current before each loop that reads them, so that
 * the cycle is one process's cycle spread over the processes (the same iterations, up to the order
 * of additions). All NULL: one process, or each process's block alone (mps.c). */
typedef struct mg_ranks {
    /* The neighbour grid's cell columns (margins included) along *axis that process q owns, [cut[q],
     * cut[q + 1]) (cut NULL: only the count), and this process's q; returns the number of processes. */
    int (*cuts)(const struct sim *s, int *axis, int *rank, int *cut);
    /* The columns of v (level g's array, per_cell values a cell, the backend's memory) that this
     * process reads of the others' made current: those within `left` columns below its first and
     * `right` above its last, where process q owns g's columns [bound[q], bound[q + 1]). */
    int (*halo)(struct sim *s, const mg_grid *g, const int *bound, real *v, int per_cell, int left, int right,
                sl_err *err);
    /* The columns of v that the other processes own copied here from them: the whole level on
     * every process (the same arguments on every process). */
    int (*gather)(struct sim *s, const mg_grid *g, const int *bound, real *v, int per_cell, sl_err *err);
    /* v[0 .. count) summed over the processes. */
    int (*sum)(struct sim *s, double *v, int count, sl_err *err);
} mg_ranks;

/* Each process's columns of a level whose cells span `span` columns of level 0 along the cut axis
 * (ncols of them on the level): process q owns [bound[q], bound[q + 1]), the process that owns a
 * cell's first level-0 column, from the level-0 cuts cut[0 .. np] (cut[0] = 0). So the children of
 * a process's coarse cells lie in its columns and one beyond its last, and the parents of its cells
 * in its coarse columns and one before its first (tests/test_multigrid.c). */
static inline void multigrid_rank_columns(const int *cut, int np, int64_t span, int ncols, int *bound)
{
    for (int q = 0; q <= np; ++q) {
        const int64_t k = (cut[q] + span - 1) / span;
        bound[q] = q == np || k > ncols ? ncols : (int)k;
    }
    bound[0] = 0;
}

/* What the preconditioner does on the particles (multigrid_precondition). */
enum mg_cycle { MG_CYCLE_V, MG_CYCLE_HYBRID };

typedef struct multigrid {
    /* settings (multigrid_init's defaults) */
    real omega;            /* Jacobi weight on every level */
    real alpha;            /* scale of the coarse-grid correction */
    int coarsest_sweeps;   /* Jacobi sweeps on the coarsest level */
    int coarsest_cells;    /* coarsen until a level has at most this many cells */
    int coarsest_listed;   /* the cycle stops at the first level after level 0 with at most this many
                            * cells with unknowns at this set-up: a flow with much air has coarse levels
                            * that are mostly empty boxes */
    int merge;             /* cells merged per axis from level 2 on (level 1 to 2: always 2) */
    int level_sweeps;      /* Jacobi steps before and after the coarse correction on the cell levels */
    int post_partials;     /* the particle loops after the coarse correction as one (MG_FINE_POST), its
                            * residual from the row partials: not on a periodic grid (SLUICE_MG_POST=0,
                            * a measurement knob, keeps the three loops) */
    int fuse_smooth;       /* each cell level's first Jacobi step from zero taken by the loop that
                            * restricts its b (mg_args.smooth_coarse): on one process, where no halo
                            * comes between them (SLUICE_MG_FUSE=0, a measurement knob, keeps it a
                            * loop of its own) */
    int cycle;             /* enum mg_cycle: the backend's default, hybrid only where post_partials
                            * allows (SLUICE_MG_CYCLE=v|hybrid, a measurement knob); both set by the
                            * first multigrid_setup */
    int diag;              /* the diagonal's particle field: the V-cycle's rows (with overlapping blocks
                            * across processes, also rows that cg->diag has out) */
    /* the assembled particle operator (off-diagonal rows) */
    sparse_ell A;
    size_t rows;           /* rows allocated (stride) */
    real *partial;         /* each row's entries by stencil entry (the first level's stencil x rows) */
    int32_t *cell_unknown; /* each row's cell where it is an unknown, else -1 (rows) */
    real *row_sums;        /* the hybrid cycle's restriction by stencil row (stencil rows x the first
                            * level's cells), allocated with the levels */
    size_t partial_rows;
    /* cell levels: level[0] aggregates the particles of each neighbour cell */
    int nlevels;           /* levels allocated and built at every set-up */
    int used;              /* levels the cycle runs (coarsest_listed), at most nlevels */
    long setups;           /* set-ups so far: the levels and their shapes change only there (the
                            * preconditioner's stamp for backend.mg.replay) */
    mg_grid level[MG_MAX_LEVELS];
    /* several processes (mg_ranks; set before the first set-up) */
    mg_ranks ranks;
    int nranks, rank;      /* processes the levels are cut among (1: none), and this one's number */
    int gather_cells;      /* the levels from the first after level 0 of at most this many cells (its
                            * box) are whole on every process: each cycle gathers that level's b, and
                            * every process runs the rest alike, with no halo (SLUICE_MG_GATHER_CELLS,
                            * a measurement knob; 0: never) */
    int whole_from;        /* that level (nlevels: none) */
    int ring;              /* the cut levels after level 0 that are not the cycle's coarsest run their
                            * loops over a ring of the others' columns too (multigrid.c, ring_cycle):
                            * two halos a level and cycle (b, and the coarse solution) instead of six
                            * (SLUICE_MG_RING=0, a measurement knob, keeps a halo before every loop) */
    int32_t *ring_active[MG_MAX_LEVELS], *ring_nactive[MG_MAX_LEVELS]; /* each level's cells with unknowns
                            * in its columns and its ring's (NULL on one process and on level 0) */
    int *bound;            /* level l's columns of process q: [bound[l (nranks + 1) + q], .. + 1) */
    /* statistics (the set-up's time is in the profile: phase mg.setup, `sluice bench`) */
    int widenings;         /* times rows did not fit and were assembled again */
    int longest;           /* the longest row any assembly found (what the width must hold) */
} multigrid;

/* Defaults; nothing allocated until the first assembly. */
void multigrid_init(multigrid *mg, int diag_field);

/* Releases what the backend holds for mg. */
void multigrid_free(struct sim *s, multigrid *mg);

/* Runs the matrix set-up pass `setup` over particles [0, n) with s->args.ell pointing at rows for
 * them (each up to `width_hint` entries the first time), so that it assembles A; when a row did not
 * fit, widens the rows and runs it again. s->args.ell is cleared afterwards. */
int multigrid_assemble(struct sim *s, multigrid *mg, const pass *setup, size_t n, int width_hint, sl_err *err);

/* Bytes the hierarchy and the rows hold in the backend's memory. */
size_t multigrid_bytes(const multigrid *mg);

/* Builds the hierarchy from the assembled rows and the diagonal (the neighbour grid's layout). */
int multigrid_setup(struct sim *s, multigrid *mg, sl_err *err);

/* cg_problem.precondition: z = V-cycle(r); cg->data is the multigrid. On several processes (mg_ranks)
 * r is read at the particles' copies too (their owners' values) and z there is left undefined. */
int multigrid_precondition(struct sim *s, const cg_problem *cg, sl_err *err);

/* cg_problem.product: field out = A (field in), by the assembled rows and cg->diag (the solve's
 * rows). */
int multigrid_product(struct sim *s, const cg_problem *cg, int in, int out);

#endif
