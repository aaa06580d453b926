/* multigrid.c: the hierarchy and the V-cycle of the multigrid preconditioner over backend.mg. */
#include "multigrid.h"

#include "core/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the measurement knob `name` (a feature that is on unless the variable is "0") is set to 0. */
static int knob_off(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "0") == 0;
}

void multigrid_init(multigrid *mg, int diag_field)
{
    memset(mg, 0, sizeof *mg);
    /* A and its Galerkin products are weakly diagonally dominant, so D^-1 A has its spectrum in
     * (0, 2], and below 2 where the rows' graph has odd cycles (every particle's neighbourhood and
     * the cells' stencils hold triangles): weight 1 still damps every mode and keeps the cycle
     * symmetric positive definite (2 D - A > 0). It took the fewest iterations: SPHERIC Test 2 at
     * 40 mm 6.1 a step against 6.8 at 0.9 and 6.3 at 1.1, the 10^5 box 5.0 against 5.3
     * (docs/methods.md). */
    mg->omega = R(1.0);
    /* over-correction of the piecewise-constant coarse correction (docs/methods.md) */
    mg->alpha = R(1.5);
    mg->coarsest_sweeps = 4;
    /* two Jacobi steps each side on the cell levels (cheap: a cell level is an eighth of the
     * particles or less): 8.9 iterations per step on the 1M box against 11.0 with one (H200) */
    mg->level_sweeps = 2;
    const char *sweeps = getenv("SLUICE_MG_SWEEPS"); /* a measurement knob: 1..4 */
    if (sweeps && *sweeps >= '1' && *sweeps <= '4' && !sweeps[1])
        mg->level_sweeps = *sweeps - '0';
    mg->coarsest_cells = 8;
    const char *coarsest = getenv("SLUICE_MG_COARSEST"); /* a measurement knob: the coarsest level's cells */
    if (coarsest && strtol(coarsest, NULL, 10) > 0)
        mg->coarsest_cells = (int)strtol(coarsest, NULL, 10);
    /* 32 cells with unknowns: at 217k particles SPHERIC Test 2 with MPS runs 5 of 7 levels with the
     * same iterations, 2.6% faster a step on an H100 (16 cells: 6 levels; 64: the box took 9.9
     * iterations a step against 8.6); the 1M box 6 of 7, 8.5 iterations against 8.8 (a coarsest
     * level by the box's cells, 512, cost the box 8.8 -> 10.0); docs/performance.md */
    mg->coarsest_listed = 32;
    const char *listed = getenv("SLUICE_MG_COARSEST_LISTED"); /* a measurement knob; 0: every level */
    if (listed && *listed && strtol(listed, NULL, 10) >= 0)
        mg->coarsest_listed = (int)strtol(listed, NULL, 10);
    /* 2^17 cells: SPHERIC Test 2 with MPS at 20M particles a rank on 2 H200s cut its 8 levels' halos
     * (about 46 an iteration, 0.13 ms each) to those of levels 0-2; the gathered b is 0.5 MB at most */
    mg->gather_cells = 1 << 17;
    const char *gather = getenv("SLUICE_MG_GATHER_CELLS"); /* a measurement knob; 0: halos on every level */
    if (gather && *gather && strtol(gather, NULL, 10) >= 0)
        mg->gather_cells = (int)strtol(gather, NULL, 10);
    mg->diag = diag_field;
    /* 2 x 2 x 2 cells into one: merging 3 or 4 per axis takes fewer levels but more iterations,
     * slower on the H200 at 217k and 1M particles (docs/performance.md) */
    mg->merge = 2;
    mg->ring = !knob_off("SLUICE_MG_RING");        /* 0 keeps a halo before every loop */
    mg->fuse_smooth = !knob_off("SLUICE_MG_FUSE"); /* 0 keeps MG_SMOOTH a loop */
}

static void free_levels(sim *s, multigrid *mg)
{
    const backend_mg_hooks *h = s->be->mg;
    for (int l = 0; l < mg->nlevels; ++l) {
        mg_grid *g = &mg->level[l];
        h->free(s, g->a);
        h->free(s, g->b);
        h->free(s, g->x);
        h->free(s, g->t);
        h->free(s, g->active);
        h->free(s, g->nactive);
        h->free(s, g->d);
        h->free(s, mg->ring_active[l]);
        h->free(s, mg->ring_nactive[l]);
        mg->ring_active[l] = mg->ring_nactive[l] = NULL;
    }
    h->free(s, mg->row_sums);
    mg->row_sums = NULL;
    mg->nlevels = mg->used = 0;
}

static void free_rows(sim *s, multigrid *mg)
{
    const backend_mg_hooks *h = s->be->mg;
    h->free(s, mg->A.col);
    h->free(s, mg->A.val);
    h->free(s, mg->A.count);
    mg->A.col = NULL;
    mg->A.val = NULL;
    mg->A.count = NULL;
}

