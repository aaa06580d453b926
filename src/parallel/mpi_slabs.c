/* mpi_slabs.c: the slabs of an MPI run: the first cuts, the balance by work or by particle count, the
 * migration of particles to the rank whose slab they entered. */
#include "mpi_domain.h"

#include "slab_cuts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Particles per cell column of this rank's particles, counted where they are (a device backend's
 * hook: only the counts cross the bus) or in the host arrays. */
static int column_counts(const struct domain *d, sim *s, int64_t *count, sl_err *err)
{
    const slab_rule rule = domain_rule(d, SLAB_MOVERS);
    if (domain_staged(s))
        return s->be->halo->column_counts(s, &rule, count, err);
    slab_column_counts(&rule, s->p.f[PF_X + d->axis], s->p.n, count);
    return SL_OK;
}

/* The cuts at the shares of count (NULL: equal shares). */
static int cut(struct domain *d, const int64_t *count, const double *share, sl_err *err)
{
    if (slab_cuts_shared(count, d->ncols, d->size, d->band, share, d->first))
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: %d cell columns cannot give %d ranks %d each", d->ncols,
                       d->size, d->band);
    return SL_OK;
}

int domain_distribute(sim *s, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d)
        return SL_OK;
    particles *p = &s->p;
    sim_sync_host(s);
    /* Every rank holds the whole state, but rank 0 decides, by id, who keeps what: a state made on a
     * GPU (particle packing) may differ in its last bits from rank to rank, and a particle on a cut
     * must still go to exactly one rank. */
    size_t n = p->n;
    int64_t *count = malloc((size_t)d->ncols * sizeof *count);
    uint16_t *owner = malloc((n ? n : 1) * sizeof *owner);
    uint8_t *keep = malloc(n ? n : 1);
    int ok = count && owner && keep, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, d->comm); /* no rank left alone in a broadcast */
    int rc = all_ok ? SL_OK : sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory distributing %zu particles", n);
    if (rc == SL_OK && d->rank == 0) {
        const real *x = p->f[PF_X + d->axis];
        const slab_rule rule = domain_rule(d, SLAB_MOVERS);
        slab_column_counts(&rule, x, n, count); /* the host arrays: synced above */
        rc = cut(d, count, NULL, err);          /* cannot fail: domain_attach checked the columns */
        for (size_t i = 0; i < n; ++i) {
            int c = slab_column(&rule, x[i]);
            owner[p->id[i]] = (uint16_t)(c < 0 ? 0 : slab_owner(d->first, d->size, c));
        }
    }
    if (rc == SL_OK) {
        MPI_Bcast(d->first, d->size + 1, MPI_INT, 0, d->comm);
        MPI_Bcast(owner, (int)n, MPI_UINT16_T, 0, d->comm);
        for (size_t i = 0; i < n; ++i)
            keep[i] = owner[p->id[i]] == d->rank;
        domain_compact(p, keep, NULL);
        particles_fit(p); /* this slab's share, with room for the particles that arrive as the flow moves */
    }
    free(count);
    free(owner);
    free(keep);
    if (rc)
        return rc;
    d->checked_step = d->balanced_step = s->step;
    SL_TRY(sim_sync_device(s, err));
    return s->be->build_cells(s, err);
}

/* The work of each rank over the last DOMAIN_TIMED_STEPS timed steps, compared (every rank gets the
 * same answer: domain_max and domain_sum): how far the slowest is above the mean, in *imbalance (0
 * while the window is not full yet). This rank's count and work are kept for the cuts, and its
 * marginal cost where the count moved since the last window (a balance between them). */
static int work_imbalance(struct domain *d, sim *s, double *imbalance, sl_err *err)
{
    *imbalance = 0;
    if (!d->by_time || d->busy_steps < DOMAIN_TIMED_STEPS)
        return SL_OK;
    double mine = d->busy / (double)d->busy_steps, most = mine, sum = mine, n = (double)domain_owned(s);
    SL_TRY(domain_max(s, &most, 1, err));
    SL_TRY(domain_sum(s, &sum, 1, err));
    double marginal = slab_marginal_cost(n, mine, d->window_n, d->window_work);
    if (marginal > 0) /* else the last one measured stands (0 until then: the average cost) */
        d->marginal = marginal;
    d->window_n = n;
    d->window_work = mine;
    d->compared = 1; /* on every rank at once (their timed steps agree), whatever their costs */
    d->busy = 0;
    d->busy_steps = 0;
    *imbalance = sum > 0 ? most * d->size / sum : 1.0;
    return SL_OK;
}

