/* mpi_domain.h: the MPI domain's state, shared by its files: mpi_domain.c (start, abort, the
 * engine's collectives), mpi_attach.c (attach, describe, detach), mpi_slabs.c (cuts, balance, migration), mpi_select.c (which particles go
 * where), mpi_halo.c (the ghosts), mpi_exchange.c (particles as records between ranks, the halo's
 * plan), mpi_transfer.c (how the exchanges' bytes cross), mpi_gather.c (the whole state on the root),
 * mpi_cells.c (the multigrid's cell levels cut as the particles are), mpi_cells_direct.c (their
 * halos GPU to GPU). */
#ifndef SLUICE_MPI_DOMAIN_H
#define SLUICE_MPI_DOMAIN_H

#include "domain.h"

#include <mpi.h>
#include <stdint.h>

/* Steps between balancing checks that move the cuts even when the counts agree within
 * DOMAIN_IMBALANCE (the flow may have moved without the counts showing it yet). */
enum { DOMAIN_BALANCE_EVERY = 100 };
#define DOMAIN_IMBALANCE 1.10 /* largest rank's count over the mean that moves the cuts at once */
/* Balancing by time (the default; SLUICE_MPI_BALANCE=count balances by particle count only): every
 * DOMAIN_TIMED_STEPS steps the ranks compare how long each worked per step (its steps less its
 * waits for the others: at the time step's agreement, and in the sums over the ranks, where a
 * semi-implicit step's solve waits for the slowest rank at every iteration); when the slowest
 * worked more than DOMAIN_TIME_IMBALANCE times the mean, the cuts move so that each rank gets as
 * much work: each rank's step taken as its work plus its marginal cost per particle gained or lost,
 * the marginal cost measured across the last balance (before it: the average cost). A fluid
 * particle costs more than a wall particle, and ranks of equal counts but unequal fluid wait for each
 * other (6 of a 36 ms step at 2 x 17.4M, docs/performance.md). */
enum { DOMAIN_TIMED_STEPS = 20 };
#define DOMAIN_TIME_IMBALANCE 1.03
/* ... in two windows in a row, or DOMAIN_IMBALANCE in one: on a loaded CPU a single window's times
 * are noisy, and a balance at each moved the cuts 51 to 78 times in 2,000 steps (2 ranks sharing 2
 * cores). By work, the cuts move on the comparisons alone (no balance every DOMAIN_BALANCE_EVERY
 * steps: the times show a moved flow themselves). */
enum { DOMAIN_TIME_WINDOWS = 2 };

/* Where particles go: particle idx[k] of this rank to rank dest[k], k < n (the host's choice); and
 * the same routes by destination (each destination's in route order), as the exchange sends them:
 * by_dest[k], k < n, in the memory of whoever chose them (a device's, after its select; else
 * struct domain's send_order), their counts in the domain's send counts. */
typedef struct routes {
    int32_t *idx;
    int *dest;
    size_t n, cap;
    const int32_t *by_dest;
} routes;

/* Makes r hold n routes (r->n is left as it is). */
int routes_reserve(routes *r, size_t n, sl_err *err);
void routes_free(routes *r);

/* The phases of the decomposition's work that a run's summary times (MPI_Wtime, host side: a
 * device's queued kernels show up in the next phase that waits for them). */
