/* nbr_grid.c: building the forward-star grid on the CPU (cell index, counting sort, prefix sum, reorder). */
#include "nbr_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int nbr_grid_init(nbr_grid *g, int dim, int ndiv, real r_max, const double dmin[3], const double dmax[3],
                  unsigned periodic, int64_t max_cells, sl_err *err)
{
    memset(g, 0, sizeof *g);
    if (ndiv < 1 || ndiv > 3)
        return sl_fail(err, SL_ERR_INPUT, "neighbour grid: ndiv %d out of range (accepted: 1..3)", ndiv);
    g->dim = dim;
    g->ndiv = ndiv;
    g->cell_width = r_max / (real)ndiv;
    nbr_view *v = &g->view;
    int64_t total = 1;
    for (int a = 0; a < 3; ++a) {
        v->cell_size[a] = (double)g->cell_width;
        if (a >= dim) {
            g->origin[a] = 0.0;
            g->interior[a] = 1;
            g->nc[a] = 1;
            continue;
        }
        double ext = dmax[a] - dmin[a];
        int wraps = (periodic >> a) & 1u;
        /* along a periodic axis a whole number of cells spans the period (cells a little wider
         * than r_max/ndiv, so ndiv of them still cover the interaction radius) */
        double want = wraps ? floor(ext / g->cell_width) : ceil(ext / g->cell_width);
        /* compared as a double: converting a value beyond int64 (a domain of 1e300 m) is undefined
         * and gave a grid of 1 cell, so the run went on with every particle in one cell */
        if (!(want <= (double)((int64_t)1 << 30)))
            return sl_fail(err, SL_ERR_INPUT,
                           "neighbour grid: %.3g cells of width %g m along axis %d is too many", want,
                           (double)g->cell_width, a);
        if (wraps && want < 2 * ndiv + 1)
            return sl_fail(err, SL_ERR_INPUT,
                           "neighbour grid: the periodic %c extent %g m is %.0f cells of %g m (accepted: a "
                           "period of at least %d cells, %g m: twice the interaction radius and a cell)",
                           "xyz"[a], ext, want, (double)g->cell_width, 2 * ndiv + 1,
                           (2 * ndiv + 1) * (double)g->cell_width);
        int64_t cells = want < 1 ? 1 : (int64_t)want;
        if (wraps) {
            v->cell_size[a] = ext / (double)cells;
            v->periodic |= 1u << a;
        }
        g->origin[a] = dmin[a];
        g->interior[a] = (int)cells;
        g->nc[a] = (int)cells + 2 * ndiv;
        total *= g->nc[a];
        if (total > max_cells)
            return sl_fail(err, SL_ERR_INPUT,
                           "neighbour grid: the domain needs more than %lld cells of width %g m; "
                           "shrink simulation.domain_min/domain_max or coarsen numerics.spacing",
                           (long long)max_cells, (double)g->cell_width);
    }
    g->ncells = total;
    g->cell_start = calloc((size_t)total + 3, sizeof *g->cell_start); /* + the parked ghosts' key */
    if (!g->cell_start)
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for %lld neighbour cells", (long long)total);

    v->dim = dim;
    v->ndiv = ndiv;
    v->ncells = total;
    for (int a = 0; a < 3; ++a) {
        v->origin[a] = g->origin[a];
        v->interior[a] = g->interior[a];
        v->nc[a] = g->nc[a];
    }
    /* One run per (dy, dz): the row of 2 ndiv + 1 cells centred on the particle's column. */
    v->nruns = 0;
    int zr = dim == 3 ? ndiv : 0;
    for (int dz = -zr; dz <= zr; ++dz)
        for (int dy = -ndiv; dy <= ndiv; ++dy) {
            v->run_dy[v->nruns] = (int8_t)dy;
            v->run_dz[v->nruns] = (int8_t)dz;
            v->run_offset[v->nruns++] = (int32_t)(dy * g->nc[0] + (int64_t)dz * g->nc[0] * g->nc[1]);
        }
    v->cell_start = g->cell_start;
    return SL_OK;
}

void nbr_grid_free(nbr_grid *g)
{
    free(g->cell_start);
    free(g->cell);
    free(g->cell_tmp);
    free(g->order);
    free(g->field_tmp);
    memset(g, 0, sizeof *g);
}

int nbr_grid_reserve(nbr_grid *g, size_t n, sl_err *err)
{
    if (n <= g->cap && g->cell)
        return SL_OK;
    size_t m = n ? n : 1;
    free(g->cell);
    free(g->cell_tmp);
    free(g->order);
    free(g->field_tmp);
    g->cell = malloc(m * sizeof *g->cell);
    g->cell_tmp = malloc(m * sizeof *g->cell_tmp);
    g->order = malloc(m * sizeof *g->order);
    g->field_tmp = malloc(m * sizeof *g->field_tmp);
    if (!g->cell || !g->cell_tmp || !g->order || !g->field_tmp) {
        g->cap = 0;
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the neighbour grid of %zu particles", n);
    }
    g->cap = n;
    g->field_cap = m;
    return SL_OK;
}

