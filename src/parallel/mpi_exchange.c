/* mpi_exchange.c: particles sent between ranks as records (migration, ghosts): a particle travels
 * as its persistent fields, id, type and tag; the rates (transient fields) are not sent, every force
 * pass writes them again after the cells are rebuilt. And fields along the halo's plan (the ghosts'
 * refresh), through the backend's halo hooks. */
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

static int grow(unsigned char **buf, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    size_t c = n + n / 4 + 4096;
    unsigned char *b = realloc(*buf, c);
    if (!b)
        return -1;
    *buf = b;
    *cap = c;
    return 0;
}

/* A record holds the persistent fields. */
static size_t record_bytes(const particles *p)
{
    size_t b = sizeof(int32_t) + 2;
    for (int k = 0; k < p->nfields; ++k)
        if (!p->transient[k])
            b += sizeof(real);
    return b;
}

static void pack(const particles *p, size_t i, int as_ghost, unsigned char *r)
{
    for (int k = 0; k < p->nfields; ++k)
        if (!p->transient[k]) {
            memcpy(r, &p->f[k][i], sizeof(real));
            r += sizeof(real);
        }
    int32_t id = as_ghost ? -1 - p->id[i] : p->id[i];
    memcpy(r, &id, sizeof id);
    r[sizeof id] = p->type[i];
    r[sizeof id + 1] = p->tag[i];
}

static void unpack(particles *p, size_t i, const unsigned char *r)
{
    for (int k = 0; k < p->nfields; ++k) {
        if (p->transient[k]) {
            p->f[k][i] = 0;
            continue;
        }
        memcpy(&p->f[k][i], r, sizeof(real));
        r += sizeof(real);
    }
    memcpy(&p->id[i], r, sizeof p->id[i]);
    p->type[i] = r[sizeof p->id[i]];
    p->tag[i] = r[sizeof p->id[i] + 1];
}

/* The counts of the exchange along r: d->counts holds each rank's send and receive counts and
 * offsets (in items), *nsend and *nrecv the totals. */
static void route_counts(struct domain *d, const routes *r, size_t *nsend, size_t *nrecv)
{
    int R = d->size;
    int *scount = d->counts, *soff = d->counts + R, *rcount = d->counts + 2 * R, *roff = d->counts + 3 * R;
    memset(scount, 0, (size_t)R * sizeof *scount);
    for (size_t k = 0; k < r->n; ++k)
        scount[r->dest[k]]++;
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, d->comm);
    *nsend = *nrecv = 0;
    for (int q = 0; q < R; ++q) {
        soff[q] = (int)*nsend;
        roff[q] = (int)*nrecv;
        *nsend += (size_t)scount[q];
        *nrecv += (size_t)rcount[q];
    }
}

/* Sends the particles along r as records; *nrecv records arrive in d->recvbuf, those of lower ranks
 * first, each rank's in its order. */
static int exchange_records(struct domain *d, const particles *p, const routes *r, int as_ghost, size_t *nrecv,
                            sl_err *err)
{
    int R = d->size;
    int *scount = d->counts, *soff = d->counts + R, *rcount = d->counts + 2 * R, *roff = d->counts + 3 * R;
    size_t rb = record_bytes(p), nsend;
    route_counts(d, r, &nsend, nrecv);
    if (grow(&d->sendbuf, &d->sendcap, nsend * rb) || grow(&d->recvbuf, &d->recvcap, *nrecv * rb))
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory for %zu particles to exchange",
                       nsend + *nrecv);
    if ((nsend + *nrecv) * rb > (size_t)INT32_MAX)
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: %zu particles to exchange at once exceed MPI's "
                       "int counts; run on more ranks", nsend + *nrecv);
    /* records in destination order; the offsets advance as they fill and are set back after */
    for (size_t k = 0; k < r->n; ++k)
        pack(p, (size_t)r->idx[k], as_ghost, d->sendbuf + (size_t)soff[r->dest[k]]++ * rb);
    for (int q = 0; q < R; ++q) {
        soff[q] -= scount[q];
        /* counts in bytes for the exchange */
        scount[q] *= (int)rb;
        soff[q] *= (int)rb;
        rcount[q] *= (int)rb;
        roff[q] *= (int)rb;
    }
    MPI_Alltoallv(d->sendbuf, scount, soff, MPI_BYTE, d->recvbuf, rcount, roff, MPI_BYTE, d->comm);
    return SL_OK;
}