void multigrid_free(sim *s, multigrid *mg)
{
    free(mg->bound);
    mg->bound = NULL;
    if (!s->be || !s->be->mg)
        return;
    free_levels(s, mg);
    free_rows(s, mg);
    s->be->mg->free(s, mg->partial);
    s->be->mg->free(s, mg->cell_unknown);
    mg->partial = NULL;
    mg->cell_unknown = NULL;
    mg->partial_rows = 0;
}

/* What each of the hierarchy's allocations holds, in bytes: the one account of multigrid_bytes and
 * of the message of one that failed (out_of_room). */
static size_t rows_bytes(size_t rows, int width) /* A: columns, values, counts */
{
    return rows * ((size_t)width * (sizeof(int32_t) + sizeof(real)) + sizeof(int32_t));
}

static size_t partials_bytes(size_t rows, const mg_grid *first) /* the row partials, cell_unknown */
{
    return rows * ((size_t)first->nst * sizeof(real) + sizeof(int32_t));
}

/* a, b, x, t, d (and the first's row sums), the listed cells */
static size_t level_bytes(const mg_grid *g, int with_row_sums)
{
    size_t per_cell = (size_t)g->nst + 3 + (with_row_sums ? (size_t)mg_stencil_rows(g) : 0);
    return (size_t)g->ncells * ((per_cell + 1) * sizeof(real) + sizeof(int32_t)) + sizeof(int32_t);
}

size_t multigrid_bytes(const multigrid *mg)
{
    size_t bytes = mg->A.count ? rows_bytes(mg->rows, mg->A.width) : 0;
    if (mg->nlevels > 0)
        bytes += partials_bytes(mg->partial_rows, &mg->level[0]);
    for (int l = 0; l < mg->nlevels; ++l)
        bytes += level_bytes(&mg->level[l], l == 0 && mg->row_sums);
    return bytes;
}

/* An allocation of the solve failed (the backend's message in err): the same message, with what was
 * asked for, per particle, and what gives each process less to hold. */
static int out_of_room(sim *s, const char *what, size_t bytes, sl_err *err)
{
    char was[sizeof err->msg];
    snprintf(was, sizeof was, "%s", err->msg);
    const int gb = bytes >= 1000000000u;
    return sl_fail(err, SL_ERR_RUNTIME,
                   "the pressure solve's %s (%.3g %s, %.0f bytes a particle for %zu particles) did not fit: %s; "
                   "give each process fewer particles (more MPI ranks: mpirun -np N; or a larger numerics.spacing), "
                   "or set mps.preconditioner = \"jacobi\", which assembles no rows",
                   what, (double)bytes / (gb ? 1e9 : 1e6), gb ? "GB" : "MB",
                   (double)bytes / (double)(s->p.n ? s->p.n : 1), s->p.n, was);
}

static int alloc_rows(sim *s, multigrid *mg, size_t rows, int width, sl_err *err)
{
    free_rows(s, mg);
    mg->rows = rows;
    /* the rows' layout (core/sparse_ell.h): the backend's, or SLUICE_ELL_SHIFT's (a measurement knob:
     * 0 column-major, 3 groups of 8) */
    const char *shift = getenv("SLUICE_ELL_SHIFT");
    mg->A.shift = shift && *shift >= '0' && *shift <= '5' ? *shift - '0' : s->be->mg->row_group_shift;
    mg->A.width = sparse_ell_round_width(width, mg->A.shift);
    mg->A.stride = (int64_t)rows;
    width = mg->A.width;
    mg->A.col = s->be->mg->alloc(s, rows * (size_t)width * sizeof(int32_t), err);
    mg->A.val = mg->A.col ? s->be->mg->alloc(s, rows * (size_t)width * sizeof(real), err) : NULL;
    mg->A.count = mg->A.val ? s->be->mg->alloc(s, rows * sizeof(int32_t), err) : NULL;
    if (!mg->A.count) {
        free_rows(s, mg);
        mg->rows = 0;
        return out_of_room(s, "assembled rows", rows_bytes(rows, width), err);
    }
    return SL_OK;
}

static int assemble_begin(sim *s, multigrid *mg, size_t n, int width_hint, sl_err *err)
{
    if (mg->rows < n || !mg->A.count) {
        /* room for a tenth more particles than now, so a growing inflow does not reallocate often */
        int width = mg->A.width > width_hint ? mg->A.width : width_hint;
        int rc = alloc_rows(s, mg, n + n / 10 + 16, width > 1 ? width : 1, err);
        if (rc)
            return rc;
    }
    s->args.ell = mg->A;
    return SL_OK;
}

