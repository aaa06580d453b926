/* mpi_attach.c: a run's domain on several ranks: attached (the slab axis, the ghost band, what
 * several ranks refuse, named by scene key), described in the closing line (the shares, the phases'
 * times, the exchanges' path), detached. */
#include "mpi_domain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- attaching: what several ranks run ---------------------------------------------------------- */

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

/* A domain that was not attached, freed (NULL or partly made). */
static void free_unattached(struct domain *d)
{
    if (d) {
        free(d->first);
        free(d->counts);
        free(d->field_counts);
    }
    free(d);
}

int domain_attach(sim *s, double reach, sl_err *err)
{
    s->domain = NULL;
    if (domain_world_size() < 2)
        return SL_OK;
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (size < 2)
        return SL_OK;
    const scene *sc = s->sc;
    if (size > 65535 || s->p.n > (size_t)INT32_MAX) /* a rank number per particle, MPI's int counts */
        return sl_fail(err, SL_ERR_INPUT, "%s: %d MPI ranks and %zu particles: at most 65535 ranks and %d "
                       "particles", sc->path, size, s->p.n, INT32_MAX);
    int axis = slab_axis(s);
    if (axis < 0)
        return sl_fail(err, SL_ERR_INPUT, "%s:%d: key 'simulation.periodic': every axis is periodic; several "
                       "MPI ranks need one that is not, to cut the domain along it", sc->path, sc->periodic_line);
    /* ghosts within one interaction radius, and as far again as a wall model's passes reach beyond it */
    int band = s->g.ndiv + (int)ceil(reach / s->g.view.cell_size[axis] - 1e-9), ncols = s->g.interior[axis];
    if (ncols < size * band)
        return sl_fail(err, SL_ERR_INPUT,
                       "%s: key 'simulation.domain_max': %d MPI ranks need at least %d neighbour cells along %c, "
                       "a ghost band per rank (the domain has %d of %g m); run on at most %d ranks",
                       sc->path, size, size * band, "xyz"[axis], ncols, s->g.view.cell_size[axis], ncols / band);
    struct domain *d = calloc(1, sizeof *d);
    if (!d || !(d->first = calloc((size_t)size + 1, sizeof *d->first)) ||
        !(d->counts = calloc(4 * (size_t)size, sizeof *d->counts)) ||
        !(d->field_counts = calloc(4 * (size_t)size, sizeof *d->field_counts))) {
        free_unattached(d);
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
    /* the cell build's whole-array path on a device too: the staged path's reference
     * (tests/mpi_test.sh cuda compares the two bit for bit) */
    d->whole_arrays = getenv("SLUICE_MPI_WHOLE_ARRAYS") != NULL;
    const char *balance = getenv("SLUICE_MPI_BALANCE");
    if (balance && strcmp(balance, "time") != 0 && strcmp(balance, "count") != 0) {
        free_unattached(d);
        return sl_fail(err, SL_ERR_INPUT, "environment variable SLUICE_MPI_BALANCE=%s: accepted: time (the "
                       "default: by each rank's measured work) or count (by particle count)", balance);
    }
    d->by_time = !balance || strcmp(balance, "time") == 0;
    /* the slowest rank's work over the mean that moves the cuts (a measurement knob: on devices a
     * step's time varies little, and the default was set on loaded CPUs) */
    const char *over = getenv("SLUICE_MPI_IMBALANCE");
    char *end = NULL;
    d->time_imbalance = over ? strtod(over, &end) : DOMAIN_TIME_IMBALANCE;
    if (over && (end == over || *end || !(d->time_imbalance > 1.0 && d->time_imbalance <= 2.0))) {
        free_unattached(d);
        return sl_fail(err, SL_ERR_INPUT, "environment variable SLUICE_MPI_IMBALANCE=%s: accepted: a number above 1 "
                       "and at most 2 (the slowest rank's work over the mean that moves the cuts; default %.2f)",
                       over, DOMAIN_TIME_IMBALANCE);
    }
    d->skip_note = 1;
    d->sim = s;
    if (getenv("SLUICE_MPI_SYNC_TIMERS"))
        d->sync_device = s->be->halo->peer_wait; /* NULL on the CPU, which queues nothing */
    s->domain = d;
    return SL_OK;
}

/* Every rank's value of `mine` appended to buf at w, each as fmt writes it (" %.0f" for counts);
 * returns the new end. Collective. */
static int per_rank(const struct domain *d, double mine, const char *fmt, char *buf, size_t len, int w)
{
    double *each = malloc((size_t)d->size * sizeof *each);
    if (each)
        MPI_Allgather(&mine, 1, MPI_DOUBLE, each, 1, MPI_DOUBLE, d->comm);
    for (int r = 0; each && r < d->size && w > 0 && (size_t)w < len; ++r)
        w += snprintf(buf + w, len - (size_t)w, fmt, each[r]);
    free(each); /* (a rank out of memory prints less, and the collectives stay in step) */
    return w;
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
    w = per_rank(d, (double)domain_owned(s), " %.0f", buf, len, w);
    if (d->builds > 0) { /* (every rank has built as often) the plan keeps the last build's ghosts */
        if (w > 0 && (size_t)w < len)
            w += snprintf(buf + w, len - (size_t)w, "; ghosts per rank (last build)");
        w = per_rank(d, (double)d->plan_recv, " %.0f", buf, len, w);
    }
    /* the decomposition's own time per cell build, the slowest rank's of each phase */
    double most[DOMAIN_TIMERS];
    MPI_Allreduce(d->seconds, most, DOMAIN_TIMERS, MPI_DOUBLE, MPI_MAX, d->comm);
    static const char *const names[DOMAIN_TIMERS] = {"drop",  "to host", "exchange", "sort",  "plan",
                                                     "refresh", "(exchange: fetch", "mpi", "remove", "append"};
    if (d->builds > 0 && w > 0 && (size_t)w < len)
        w += snprintf(buf + w, len - (size_t)w, "; ms per cell build (slowest rank):");
    for (int k = 0; k < DT_WAIT && d->builds > 0 && w > 0 && (size_t)w < len; ++k)
        w += snprintf(buf + w, len - (size_t)w, " %s %.3g", names[k], 1e3 * most[k] / (double)d->builds);
    if (d->builds > 0 && w > 0 && (size_t)w < len)
        w += snprintf(buf + w, len - (size_t)w, ")");
    if (d->reuses > 0 && w > 0 && (size_t)w < len) /* numerics.cell_skin */
        w += snprintf(buf + w, len - (size_t)w, "; %ld cell builds saved by the skin", d->reuses);
    if (d->parks > 0 && w > 0 && (size_t)w < len) /* WCSPH: what the next sort dropped, what a read did */
        w += snprintf(buf + w, len - (size_t)w, "; ghosts parked for the next sort %ld times, %ld of them compacted "
                      "first (output or probes read the particles)", d->parks, d->settles);
    if (d->busy_run_steps > 0) { /* what the balance by work compares (every rank timed as many steps) */
        if (w > 0 && (size_t)w < len)
            w += snprintf(buf + w, len - (size_t)w, "; ms worked per step per rank, less its waits for the others,");
        w = per_rank(d, 1e3 * d->busy_run / (double)d->busy_run_steps, " %.4g", buf, len, w);
        if (w > 0 && (size_t)w < len)
            w += snprintf(buf + w, len - (size_t)w, " (balanced by %s; %ld balances by work, %ld of them corrections)",
                          d->by_time ? "work" : "count", d->time_balances, d->corrections);
        if (d->window_work > 0 && w > 0 && (size_t)w < len) { /* how even the last balance left them */
            w += snprintf(buf + w, len - (size_t)w, ", in the last compared window");
            w = per_rank(d, 1e3 * d->window_work, " %.4g", buf, len, w);
        }
    }
    if (d->whole_steps > 0 && w > 0 && (size_t)w < len)
        w += snprintf(buf + w, len - (size_t)w, "; ms per step (slowest rank): whole %.4g, waiting for the other ranks %.3g",
                      1e3 * most[DT_STEP] / (double)d->whole_steps, 1e3 * most[DT_WAIT] / (double)d->steps);
    if (most[DT_CELL_HALO] > 0 && d->whole_steps > 0) { /* semi-implicit MPS, multigrid: whose halos wait */
        if (w > 0 && (size_t)w < len)
            w += snprintf(buf + w, len - (size_t)w, "; %.1f cell levels' halos a step, ms per step in them per rank",
                          (double)d->cell_halos / (double)d->steps);
        w = per_rank(d, 1e3 * d->seconds[DT_CELL_HALO] / (double)d->whole_steps, " %.3g", buf, len, w);
        if (w > 0 && (size_t)w < len)
            w += snprintf(buf + w, len - (size_t)w, ", of it in the copies %s",
                          d->cells_path == CELLS_GPU_TO_GPU ? "GPU to GPU" : "to the host and back");
        w = per_rank(d, 1e3 * d->seconds[DT_CELL_COPY] / (double)d->whole_steps, " %.3g", buf, len, w);
    }
    if (d->whole_steps > 0) { /* where each rank waits for the others within a step */
        if (w > 0 && (size_t)w < len)
            w += snprintf(buf + w, len - (size_t)w, "; ms per step per rank in the ghosts' refreshes");
        w = per_rank(d, 1e3 * d->seconds[DT_REFRESH] / (double)d->whole_steps, " %.3g", buf, len, w);
        if (most[DT_SUM] > 0) {
            if (w > 0 && (size_t)w < len)
                w += snprintf(buf + w, len - (size_t)w, ", in the sums over the ranks");
            w = per_rank(d, 1e3 * d->seconds[DT_SUM] / (double)d->whole_steps, " %.3g", buf, len, w);
        }
    }
    if (d->transfer_decided && w > 0 && (size_t)w < len)
        snprintf(buf + w, len - (size_t)w, "; exchanges %s", domain_transfer_path(d));
}

void domain_detach(sim *s)
{
    struct domain *d = s->domain;
    if (!d)
        return;
    domain_ungather(s);
    if (s->be && s->be->buffer_free) { /* the plan's device copies, while the backend still holds its state */
        s->be->buffer_free(s, &d->plan_dev);
    }
    free(d->first);
    free(d->counts);
    routes_free(&d->moves);
    free(d->send_order);
    domain_transfer_free(d, s);
    free(d->notices);
    free(d->plan);
    free(d->field_counts);
    free(d->sums);
    domain_cells_free(d, s);
    free(d->cells_wait);
    free(d->cells_counts);
    free(d->cells_spans);
    free(d);
    s->domain = NULL;
}