int domain_exchange_ids(struct domain *d, const routes *r, int32_t **ids, size_t *nrecv, sl_err *err)
{
    int R = d->size;
    int *scount = d->counts, *soff = d->counts + R, *rcount = d->counts + 2 * R, *roff = d->counts + 3 * R;
    size_t nsend;
    route_counts(d, r, &nsend, nrecv);
    if (grow(&d->sendbuf, &d->sendcap, nsend * sizeof(int32_t)) ||
        grow(&d->recvbuf, &d->recvcap, *nrecv * sizeof(int32_t)))
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory for %zu ids", nsend + *nrecv);
    int32_t *out = (int32_t *)d->sendbuf;
    for (size_t k = 0; k < r->n; ++k)
        out[soff[r->dest[k]]++] = r->id[k];
    for (int q = 0; q < R; ++q)
        soff[q] -= scount[q];
    *ids = (int32_t *)d->recvbuf;
    MPI_Alltoallv(out, scount, soff, MPI_INT32_T, *ids, rcount, roff, MPI_INT32_T, d->comm);
    return SL_OK;
}

int domain_staged(const sim *s)
{
    const backend_halo_hooks *h = s->be->halo;
    return h->fetch && h->remove && h->append && h->ids_to_host && h->select && !(s->domain && s->domain->whole_arrays);
}

int domain_send_particles(struct domain *d, sim *s, const routes *r, int as_ghost, sl_err *err)
{
    particles *p = &s->p;
    const backend_halo_hooks *h = s->be->halo;
    int staged = domain_staged(s);
    size_t nrecv;
    double t = MPI_Wtime();
    if (staged) /* the records' particles into the host arrays, and only they */
        SL_TRY(h->fetch(s, r->idx, r->n, err));
    t = domain_lap(d, DT_FETCH, t);
    SL_TRY(exchange_records(d, p, r, as_ghost, &nrecv, err));
    t = domain_lap(d, DT_MPI, t);
    if (!as_ghost && r->n > 0 && staged) { /* the movers leave, the rest keep their order */
        size_t before = p->n;
        SL_TRY(h->remove(s, r->idx, r->n, err));
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
    size_t n0 = p->n, rb = record_bytes(p);
    SL_TRY(particles_resize(p, n0 + nrecv, err));
    for (size_t k = 0; k < nrecv; ++k)
        unpack(p, n0 + k, d->recvbuf + k * rb);
    if (staged) /* the arrivals to the end of the device's arrays */
        SL_TRY(h->append(s, n0, err));
    domain_lap(d, DT_APPEND, t);
    return SL_OK;
}

int domain_plan_field(struct domain *d, sl_err *err)
{
    int R = d->size;
    const routes *r = &d->plan;
    memcpy(d->field_counts, d->counts, 4 * (size_t)R * sizeof *d->counts);
    if (r->n > d->order_cap) {
        int32_t *order = realloc(d->field_order, r->n * sizeof *order);
        if (!order)
            return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory for the halo's plan");
        d->field_order = order;
        d->order_cap = r->n;
    }
    /* the order of domain_exchange_ids: by destination, each destination's in route order */
    int *next = d->counts + R; /* the send offsets, advanced as they fill (the copy above keeps them) */
    for (size_t k = 0; k < r->n; ++k)
        d->field_order[next[r->dest[k]]++] = r->idx[k];
    return SL_OK;
}

/* The plan's lists where the backend reads them: on a device, copied there once per plan and read
 * by every refresh until the next. */
int domain_plan_upload(struct domain *d, sim *s, sl_err *err)
{
    d->order_at = d->field_order;
    d->slot_at = d->plan_slot;
    if (!s->be->upload)
        return SL_OK;
    if (d->plan.n)
        d->order_at = s->be->upload(s, &d->order_dev, d->field_order, d->plan.n * sizeof *d->field_order);
    if (d->plan_recv)
        d->slot_at = s->be->upload(s, &d->slot_dev, d->plan_slot, d->plan_recv * sizeof *d->plan_slot);
    if (d->order_at && d->slot_at)
        return SL_OK;
    int rc = sim_backend_error(s, err);
    return rc ? rc : sl_fail(err, SL_ERR_RUNTIME, "MPI domain: the halo's plan could not be copied to the device");
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
    size_t nsend = back ? d->plan_recv : d->plan.n, nrecv = back ? d->plan.n : d->plan_recv, w = (size_t)nf;
    if (grow(&d->sendbuf, &d->sendcap, nsend * w * sizeof(real)) ||
        grow(&d->recvbuf, &d->recvcap, nrecv * w * sizeof(real)))
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory for %zu values to exchange",
                       (nsend + nrecv) * w);
    if ((nsend + nrecv) * w > (size_t)INT32_MAX)
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: %zu values to exchange at once exceed MPI's int counts; "
                       "run on more ranks", (nsend + nrecv) * w);
    int *c = d->counts; /* the plan's counts and offsets in values, nf a ghost */
    for (int q = 0; q < 2 * R; ++q) {
        c[q] = from[q] * nf;
        c[2 * R + q] = to[q] * nf;
    }
    real *out = (real *)d->sendbuf, *in = (real *)d->recvbuf;
    SL_TRY(h->gather(s, fields, nf, read, nsend, out, err));
    MPI_Alltoallv(out, c, c + R, DOMAIN_MPI_REAL, in, c + 2 * R, c + 3 * R, DOMAIN_MPI_REAL, d->comm);
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