enum domain_timer {
    DT_DROP,     /* the last step's ghosts dropped */
    DT_TO_HOST,  /* what the choices read (ids and slab-axis positions, or whole arrays) */
    DT_EXCHANGE, /* balance, migration, the ghosts chosen, sent, received and appended */
    DT_SORT,     /* the backend's cell build, ghosts included */
    DT_PLAN,     /* the halo's plan followed through the sort */
    DT_REFRESH,  /* the ghosts' fields refreshed, cleared or added back during the step */
    /* parts of DT_EXCHANGE, in domain_send_particles (migration and ghosts together) */
    DT_FETCH,    /* the chosen particles' records to the host (a device backend) */
    DT_MPI,      /* the counts' and the records' exchange, waiting for the other ranks included */
    DT_REMOVE,   /* the movers taken out, on the host and the device */
    DT_APPEND,   /* the arrivals unpacked and appended */
    DT_WAIT,     /* waiting at the step's time-step agreement for the other ranks: after the step's
                  * work (the device's too, which the time step waits for), so the largest is how far
                  * the slowest rank's step is behind the fastest's */
    DT_STEP,     /* a whole step, from one time-step agreement to the next (what the others are of) */
    DT_CELL_HALO, /* the multigrid's cell levels' halos (mpi_cells.c), waits for the others included */
    DT_CELL_COPY, /* part of DT_CELL_HALO: the columns' copies to the host and back (packing on a device) */
    DT_SUM,      /* the sums over the ranks (domain_sum: the solves' dot products), waits included */
    DOMAIN_TIMERS
};

