/* mpi_domain.c: MPI's start and end, the ranks' agreement on a failure and the abort, and the
 * collectives the engine, a solve across ranks and the probes need (time step, stop, counts, sums,
 * maxima); attaching a domain to a run and describing it are mpi_attach.c's. */
#include "mpi_domain.h"

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

void domain_abort(int rc, const char *msg)
{
    if (!mpi_started)
        return;
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (size < 2)
        return;
    fprintf(stderr, "sluice: rank %d of %d: %s\nsluice: stopping every rank\n", rank, size, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, rc ? rc : 1);
}

const char *domain_mpi_library(void)
{
    static char line[MPI_MAX_LIBRARY_VERSION_STRING + 64];
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    MPI_Get_library_version(version, &len); /* allowed before MPI_Init */
    char *nl = strchr(version, '\n'), *comma = strchr(version, ',');
    if (nl)
        *nl = 0;
    if (comma)
        *comma = 0; /* Open MPI goes on with its package and build date */
    snprintf(line, sizeof line, "%s (mpirun -np N sluice run ...: a slab of the domain per rank)", version);
    return line;
}

int domain_world_size(void)
{
    int size = 1;
    if (mpi_started)
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

void domain_host_ranks(int *rank, int *count)
{
    *rank = 0;
    *count = 1;
    if (!mpi_started)
        return;
    MPI_Comm host;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) == MPI_SUCCESS) {
        MPI_Comm_rank(host, rank);
        MPI_Comm_size(host, count);
        MPI_Comm_free(&host);
    }
}

/* The lists of particles to send (the decomposition's own scratch, freed with it). */
int routes_reserve(routes *r, size_t n, sl_err *err)
{
    if (n <= r->cap)
        return SL_OK;
    size_t cap = n + n / 4 + 64;
    int32_t *idx = realloc(r->idx, cap * sizeof *idx);
    if (idx)
        r->idx = idx;
    int *dest = realloc(r->dest, cap * sizeof *dest);
    if (dest)
        r->dest = dest;
    if (!idx || !dest)
        return sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory for %zu particles to send", n);
    r->cap = cap;
    return SL_OK;
}

void routes_free(routes *r)
{
    free(r->idx);
    free(r->dest);
    memset(r, 0, sizeof *r);
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
    double mine = dt == dt ? dt : 0.0, all, t = MPI_Wtime();
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MIN, s->domain->comm);
    struct domain *d = s->domain;
    double t0 = t;
    t = domain_lap(d, DT_WAIT, t);
    d->last_wait = t - t0;
    d->steps++;
    if (d->step_mark > 0) {
        d->seconds[DT_STEP] += t - d->step_mark;
        d->whole_steps++;
    }
    d->step_mark = t;
    return all;
}

void domain_note_step(sim *s, double seconds)
{
    struct domain *d = s->domain;
    if (!d)
        return;
    /* the sums' waits of this step: its solves wait there for the slowest rank at every iteration,
     * so that the agreement after them finds every rank ready and the step's times all alike */
    const double summing = d->seconds[DT_SUM] - d->sums_noted;
    d->sums_noted = d->seconds[DT_SUM];
    if (d->skip_note) {
        d->skip_note = 0;
        return;
    }
    double worked = seconds - d->last_wait - summing;
    d->busy += worked;
    d->busy_steps++;
    d->busy_run += worked;
    d->busy_run_steps++;
}

int domain_any(const sim *s, int flag)
{
    if (!s->domain)
        return flag;
    int mine = flag != 0, all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, s->domain->comm);
    return all;
}

size_t domain_owned(const sim *s)
{
    return s->p.n - (s->domain ? s->domain->parked : 0);
}

size_t domain_total_particles(const sim *s)
{
    if (!s->domain)
        return s->p.n;
    unsigned long long mine = domain_owned(s), all;
    MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, s->domain->comm);
    return (size_t)all;
}

/* Every rank's values gathered and added in rank order rather than by MPI_Allreduce: the standard
 * does not promise that a reduction's result is the same on every rank, and a solve whose ranks
 * disagreed by a rounding at its tolerance would stop on some ranks and wait forever on the others.
 * The values are a few dot products or the floating bodies' sums, so the gather costs what the
 * reduction would. */
int domain_sum(sim *s, double *v, int count, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d)
        return SL_OK;
    size_t need = (size_t)count * (size_t)d->size; /* every rank asks for the same count */
    if (need > d->sums_cap) {
        double *grown = realloc(d->sums, need * sizeof *grown);
        if (!grown)
            return sl_fail(err, SL_ERR_RUNTIME, "out of memory for %d sums over %d MPI ranks", count, d->size);
        d->sums = grown;
        d->sums_cap = need;
    }
    double t = domain_clock(d);
    MPI_Allgather(v, count, MPI_DOUBLE, d->sums, count, MPI_DOUBLE, d->comm);
    d->seconds[DT_SUM] += MPI_Wtime() - t;
    for (int k = 0; k < count; ++k) {
        double sum = 0;
        for (int r = 0; r < d->size; ++r)
            sum += d->sums[(size_t)r * (size_t)count + (size_t)k];
        v[k] = sum;
    }
    return SL_OK;
}

int domain_max(sim *s, double *v, int count, sl_err *err)
{
    (void)err;
    if (!s->domain || count <= 0)
        return SL_OK;
    MPI_Allreduce(MPI_IN_PLACE, v, count, MPI_DOUBLE, MPI_MAX, s->domain->comm);
    return SL_OK;
}

int domain_sum_to_root(sim *s, double *v, int count, sl_err *err)
{
    (void)err;
    struct domain *d = s->domain;
    if (!d || count <= 0)
        return SL_OK;
    if (d->rank == 0)
        MPI_Reduce(MPI_IN_PLACE, v, count, MPI_DOUBLE, MPI_SUM, 0, d->comm);
    else
        MPI_Reduce(v, NULL, count, MPI_DOUBLE, MPI_SUM, 0, d->comm);
    return SL_OK;
}