static int assemble_end(sim *s, multigrid *mg, size_t n, int *again, sl_err *err)
{
    int32_t longest = 0;
    int rc = s->be->mg->longest_row(s, &mg->A, n, &longest);
    if (rc)
        return sim_backend_error(s, err) ? SL_ERR_RUNTIME : sl_fail(err, SL_ERR_RUNTIME, "multigrid: row count failed");
    mg->longest = longest > mg->longest ? longest : mg->longest;
    *again = longest > mg->A.width;
    if (*again) {
        /* a thirty-second more than the longest row seen, for the particles that crowd in next: the
         * rows that outgrow the start (the lattice's count and an eighth) do so by a few entries
         * (SPHERIC Test 2 at 18.3 mm: 289-291 against 288), where an eighth more (328) held more
         * memory than a start of a quarter (320) had */
        if ((rc = alloc_rows(s, mg, mg->rows, longest + longest / 32 + 1, err)))
            return rc;
        mg->widenings++;
        s->args.ell = mg->A;
    } else {
        memset(&s->args.ell, 0, sizeof s->args.ell);
    }
    return SL_OK;
}

int multigrid_assemble(sim *s, multigrid *mg, const pass *setup, size_t n, int width_hint, sl_err *err)
{
    int rc = assemble_begin(s, mg, n, width_hint, err), again = 1;
    while (!rc && again) {
        s->be->run_pass(s, setup, n);
        rc = assemble_end(s, mg, n, &again, err);
    }
    if (rc)
        memset(&s->args.ell, 0, sizeof s->args.ell);
    return rc;
}

/* The levels' shapes: the neighbour grid's cells, then halved until small. */
static int alloc_levels(sim *s, multigrid *mg, sl_err *err)
{
    mg_grid g;
    memset(&g, 0, sizeof g);
    g.dim = s->g.dim;
    for (int d = 0; d < 3; ++d)
        g.n[d] = s->g.nc[d] > 0 ? s->g.nc[d] : 1;
    if (g.dim == 2)
        g.n[2] = 1;
    g.reach = s->g.ndiv;
    g.own_hi = g.n[0]; /* one process: every column (set_columns cuts them among several) */
    if (g.reach > MG_MAX_REACH)
        return sl_fail(err, SL_ERR_INPUT, "multigrid: ndiv %d is above %d", g.reach, MG_MAX_REACH);
    for (int l = 0; l < MG_MAX_LEVELS; ++l) {
        int w = 2 * g.reach + 1;
        g.ncells = (int64_t)g.n[0] * g.n[1] * g.n[2];
        g.nst = g.dim == 3 ? w * w * w : w * w;
        size_t nc = (size_t)g.ncells;
        g.a = s->be->mg->alloc(s, nc * (size_t)g.nst * sizeof(real), err);
        g.b = g.a ? s->be->mg->alloc(s, nc * sizeof(real), err) : NULL;
        g.x = g.b ? s->be->mg->alloc(s, nc * sizeof(real), err) : NULL;
        g.t = g.x ? s->be->mg->alloc(s, nc * sizeof(real), err) : NULL;
        g.active = g.t ? s->be->mg->alloc(s, nc * sizeof(int32_t), err) : NULL;
        g.nactive = g.active ? s->be->mg->alloc(s, sizeof(int32_t), err) : NULL;
        g.d = g.nactive ? s->be->mg->alloc(s, nc * sizeof(real), err) : NULL;
        mg->level[l] = g;
        mg->nlevels = l + 1;
        if (l == 0 && g.d)
            mg->row_sums = s->be->mg->alloc(s, nc * (size_t)mg_stencil_rows(&g) * sizeof(real), err);
        if (!g.d || !mg->row_sums) {
            free_levels(s, mg);
            return out_of_room(s, "cell levels", level_bytes(&g, l == 0), err);
        }
        if (g.ncells <= mg->coarsest_cells || l == MG_MAX_LEVELS - 1)
            break;
        int f = l == 0 ? 2 : mg->merge;
        mg->level[l].merge = f;
        for (int d = 0; d < 3; ++d)
            g.n[d] = (g.n[d] + f - 1) / f;
        g.reach = (g.reach + f - 1) / f;
        g.own_hi = g.n[0];
    }
    return SL_OK;
}

/* A ring level (several processes, SLUICE_MG_RING): a cut level after level 0, whose cycle runs its
 * loops over its columns and a ring of the others' around them (ring_cycle). Its pre-smoothing
 * (a step from zero, then level_sweeps - 1), its residual (and one column beyond the last, the
 * children of the last coarse cell), its prolongation and its post-smoothing's first level_sweeps - 1
 * steps each leave r columns fewer right each side (r its stencils' reach), so with b, the diagonal
 * and the stencils current over ring_width columns each side, the values it needs are right without
 * a halo between them. Level 0 keeps a halo before each loop: its ring's set-up halo would carry
 * its stencils (125 entries a cell at ndiv 2) over ring_width columns each side at every set-up. */
static int ring_level(const multigrid *mg, int l)
{
    return mg->ring && mg->nranks > 1 && l >= 1 && l < mg->whole_from;
}

