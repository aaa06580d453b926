/* mpi_cells_direct.c: the multigrid's cell-level halos GPU to GPU between the ranks of one host
 * (mpi_cells.c's halos, where the particles' exchanges go so: mpi_transfer.c). Each rank packs the
 * columns its neighbours read into a device buffer they map (CUDA IPC) and copies its own from its
 * senders' buffers over NVLink or PCIe. Through the host, a level-0 halo at 20M particles a rank
 * crossed the bus twice (about 0.28 ms a halo on the H200, hundreds of halos a step:
 * docs/performance.md).
 *
 * The order that keeps a sender's buffer whole while it is read, each halo:
 * 1. wait until every rank that copied from this rank's buffer in the last halo says it is done;
 * 2. pack, wait for the device, then send each receiver a notice (where its columns lie, the
 *    buffer's handle), which also says they are there;
 * 3. with the senders' notices, copy from their buffers, wait for the device, tell each sender it is
 *    done (the message its step 1 waits for at its next halo), then unpack, queued. */
#include "mpi_domain.h"

#include <stdlib.h>

enum { CELL_NOTICE_TAG = 7302, CELL_DONE_TAG = 7303 }; /* apart from mpi_cells.c's 7301 */

/* What a sender tells each rank that reads its columns. */
struct cell_notice {
    uint64_t generation; /* the sender's out buffer's allocation (mapped again when it changes) */
    uint64_t offset;     /* the receiver's first value in it */
    uint64_t count;      /* the receiver's values (checked against its own count) */
    peer_handle handle;  /* the out buffer, for the receiver to map */
};

int domain_cells_decide(struct domain *d, sim *s, sl_err *err)
{
    if (d->cells_path || !d->transfer_decided) /* decided, or no exchange yet: the host this time */
        return SL_OK;
    int host_only, insist;
    SL_TRY(domain_path_wanted("SLUICE_MPI_CELL_HALOS", &host_only, &insist, err));
    int ok = d->direct && !host_only && s->be->mg && s->be->mg->columns, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, d->comm);
    if (insist && !all)
        return sl_fail(err, SL_ERR_INPUT, "environment variable SLUICE_MPI_CELL_HALOS=device: the cell levels' halos "
                       "cannot go GPU to GPU here (that needs the particles' exchanges GPU to GPU: the CUDA backend, "
                       "every rank on one host, devices that map each other's memory)");
    d->cells_path = all ? CELLS_GPU_TO_GPU : CELLS_THROUGH_HOST;
    return SL_OK;
}

/* The device buffers with room for `out` and `in` values, the out buffer's handle current. Only
 * after step 1: a new out buffer frees the one the neighbours read. */
static int room(struct domain *d, sim *s, size_t out, size_t in, sl_err *err)
{
    const backend_halo_hooks *h = s->be->halo;
    if (!d->cells_peers) {
        d->cells_peers = calloc((size_t)d->size, sizeof *d->cells_peers);
        d->cells_notices = calloc(2 * (size_t)d->size, sizeof *d->cells_notices);
        d->cells_done = calloc(2 * (size_t)d->size, sizeof *d->cells_done);
        if (!d->cells_peers || !d->cells_notices || !d->cells_done)
            return sl_fail(err, SL_ERR_RUNTIME, "MPI rank %d: out of memory for the cell levels' halo", d->rank);
    }
    const size_t out_bytes = out * sizeof(real), in_bytes = in * sizeof(real);
    if (!d->cells_dev_out.ptr || out_bytes > d->cells_dev_out.cap) {
        if (h->peer_buffer(s, &d->cells_dev_out, domain_headroom(out_bytes)))
            return sl_fail(err, SL_ERR_RUNTIME, "MPI rank %d: out of device memory for a cell level's halo (%zu values)",
                           d->rank, out);
        d->cells_generation++;
    }
    if ((!d->cells_dev_in.ptr || in_bytes > d->cells_dev_in.cap) &&
        h->peer_buffer(s, &d->cells_dev_in, domain_headroom(in_bytes)))
        return sl_fail(err, SL_ERR_RUNTIME, "MPI rank %d: out of device memory for a cell level's halo (%zu values)",
                       d->rank, in);
    if (d->cells_handle_generation != d->cells_generation) {
        SL_TRY(h->peer_export(s, &d->cells_dev_out, &d->cells_handle, err));
        d->cells_handle_generation = d->cells_generation;
    }
    return SL_OK;
}

