/* mpi_transfer.c: how the exchanges' bytes cross between ranks. Through host buffers and MPI
 * (page-locked where the backend has them), or, where every rank runs on one host with a device
 * backend whose memory the other processes can map (backend.halo's peer hooks, CUDA IPC), GPU to
 * GPU: the buffers are device memory, each rank tells the others where their items lie in its send
 * buffer, and each copies what it receives straight from its neighbours' buffers. The device
 * path saves the copies down to the host, through MPI's shared memory and up again, which were
 * most of a cell build's exchange (docs/performance.md). SLUICE_MPI_TRANSFER=host keeps the host
 * path (the reference the device path is tested against, tests/mpi_test.sh); =device asks for the
 * device path and fails where it cannot be had. */
#include "mpi_domain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a rank tells each rank it sends to: where that rank's items start in its send buffer. */
typedef struct transfer_notice {
    uint64_t generation; /* the send buffer's: a new one when it was reallocated */
    uint64_t nsend;      /* items in the send buffer (a column's length) */
    uint64_t offset;     /* the first item for the receiver */
    peer_handle handle;  /* the send buffer, for the receiver to map */
} transfer_notice;

static int peer_hooks(const sim *s)
{
    const backend_halo_hooks *h = s->be->halo;
    return h->peer_buffer && h->peer_buffer_free && h->peer_export && h->peer_open && h->peer_close &&
           h->peer_copy && h->peer_wait;
}

static int one_host(const struct domain *d)
{
    MPI_Comm host;
    int n = 0;
    if (MPI_Comm_split_type(d->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) != MPI_SUCCESS)
        return 0;
    MPI_Comm_size(host, &n);
    MPI_Comm_free(&host);
    return n == d->size;
}

int domain_host_buffer(sim *s, backend_buffer *b, size_t bytes)
{
    const backend_halo_hooks *h = s->be->halo;
    if (h->host_buffer)
        return h->host_buffer(s, b, bytes);
    free(b->ptr);
    b->ptr = malloc(bytes);
    b->cap = b->ptr ? bytes : 0;
    return b->ptr ? 0 : -1;
}

void domain_host_buffer_free(sim *s, backend_buffer *b)
{
    const backend_halo_hooks *h = s->be ? s->be->halo : NULL;
    if (h && h->host_buffer_free)
        h->host_buffer_free(s, b);
    else
        free(b->ptr);
    b->ptr = NULL;
    b->cap = 0;
}

static void buffer_free(struct domain *d, sim *s, backend_buffer *b)
{
    const backend_halo_hooks *h = s->be ? s->be->halo : NULL;
    if (!(d->direct && h)) {
        domain_host_buffer_free(s, b);
        return;
    }
    h->peer_buffer_free(s, b);
    b->ptr = NULL;
    b->cap = 0;
}

void domain_unmap_peers(sim *s, struct peer_map *peers, int n)
{
    for (int q = 0; peers && q < n; ++q)
        if (peers[q].generation) {
            s->be->halo->peer_close(s, peers[q].ptr);
            peers[q].generation = 0;
            peers[q].ptr = NULL;
        }
}

void domain_transfer_free(struct domain *d, sim *s)
{
    if (d->direct && s->be)
        domain_unmap_peers(s, d->peers, d->size);
    free(d->peers);
    d->peers = NULL;
    buffer_free(d, s, &d->sendbuf);
    buffer_free(d, s, &d->recvbuf);
}

/* The buffer b with room for n bytes (contents not kept): device memory on the device path, the
 * backend's page-locked host memory where it has some, else malloc's. */
static int grow(struct domain *d, sim *s, backend_buffer *b, size_t n)
{
    if (n <= b->cap && b->ptr)
        return 0;
    size_t c = domain_headroom(n);
    const backend_halo_hooks *h = s->be->halo;
    if (d->direct) {
        if (b == &d->sendbuf)
            d->send_generation++; /* the peers map the new one at the next exchange */
        return h->peer_buffer(s, b, c);
    }
    return domain_host_buffer(s, b, c);
}