/* Gathers one array into the new order through a scratch buffer, then swaps the buffers. */
#define REORDER(arr, tmp, type_)                                                                   \
    do {                                                                                          \
        type_ *src_ = (arr), *dst_ = (tmp);                                                       \
        _Pragma("omp parallel for schedule(static)") for (size_t k_ = 0; k_ < n; ++k_)            \
            dst_[k_] = src_[g->order[k_]];                                                        \
    } while (0)

/* Counts per key into the keys' first particles: the exclusive prefix sum over keys [0, nkeys), with
 * the total in start[nkeys]. */
static void counts_to_starts(int32_t *start, int64_t nkeys)
{
    int32_t sum = 0;
    for (int64_t c = 0; c < nkeys; ++c) {
        int32_t cnt = start[c];
        start[c] = sum;
        sum += cnt;
    }
    start[nkeys] = sum;
}

void nbr_grid_recount(nbr_grid *g, size_t n)
{
    int32_t *start = g->cell_start;
    int64_t nc = g->ncells;
    memset(start, 0, ((size_t)nc + 2) * sizeof *start);
    for (size_t i = 0; i < n; ++i)
        start[g->cell[i]]++; /* the sink's number (nc) for those outside */
    counts_to_starts(start, nc + 1);
    g->n_inside = (size_t)start[nc];
}

int nbr_grid_build(nbr_grid *g, particles *p, sl_err *err)
{
    size_t n = p->n;
    /* room for the particles' capacity: the reorder swaps each field with field_tmp, so every array
     * that becomes a field must keep the room particles_resize counts on */
    const size_t room = p->cap > n ? p->cap : n;
    int rc = nbr_grid_reserve(g, room, err);
    if (rc)
        return rc;
    /* The scratch a field is reordered into holds the room of the field array it last traded places
     * with. When the particles' arrays were smaller than the grid's (an MPI rank keeps its slab's
     * share, particles_fit) and have grown since, it must grow too: the grid's own arrays may still be
     * large enough. */
    if (g->field_cap < room) {
        real *f = malloc(room * sizeof *f);
        if (!f)
            return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the neighbour grid of %zu particles", room);
        free(g->field_tmp);
        g->field_tmp = f;
        g->field_cap = room;
    }
    const int64_t nc = g->ncells;
    int32_t *start = g->cell_start;
    real *x = p->f[PF_X], *y = p->f[PF_Y], *z = p->f[PF_Z];

    #pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) {
        if (g->view.periodic)
            nbr_fold_position(&g->view, &x[i], &y[i], &z[i]);
        g->cell_tmp[i] = nbr_sort_key(g, x[i], y[i], z[i], p->id[i]);
    }

    /* Counting sort over the cells, the sink and the parked ghosts (nc + 2 keys): counts, exclusive
     * prefix sum, stable scatter. Serial passes of O(n + cells): cheap next to the interaction
     * passes and independent of the thread count. */
    memset(start, 0, ((size_t)nc + 3) * sizeof *start);
    for (size_t i = 0; i < n; ++i)
        start[g->cell_tmp[i]]++;
    counts_to_starts(start, nc + 2);
    for (size_t i = 0; i < n; ++i) {
        int32_t c = g->cell_tmp[i];
        int32_t slot = start[c]++;
        g->order[slot] = (int32_t)i;
        g->cell[slot] = c;
    }
    /* The scatter advanced each start to the next key's start: shift back by one key. */
    for (int64_t c = nc + 1; c > 0; --c)
        start[c] = start[c - 1];
    start[0] = 0;
    g->n_inside = (size_t)start[nc];
    if ((size_t)start[nc + 1] + g->parked != n)
        return sl_fail(err, SL_ERR_RUNTIME, "neighbour grid: the sort found %zu parked ghosts where %zu were parked",
                       n - (size_t)start[nc + 1], g->parked);
    n = (size_t)start[nc + 1]; /* the parked ghosts, last, are not reordered: dropped */
    p->n = n;
    g->parked = 0;

    for (int k = 0; k < p->nfields; ++k) {
        if (p->transient[k])
            continue;
        REORDER(p->f[k], g->field_tmp, real);
        real *t = p->f[k];
        p->f[k] = g->field_tmp;
        g->field_tmp = t;
        g->field_cap = p->cap > n ? p->cap : n; /* (every particle array holds the particles' room) */
    }
    /* id, type and tag: reorder through the int scratch array (cell_tmp is free now); type and tag
     * travel packed in one int. */
    REORDER(p->id, g->cell_tmp, int32_t);
    memcpy(p->id, g->cell_tmp, n * sizeof *p->id);
    #pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; ++k) {
        int32_t o = g->order[k];
        g->cell_tmp[k] = p->type[o] | (int32_t)p->tag[o] << 8;
    }
    #pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; ++k) {
        p->type[k] = (uint8_t)(g->cell_tmp[k] & 0xff);
        p->tag[k] = (uint8_t)(g->cell_tmp[k] >> 8);
    }

    g->view.cell_start = g->cell_start;
    g->view.cell = g->cell;
    return SL_OK;
}