/* The particles per column of every rank, summed into count[ncols .. 2 ncols); by work also each
 * rank's share of them for the next cuts (slab_work_shares from every rank's count, work and
 * marginal cost in the last window, gathered behind the shares: share holds 4 size doubles). */
static int column_shares(struct domain *d, sim *s, int by_work, int64_t *count, double *share, sl_err *err)
{
    SL_TRY(column_counts(d, s, count, err));
    MPI_Allreduce(count, count + d->ncols, d->ncols, MPI_INT64_T, MPI_SUM, d->comm);
    if (!by_work)
        return SL_OK;
    int R = d->size;
    double *n = share + R, *work = share + 2 * R, *marginal = share + 3 * R;
    MPI_Allgather(&d->window_n, 1, MPI_DOUBLE, n, 1, MPI_DOUBLE, d->comm);
    MPI_Allgather(&d->window_work, 1, MPI_DOUBLE, work, 1, MPI_DOUBLE, d->comm);
    MPI_Allgather(&d->marginal, 1, MPI_DOUBLE, marginal, 1, MPI_DOUBLE, d->comm);
    slab_work_shares(R, n, work, marginal, share);
    return SL_OK;
}

/* Moves the cuts when the work drifts apart (by time: DOMAIN_TIME_IMBALANCE in DOMAIN_TIME_WINDOWS
 * comparisons in a row, or DOMAIN_IMBALANCE in one, or a third of DOMAIN_TIME_IMBALANCE's excess in
 * the first window after such a balance, which corrects it by the marginal costs measured across
 * it), or the counts do (DOMAIN_IMBALANCE; by time only until the first comparison) or
 * DOMAIN_BALANCE_EVERY steps passed (by count); checked once per step. */
int domain_balance_if_due(struct domain *d, sim *s, sl_err *err)
{
    if (s->step == d->checked_step)
        return SL_OK;
    d->checked_step = s->step;
    int R = d->size;
    double work;
    SL_TRY(work_imbalance(d, s, &work, err));
    int64_t mine = (int64_t)domain_owned(s), *per_rank = malloc((size_t)R * sizeof *per_rank);
    if (!per_rank)
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory");
    MPI_Allgather(&mine, 1, MPI_INT64_T, per_rank, 1, MPI_INT64_T, d->comm);
    double counts = slab_imbalance(per_rank, R);
    free(per_rank);
    int by_work = d->by_time && d->compared; /* the same on every rank: all compared at once */
    int correcting = 0;
    if (work > 0) { /* a comparison this step (work is 0 between them) */
        d->windows_over = work > d->time_imbalance ? d->windows_over + 1 : 0;
        /* the first window after a balance by work: its marginal costs are measured now, and what
         * is left over 1/3 of the threshold is corrected at once */
        correcting = d->correct_next && work > 1 + (d->time_imbalance - 1) / 3;
        d->correct_next = 0;
    }
    int due = by_work ? correcting || (work > d->time_imbalance &&
                                       (d->windows_over >= DOMAIN_TIME_WINDOWS || work > DOMAIN_IMBALANCE))
                      : counts > DOMAIN_IMBALANCE || s->step - d->balanced_step >= DOMAIN_BALANCE_EVERY;
    if (!due)
        return SL_OK;
    d->windows_over = 0;
    d->correct_next = by_work && !correcting; /* one correction a balance: the windows' noise stays out */
    d->corrections += correcting;
    int64_t *count = malloc(2 * (size_t)d->ncols * sizeof *count);
    double *share = malloc(4 * (size_t)R * sizeof *share); /* the shares, then their inputs */
    int rc = count && share ? SL_OK : sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory");
    if (rc == SL_OK)
        rc = column_shares(d, s, by_work, count, share, err);
    if (rc == SL_OK)
        rc = cut(d, count + d->ncols, by_work ? share : NULL, err);
    free(count);
    free(share);
    d->balanced_step = s->step;
    d->time_balances += by_work;
    d->skip_note = 1; /* this step's time holds the migration the new cuts cause */
    return rc;
}

/* Particles whose column another rank owns go there (any rank: after the cuts moved, a particle may
 * skip a neighbour). NaN positions stay: they are in the sink, wherever they are. */
int domain_migrate(struct domain *d, sim *s, sl_err *err)
{
    SL_TRY(domain_select(d, s, SLAB_MOVERS, &d->moves, err));
    return domain_send_particles(d, s, &d->moves, 0, err);
}
