/* mpi_exchange.c: particles sent between ranks as records (migration, ghosts): a particle travels
 * as its persistent fields, id, type and tag; the rates (transient fields) are not sent, every force
 * pass writes them again after the cells are rebuilt. A batch goes as columns (record_columns,
 * backend.h), so a device packs and unpacks it where the particles are, and the columns cross as
 * mpi_transfer.c sends them (through the host, or GPU to GPU).
 * And fields along the halo's plan (the ghosts' refresh), through the backend's halo hooks. */
#include "mpi_domain.h"

#include <stdlib.h>
#include <string.h>

size_t domain_compact(particles *p, const uint8_t *keep, int32_t *cell)
{
    size_t j = 0;
    for (size_t i = 0; i < p->n; ++i) {
        if (!keep[i])
            continue;
        if (j != i) {
            for (int k = 0; k < p->nfields; ++k)
                p->f[k][j] = p->f[k][i];
            p->id[j] = p->id[i];
            p->type[j] = p->type[i];
            p->tag[j] = p->tag[i];
            if (cell)
                cell[j] = cell[i];
        }
        ++j;
    }
    p->n = j;
    return j;
}

/* Particles order[0 .. n) of the host arrays into record columns (the device's fetch, on the host);
 * ghost: their ids as -1 - id. */
static void pack_columns(const particles *p, const int32_t *order, size_t n, int ghost, void *buf)
{
    record_columns c = record_columns_at(buf, record_columns_fields(p), n);
    real *f = c.f;
    for (int k = 0; k < p->nfields; ++k) {
        if (p->transient[k])
            continue;
        for (size_t j = 0; j < n; ++j)
            f[j] = p->f[k][order[j]];
        f += n;
    }
    for (size_t j = 0; j < n; ++j) {
        c.id[j] = ghost ? -1 - p->id[order[j]] : p->id[order[j]];
        c.type[j] = p->type[order[j]];
        c.tag[j] = p->tag[order[j]];
    }
}

/* n particles from record columns into the host arrays from `first` on (transient fields zeroed). */
static void unpack_columns(particles *p, size_t first, size_t n, const void *buf)
{
    record_columns c = record_columns_at((void *)buf, record_columns_fields(p), n);
    const real *f = c.f;
    for (int k = 0; k < p->nfields; ++k) {
        if (p->transient[k]) {
            memset(p->f[k] + first, 0, n * sizeof(real));
            continue;
        }
        memcpy(p->f[k] + first, f, n * sizeof(real));
        f += n;
    }
    memcpy(p->id + first, c.id, n * sizeof *c.id);
    memcpy(p->type + first, c.type, n);
    memcpy(p->tag + first, c.tag, n);
}

/* The counts of the exchange: d->counts holds each rank's send counts (domain_select's), and now
 * the send offsets and the receive counts and offsets (in items); *nsend and *nrecv the totals. */
static void route_counts(struct domain *d, size_t *nsend, size_t *nrecv)
{
    int R = d->size;
    int *scount = d->counts, *soff = d->counts + R, *rcount = d->counts + 2 * R, *roff = d->counts + 3 * R;
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, d->comm);
    *nsend = *nrecv = 0;
    for (int q = 0; q < R; ++q) {
        soff[q] = (int)*nsend;
        roff[q] = (int)*nrecv;
        *nsend += (size_t)scount[q];
        *nrecv += (size_t)rcount[q];
    }
}

/* A list of places with room for n (its contents kept); -1 out of memory. */
static int grow_list(int32_t **list, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    int32_t *l = realloc(*list, n * sizeof *l);
    if (!l)
        return -1;
    *list = l;
    *cap = n;
    return 0;
}

int domain_order_routes(struct domain *d, routes *r, sl_err *err)
{
    if (grow_list(&d->send_order, &d->send_order_cap, r->n))
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory for %zu particles to send", r->n);
    int R = d->size, *scount = d->counts, *at = d->counts + R; /* the send offsets' room as cursors */
    memset(scount, 0, (size_t)R * sizeof *scount);
    for (size_t k = 0; k < r->n; ++k)
        scount[r->dest[k]]++;
    for (int q = 0, sum = 0; q < R; sum += scount[q++])
        at[q] = sum;
    for (size_t k = 0; k < r->n; ++k)
        d->send_order[at[r->dest[k]]++] = r->idx[k];
    r->by_dest = d->send_order;
    return SL_OK;
}