struct domain {
    MPI_Comm comm;
    int rank, size;
    int axis;          /* the slab axis */
    int ncols;         /* the neighbour grid's interior cell columns along it */
    int band;          /* cell columns of a ghost band (one interaction radius, and a wall model's reach) */
    int *first;        /* [size + 1]: rank r owns cell columns [first[r], first[r + 1]) */
    double origin;     /* the grid's first interior cell along the axis, m */
    double width;      /* its cells' width along the axis, m */
    long checked_step; /* the step whose balance was last checked */
    long balanced_step;
    int by_time;       /* balance by measured work (SLUICE_MPI_BALANCE, default) rather than by count */
    double busy;       /* seconds this rank worked in its timed steps since the last comparison */
    long busy_steps;   /* those steps (the same on every rank) */
    int skip_note;     /* the next step is not timed (the run's first: the autotuner; a balance's) */
    double last_wait;  /* the last time-step agreement's wait, s */
    double sums_noted; /* seconds[DT_SUM] when the last step was noted (domain_note_step) */
    double window_n;   /* this rank's particles at the last comparison (0: none yet) */
    double window_work; /* this rank's seconds worked per step in the last comparison's window */
    double marginal;   /* seconds a step one more particle cost this rank, from the last two windows whose
                        * counts differed (slab_marginal_cost; 0: not measured, the average cost serves) */
    int compared;      /* a comparison was made (on every rank at once) */
    double time_imbalance; /* DOMAIN_TIME_IMBALANCE, or SLUICE_MPI_IMBALANCE's */
    int windows_over;  /* comparisons in a row whose slowest rank was over time_imbalance */
    double busy_run;   /* over the whole run: seconds worked in timed steps, and those steps */
    long busy_run_steps;
    long time_balances; /* balances that moved the cuts by work */
    int correct_next;  /* the next comparison follows a balance by work (and may correct it) */
    long corrections;  /* of time_balances, those that corrected the one before */
    size_t ghosts;     /* ghosts appended by the last exchange (0 once dropped or parked) */
    size_t parked;     /* spent ghosts parked for the next sort to drop (domain_drop_spent_halo), still
                        * among the particles until then (or until domain_settle) */
    long parks, settles; /* how often they were parked, and of those compacted before the next build
                          * because something read the particles (domain_describe) */
    int whole_arrays;  /* SLUICE_MPI_WHOLE_ARRAYS set: the cell build copies every array each way even
                        * where the backend could stage it (domain_staged) */
    particles own;     /* the root's own particles while it holds everyone's (domain_gather) */
    int gathered;
    /* the halo's plan, from domain_build_cells until the ghosts are dropped: this rank's particles
     * that its neighbours hold as ghosts, in the order their values go out (by destination, as the
     * ghosts went; plan[0 .. plan_send)) with that exchange's counts and offsets (as counts),
     * then the slots of this rank's ghosts in the order their values arrive (plan_recv of them): the
     * ghost exchange's lists in one, followed through the sort */
    int planned;
    int32_t *plan;
    size_t plan_send, plan_recv, plan_cap;
    int *field_counts; /* [4 size] */
    /* the two lists where the backend's halo hooks read them (backend.upload's copy, made once per
     * plan; the host array where upload is NULL) */
    const int32_t *order_at, *slot_at;
    backend_buffer plan_dev;
    int plan_on_device; /* the plan was made where the routes were chosen (backend.halo.plan) */
    backend_buffer cells_out, cells_in; /* the cell levels' halo columns, packed (mpi_cells.c): the
                                         * backend's page-locked host memory where it has some */
    MPI_Request *cells_wait; /* [2 size] */
    int *cells_counts; /* [2 size]: a halo's values to and from each rank, or a gather's counts and offsets */
    mg_span *cells_spans; /* [2 size]: the columns of a halo's copy each way, or a gather's, a span a rank */
    long cell_halos;   /* halos and gathers of the cell levels this run (each a wait for the neighbours) */
    /* the cell levels' halos GPU to GPU (mpi_cells.c), where the exchanges go so (direct): the
     * packed columns out, in device memory the neighbours map (its allocation's generation and
     * handle), and in; the neighbours' out buffers as mapped here; where each sender's columns for
     * this rank lie; the last halo's messages that say a receiver has copied its columns (waited for
     * before the out buffer is packed again) */
    int cells_path;    /* 0: not decided yet, CELLS_THROUGH_HOST or CELLS_GPU_TO_GPU */
    backend_buffer cells_dev_out, cells_dev_in;
    uint64_t cells_generation, cells_handle_generation;
    peer_handle cells_handle;
    struct peer_map *cells_peers;       /* [size] */
    struct cell_notice *cells_notices;  /* [2 size]: to each receiver, from each sender */
    MPI_Request *cells_done;            /* [2 size] */
    int cells_pending;
    double *sums;      /* every rank's values in domain_sum, [sums_cap], grown to the largest call */
    size_t sums_cap;
    routes moves;      /* scratch: the particles that migrate, or go out as ghosts */
    int32_t *send_order; /* the host's choice's places in the order they go out (by destination), [send_order_cap] */
    size_t send_order_cap;
    /* the exchanges' buffers and how their bytes cross (mpi_transfer.c): host memory, or device
     * memory copied GPU to GPU (direct), the other ranks' send buffers mapped here (peers) */
    backend_buffer sendbuf, recvbuf;
    int transfer_decided, direct;
    uint64_t send_generation, handle_generation; /* the send buffer's, and that of send_handle */
    peer_handle send_handle;
    struct peer_map *peers;              /* [size] */
    struct transfer_notice *notices;     /* [2 size]: where each rank's items lie, out and in */
    int *counts;       /* [4 size]: send counts, send offsets, receive counts, receive offsets */
    /* wall time spent in the decomposition's own work, by phase (domain_describe reports it) */
    double seconds[DOMAIN_TIMERS];
    long builds;       /* cell builds timed */
    long reuses;       /* cell builds saved: the cells kept for moved positions (domain_reuse_cells) */
    long steps;        /* time steps agreed (DT_WAIT's count) */
    double step_mark;  /* MPI_Wtime at the last agreement (DT_STEP's), 0 before the first */
    long whole_steps;  /* steps DT_STEP timed */
    /* SLUICE_MPI_SYNC_TIMERS set: each phase waits for the device's queued work before it is timed,
     * so that the device's time shows in the phase that queued it (slower; for finding where a
     * step's time goes) */
    int (*sync_device)(sim *s, sl_err *err);
    sim *sim;
};

/* The clock at a timed phase's start: with SLUICE_MPI_SYNC_TIMERS (d->sync_device) once the device
 * has done the work queued before it, so that the phase's timer holds the phase alone. */
static inline double domain_clock(struct domain *d)
{
    if (d->sync_device) {
        sl_err ignored;
        d->sync_device(d->sim, &ignored); /* a device error shows again at the next real call */
    }
    return MPI_Wtime();
}

/* Adds the time since t0 to timer k (once the device is idle, as domain_clock); returns the time
 * now (the next phase's start). */
static inline double domain_lap(struct domain *d, int k, double t0)
{
    double t = domain_clock(d);
    d->seconds[k] += t - t0;
    return t;
}