int domain_cell_halo_direct(struct domain *d, sim *s, real *v, const int *sends, const mg_span *out_spans, int nout,
                            size_t out, const int *receives, const mg_span *in_spans, int nin, size_t in, sl_err *err)
{
    const backend_halo_hooks *h = s->be->halo;
    MPI_Waitall(d->cells_pending, d->cells_done, MPI_STATUSES_IGNORE); /* 1 */
    d->cells_pending = 0;
    SL_TRY(room(d, s, out, in, err));
    const double t = MPI_Wtime();
    struct cell_notice *to = d->cells_notices, *from = d->cells_notices + d->size;
    MPI_Request *wait = d->cells_wait;
    int requests = 0;
    for (int q = 0; q < d->size; ++q)
        if (receives[q])
            MPI_Irecv(&from[q], (int)sizeof *from, MPI_BYTE, q, CELL_NOTICE_TAG, d->comm, &wait[requests++]);
    SL_TRY(domain_cell_columns(s, v, out_spans, nout, d->cells_dev_out.ptr, 1, 1, err)); /* 2 */
    SL_TRY(h->peer_wait(s, err));
    uint64_t at = 0;
    for (int q = 0; q < d->size; at += (uint64_t)sends[q++])
        if (sends[q]) {
            to[q] = (struct cell_notice){.generation = d->cells_generation, .offset = at, .count = (uint64_t)sends[q]};
            to[q].handle = d->cells_handle;
            MPI_Isend(&to[q], (int)sizeof *to, MPI_BYTE, q, CELL_NOTICE_TAG, d->comm, &wait[requests++]);
        }
    MPI_Waitall(requests, wait, MPI_STATUSES_IGNORE);
    at = 0;
    for (int q = 0; q < d->size; at += (uint64_t)receives[q++]) { /* 3 */
        if (!receives[q])
            continue;
        if (from[q].count != (uint64_t)receives[q])
            return sl_fail(err, SL_ERR_RUNTIME, "MPI rank %d: rank %d sends %llu values of a cell level's halo where "
                           "%d were expected", d->rank, q, (unsigned long long)from[q].count, receives[q]);
        SL_TRY(domain_map_peer(s, &d->cells_peers[q], from[q].generation, &from[q].handle, err));
        SL_TRY(h->peer_copy(s, (real *)d->cells_dev_in.ptr + at, (const real *)d->cells_peers[q].ptr + from[q].offset,
                            (size_t)receives[q] * sizeof(real), err));
    }
    SL_TRY(h->peer_wait(s, err));
    static char none; /* the done messages carry nothing */
    for (int q = 0; q < d->size; ++q) {
        if (receives[q])
            MPI_Isend(&none, 0, MPI_BYTE, q, CELL_DONE_TAG, d->comm, &d->cells_done[d->cells_pending++]);
        if (sends[q])
            MPI_Irecv(&none, 0, MPI_BYTE, q, CELL_DONE_TAG, d->comm, &d->cells_done[d->cells_pending++]);
    }
    SL_TRY(domain_cell_columns(s, v, in_spans, nin, d->cells_dev_in.ptr, 0, 1, err));
    d->seconds[DT_CELL_COPY] += MPI_Wtime() - t;
    return SL_OK;
}

void domain_cells_direct_free(struct domain *d, sim *s)
{
    if (d->cells_pending)
        MPI_Waitall(d->cells_pending, d->cells_done, MPI_STATUSES_IGNORE);
    d->cells_pending = 0;
    if (d->cells_peers && s->be)
        domain_unmap_peers(s, d->cells_peers, d->size);
    if (s->be && s->be->halo->peer_buffer_free) {
        if (d->cells_dev_out.ptr)
            s->be->halo->peer_buffer_free(s, &d->cells_dev_out);
        if (d->cells_dev_in.ptr)
            s->be->halo->peer_buffer_free(s, &d->cells_dev_in);
    }
    free(d->cells_peers);
    free(d->cells_notices);
    free(d->cells_done);
    d->cells_peers = NULL;
    d->cells_notices = NULL;
    d->cells_done = NULL;
}