/* The record columns in d->sendbuf (nsend particles, by destination) to the other ranks; nrecv arrive
 * in d->recvbuf, those of lower ranks first: the counts in particles. */
static int exchange_columns(struct domain *d, sim *s, int np, size_t nsend, size_t nrecv, sl_err *err)
{
    int R = d->size;
    size_t size[PF_MAX + 3];
    for (int j = 0; j < np; ++j)
        size[j] = sizeof(real);
    size[np] = sizeof(int32_t); /* ids, kinds, tags (record_columns) */
    size[np + 1] = size[np + 2] = 1;
    return domain_transfer(d, s, size, np + 3, nsend, nrecv, d->counts, d->counts + R, d->counts + 2 * R,
                           d->counts + 3 * R, err);
}

int domain_send_particles(struct domain *d, sim *s, const routes *r, int as_ghost, sl_err *err)
{
    particles *p = &s->p;
    const backend_halo_hooks *h = s->be->halo;
    int staged = domain_staged(s), np = record_columns_fields(p);
    size_t nsend, nrecv;
    double t = domain_clock(d);
    route_counts(d, &nsend, &nrecv);
    if (nsend > (size_t)INT32_MAX || nrecv > (size_t)INT32_MAX)
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: %zu particles to exchange at once exceed MPI's int counts; "
                       "run on more ranks", nsend > nrecv ? nsend : nrecv);
    SL_TRY(domain_transfer_room(d, s, record_columns_bytes(np, nsend), record_columns_bytes(np, nrecv), err));
    t = domain_lap(d, DT_MPI, t); /* the counts' exchange: where a rank first waits for the others' steps */
    /* the records in the order they go out, ghosts (copies) known by their ids as -1 - id */
    if (staged) /* from the device */
        SL_TRY(h->fetch(s, r->by_dest, nsend, d->sendbuf.ptr, as_ghost, err));
    else
        pack_columns(p, r->by_dest, nsend, as_ghost, d->sendbuf.ptr);
    t = domain_lap(d, DT_FETCH, t);
    SL_TRY(exchange_columns(d, s, np, nsend, nrecv, err));
    t = domain_lap(d, DT_MPI, t);
    if (!as_ghost && r->n > 0 && staged) { /* the movers leave, the rest keep their order */
        size_t before = p->n;
        SL_TRY(h->remove(s, r->by_dest, r->n, err));
        if (p->n != before - r->n)
            return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: %zu particles left on the device, %zu expected", p->n,
                           before - r->n);
    } else if (!as_ghost && r->n > 0) {
        uint8_t *keep = malloc(p->n ? p->n : 1);
        if (!keep)
            return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory");
        memset(keep, 1, p->n);
        for (size_t k = 0; k < r->n; ++k)
            keep[r->idx[k]] = 0;
        domain_compact(p, keep, NULL);
        free(keep);
    }
    t = domain_lap(d, DT_REMOVE, t);
    size_t n0 = p->n;
    if (staged) { /* the arrivals to the end of the device's arrays; the host's only make room */
        SL_TRY(particles_reserve(p, n0 + nrecv, err));
        SL_TRY(h->append(s, d->recvbuf.ptr, nrecv, err));
        if (p->n != n0 + nrecv)
            return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: %zu particles on the device, %zu expected", p->n,
                           n0 + nrecv);
    } else {
        SL_TRY(particles_resize(p, n0 + nrecv, err));
        unpack_columns(p, n0, nrecv, d->recvbuf.ptr);
    }
    domain_lap(d, DT_APPEND, t);
    return SL_OK;
}

int domain_plan_keep(struct domain *d, sim *s, const routes *r, size_t first, sl_err *err)
{
    int R = d->size;
    size_t nsend = 0, nrecv = 0;
    for (int q = 0; q < R; ++q) {
        nsend += (size_t)d->counts[q];
        nrecv += (size_t)d->counts[2 * R + q];
    }
    memcpy(d->field_counts, d->counts, 4 * (size_t)R * sizeof *d->counts);
    d->plan_send = nsend;
    d->plan_recv = nrecv;
    /* one list, the send order then the ghosts' slots: one pass through the sort, one copy */
    d->plan_on_device = domain_staged(s);
    if (d->plan_on_device) /* where the routes are: nothing crosses the bus */
        return s->be->halo->plan(s, r->by_dest, nsend, first, nrecv, &d->plan_dev, err);
    if (grow_list(&d->plan, &d->plan_cap, nsend + nrecv))
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory for the halo's plan");
    memcpy(d->plan, r->by_dest, nsend * sizeof *d->plan);
    for (size_t k = 0; k < nrecv; ++k)
        d->plan[nsend + k] = (int32_t)(first + k);
    return SL_OK;
}

