/* mpi_halo.c: the ghosts of an MPI run: the neighbouring slabs' particles within one interaction
 * radius, appended before the cells are built, planned, refreshed in place, dropped after the
 * neighbour passes. */
#include "mpi_domain.h"

#include <stdlib.h>
#include <string.h>

/* The ghost bands: a slab's first `band` columns go to the rank below, its last to the rank above. */
static int send_ghosts(struct domain *d, sim *s, sl_err *err)
{
    particles *p = &s->p;
    SL_TRY(domain_reserve(d, 2 * p->n, err));
    const real *x = p->f[PF_X + d->axis];
    int lo = d->first[d->rank], hi = d->first[d->rank + 1];
    size_t m = 0;
    for (size_t i = 0; i < p->n; ++i) {
        int c = domain_column(d, x[i]);
        if (c < 0)
            continue;
        if (d->rank > 0 && c < lo + d->band) {
            d->idx[m] = (int32_t)i;
            d->dest[m++] = d->rank - 1;
        }
        if (d->rank < d->size - 1 && c >= hi - d->band) {
            d->idx[m] = (int32_t)i;
            d->dest[m++] = d->rank + 1;
        }
    }
    size_t before = p->n;
    SL_TRY(domain_send_particles(d, s, m, 1, err));
    d->ghosts = p->n - before;
    return SL_OK;
}

static int grow_plan(struct domain *d, size_t n, sl_err *err)
{
    if (n <= d->plan_cap)
        return SL_OK;
    size_t cap = n + n / 4 + 64;
    int32_t *idx = realloc(d->plan_idx, cap * sizeof *idx);
    if (idx)
        d->plan_idx = idx;
    int32_t *slot = realloc(d->plan_slot, cap * sizeof *slot);
    if (slot)
        d->plan_slot = slot;
    int *dest = realloc(d->plan_dest, cap * sizeof *dest);
    if (dest)
        d->plan_dest = dest;
    if (!idx || !slot || !dest)
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory for the halo of %zu particles", n);
    d->plan_cap = cap;
    return SL_OK;
}

/* Ghosts by id, for finding where the sort put each one. */
typedef struct ghost_slot {
    int32_t id, slot;
} ghost_slot;

static int by_id(const void *a, const void *b)
{
    int32_t x = ((const ghost_slot *)a)->id, y = ((const ghost_slot *)b)->id;
    return (x > y) - (x < y);
}

/* Where the sort put the ghosts: each neighbour sends the ids of its band particles in the order it
 * will send their fields (its index order after the sort); each rank looks them up among its ghosts.
 * By id rather than by order, so a sort that does not keep the order inside a cell (the CUDA
 * backend's counting sort) plans as well. domain_refresh_halo checks the id of every record. */
static int plan_halo(struct domain *d, sim *s, sl_err *err)
{
    particles *p = &s->p;
    SL_TRY(grow_plan(d, 2 * p->n, err));
    const real *x = p->f[PF_X + d->axis];
    int lo = d->first[d->rank], hi = d->first[d->rank + 1];
    size_t m = 0;
    /* this rank's band particles, as send_ghosts chose them (nothing has moved since) */
    for (size_t i = 0; i < p->n; ++i) {
        if (p->id[i] < 0)
            continue;
        int c = domain_column(d, x[i]);
        if (c < 0)
            continue;
        if (d->rank > 0 && c < lo + d->band) {
            d->plan_idx[m] = (int32_t)i;
            d->plan_dest[m++] = d->rank - 1;
        }
        if (d->rank < d->size - 1 && c >= hi - d->band) {
            d->plan_idx[m] = (int32_t)i;
            d->plan_dest[m++] = d->rank + 1;
        }
    }
    d->plan_send = m;
    size_t nrecv;
    int32_t *ids;
    SL_TRY(domain_exchange_ids(d, p, d->plan_idx, d->plan_dest, m, &ids, &nrecv, err));
    ghost_slot *g = malloc((d->ghosts ? d->ghosts : 1) * sizeof *g);
    if (!g)
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory for the halo's plan");
    size_t ng = 0;
    for (size_t i = 0; i < p->n && ng < d->ghosts; ++i)
        if (p->id[i] < 0)
            g[ng++] = (ghost_slot){-1 - p->id[i], (int32_t)i};
    qsort(g, ng, sizeof *g, by_id);
    int rc = nrecv == d->ghosts && ng == d->ghosts
                 ? SL_OK
                 : sl_fail(err, SL_ERR_RUNTIME, "MPI domain: rank %d holds %zu ghosts, its neighbours name %zu",
                           d->rank, ng, nrecv);
    for (size_t k = 0; k < nrecv && rc == SL_OK; ++k) {
        ghost_slot key = {ids[k], 0};
        const ghost_slot *hit = bsearch(&key, g, ng, sizeof *g, by_id);
        if (!hit)
            rc = sl_fail(err, SL_ERR_RUNTIME, "MPI domain: rank %d has no ghost of particle %ld", d->rank,
                         (long)ids[k]);
        else
            d->plan_slot[k] = hit->slot;
    }
    free(g);
    d->plan_recv = nrecv;
    d->planned = rc == SL_OK;
    return rc;
}