static int ring_width(const multigrid *mg, int l)
{
    return (2 * mg->level_sweeps - 1) * mg->level[l].reach + 1;
}

/* Level l's arrays with the roles of x and t in `roles`, listed over its own columns or over its
 * ring's too. */
static mg_grid level_view(const multigrid *mg, int l, const mg_grid *roles, int ring)
{
    mg_grid g = mg->level[l];
    g.x = roles->x;
    g.t = roles->t;
    if (ring) {
        const int w = ring_width(mg, l), n = g.n[g.own_axis];
        g.active = mg->ring_active[l];
        g.nactive = mg->ring_nactive[l];
        g.own_lo = g.own_lo > w ? g.own_lo - w : 0;
        g.own_hi = g.own_hi < n - w ? g.own_hi + w : n;
    }
    return g;
}

/* The levels' columns cut among the processes as the neighbour grid's are (mg_ranks.cuts, at every
 * set-up: the cuts move with the balance; multigrid_rank_columns). A cell of level l spans F_l
 * columns of level 0 along the axis, and belongs to the process that owns the first of them: process q
 * owns [ceil(cut[q] / F_l), ceil(cut[q + 1] / F_l)). So a coarse cell's first child is its own
 * process's, the children of a process's coarse cells lie in its columns and one beyond them, and the
 * parent of each of its cells in its coarse columns and one before them (the halos of set-up and
 * cycle). */
static int set_columns(sim *s, multigrid *mg, sl_err *err)
{
    const int np = mg->nranks, stride = np + 1;
    if (!mg->bound && !(mg->bound = malloc((size_t)(MG_MAX_LEVELS + 1) * (size_t)stride * sizeof *mg->bound)))
        return sl_fail(err, SL_ERR_RUNTIME, "multigrid: out of memory for the processes' columns");
    int axis = 0, *cut = mg->bound + MG_MAX_LEVELS * stride;
    if (mg->ranks.cuts(s, &axis, &mg->rank, cut) != np)
        return sl_fail(err, SL_ERR_RUNTIME, "multigrid: the processes' count changed");
    int64_t span = 1; /* F_l */
    for (int l = 0; l < mg->nlevels; ++l) {
        mg_grid *g = &mg->level[l];
        int *b = mg->bound + l * stride;
        multigrid_rank_columns(cut, np, span, g->n[axis], b);
        g->own_axis = axis;
        g->own_lo = l > mg->whole_from ? 0 : b[mg->rank]; /* whole_from itself once gathered */
        g->own_hi = l > mg->whole_from ? g->n[axis] : b[mg->rank + 1];
        if (g->n[axis] > 1)
            span *= g->merge;
        if (ring_level(mg, l) && !mg->ring_active[l]) {
            const backend_mg_hooks *h = s->be->mg;
            mg->ring_active[l] = h->alloc(s, (size_t)g->ncells * sizeof(int32_t), err);
            mg->ring_nactive[l] = mg->ring_active[l] ? h->alloc(s, sizeof(int32_t), err) : NULL;
            if (!mg->ring_nactive[l])
                return out_of_room(s, "a cell level's ring", (size_t)g->ncells * sizeof(int32_t), err);
        }
    }
    return SL_OK;
}

/* Level l (whole_from) made whole on this process once its own columns are built: the others'
 * stencils gathered, and the level listed again over every column. */
static int gather_level(sim *s, multigrid *mg, int l, sl_err *err)
{
    mg_grid *g = &mg->level[l];
    int rc = mg->ranks.gather(s, g, mg->bound + l * (mg->nranks + 1), g->a, g->nst, err);
    if (rc)
        return rc;
    g->own_lo = 0;
    g->own_hi = g->n[g->own_axis];
    return s->be->mg->list_cells(s, g, l);
}

/* Level l's array v (g's layout, per_cell values a cell) made current in the other processes'
 * columns within `left` below this one's and `right` above (nothing on one process). */
static int halo(sim *s, const multigrid *mg, int l, const mg_grid *g, real *v, int per_cell, int left, int right,
                sl_err *err)
{
    if (mg->nranks <= 1 || l >= mg->whole_from) /* a whole level: nothing is another's */
        return SL_OK;
    return mg->ranks.halo(s, g, mg->bound + l * (mg->nranks + 1), v, per_cell, left, right, err);
}

/* What the next level's Galerkin product reads of level l beyond this process's columns: the
 * diagonal and stencils of the children of its last coarse cell; on a ring level those of the whole
 * ring, and the ring's cells with unknowns listed (list_cells takes the diagonal from the stencils
 * again, now current over the ring; level -1: the backend keeps no count of this listing). */
