/* mpi_halo.c: the ghosts of an MPI run: the neighbouring slabs' particles within one interaction
 * radius, appended before the cells are built, planned, refreshed in place, dropped after the
 * neighbour passes. The refreshes, the clears, the drop and, on a device, the cell build's exchanges
 * go through the backend's halo hooks (backend.halo), so that a device backend moves the ghost
 * bands' values and the movers' records, not its whole state. */
#include "mpi_domain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The ghosts out and in, and the halo's plan as they went: the ghosts' values will go the same way
 * (the same particles, destinations, order and counts) once the plan has followed them through the
 * sort. */
static int send_ghosts(struct domain *d, sim *s, sl_err *err)
{
    size_t before = s->p.n;
    SL_TRY(domain_select(d, s, SLAB_BANDS, &d->moves, err));
    SL_TRY(domain_send_particles(d, s, &d->moves, 1, err));
    d->ghosts = s->p.n - before;
    return domain_plan_keep(d, s, &d->moves, before, err);
}

static int exchange_halo(struct domain *d, sim *s, sl_err *err)
{
    SL_TRY(domain_balance_if_due(d, s, err));
    SL_TRY(domain_migrate(d, s, err));
    return send_ghosts(d, s, err);
}

/* A backend that keeps the particles in device memory (CUDA) and has the halo's select, fetch,
 * remove and append hooks (domain_staged) copies no whole array: the movers and the bands are chosen
 * on the device (domain_select), their records fetched, the movers removed on the device and the
 * arrivals appended there (domain_send_particles). A backend without those hooks is staged through
 * the host arrays, whole arrays each way (sim_sync_host and sim_sync_device do nothing on the CPU).
 * Either way the plan is the ghost exchange's lists, moved through the sort's permutation: no ids
 * are matched and nothing is chosen again. */
int domain_build_cells(sim *s, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d)
        return s->be->build_cells(s, err);
    double t = domain_clock(d);
    if (d->ghosts) /* a step that did not drop them: never ghosts of ghosts (parked: the sort drops
                    * them; the sort leaves no rate in place) */
        SL_TRY(domain_drop_spent_halo(s, err));
    t = domain_lap(d, DT_DROP, t);
    int staged = domain_staged(s);
    if (!staged)
        sim_sync_host(s);
    t = domain_lap(d, DT_TO_HOST, t);
    SL_TRY(exchange_halo(d, s, err));
    if (!staged)
        SL_TRY(sim_sync_device(s, err));
    t = domain_lap(d, DT_EXCHANGE, t);
    s->g.parked = d->parked; /* the build drops them and checks it found as many (a moving wall's
                              * placing after the park would have given one a place again) */
    d->parked = 0;
    SL_TRY(s->be->build_cells(s, err));
    t = domain_lap(d, DT_SORT, t);
    int rc = domain_plan_follow_sort(d, s, err);
    d->planned = rc == SL_OK;
    domain_lap(d, DT_PLAN, t);
    d->builds++;
    return rc;
}

/* The halo's plan, or an error for a call outside domain_build_cells .. domain_drop_halo. */
static int need_plan(const struct domain *d, sl_err *err)
{
    /* (a rank without ghosts may still have some to send: every rank takes part) */
    return d->planned ? SL_OK
                      : sl_fail(err, SL_ERR_RUNTIME, "MPI domain: the ghosts' fields were sent or cleared "
                                "without a plan (domain_build_cells makes one)");
}

/* The ghosts (every negative id: those of the last build, or the parked ones) compacted away. */
static int compact_ghosts(sim *s, int keep_rates, sl_err *err)
{
    if (s->be->halo->drop_ghosts) /* a device backend compacts its arrays where they are */
        return s->be->halo->drop_ghosts(s, keep_rates, err);
    sim_sync_host(s); /* (no backend that keeps its particles elsewhere lacks the hook today) */
    particles *p = &s->p;
    nbr_grid *g = &s->g;
    /* the ghosts are where the sort put them; their ids say which they are */
    uint8_t *keep = (uint8_t *)g->cell_tmp; /* the sort's scratch, free after the build, p->n ints */
    for (size_t i = 0; i < p->n; ++i)
        keep[i] = p->id[i] >= 0;
    domain_compact(p, keep, g->cell);
    nbr_grid_recount(g, p->n); /* the cells stay sorted without the ghosts */
    return sim_sync_device(s, err);
}