/* The bytes to allocate when a buffer must hold `bytes`: a quarter more and a page, so that a slowly
 * growing need does not reallocate at every call (the exchanges' and the cell halos' buffers). */
static inline size_t domain_headroom(size_t bytes)
{
    return bytes + bytes / 4 + 4096;
}

/* The MPI type of `real`. */
#define DOMAIN_MPI_REAL (sizeof(real) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT)

/* b made to hold `bytes` bytes of host memory (contents not kept): the backend's page-locked memory
 * where it has some (backend.halo.host_buffer), so that a device's copies each way run at the bus's
 * speed, else malloc's; 0, or -1 out of memory (mpi_transfer.c). And its release. */
int domain_host_buffer(sim *s, backend_buffer *b, size_t bytes);
void domain_host_buffer_free(sim *s, backend_buffer *b);

/* Another rank's device buffer as mapped here (CUDA IPC), and which of its allocations. */
struct peer_map {
    uint64_t generation; /* 0: not mapped */
    void *ptr;
};

/* m mapped to the buffer that handle names, again only when generation differs from the one mapped
 * (the owner reallocated it); and every mapping of peers[0 .. n) closed (mpi_transfer.c). */
int domain_map_peer(sim *s, struct peer_map *m, uint64_t generation, const peer_handle *handle, sl_err *err);
void domain_unmap_peers(sim *s, struct peer_map *peers, int n);

/* Which path the environment variable `variable` asks for: *host_only for "host", *insist for
 * "device", neither when unset; any other value is refused with the accepted ones (mpi_transfer.c). */
int domain_path_wanted(const char *variable, int *host_only, int *insist, sl_err *err);

/* Spans sp[0 .. n) of v packed into buf or back (to_buf), buf host memory or the backend's own
 * (on_device), through backend.mg.columns; its failure as an error naming this rank
 * (mpi_cell_columns.c). */
int domain_cell_columns(sim *s, real *v, const mg_span *sp, int n, void *buf, int to_buf, int on_device, sl_err *err);

/* Frees the cell levels' halo buffers (mpi_cells.c), while the backend still holds its state. */
void domain_cells_free(struct domain *d, sim *s);

/* The cell levels' halos GPU to GPU (mpi_cells_direct.c): where the particles' exchanges go so
 * (d->direct) and SLUICE_MPI_CELL_HALOS is not "host", the columns are packed into device memory and
 * each rank copies its senders' straight from theirs, instead of down to the host, through MPI and up
 * again. d->cells_path decided, collectively, at the first halo after the exchanges' path was (left
 * 0 before: that halo goes through the host). */
enum { CELLS_THROUGH_HOST = 1, CELLS_GPU_TO_GPU = 2 };
int domain_cells_decide(struct domain *d, sim *s, sl_err *err);
/* One halo that way: sends[q] values to rank q from spans out_spans[0 .. nout) of v (out in all,
 * in rank order), receives[q] from rank q into spans in_spans[0 .. nin) (in in all). Collective
 * among the ranks that exchange. */
int domain_cell_halo_direct(struct domain *d, sim *s, real *v, const int *sends, const mg_span *out_spans, int nout,
                            size_t out, const int *receives, const mg_span *in_spans, int nin, size_t in, sl_err *err);
/* Its buffers, mappings and messages still in flight, released. */
void domain_cells_direct_free(struct domain *d, sim *s);

/* The slabs as slab_rule.h's rule reads them, for choice c. */
slab_rule domain_rule(const struct domain *d, enum slab_choice c);

/* The particles that choice c sends into r, by destination, with the send counts in d->counts
 * (mpi_select.c): through the backend's select hook where the cell build is staged (domain_staged:
 * the device's arrays are the current ones; the routes stay there), otherwise by a loop over the
 * host arrays with the same rule. */
int domain_select(struct domain *d, sim *s, enum slab_choice c, routes *r, sl_err *err);