static int operator_halo(sim *s, const multigrid *mg, int l, sl_err *err)
{
    const mg_grid *g = &mg->level[l];
    const int ring = ring_level(mg, l), left = ring ? ring_width(mg, l) : 0, right = ring ? left : 1;
    int rc = halo(s, mg, l, g, g->d, 1, left, right, err);
    if (!rc)
        rc = halo(s, mg, l, g, g->a, g->nst, left, right, err);
    if (!rc && ring) {
        mg_grid wide = level_view(mg, l, g, 1);
        if (s->be->mg->list_cells(s, &wide, -1))
            rc = sim_backend_error(s, err) ? SL_ERR_RUNTIME : sl_fail(err, SL_ERR_RUNTIME, "multigrid: a ring's listing failed");
    }
    return rc;
}

static int run(sim *s, mg_args *m, int kind, int diag, int in, int out, int work)
{
    m->kind = kind;
    return s->be->mg->run(s, m, diag, in, out, work);
}

/* A loop over the cells of a level (no particle fields). */
static int run_level(sim *s, mg_args *m, int kind)
{
    return run(s, m, kind, -1, -1, -1, -1);
}

/* The particles' loops: the partials leave out the couplings across a periodic seam
 * (mg_entry_of_delta), so there they are not all of A P, which MG_FINE_POST and the hybrid cycle
 * need; else the backend's cycle, or SLUICE_MG_CYCLE=v|hybrid's (SLUICE_MG_POST=0 keeps the V-cycle's
 * three loops; measurement knobs). */
static void choose_cycle(const sim *s, multigrid *mg)
{
    const char *cycle = getenv("SLUICE_MG_CYCLE");
    mg->post_partials = !s->g.view.periodic && !knob_off("SLUICE_MG_POST");
    int hybrid = cycle && strcmp(cycle, "v") == 0 ? 0 : cycle && strcmp(cycle, "hybrid") == 0 ? 1 : s->be->mg->hybrid_cycle;
    mg->cycle = mg->post_partials && hybrid ? MG_CYCLE_HYBRID : MG_CYCLE_V;
}

/* The levels the cycle runs, from this set-up's counts of cells with unknowns (so a restarted run
 * runs the same cycle): down to the first level after level 0 with at most coarsest_listed of them,
 * every level where none has so few, or where coarsest_listed is 0. */
static int cycle_depth(const multigrid *mg, const int64_t *counts)
{
    for (int l = 1; l < mg->nlevels && mg->coarsest_listed > 0; ++l)
        if (counts[l] <= mg->coarsest_listed)
            return l + 1;
    return mg->nlevels;
}

int multigrid_setup(sim *s, multigrid *mg, sl_err *err)
{
    int rc;
    mg->setups++;
    if (mg->nlevels == 0) { /* the first set-up: the levels, and the cycle, whose reasons do not change */
        if ((rc = alloc_levels(s, mg, err)))
            return rc;
        choose_cycle(s, mg);
        mg->nranks = mg->ranks.cuts ? mg->ranks.cuts(s, &(int){0}, &mg->rank, NULL) : 1;
        mg->whole_from = mg->nlevels; /* the first level after level 0 of at most gather_cells cells */
        for (int l = mg->nlevels - 1; l >= 1 && mg->nranks > 1; --l)
            if (mg->level[l].ncells <= mg->gather_cells)
                mg->whole_from = l;
    }
    if (mg->nranks > 1 && (rc = set_columns(s, mg, err)))
        return rc;
    if (mg->partial_rows != mg->rows) { /* the rows' stride changed */
        s->be->mg->free(s, mg->partial);
        s->be->mg->free(s, mg->cell_unknown);
        mg->partial = s->be->mg->alloc(s, mg->rows * (size_t)mg->level[0].nst * sizeof(real), err);
        mg->cell_unknown = mg->partial ? s->be->mg->alloc(s, mg->rows * sizeof(int32_t), err) : NULL;
        mg->partial_rows = mg->cell_unknown ? mg->rows : 0;
        if (!mg->cell_unknown)
            return out_of_room(s, "row partials", partials_bytes(mg->rows, &mg->level[0]), err);
    }
    mg_args m;
    memset(&m, 0, sizeof m);
    m.A = mg->A;
    m.n = (int64_t)s->g.n_inside;
    m.coarse = mg->level[0];
    m.partial = mg->partial;
    m.cell_unknown = mg->cell_unknown;
    /* each level: its diagonal over every cell, its listing (list_cells), then its listed cells'
     * other entries */
    if (!(rc = run(s, &m, MG_CELL_UNKNOWN, mg->diag, -1, -1, -1)) && !(rc = run(s, &m, MG_ROW_PARTIALS, mg->diag, -1, -1, -1)) &&
        !(rc = run(s, &m, MG_FIRST_DIAGONAL, mg->diag, -1, -1, -1)) && !(rc = s->be->mg->list_cells(s, &mg->level[0], 0))) {
        m.coarse = mg->level[0]; /* its listing's shape */
        rc = run(s, &m, MG_FIRST_LEVEL, mg->diag, -1, -1, -1);
    }
    int halo_failed = 0;
    for (int l = 0; l + 1 < mg->nlevels && !rc; ++l) {
        if ((rc = halo_failed = operator_halo(s, mg, l, err)))
            break;
        m.fine = mg->level[l];
        m.coarse = mg->level[l + 1];
        if ((rc = run_level(s, &m, MG_GALERKIN_DIAGONAL)) || (rc = s->be->mg->list_cells(s, &mg->level[l + 1], l + 1)))
            break;
        m.coarse = mg->level[l + 1];
        if ((rc = run_level(s, &m, MG_GALERKIN)))
            break;
        if (l + 1 == mg->whole_from && mg->nranks > 1 && (rc = halo_failed = gather_level(s, mg, l + 1, err)))
            break;
    }
    if (halo_failed)
        return rc;
    int64_t counts[MG_MAX_LEVELS];
    if (!rc && !(rc = s->be->mg->count_listed(s, mg->level, mg->nlevels, counts))) {
        if (mg->nranks > 1) { /* every process runs the same depth: the counts of the whole domain */
            double total[MG_MAX_LEVELS]; /* (the whole levels' counts are the domain's already) */
            const int cut_levels = mg->whole_from;
            for (int l = 0; l < cut_levels; ++l)
                total[l] = (double)counts[l];
            if ((rc = mg->ranks.sum(s, total, cut_levels, err)))
                return rc;
            for (int l = 0; l < cut_levels; ++l)
                counts[l] = (int64_t)total[l];
        }
        const int used = cycle_depth(mg, counts);
        mg->used = used;
    }
    if (rc)
        return sim_backend_error(s, err) ? SL_ERR_RUNTIME : sl_fail(err, SL_ERR_RUNTIME, "multigrid: set-up failed");
    return SL_OK;
}