int domain_map_peer(sim *s, struct peer_map *m, uint64_t generation, const peer_handle *handle, sl_err *err)
{
    if (m->generation == generation)
        return SL_OK;
    const backend_halo_hooks *h = s->be->halo;
    if (m->generation)
        h->peer_close(s, m->ptr);
    m->generation = 0;
    m->ptr = NULL;
    SL_TRY(h->peer_open(s, handle, &m->ptr, err));
    m->generation = generation;
    return SL_OK;
}

/* Maps rank q's send buffer as its notice names it. */
static int map_peer(struct domain *d, sim *s, int q, const transfer_notice *n, sl_err *err)
{
    return domain_map_peer(s, &d->peers[q], n->generation, &n->handle, err);
}

int domain_path_wanted(const char *variable, int *host_only, int *insist, sl_err *err)
{
    const char *want = getenv(variable);
    *host_only = want && strcmp(want, "host") == 0;
    *insist = want && strcmp(want, "device") == 0;
    if (want && !*host_only && !*insist)
        return sl_fail(err, SL_ERR_INPUT, "environment variable %s=%s: accepted: host or device", variable, want);
    return SL_OK;
}

/* Whether the device path can be had: wanted, a backend with the peer hooks staging the cell
 * build, every rank on one host, and each rank able to map its neighbours' buffers (tried once with
 * a small buffer; a device pair without peer access fails here). Collective: every rank takes the
 * same path. */
static int decide(struct domain *d, sim *s, sl_err *err)
{
    int host_only, insist;
    SL_TRY(domain_path_wanted("SLUICE_MPI_TRANSFER", &host_only, &insist, err));
    d->peers = calloc((size_t)d->size, sizeof *d->peers);
    transfer_notice mine = {0}, *all_notices = calloc((size_t)d->size, sizeof *all_notices);
    if (!d->peers || !all_notices) {
        free(all_notices);
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory"); /* (the command stops every rank) */
    }
    int ok = !host_only && peer_hooks(s) && domain_staged(s), all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, d->comm);
    if (all)
        all = one_host(d);
    if (all) { /* try it: each rank maps its neighbours' first buffers */
        buffer_free(d, s, &d->sendbuf);
        buffer_free(d, s, &d->recvbuf);
        d->direct = 1;
        ok = grow(d, s, &d->sendbuf, 1) == 0;
        sl_err tried = {0};
        if (ok)
            ok = s->be->halo->peer_export(s, &d->sendbuf, &mine.handle, &tried) == SL_OK;
        mine.generation = d->send_generation;
        MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all_notices, (int)sizeof mine, MPI_BYTE, d->comm);
        for (int q = d->rank - 1; ok && q <= d->rank + 1; q += 2)
            if (q >= 0 && q < d->size)
                ok = map_peer(d, s, q, &all_notices[q], &tried) == SL_OK;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, d->comm);
        if (!all) {
            if (!ok) /* the rank that failed says why */
                fprintf(stderr, "note: rank %d: the MPI exchanges go through host memory: %s\n", d->rank,
                        tried.msg[0] ? tried.msg : "out of memory");
            domain_transfer_free(d, s);
            d->direct = 0;
            if (!(d->peers = calloc((size_t)d->size, sizeof *d->peers))) {
                free(all_notices);
                return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory");
            }
        }
    }
    free(all_notices);
    d->transfer_decided = 1;
    if (insist && !all)
        return sl_fail(err, SL_ERR_INPUT, "environment variable SLUICE_MPI_TRANSFER=device: the exchanges cannot go "
                       "GPU to GPU here (that needs the CUDA backend, every rank on one host, and devices that "
                       "map each other's memory)");
    return SL_OK;
}

int domain_transfer_room(struct domain *d, sim *s, size_t send_bytes, size_t recv_bytes, sl_err *err)
{
    if (!d->transfer_decided)
        SL_TRY(decide(d, s, err));
    if (grow(d, s, &d->sendbuf, send_bytes) || grow(d, s, &d->recvbuf, recv_bytes))
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of %s memory for %zu bytes to exchange",
                       d->direct ? "device" : "host", send_bytes + recv_bytes);
    return SL_OK;
}

