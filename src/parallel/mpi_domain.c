/* mpi_domain.c: the MPI domain's life (start, attach, abort), the slabs and their balance, the halo
 * exchange around the neighbour passes, and the collectives the engine needs (time step, stop). */
#include "mpi_domain.h"

#include "slab_cuts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mpi_started;

/* mpirun (Open MPI, MPICH/Hydra, PMIx launchers) leaves one of these in every rank's environment;
 * a process started without it runs on one rank without touching MPI, exactly as a build without it. */
static int launched_by_mpirun(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"};
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; ++k)
        if (getenv(vars[k]))
            return 1;
    return 0;
}

void domain_start(int *argc, char ***argv, int *rank, int *size)
{
    *rank = 0;
    *size = 1;
    if (!launched_by_mpirun())
        return;
    MPI_Init(argc, argv);
    mpi_started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
}

void domain_finish(void)
{
    if (mpi_started)
        MPI_Finalize();
    mpi_started = 0;
}

int domain_agree_status(int rc, int *first_failed)
{
    *first_failed = rc ? 0 : -1;
    if (!mpi_started)
        return rc;
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* the lowest failing rank and the worst status, in one reduction: (failed ? rank : size), rc */
    int mine[2] = {rc ? rank : size, -rc}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    *first_failed = all[0] < size ? all[0] : -1;
    return -all[1];
}

void domain_abort(const sim *s, int rc, const char *msg)
{
    if (!mpi_started)
        return;
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (size < 2)
        return;
    (void)s;
    fprintf(stderr, "sluice: rank %d of %d: %s\nsluice: stopping every rank\n", rank, size, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, rc ? rc : 1);
}

int domain_local_rank(void)
{
    if (!mpi_started)
        return 0;
    MPI_Comm host;
    int rank = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) == MPI_SUCCESS) {
        MPI_Comm_rank(host, &rank);
        MPI_Comm_free(&host);
    }
    return rank;
}

/* ---- attaching: what several ranks run ---------------------------------------------------------- */

static int refuse(const sim *s, sl_err *err, const char *key, const char *what)
{
    return sl_fail(err, SL_ERR_INPUT,
                   "%s: key '%s': %s does not run on several MPI ranks yet (on several ranks: "
                   "simulation.method \"wcsph\" with numerics.boundary \"dbc\", or \"emps\"); run it "
                   "without mpirun or with -np 1",
                   s->sc->path, key, what);
}

/* The longest axis that does not wrap around: ghosts across a periodic seam would need images. */
static int slab_axis(const sim *s)
{
    int best = -1;
    for (int a = 0; a < s->sc->dim; ++a) {
        if ((s->g.view.periodic >> a) & 1u)
            continue;
        if (best < 0 || s->g.interior[a] > s->g.interior[best])
            best = a;
    }
    return best;
}

int domain_attach(sim *s, sl_err *err)
{
    s->domain = NULL;
    if (!mpi_started)
        return SL_OK;
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (size < 2)
        return SL_OK;
    const scene *sc = s->sc;
    /* semi-implicit MPS would need its Poisson solve across ranks (a distributed Krylov driver) */
    if (strcmp(s->sch->name, "wcsph") != 0 && strcmp(s->sch->name, "emps") != 0)
        return sl_fail(err, SL_ERR_INPUT,
                       "%s: key 'simulation.method': \"%s\" does not run on several MPI ranks yet "
                       "(accepted on several ranks: \"wcsph\", \"emps\"); run it without mpirun or with -np 1",
                       sc->path, s->sch->name);
    if (strcmp(s->sch->name, "wcsph") == 0 && sc->boundary == WALL_MODEL_MDBC)
        return refuse(s, err, "numerics.boundary", "\"mdbc\" (its wall density is extrapolated from beyond the halo)");
    if (s->floating)
        return refuse(s, err, "geometry.floating", "a floating body (its force is a sum over every rank)");
    int axis = slab_axis(s);
    if (axis < 0)
        return sl_fail(err, SL_ERR_INPUT, "%s:%d: key 'simulation.periodic': every axis is periodic; several "
                       "MPI ranks need one that is not, to cut the domain along it", sc->path, sc->periodic_line);
    int band = s->g.ndiv, ncols = s->g.interior[axis];
    if (ncols < size * band)
        return sl_fail(err, SL_ERR_INPUT,
                       "%s: key 'simulation.domain_max': %d MPI ranks need at least %d neighbour cells along %c, "
                       "one interaction radius per rank (the domain has %d of %g m); run on at most %d ranks",
                       sc->path, size, size * band, "xyz"[axis], ncols, s->g.view.cell_size[axis], ncols / band);
    struct domain *d = calloc(1, sizeof *d);
    if (!d || !(d->first = calloc((size_t)size + 1, sizeof *d->first)) ||
        !(d->counts = calloc(4 * (size_t)size, sizeof *d->counts))) {
        if (d)
            free(d->first);
        free(d);
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the MPI domain");
    }
    d->comm = MPI_COMM_WORLD;
    d->rank = rank;
    d->size = size;
    d->axis = axis;
    d->ncols = ncols;
    d->band = band;
    d->origin = s->g.view.origin[axis];
    d->width = s->g.view.cell_size[axis];
    s->domain = d;
    return SL_OK;
}