typedef struct cycle_ctx {
    const multigrid *mg;
    mg_args *m;
    sl_err *err;
    int halo_failed; /* err holds the message; else a loop failed, the backend keeps it */
} cycle_ctx;

/* Level l's array v (g's layout) made current where this process's loops read the others' columns. */
static int cycle_halo(sim *s, cycle_ctx *c, int l, const mg_grid *g, real *v, int left, int right)
{
    int rc = halo(s, c->mg, l, g, v, 1, left, right, c->err);
    c->halo_failed = rc != SL_OK;
    return rc;
}

/* `steps` Jacobi steps on m->fine: the first from x = 0 (x = omega b / diag) when from_zero. Each
 * step after that writes the new iterate into t (MG_SWEEP) and swaps m->fine's x and t, so one loop
 * takes a step instead of two (residual, then correction): the same arithmetic, fewer launches and
 * barriers on the GPU, whose small levels are bound by them. */
static int jacobi_steps(sim *s, cycle_ctx *c, int l, int steps, int from_zero, int halos)
{
    mg_args *m = c->m;
    /* the first step from zero: its own loop, or taken already by the restriction (smooth_coarse) */
    int rc = from_zero && steps > 0 && !m->smooth_coarse ? run_level(s, m, MG_SMOOTH) : SL_OK;
    for (int k = from_zero; k < steps && !rc; ++k) {
        if (halos && (rc = cycle_halo(s, c, l, &m->fine, m->fine.x, m->fine.reach, m->fine.reach)))
            break;
        rc = run_level(s, m, MG_SWEEP);
        real *x = m->fine.x;
        m->fine.x = m->fine.t;
        m->fine.t = x;
    }
    return rc;
}

/* Level l as the cycle leaves it: its x and t swapped once per MG_SWEEP (jacobi_steps). */
static mg_grid solved_level(const multigrid *mg, int l)
{
    const int sweeps = l == mg->used - 1 ? mg->coarsest_sweeps - 1
                                            : (mg->level_sweeps - 1) + mg->level_sweeps;
    mg_grid g = mg->level[l];
    if (sweeps > 0 && sweeps % 2) {
        g.x = mg->level[l].t;
        g.t = mg->level[l].x;
    }
    return g;
}

static int cycle(sim *s, cycle_ctx *c, int l);

/* The next level's b gathered from every process when it is the first whole one. */
static int gather_next(sim *s, cycle_ctx *c, int l)
{
    const multigrid *mg = c->mg;
    if (l + 1 != mg->whole_from || mg->nranks <= 1)
        return SL_OK;
    int rc = mg->ranks.gather(s, &c->m->coarse, mg->bound + (l + 1) * (mg->nranks + 1), c->m->coarse.b, 1, c->err);
    c->halo_failed = rc != SL_OK;
    return rc;
}

/* The coarse correction of level l (m->fine, x and t in their roles after the steps before): the cycle
 * below on level l + 1, its solution made current over `left` and `right` of the others' columns
 * (the parents of the cells the prolongation must get right), and the prolongation over m->fine. */