/* Whether the cell build stages its exchanges through the backend's fetch, remove and append
 * and chooses through its select hook (backend.halo: a device backend; the host arrays then hold
 * nothing current). */
static inline int domain_staged(const sim *s)
{
    const backend_halo_hooks *h = s->be->halo;
    return h->fetch && h->remove && h->append && h->column_counts && h->select &&
           !(s->domain && s->domain->whole_arrays);
}

/* Sends the particles along r and appends what the other ranks send to s->p. as_ghost: copies whose
 * id is sent as -1 - id (the particles stay here); otherwise the particles move (removed here).
 * Staged (domain_staged): the records come from the device as columns, the movers are removed there
 * and the arrivals appended there; the host arrays only keep room for the count. */
int domain_send_particles(struct domain *d, sim *s, const routes *r, int as_ghost, sl_err *err);

/* Right after the ghosts went out and came in along r (domain_send_particles, their counts still in
 * d->counts; the arrivals from `first` on): the halo's plan as it is before the sort, where r's
 * routes are (on a device: backend.halo.plan). */
int domain_plan_keep(struct domain *d, sim *s, const routes *r, size_t first, sl_err *err);

/* r's host routes (idx, dest) by destination into d->send_order (r->by_dest), their counts into
 * d->counts' send counts (mpi_exchange.c). */
int domain_order_routes(struct domain *d, routes *r, sl_err *err);

/* After the sort: the plan's lists moved where the sort moved their particles (backend.halo's
 * after_sort), where the backend's halo hooks read them (d->order_at, d->slot_at): made on the
 * device by a staged build, else copied there once per plan on a backend with upload. */
int domain_plan_follow_sort(struct domain *d, sim *s, sl_err *err);

/* Fields fields[0 .. nf) of the plan's particles (a field number BACKEND_FIELD_TAG: their tags)
 * sent again and written into the ghosts' slots (the plan's second list, in the order they arrive),
 * in place, through the backend's halo hooks: on a device only the bands' values cross. */
int domain_overwrite_fields(struct domain *d, sim *s, const int *fields, int nf, sl_err *err);

/* Its transpose for one field: field `field` of the ghosts' slots sent back along the plan and added
 * to their owners' values (a particle that is a ghost on two ranks gets both, in rank order), in
 * place; the ghosts keep theirs. */
int domain_add_field_to_owners(struct domain *d, sim *s, int field, sl_err *err);

/* Moves the cuts when the counts drift apart, or every DOMAIN_BALANCE_EVERY steps (mpi_slabs.c). */
int domain_balance_if_due(struct domain *d, sim *s, sl_err *err);

/* Sends every particle whose column another rank owns to that rank (mpi_slabs.c). */
int domain_migrate(struct domain *d, sim *s, sl_err *err);

/* d->sendbuf and d->recvbuf with room for send_bytes and recv_bytes (contents not kept): host
 * memory, or device memory where the exchanges go GPU to GPU (mpi_transfer.c; decided, collectively,
 * at the first call). */
int domain_transfer_room(struct domain *d, sim *s, size_t send_bytes, size_t recv_bytes, sl_err *err);

/* Items from d->sendbuf to the other ranks' d->recvbuf, as ncol columns: column c's items are
 * size[c] bytes and start at the buffer's nsend (nrecv) items of every column before it; scount
 * and soff (rcount and roff) give each rank's count and first item, in items. Collective. */
int domain_transfer(struct domain *d, sim *s, const size_t *size, int ncol, size_t nsend, size_t nrecv,
                    const int *scount, const int *soff, const int *rcount, const int *roff, sl_err *err);

/* How the exchanges cross: "through host memory", "GPU to GPU (CUDA IPC)", or "" before the first. */
const char *domain_transfer_path(const struct domain *d);

/* The buffers and the peers' mappings freed (domain_detach, while the backend holds its state). */
void domain_transfer_free(struct domain *d, sim *s);

/* s->p keeps the particles whose keep[i] is set, in their order; returns how many. */
size_t domain_compact(particles *p, const uint8_t *keep, int32_t *cell);

#endif