/* The host path: an MPI_Alltoallv per column, the counts in items of the column's size. */
static void transfer_host(struct domain *d, const size_t *size, int ncol, size_t nsend, size_t nrecv,
                          const int *scount, const int *soff, const int *rcount, const int *roff)
{
    char *out = d->sendbuf.ptr, *in = d->recvbuf.ptr;
    for (int c = 0; c < ncol; ++c) {
        MPI_Datatype item;
        MPI_Type_contiguous((int)size[c], MPI_BYTE, &item);
        MPI_Type_commit(&item);
        MPI_Alltoallv(out, scount, soff, item, in, rcount, roff, item, d->comm);
        MPI_Type_free(&item);
        out += nsend * size[c];
        in += nrecv * size[c];
    }
}

/* The device path: the gathers that filled the send buffer are waited for, every rank tells each
 * rank it sends to where its items lie (which, being after the wait, also says they are there), each
 * rank copies its items from the senders' buffers, waits for the copies and for every other rank to
 * have done the same before any send buffer may change. */
static int transfer_direct(struct domain *d, sim *s, const size_t *size, int ncol, size_t nsend, size_t nrecv,
                           const int *soff, const int *rcount, const int *roff, sl_err *err)
{
    const backend_halo_hooks *h = s->be->halo;
    int R = d->size;
    SL_TRY(h->peer_wait(s, err));
    transfer_notice *out = d->notices, *in = d->notices + R;
    if (d->handle_generation != d->send_generation) { /* a new send buffer: its handle */
        SL_TRY(h->peer_export(s, &d->sendbuf, &d->send_handle, err));
        d->handle_generation = d->send_generation;
    }
    for (int q = 0; q < R; ++q) {
        out[q] = (transfer_notice){.generation = d->send_generation, .nsend = nsend, .offset = (uint64_t)soff[q]};
        out[q].handle = d->send_handle;
    }
    MPI_Alltoall(out, (int)sizeof *out, MPI_BYTE, in, (int)sizeof *in, MPI_BYTE, d->comm);
    int rc = SL_OK;
    for (int q = 0; q < R && rc == SL_OK; ++q) {
        if (!rcount[q])
            continue;
        const char *from = d->sendbuf.ptr;
        if (q != d->rank) {
            if ((rc = map_peer(d, s, q, &in[q], err)))
                break;
            from = d->peers[q].ptr;
        }
        size_t src = 0, dst = 0; /* the column's start in the sender's and in this rank's buffer */
        for (int c = 0; c < ncol && rc == SL_OK; ++c) {
            rc = h->peer_copy(s, (char *)d->recvbuf.ptr + dst + (size_t)roff[q] * size[c],
                              from + src + in[q].offset * size[c], (size_t)rcount[q] * size[c], err);
            src += in[q].nsend * size[c];
            dst += nrecv * size[c];
        }
    }
    if (rc == SL_OK)
        rc = h->peer_wait(s, err);
    /* every rank passes here, failed or not, so none waits for ever; a failure stops the run */
    MPI_Barrier(d->comm);
    return rc;
}

int domain_transfer(struct domain *d, sim *s, const size_t *size, int ncol, size_t nsend, size_t nrecv,
                    const int *scount, const int *soff, const int *rcount, const int *roff, sl_err *err)
{
    if (!d->direct) {
        transfer_host(d, size, ncol, nsend, nrecv, scount, soff, rcount, roff);
        return SL_OK;
    }
    if (!d->notices && !(d->notices = calloc(2 * (size_t)d->size, sizeof *d->notices)))
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory");
    return transfer_direct(d, s, size, ncol, nsend, nrecv, soff, rcount, roff, err);
}

const char *domain_transfer_path(const struct domain *d)
{
    return !d->transfer_decided ? "" : d->direct ? "GPU to GPU (CUDA IPC)" : "through host memory";
}