static int coarse_correction(sim *s, cycle_ctx *c, int l, int left, int right)
{
    mg_args *m = c->m;
    mg_grid fine = m->fine;
    int rc = cycle(s, c, l + 1);
    if (rc)
        return rc;
    m->fine = fine;
    m->coarse = solved_level(c->mg, l + 1);
    if ((rc = cycle_halo(s, c, l + 1, &m->coarse, m->coarse.x, left, right)))
        return rc;
    return run_level(s, m, MG_PROLONG);
}

/* The V-cycle below ring level l (ring_level; not the cycle's coarsest): b made current over the ring,
 * then the pre-smoothing, the residual, the prolongation and the post-smoothing's steps but the last
 * over the ring, with no halo between them; the coarse solution made current over the parents of the
 * cells whose values the last steps read; the last step over this process's own cells. The same
 * arithmetic as the other processes' at the cells they own, so the same values. */
static int ring_cycle(sim *s, cycle_ctx *c, int l)
{
    const multigrid *mg = c->mg;
    mg_args *m = c->m;
    const int w = ring_width(mg, l), steps = mg->level_sweeps, r = mg->level[l].reach, f = mg->level[l].merge;
    int rc;
    if ((rc = cycle_halo(s, c, l, &mg->level[l], mg->level[l].b, w, w)))
        return rc;
    m->fine = level_view(mg, l, &mg->level[l], 1);
    m->coarse = mg->level[l + 1];
    if ((rc = jacobi_steps(s, c, l, steps, 1, 0)) || (rc = run_level(s, m, MG_RESIDUAL)) ||
        (rc = run_level(s, m, MG_RESTRICT)) || (rc = gather_next(s, c, l)))
        return rc;
    const int parents = (steps * r + f - 1) / f + 1; /* the coarse columns of the cells within steps * r */
    if ((rc = coarse_correction(s, c, l, parents, parents)) || (rc = jacobi_steps(s, c, l, steps - 1, 0, 0)))
        return rc;
    m->fine = level_view(mg, l, &m->fine, 0);
    return jacobi_steps(s, c, l, steps > 0 ? 1 : 0, 0, 0);
}

/* The V-cycle below level l: solved_level(l).x from level[l].b. On several processes each loop
 * that reads the others' columns has them made current first (halo): the iterate before a product,
 * the residual before the restriction (a last coarse cell's children), the coarse solution before the
 * prolongation (a first cell's parent). */
static int cycle(sim *s, cycle_ctx *c, int l)
{
    const multigrid *mg = c->mg;
    mg_args *m = c->m;
    int rc;
    m->fine = mg->level[l];
    if (l == mg->used - 1)
        return jacobi_steps(s, c, l, mg->coarsest_sweeps, 1, 1);
    m->coarse = mg->level[l + 1];
    if (ring_level(mg, l))
        return ring_cycle(s, c, l);
    if ((rc = jacobi_steps(s, c, l, mg->level_sweeps, 1, 1)) ||
        (rc = cycle_halo(s, c, l, &m->fine, m->fine.x, m->fine.reach, m->fine.reach)) ||
        (rc = run_level(s, m, MG_RESIDUAL)) || (rc = cycle_halo(s, c, l, &m->fine, m->fine.t, 0, 1)) ||
        (rc = run_level(s, m, MG_RESTRICT)))
        return rc;
    if ((rc = gather_next(s, c, l))) /* the next level whole: its b from every process */
        return rc;
    if ((rc = coarse_correction(s, c, l, 1, 0)))
        return rc;
    return jacobi_steps(s, c, l, mg->level_sweeps, 0, 1);
}

/* The first level's solution made current where the particles' loops after the cycle read it: the
 * cells within reach of each particle's. */
static int first_level_halo(sim *s, cycle_ctx *c)
{
    const mg_grid g = solved_level(c->mg, 0);
    return cycle_halo(s, c, 0, &g, g.x, g.reach, g.reach);
}

/* The preconditioner's loops in order, on m (ctx->m) as precondition set it up: r in r, z into z,
 * t (the CG's q, free until the next product) as work. */
typedef struct precondition_fields {
    int d, r, z, t;
} precondition_fields;

typedef struct precondition_ctx {
    cycle_ctx cycle;
    precondition_fields f;
} precondition_ctx;