/* The plan's lists where the backend reads them: on a device, copied there once per plan and read
 * by every refresh until the next. */
static int plan_upload(struct domain *d, sim *s, sl_err *err)
{
    const size_t m = d->plan_send + d->plan_recv;
    const int32_t *at = d->plan;
    if (s->be->upload && m)
        at = s->be->upload(s, &d->plan_dev, d->plan, m * sizeof *d->plan);
    d->order_at = at;
    d->slot_at = at ? at + d->plan_send : NULL;
    if (at || !m)
        return SL_OK;
    int rc = sim_backend_error(s, err);
    return rc ? rc : sl_fail(err, SL_ERR_RUNTIME, "MPI domain: the halo's plan could not be copied to the device");
}

int domain_plan_follow_sort(struct domain *d, sim *s, sl_err *err)
{
    const backend_halo_hooks *h = s->be->halo;
    if (!h->after_sort)
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: backend %s cannot follow particles through its sort",
                       s->be->name);
    const size_t m = d->plan_send + d->plan_recv;
    if (d->plan_on_device) { /* followed where it is, and read there */
        int32_t *plan = d->plan_dev.ptr;
        if (m)
            SL_TRY(h->after_sort(s, plan, m, plan, err));
        d->order_at = m ? plan : NULL;
        d->slot_at = m ? plan + d->plan_send : NULL;
        return SL_OK;
    }
    SL_TRY(h->after_sort(s, d->plan, m, d->plan, err));
    return plan_upload(d, s, err);
}

/* Fields fields[0 .. nf) along the halo's plan, nf values a ghost: out (owners to ghosts, written
 * into the ghosts' slots) or back (ghosts to owners, added to the owners' values); back is out's
 * transpose, the same counts with send and receive swapped. The backend gathers the values to send
 * and scatters those received, so a device copies the bands' values and nothing else. */
static int send_fields(struct domain *d, sim *s, const int *fields, int nf, int back, sl_err *err)
{
    const backend_halo_hooks *h = s->be->halo;
    int R = d->size;
    const int *plan_side = d->field_counts, *ghost_side = d->field_counts + 2 * R; /* counts, offsets */
    const int *from = back ? ghost_side : plan_side, *to = back ? plan_side : ghost_side;
    const int32_t *read = back ? d->slot_at : d->order_at, *write = back ? d->order_at : d->slot_at;
    size_t nsend = back ? d->plan_recv : d->plan_send, nrecv = back ? d->plan_send : d->plan_recv, w = (size_t)nf;
    SL_TRY(domain_transfer_room(d, s, nsend * w * sizeof(real), nrecv * w * sizeof(real), err));
    real *out = (real *)d->sendbuf.ptr, *in = (real *)d->recvbuf.ptr;
    SL_TRY(h->gather(s, fields, nf, read, nsend, out, err));
    const size_t item = w * sizeof(real); /* a ghost's nf values; the plan's counts are in ghosts */
    SL_TRY(domain_transfer(d, s, &item, 1, nsend, nrecv, from, from + R, to, to + R, err));
    if (!back)
        return h->scatter(s, fields, nf, write, nrecv, in, HALO_SET, err);
    /* a particle that is a ghost on two ranks gets both values, in rank order: a call per rank, in
     * which no particle comes twice */
    for (int q = 0; q < R; ++q)
        if (to[q])
            SL_TRY(h->scatter(s, fields, nf, write + to[R + q], (size_t)to[q], in + (size_t)to[R + q] * w, HALO_ADD,
                              err));
    return SL_OK;
}

int domain_overwrite_fields(struct domain *d, sim *s, const int *fields, int nf, sl_err *err)
{
    return send_fields(d, s, fields, nf, 0, err);
}

int domain_add_field_to_owners(struct domain *d, sim *s, int field, sl_err *err)
{
    return send_fields(d, s, &field, 1, 1, err);
}