/* Spent ghosts parked instead of compacted: a NaN x at each of the plan's slots, so that the next
 * sort drops them (nbr_sort_key) where it moves every array anyway. Nothing between reads them
 * but the cell build's choices, which pass over NaN positions (slab_rule.h), and what reads the
 * particles calls domain_settle first. */
static int park_ghosts(struct domain *d, sim *s, sl_err *err)
{
    const real nan = (real)NAN;
    const int field = PF_X;
    SL_TRY(s->be->halo->scatter(s, &field, 1, d->slot_at, d->plan_recv, &nan, HALO_FILL, err));
    d->parked = d->ghosts;
    d->ghosts = 0;
    d->parks++;
    return SL_OK;
}

static int drop_halo(sim *s, int keep_rates, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d)
        return SL_OK;
    const int park = !keep_rates && d->ghosts && d->planned && d->plan_recv == d->ghosts;
    d->planned = 0; /* the owned particles move down (or the slots are parked): the lists go stale */
    if (park)
        return park_ghosts(d, s, err);
    if (!d->ghosts && !d->parked)
        return SL_OK;
    d->ghosts = 0;
    d->parked = 0;
    return compact_ghosts(s, keep_rates, err);
}

int domain_drop_halo(sim *s, sl_err *err)
{
    return drop_halo(s, 1, err);
}

int domain_drop_spent_halo(sim *s, sl_err *err)
{
    return drop_halo(s, 0, err);
}

int domain_settle(sim *s, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d || !d->parked)
        return SL_OK;
    d->parked = 0;
    d->settles++;
    return compact_ghosts(s, 0, err);
}

/* The ghosts are exactly the plan's slots (plan_halo found every one by id). */
int domain_zero_ghosts(sim *s, const int *fields, int n, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d || !d->ghosts)
        return SL_OK;
    SL_TRY(need_plan(d, err));
    int list[PF_MAX], nf = 0;
    for (int k = 0; k < n && nf < PF_MAX; ++k)
        if (fields[k] >= 0)
            list[nf++] = fields[k];
    double t = domain_clock(d);
    int rc = nf ? s->be->halo->scatter(s, list, nf, d->slot_at, d->plan_recv, NULL, HALO_ZERO, err) : SL_OK;
    domain_lap(d, DT_REFRESH, t);
    return rc;
}

int domain_reuse_cells(sim *s, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d)
        return SL_OK;
    SL_TRY(domain_refresh_halo(s, err));
    d->reuses++;
    return SL_OK;
}

int domain_set_ghosts(sim *s, int field, real value, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d || !d->ghosts)
        return SL_OK;
    SL_TRY(need_plan(d, err));
    double t = domain_clock(d);
    int rc = s->be->halo->scatter(s, &field, 1, d->slot_at, d->plan_recv, &value, HALO_FILL, err);
    domain_lap(d, DT_REFRESH, t);
    return rc;
}

/* Every field, transient ones too (what mDBC wrote into the walls), and the tags (the MPS classes
 * a pass writes); ids and kinds do not change between the build and the drop. */
int domain_refresh_halo(sim *s, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d)
        return SL_OK;
    SL_TRY(need_plan(d, err));
    int fields[PF_MAX + 1], nf = 0;
    for (int k = 0; k < s->p.nfields; ++k)
        fields[nf++] = k;
    fields[nf++] = BACKEND_FIELD_TAG;
    double t = domain_clock(d);
    int rc = domain_overwrite_fields(d, s, fields, nf, err);
    domain_lap(d, DT_REFRESH, t);
    return rc;
}

int domain_refresh_field(sim *s, int field, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d)
        return SL_OK;
    SL_TRY(need_plan(d, err));
    double t = domain_clock(d);
    int rc = domain_overwrite_fields(d, s, &field, 1, err);
    domain_lap(d, DT_REFRESH, t);
    return rc;
}

int domain_add_ghosts_to_owners(sim *s, int field, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d)
        return SL_OK;
    SL_TRY(need_plan(d, err));
    double t = domain_clock(d);
    int rc = domain_add_field_to_owners(d, s, field, err);
    domain_lap(d, DT_REFRESH, t);
    return rc;
}