static int precondition_loops(sim *s, void *vctx)
{
    precondition_ctx *pc = vctx;
    cycle_ctx *ctx = &pc->cycle;
    const multigrid *mg = ctx->mg;
    mg_args *m = ctx->m;
    const int d = pc->f.d, r = pc->f.r, z = pc->f.z, t = pc->f.t;
    int rc;
    /* The particles' loops run over the copies of the other processes' particles too (their r, and
     * the diagonal, their owners'): S r there is exact, which the products and the restrictions of
     * this process's rows read; the rest written there is dropped (cg->clear). */
    if (mg->cycle == MG_CYCLE_HYBRID) { /* t = S r, then P^T (r - A t) */
        m->scratch = mg->row_sums;
        if ((rc = run(s, m, MG_FINE_SMOOTH, d, r, t, -1)) || (rc = run(s, m, MG_FINE_RESTRICT_ROWS, d, -1, -1, t)) ||
            (rc = run(s, m, MG_FINE_RESTRICT_SMOOTHED, d, r, -1, t)) || (rc = cycle(s, ctx, 0)) ||
            (rc = first_level_halo(s, ctx)))
            return rc;
        m->coarse = solved_level(mg, 0);
        return run(s, m, MG_FINE_POST_ZERO, d, -1, z, r); /* z = alpha P e + S (r - alpha A P e) */
    }
    if ((rc = run(s, m, MG_FINE_SMOOTH, d, r, z, -1)) || (rc = run(s, m, MG_FINE_RESIDUAL, d, r, z, t)) ||
        (rc = run(s, m, MG_FINE_RESTRICT, d, -1, -1, t)) || (rc = cycle(s, ctx, 0)) ||
        (rc = first_level_halo(s, ctx)))
        return rc;
    m->coarse = solved_level(mg, 0);
    if (mg->post_partials) /* t still holds r - A z1: the cell levels write only their own arrays */
        return run(s, m, MG_FINE_POST, d, -1, z, t);
    if ((rc = run(s, m, MG_FINE_PROLONG, d, -1, z, -1)) || (rc = run(s, m, MG_FINE_RESIDUAL, d, r, z, t)))
        return rc;
    return run(s, m, MG_FINE_CORRECT, d, -1, z, t);
}

/* z = B r, B symmetric positive definite (C, the cell levels' V-cycle, is: the same Jacobi steps
 * before and after each coarse correction, the coarsest level's sweeps from zero a polynomial in
 * D^-1 A times D^-1), so PCG may use it. With S = omega D^-1 on the particles, B is
 *  - the hybrid cycle (MG_CYCLE_HYBRID): B = S + (I - S A) P C P^T (I - A S), one Jacobi step and the
 *    coarse correction projected on both sides. Both projections come from the row partials, the
 *    rows of A P: P^T (r - A S r) = P^T r - (A P)^T S r and (I - S A) P e = P e - S (A P) e, so the
 *    cycle reads no row of A (docs/methods.md);
 *  - the V-cycle (MG_CYCLE_V): B = 2S - SAS + (I - SA) P C P^T (I - AS), a Jacobi step before the
 *    correction (its residual a product of the rows) and one after (from the partials where they are
 *    all of A P).
 * On one process the backend replays the loops (one graph on a GPU); on several they run one by one,
 * since the halos between them wait for the other processes. */
static int precondition(sim *s, const cg_problem *cg, precondition_ctx *pc)
{
    const multigrid *mg = cg->data;
    mg_args m;
    memset(&m, 0, sizeof m);
    m.A = mg->A;
    m.n = (int64_t)cg->n;
    m.omega = mg->omega;
    m.alpha = mg->alpha;
    m.coarse = mg->level[0];
    m.partial = mg->partial;
    /* one process: nothing comes between a level's restriction and its first step (on several, the
     * halos of b and the rings' steps over the others' columns do) */
    m.smooth_coarse = mg->fuse_smooth && mg->nranks == 1 && mg->level_sweeps > 0 && mg->coarsest_sweeps > 0;
    pc->cycle.mg = mg;
    pc->cycle.m = &m;
    pc->f = (precondition_fields){mg->diag, cg->r, cg->z, cg->q};
    if (mg->nranks > 1)
        return precondition_loops(s, pc);
    /* what the loops depend on here: the set-up, the fields, the particles (the arrays are the backend's) */
    const struct {
        long setups;
        int64_t n;
        precondition_fields f;
    } stamp = {mg->setups, m.n, pc->f};
    return s->be->mg->replay(s, precondition_loops, pc, &stamp, sizeof stamp);
}

int multigrid_precondition(sim *s, const cg_problem *cg, sl_err *err)
{
    precondition_ctx pc = {{NULL, NULL, err, 0}, {0, 0, 0, 0}};
    int rc = precondition(s, cg, &pc);
    if (rc && !pc.cycle.halo_failed && !sim_backend_error(s, err))
        sl_fail(err, SL_ERR_RUNTIME, "multigrid: a loop of the preconditioner failed");
    return rc;
}

int multigrid_product(sim *s, const cg_problem *cg, int in, int out)
{
    const multigrid *mg = cg->data;
    mg_args m;
    memset(&m, 0, sizeof m);
    m.A = mg->A;
    m.n = (int64_t)cg->n;
    return run(s, &m, MG_FINE_PRODUCT, cg->diag, in, out, -1); /* the solve's rows, not the block's */
}
