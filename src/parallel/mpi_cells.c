/* mpi_cells.c: the multigrid's cell levels cut among the ranks as the particles are
 * (solver/multigrid.h, mg_ranks): each rank's columns of the neighbour grid, the halos of a level's
 * array between the ranks, and a small level gathered whole on every rank. */
#include "mpi_domain.h"

#include <limits.h>
#include <stdlib.h>

enum { CELL_HALO_TAG = 7301 }; /* apart from the particles' exchanges on the same communicator */

int domain_cell_cuts(const sim *s, int *axis, int *rank, int *cut)
{
    const struct domain *d = s->domain;
    if (!d) {
        *axis = 0;
        *rank = 0;
        if (cut) {
            cut[0] = 0;
            cut[1] = s->g.nc[0];
        }
        return 1;
    }
    *axis = d->axis;
    *rank = d->rank;
    if (cut) {
        /* the ranks' cuts count interior columns; the margins' empty columns go to the end ranks */
        const int margin = (s->g.nc[d->axis] - s->g.interior[d->axis]) / 2;
        for (int q = 1; q < d->size; ++q)
            cut[q] = d->first[q] + margin;
        cut[0] = 0;
        cut[d->size] = s->g.nc[d->axis];
    }
    return d->size;
}

/* The columns rank `to` reads of rank `from`'s (from != to): from's within `left` below to's first
 * column (a rank before it) or within `right` above its last (a rank after it), [*k0, *k1); empty
 * when *k1 <= *k0. The ranks' columns are in rank order, so that is one run of columns. */
static void halo_columns(const int *bound, int from, int to, int left, int right, int *k0, int *k1)
{
    int lo, hi;
    if (from < to) {
        lo = bound[to] - left;
        hi = bound[to];
    } else {
        lo = bound[to + 1];
        hi = bound[to + 1] + right;
    }
    *k0 = lo > bound[from] ? lo : bound[from];
    *k1 = hi < bound[from + 1] ? hi : bound[from + 1];
}

/* Values in columns [k0, k1) of g's array (per_cell a cell), and where they lie. */
static mg_span column_span(const mg_grid *g, int k0, int k1, int per_cell, size_t *values)
{
    mg_span sp = mg_columns_span(g, g->own_axis, k0, k1 > k0 ? k1 : k0, per_cell);
    *values = k1 > k0 ? (size_t)(sp.run * sp.count) : 0;
    return sp;
}

/* b with room for `bytes` at least (a quarter more when it grows), page-locked where it can be. */
static int grow(sim *s, backend_buffer *b, size_t bytes)
{
    return bytes <= b->cap && b->ptr ? 0 : domain_host_buffer(s, b, domain_headroom(bytes));
}

void domain_cells_free(struct domain *d, sim *s)
{
    domain_host_buffer_free(s, &d->cells_out);
    domain_host_buffer_free(s, &d->cells_in);
    domain_cells_direct_free(d, s);
}

/* Spans sp[0 .. n) of v to the host (to_host) or back, in one copy each way; timed as the halos'
 * copies (DT_CELL_COPY). */
static int copy(sim *s, real *v, const mg_span *sp, int n, real *host, int to_host, sl_err *err)
{
    const double t = MPI_Wtime();
    const int rc = domain_cell_columns(s, v, sp, n, host, to_host, 0, err);
    s->domain->seconds[DT_CELL_COPY] += MPI_Wtime() - t;
    return rc;
}

static int reserve(struct domain *d, sim *s, size_t values, sl_err *err)
{
    if (!d->cells_wait && !(d->cells_wait = malloc(2 * (size_t)d->size * sizeof *d->cells_wait)))
        return sl_fail(err, SL_ERR_RUNTIME, "MPI rank %d: out of memory for the cell levels' halo", d->rank);
    if (!d->cells_counts && !(d->cells_counts = malloc(2 * (size_t)d->size * sizeof *d->cells_counts)))
        return sl_fail(err, SL_ERR_RUNTIME, "MPI rank %d: out of memory for the cell levels' halo", d->rank);
    if (!d->cells_spans && !(d->cells_spans = malloc(2 * (size_t)d->size * sizeof *d->cells_spans)))
        return sl_fail(err, SL_ERR_RUNTIME, "MPI rank %d: out of memory for the cell levels' halo", d->rank);
    if (grow(s, &d->cells_out, values * sizeof(real)) || grow(s, &d->cells_in, values * sizeof(real)))
        return sl_fail(err, SL_ERR_RUNTIME, "MPI rank %d: out of memory for the cell levels' halo (%zu values)", d->rank,
                       values);
    return SL_OK;
}

/* One way of a halo: for each other rank q the values this rank sends to q (or, incoming, receives
 * from q) in count[q] (0 for itself), the non-empty spans in rank order in spans (*n of them), and
 * the values in all in *total. */
static int halo_spans(const struct domain *d, const mg_grid *g, const int *bound, int per_cell, int left, int right,
                      int incoming, int *count, mg_span *spans, int *n, size_t *total, sl_err *err)
{
    *n = 0;
    *total = 0;
    for (int q = 0; q < d->size; ++q) {
        int k0, k1;
        size_t values = 0;
        count[q] = 0;
        if (q == d->rank)
            continue;
        halo_columns(bound, incoming ? q : d->rank, incoming ? d->rank : q, left, right, &k0, &k1);
        mg_span sp = column_span(g, k0, k1, per_cell, &values);
        if (!values)
            continue;
        if (values > INT_MAX)
            return sl_fail(err, SL_ERR_RUNTIME, "MPI rank %d: a cell level's halo of %zu values is above MPI's int count",
                           d->rank, values);
        count[q] = (int)values;
        spans[(*n)++] = sp;
        *total += values;
    }
    return SL_OK;
}