static int exchange_halo(struct domain *d, sim *s, sl_err *err)
{
    if (d->ghosts) /* a step that did not drop them: never ghosts of ghosts */
        SL_TRY(domain_drop_halo(s, err));
    SL_TRY(domain_balance_if_due(d, s, err));
    SL_TRY(domain_migrate(d, s, err));
    return send_ghosts(d, s, err);
}

/* A backend that keeps the particles in device memory (CUDA) is staged through the host arrays:
 * the exchanges run on s->p between sim_sync_host and sim_sync_device, which do nothing on the CPU.
 * Whole arrays go each way; copying only the bands is the next step (docs/architecture.md). */
int domain_build_cells(sim *s, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d)
        return s->be->build_cells(s, err);
    sim_sync_host(s);
    SL_TRY(exchange_halo(d, s, err));
    SL_TRY(sim_sync_device(s, err));
    SL_TRY(s->be->build_cells(s, err));
    sim_sync_host(s); /* the ghosts' places after the sort */
    return plan_halo(d, s, err);
}

int domain_drop_halo(sim *s, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d || !d->ghosts)
        return SL_OK;
    d->planned = 0; /* the owned particles move down: the send lists go stale */
    sim_sync_host(s);
    particles *p = &s->p;
    nbr_grid *g = &s->g;
    size_t n_old = p->n;
    /* the ghosts are where the sort put them; their ids say which they are */
    uint8_t *keep = (uint8_t *)g->cell_tmp; /* the sort's scratch, free after the build, n_old ints */
    for (size_t i = 0; i < n_old; ++i)
        keep[i] = p->id[i] >= 0;
    /* the grid's cells stay sorted once the ghosts are out: count each cell's particles again */
    int32_t *start = g->cell_start;
    int64_t nc = g->ncells;
    memset(start, 0, ((size_t)nc + 2) * sizeof *start);
    for (size_t i = 0; i < n_old; ++i)
        if (keep[i])
            start[g->cell[i]]++; /* the sink's number (nc) beyond n_inside */
    int32_t sum = 0;
    for (int64_t c = 0; c <= nc; ++c) {
        int32_t cnt = start[c];
        start[c] = sum;
        sum += cnt;
    }
    start[nc + 1] = sum;
    domain_compact(p, keep, g->cell);
    g->n_inside = (size_t)start[nc];
    d->ghosts = 0;
    /* a device backend gets the particles back; its grid stays as the sort left it until the next
     * build, and only passes without neighbours run before that */
    return sim_sync_device(s, err);
}

int domain_refresh_halo(sim *s, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d)
        return SL_OK;
    if (!d->planned) /* (a rank without ghosts may still have some to send: every rank takes part) */
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: the ghosts were refreshed without a plan "
                       "(domain_build_cells makes one)");
    sim_sync_host(s); /* a device backend: staged through the host arrays (domain_build_cells) */
    SL_TRY(domain_reserve(d, d->plan_send, err));
    memcpy(d->idx, d->plan_idx, d->plan_send * sizeof *d->idx);
    memcpy(d->dest, d->plan_dest, d->plan_send * sizeof *d->dest);
    SL_TRY(domain_overwrite_particles(d, &s->p, d->plan_send, d->plan_slot, d->plan_recv, err));
    return sim_sync_device(s, err);
}