void domain_describe(const sim *s, char *buf, size_t len)
{
    const struct domain *d = s->domain;
    if (!len)
        return;
    buf[0] = 0;
    if (!d)
        return;
    int w = snprintf(buf, len, "%d MPI ranks, slabs along %c cut at cell columns", d->size, "xyz"[d->axis]);
    for (int r = 1; r < d->size && w > 0 && (size_t)w < len; ++r)
        w += snprintf(buf + w, len - (size_t)w, " %d", d->first[r]);
    if (w > 0 && (size_t)w < len)
        w += snprintf(buf + w, len - (size_t)w, " of %d (%.4g m wide); particles per rank", d->ncols, d->width);
    long long mine = (long long)s->p.n, *all = malloc((size_t)d->size * sizeof *all);
    if (!all)
        return;
    MPI_Allgather(&mine, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, d->comm);
    for (int r = 0; r < d->size && w > 0 && (size_t)w < len; ++r)
        w += snprintf(buf + w, len - (size_t)w, " %lld", all[r]);
    free(all);
}

void domain_detach(sim *s)
{
    struct domain *d = s->domain;
    if (!d)
        return;
    domain_ungather(s);
    free(d->first);
    free(d->counts);
    free(d->idx);
    free(d->dest);
    free(d->sendbuf);
    free(d->recvbuf);
    free(d->plan_idx);
    free(d->plan_slot);
    free(d->plan_dest);
    free(d);
    s->domain = NULL;
}

/* ---- the engine's collectives ----------------------------------------------------------------- */

int domain_is_root(const sim *s)
{
    return !s->domain || s->domain->rank == 0;
}

double domain_min_time_step(const sim *s, double dt)
{
    if (!s->domain)
        return dt;
    double mine = dt == dt ? dt : 0.0, all;
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MIN, s->domain->comm);
    return all;
}

int domain_any(const sim *s, int flag)
{
    if (!s->domain)
        return flag;
    int mine = flag != 0, all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, s->domain->comm);
    return all;
}

size_t domain_total_particles(const sim *s)
{
    if (!s->domain)
        return s->p.n;
    unsigned long long mine = s->p.n, all;
    MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, s->domain->comm);
    return (size_t)all;
}

/* ---- the slabs ---------------------------------------------------------------------------------- */

/* Particles per cell column of this rank's particles (NaN positions are nobody's to count). */
static int column_counts(const struct domain *d, const particles *p, int64_t *count)
{
    memset(count, 0, (size_t)d->ncols * sizeof *count);
    const real *x = p->f[PF_X + d->axis];
    for (size_t i = 0; i < p->n; ++i) {
        int c = domain_column(d, x[i]);
        if (c >= 0)
            count[c]++;
    }
    return 0;
}

static int cut(struct domain *d, const int64_t *count, sl_err *err)
{
    if (slab_cuts(count, d->ncols, d->size, d->band, d->first))
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
    /* every rank holds the same whole state: the same histogram, the same cuts, no message */
    int64_t *count = malloc((size_t)d->ncols * sizeof *count);
    uint8_t *keep = malloc(p->n ? p->n : 1);
    if (!count || !keep) {
        free(count);
        free(keep);
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory");
    }
    column_counts(d, p, count);
    int rc = cut(d, count, err);
    const real *x = p->f[PF_X + d->axis];
    for (size_t i = 0; i < p->n && rc == SL_OK; ++i) {
        int c = domain_column(d, x[i]);
        keep[i] = c < 0 ? d->rank == 0 : domain_owner(d, c) == d->rank;
    }
    free(count);
    if (rc == SL_OK) {
        domain_compact(p, keep, NULL);
        rc = particles_resize(p, p->n, err);
    }
    free(keep);
    if (rc)
        return rc;
    domain_particles_resized(s);
    d->checked_step = d->balanced_step = s->step;
    SL_TRY(sim_sync_device(s, err));
    return s->be->build_cells(s, err);
}

/* Moves the cuts when the counts drift more than DOMAIN_IMBALANCE apart, or every
 * DOMAIN_BALANCE_EVERY steps; checked once per step. */
static int balance_if_due(struct domain *d, sim *s, sl_err *err)
{
    if (s->step == d->checked_step)
        return SL_OK;
    d->checked_step = s->step;
    int R = d->size;
    int64_t mine = (int64_t)s->p.n, *per_rank = malloc((size_t)R * sizeof *per_rank);
    if (!per_rank)
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory");
    MPI_Allgather(&mine, 1, MPI_INT64_T, per_rank, 1, MPI_INT64_T, d->comm);
    double imbalance = slab_imbalance(per_rank, R);
    free(per_rank);
    if (imbalance <= DOMAIN_IMBALANCE && s->step - d->balanced_step < DOMAIN_BALANCE_EVERY)
        return SL_OK;
    int64_t *count = malloc(2 * (size_t)d->ncols * sizeof *count);
    if (!count)
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory");
    column_counts(d, &s->p, count);
    MPI_Allreduce(count, count + d->ncols, d->ncols, MPI_INT64_T, MPI_SUM, d->comm);
    int rc = cut(d, count + d->ncols, err);
    free(count);
    d->balanced_step = s->step;
    return rc;
}

/* Particles whose column another rank owns go there (any rank: after the cuts moved, a particle may
 * skip a neighbour). NaN positions stay: they are in the sink, wherever they are. */
static int migrate(struct domain *d, sim *s, sl_err *err)
{
    particles *p = &s->p;
    SL_TRY(domain_reserve(d, p->n, err));
    const real *x = p->f[PF_X + d->axis];
    size_t m = 0;
    for (size_t i = 0; i < p->n; ++i) {
        int c = domain_column(d, x[i]);
        int r = c < 0 ? d->rank : domain_owner(d, c);
        if (r != d->rank) {
            d->idx[m] = (int32_t)i;
            d->dest[m++] = r;
        }
    }
    return domain_send_particles(d, s, m, 0, err);
}

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
    SL_TRY(balance_if_due(d, s, err));
    SL_TRY(migrate(d, s, err));
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