static int halo_through_host(struct domain *d, sim *s, real *v, const int *sends, const mg_span *out_spans, int nout,
                             size_t out, const int *receives, const mg_span *in_spans, int nin, size_t in,
                             sl_err *err);

int domain_cell_halo(sim *s, const mg_grid *g, const int *bound, real *v, int per_cell, int left, int right,
                     sl_err *err)
{
    struct domain *d = s->domain;
    if (!d)
        return SL_OK;
    const double t = domain_clock(d);
    SL_TRY(reserve(d, s, 0, err));
    int *sends = d->cells_counts, *receives = d->cells_counts + d->size, nout, nin;
    mg_span *out_spans = d->cells_spans, *in_spans = d->cells_spans + d->size;
    size_t out, in;
    SL_TRY(halo_spans(d, g, bound, per_cell, left, right, 0, sends, out_spans, &nout, &out, err));
    SL_TRY(halo_spans(d, g, bound, per_cell, left, right, 1, receives, in_spans, &nin, &in, err));
    SL_TRY(domain_cells_decide(d, s, err));
    SL_TRY(d->cells_path == CELLS_GPU_TO_GPU
               ? domain_cell_halo_direct(d, s, v, sends, out_spans, nout, out, receives, in_spans, nin, in, err)
               : halo_through_host(d, s, v, sends, out_spans, nout, out, receives, in_spans, nin, in, err));
    d->seconds[DT_CELL_HALO] += MPI_Wtime() - t;
    d->cell_halos++;
    return SL_OK;
}

/* One halo through page-locked host buffers and MPI, as domain_cell_halo_direct's arguments say. */
static int halo_through_host(struct domain *d, sim *s, real *v, const int *sends, const mg_span *out_spans, int nout,
                             size_t out, const int *receives, const mg_span *in_spans, int nin, size_t in,
                             sl_err *err)
{
    SL_TRY(reserve(d, s, out > in ? out : in, err));
    real *const sent = d->cells_out.ptr, *const arrived = d->cells_in.ptr;
    MPI_Request *wait = d->cells_wait;
    int requests = 0, rc;
    size_t at = 0;
    for (int q = 0; q < d->size; at += (size_t)receives[q++]) /* every receive posted before any send */
        if (receives[q])
            MPI_Irecv(arrived + at, receives[q], DOMAIN_MPI_REAL, q, CELL_HALO_TAG, d->comm, &wait[requests++]);
    if ((rc = copy(s, v, out_spans, nout, sent, 1, err))) /* every neighbour's columns in one copy */
        return rc;
    at = 0;
    for (int q = 0; q < d->size; at += (size_t)sends[q++])
        if (sends[q])
            MPI_Isend(sent + at, sends[q], DOMAIN_MPI_REAL, q, CELL_HALO_TAG, d->comm, &wait[requests++]);
    MPI_Waitall(requests, wait, MPI_STATUSES_IGNORE);
    return copy(s, v, in_spans, nin, arrived, 0, err); /* in the order the receives were posted */
}

int domain_cell_gather(sim *s, const mg_grid *g, const int *bound, real *v, int per_cell, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d)
        return SL_OK;
    const double t = domain_clock(d);
    int rc = reserve(d, s, 0, err);
    if (rc)
        return rc;
    int *counts = d->cells_counts, *offsets = d->cells_counts + d->size;
    size_t total = 0, values;
    for (int q = 0; q < d->size; ++q) {
        column_span(g, bound[q], bound[q + 1], per_cell, &values);
        if (values > INT_MAX || total + values > INT_MAX)
            return sl_fail(err, SL_ERR_RUNTIME, "MPI rank %d: a cell level of %zu values is above MPI's int count",
                           d->rank, total + values);
        counts[q] = (int)values;
        offsets[q] = (int)total;
        total += values;
    }
    if ((rc = reserve(d, s, total, err)))
        return rc;
    const int me = d->rank;
    mg_span own = column_span(g, bound[me], bound[me + 1], per_cell, &values);
    if (values && (rc = copy(s, v, &own, 1, d->cells_out.ptr, 1, err)))
        return rc;
    MPI_Allgatherv(d->cells_out.ptr, counts[me], DOMAIN_MPI_REAL, d->cells_in.ptr, counts, offsets, DOMAIN_MPI_REAL, d->comm);
    /* the others' columns back in two copies: the ranks before this one's, then those after */
    for (int part = 0; part < 2; ++part) {
        int n = 0, q0 = part ? me + 1 : 0, q1 = part ? d->size : me;
        for (int q = q0; q < q1; ++q) {
            mg_span sp = column_span(g, bound[q], bound[q + 1], per_cell, &values);
            if (values)
                d->cells_spans[n++] = sp;
        }
        if (q0 < q1 && (rc = copy(s, v, d->cells_spans, n, (real *)d->cells_in.ptr + offsets[q0], 0, err)))
            return rc;
    }
    d->seconds[DT_CELL_HALO] += MPI_Wtime() - t;
    d->cell_halos++;
    return SL_OK;
}
