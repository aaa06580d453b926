/* backend.h: where the particle loops run. Schemes describe passes; a backend runs them (CPU: OpenMP). */
#ifndef SLUICE_BACKEND_H
#define SLUICE_BACKEND_H

#include "multigrid_ops.h"
#include "pass.h"
#include "slab_rule.h"
#include "physics/probe_sample.h"
#include "base/status.h"

#include <stddef.h>
#include <stdio.h>

struct sim;
struct p2m_grid;

enum reduce_op {
    REDUCE_MIN, /* smallest value of field a (NaN if any value is NaN) */
    REDUCE_MAX, /* largest value of field a (NaN if any value is NaN) */
    REDUCE_SUM, /* sum of a[i], in double, in an order independent of the thread count */
    REDUCE_DOT  /* sum of a[i] * b[i], likewise */
};

/* A symmetric positive definite system A x = b over particle fields, solved by preconditioned
 * conjugate gradients (pcg_solve, solver/pcg.h). Rows whose diagonal is 0 are not unknowns: their
 * x stays 0. The scheme provides A as a pass that computes field `out` = A (field `in`) for every
 * particle; the solver sets s->args.in and s->args.out before each call. The backends' CG
 * primitives below read the field numbers and n from it. The preconditioner is Jacobi's unless
 * `precondition` is set; the product is the matvec pass unless `product` is set. */
/* The CG's scalars, kept where the vectors are (a device's memory on a GPU) so that the iteration
 * need not wait for the device at every dot product, nor at every iteration: d.q, the pairs (r.z,
 * r.r) of the even and the odd iterations (the new r.z is divided by the last one), and the solve's
 * state as backend.cg_decide leaves it (core/cg_decide.h): enum cg_state, the iterations done, the
 * r.r of the last of them. */
enum cg_slot { CG_DQ, CG_RZ_EVEN, CG_RR_EVEN, CG_RZ_ODD, CG_RR_ODD, CG_STATE, CG_DONE, CG_LAST_RR, CG_SLOTS };

typedef struct cg_problem {
    const pass *matvec;
    /* z = M^-1 r (fields cg->r, cg->z; q is free to use), replacing Jacobi's z = r / diag */
    int (*precondition)(struct sim *s, const struct cg_problem *cg, sl_err *err);
    /* field out = A (field in), replacing the matvec pass (the assembled operator) */
    int (*product)(struct sim *s, const struct cg_problem *cg, int in, int out);
    void *data; /* what precondition and product need (solver/multigrid.h) */
    /* Rows spread over several processes (MPI ranks, parallel/domain.h): each process holds some
     * rows and read-only copies of the unknowns they couple to, whose own rows are elsewhere (a
     * diagonal of 0 here). Both may be NULL (one process).
     * sum: every process's partial sums v[0 .. count) added, the same totals on each, so that each
     *   takes the same decisions; share: the copies' values of field `field` made current, before
     *   each product (the copies' x is left as the iteration leaves it: the owners' is the
     *   solution); clear: a preconditioner that reads the copies' r (shared with them before it) and
     *   writes their z: after it the copies' r and z are zeroed again (the iteration holds 0 there);
     *   add_back: besides, its block on each process holds the copies' rows (overlapping blocks,
     *   M^-1 = sum_p R_p^T B_p R_p), and the copies' z is added to their owners' before the clear;
     *   both NULL: a preconditioner of this process's rows alone. An error leaves its message in
     *   err. */
    int (*sum)(struct sim *s, double *v, int count, sl_err *err);
    int (*share)(struct sim *s, int field, sl_err *err);
    int (*add_back)(struct sim *s, int field, sl_err *err);
    int (*clear)(struct sim *s, const int *fields, int n, sl_err *err);
    int x, b, diag;              /* solution (initial guess on entry), right-hand side, diagonal of A */
    int r, z, d, q;              /* work fields */
    size_t n;                    /* particles [0, n) */
    double tolerance;            /* on ||b - A x|| / ||b|| */
    int max_iterations;
    /* Iterations queued before the driver first reads the state (the device's verdicts,
     * backend.cg_decide) instead of waiting for it after each: the last solve's count less 2, so
     * that a solve that stops earlier than that runs its extra iterations to no effect (their
     * updates do nothing once it stopped), where the backend queues its work (backend.queues);
     * pcg_solve sets it. */
    int ahead;
    /* results */
    int iterations;
    double residual;             /* relative residual reached */
    int converged;
    double scalar[CG_SLOTS]; /* the scalars where the backend keeps them on the host (cg_slot) */
} cg_problem;

/* Device addresses of the particle state, for the viewer's CUDA-OpenGL path: every field of
 * particles.h (`real` each; the core fields PF_X..PF_P and the scheme's, such as the moving bodies'
 * index) and the type array, in the backend's current order, valid until the next step. */
typedef struct backend_device_view {
    const void *field[PF_MAX]; /* the first s->p.nfields set */
    const unsigned char *type;
    size_t n;
} backend_device_view;

/* What `sluice bench` measures beyond the backend interface, on backends that choose among
 * interaction strategies (the CUDA backend; NULL on the CPU). Strategies are numbered
 * [0, nstrategies). */
typedef struct backend_bench_hooks {
    /* Memory the backend holds for s, bytes (the bench's bytes per particle). */
    size_t (*device_bytes)(const struct sim *s);
    /* Times the backend's primitives (sorts, scans, gathers, reductions) at size n and prints a
     * table to out. */
    int (*primitives)(FILE *out, size_t n, sl_err *err);
    int nstrategies;
    const char *(*strategy_label)(int strategy);
    /* Whether `strategy` can run pass `pass_id` over the particles inside, and if not, the usual
     * reason in a few words. */
    int (*strategy_valid)(struct sim *s, int pass_id, int strategy);
    const char *(*strategy_invalid_reason)(int strategy);
    /* Runs the pass with `strategy` warmup times, then times reps runs (at most 64); *median_ms is
     * the median time of one run. */
    int (*time_pass)(struct sim *s, int pass_id, int strategy, int warmup, int reps, double *median_ms,
                     sl_err *err);
} backend_bench_hooks;

/* The multigrid preconditioner's memory and loops (solver/multigrid.c). */
typedef struct backend_mg_hooks {
    /* Memory for the hierarchy where the backend runs (zeroed), NULL with a message on failure. */
    void *(*alloc)(struct sim *s, size_t bytes, sl_err *err);
    void (*free)(struct sim *s, void *p);
    /* Runs the loop of m->kind (core/multigrid_ops.h) over mg_range(m). The backend fills in
     * m->diag, m->in, m->out and m->work from the particle fields numbered diag, in, out, work
     * (-1: none) and m->cell, m->cell_start from its neighbour grid. An error is kept for
     * take_error and returned. */
    int (*run)(struct sim *s, mg_args *m, int diag, int in, int out, int work);
    /* The longest row count of A over particles [0, n) into *longest. */
    int (*longest_row)(struct sim *s, const sparse_ell *A, size_t n, int32_t *longest);
    /* Runs record(s, ctx), a sequence of `run` calls (the preconditioner's loops, on one process).
     * The CPU calls it; the CUDA backend lists the loops record makes and replays a graph of them
     * (one launch instead of dozens of small ones), captured again whenever the list differs from
     * the one it was captured from. stamp (stamp_bytes) stands for everything of the caller's that
     * the loops depend on besides the backend's particle arrays: where it and the arrays are as at
     * the last listing, the backend may replay without listing again. */
    int (*replay)(struct sim *s, int (*record)(struct sim *s, void *ctx), void *ctx, const void *stamp,
                  size_t stamp_bytes);
    /* Level `level`'s cells with an unknown (a non-zero centre entry, mg_centre) in the columns this
     * process owns (mg_lists), ascending, into
     * g->active, their count into *g->nactive, the diagonal into g->d; zeroes g->x and g->t (the
     * listed loops, mg_listed, then touch the listed cells alone) and sets g->lanes and g->blocks.
     * Run once the level's operator is built. Level -1: a listing the backend keeps no count or
     * shape of (a ring level's columns and its ring's, solver/multigrid.c). An error is kept for
     * take_error and returned. */
    int (*list_cells)(struct sim *s, mg_grid *g, int level);
    /* Waits for the listings of levels [0, nlevels) and writes each one's count of listed cells into
     * counts. The GPU then sets each level's lanes and blocks from these counts: the lanes set the
     * order of a level's additions, so they come from this set-up alone and a restarted run repeats
     * them. An error is kept for take_error and returned. */
    int (*count_listed)(struct sim *s, mg_grid *levels, int nlevels, int64_t *counts);
    /* The values of spans sp[0 .. nspans) of v (a level's array, the backend's memory) into buf,
     * packed span after span and run after run (to_buf), or back from there: a halo between
     * processes (solver/multigrid.h), every neighbour's columns in one copy each way. buf is host
     * memory (on_device 0: the call waits for the loops before it, and buf is free again when it
     * returns), or the backend's own (on_device 1: queued after the loops, nothing waited for; the
     * halo's copies GPU to GPU, parallel/mpi_cells.c). An error is kept for take_error and returned. */
    int (*columns)(struct sim *s, real *v, const mg_span *sp, int nspans, real *buf, int to_buf, int on_device);
    /* The assembled rows' layout the backend's loops read fastest (sparse_ell.shift): 3 on the GPU
     * (a thread's 8 entries in one sector), 0 on the CPU (column-major: its products were 43%
     * slower in groups, docs/performance.md). */
    int row_group_shift;
    /* 1: the hybrid cycle is the default (solver/multigrid.h, enum mg_cycle), 0: the V-cycle. Its
     * restriction gathers a cell's stencil of partials instead of a product of the rows: faster on the
     * GPU, slower on the CPU (docs/performance.md) */
    int hybrid_cycle;
} backend_mg_hooks;

/* Memory the backend holds for data that passes read through a pointer in pass_args (the moving
 * walls' transforms): its address and capacity in bytes. */
typedef struct backend_buffer {
    void *ptr;
    size_t cap;
} backend_buffer;

/* The MPI halo's traffic (parallel/mpi_halo.c): values of a few fields at a list of particles,
 * between the backend's arrays and host memory, so that a refresh of the ghosts moves the ghost
 * bands' values and nothing else. idx is where the backend reads it (backend.upload's copy, made
 * once per halo plan; the host array where upload is NULL); v is host memory (or device memory where the
 * exchanges go GPU to GPU: peer_buffer below), particle by particle:
 * v[k nf + j] is field fields[j] of particle idx[k], k < n. A field number BACKEND_FIELD_TAG names
 * the particles' tag (the MPS class a pass writes), carried as a real (0..255, exact). */
enum { BACKEND_FIELD_TAG = PF_MAX };

enum backend_halo_op {
    HALO_SET,  /* the particles' values = v */
    HALO_ADD,  /* += v (real fields only) */
    HALO_ZERO, /* = 0; v is not read (may be NULL) */
    HALO_FILL  /* = v[0], one value in host memory for every particle and field (nothing staged) */
};

/* n particles' records as columns, in one buffer: the persistent fields' values (those with
 * p->transient[k] == 0, in field order), n of each, then the n ids, the n kinds and the n tags. How
 * particles travel between MPI ranks (parallel/mpi_exchange.c) and through the halo's fetch and
 * append. */
typedef struct record_columns {
    real *f;     /* persistent field j of particle k at f[j n + k] */
    int32_t *id;
    uint8_t *type, *tag;
} record_columns;

/* The persistent fields, the columns of reals a record carries (the rates are computed again). */
static inline int record_columns_fields(const particles *p)
{
    int np = 0;
    for (int k = 0; k < p->nfields; ++k)
        np += !p->transient[k];
    return np;
}

static inline size_t record_columns_bytes(int persistent, size_t n)
{
    return n * ((size_t)persistent * sizeof(real) + sizeof(int32_t) + 2);
}

static inline record_columns record_columns_at(void *cols, int persistent, size_t n)
{
    record_columns c;
    c.f = (real *)cols;
    c.id = (int32_t *)(c.f + (size_t)persistent * n);
    c.type = (uint8_t *)(c.id + n);
    c.tag = c.type + n;
    return c;
}

/* A device buffer as another process of the host names it (CUDA IPC's 64-byte handle). */
typedef struct peer_handle {
    unsigned char bytes[64];
} peer_handle;

typedef struct backend_halo_hooks {
    /* v = the fields at idx. */
    int (*gather)(struct sim *s, const int *fields, int nf, const int32_t *idx, size_t n, real *v, sl_err *err);
    /* The fields at idx from v as op says; idx names no particle twice (on a device the order of two
     * writes to one particle is not defined). */
    int (*scatter)(struct sim *s, const int *fields, int nf, const int32_t *idx, size_t n, const real *v,
                   enum backend_halo_op op, sl_err *err);
    /* Removes the particles whose id is negative (the ghosts), the others keeping their order and
     * every field (keep_rates), or every persistent field, their transient fields left undefined
     * (!keep_rates: no pass reads them before the next force pass, which follows a build_cells:
     * a device moves the persistent fields as its sort's reorder does, without copying them back);
     * sets s->p.n and s->g.n_inside. The grid's cells are left as the sort made them (only passes
     * without neighbours run before the next build_cells). NULL where the host arrays are the
     * state: mpi_halo.c compacts them. */
    int (*drop_ghosts)(struct sim *s, int keep_rates, sl_err *err);
    /* The particles per cell column along the rule's axis (slab_column_counts, core/slab_rule.h,
     * over every particle), into count[0 .. rule->ncols) (host): a balance's histogram, counted
     * where the particles are, so only the counts cross the bus. NULL where the host arrays are
     * the state. */
    int (*column_counts)(struct sim *s, const slab_rule *rule, int64_t *count, sl_err *err);
    /* The cell build's exchanges (migration and the ghosts, mpi_exchange.c) without copying every
     * array: the particles travel as record columns (record_columns below) in host memory (device
     * memory GPU to GPU: peer_buffer), the host arrays are not touched (the host stays marked
     * stale: sim_sync_host copies everything).
     * NULL, all four (with select), where the host arrays are the state.
     * The lists these take are host memory or, from select and plan, the backend's own.
     * fetch: the records of particles idx[0 .. n) (no particle twice), in that order,
     *   into the columns at cols (record_columns_bytes of them); ghost: their ids as -1 - id (copies
     *   that stay here, mpi_halo.c). */
    int (*fetch)(struct sim *s, const int32_t *idx, size_t n, void *cols, int ghost, sl_err *err);
    /* remove: particles idx[0 .. n) (no particle twice) removed, the others keeping
     *   their order and every field; sets s->p.n (the host arrays are not touched) and keeps
     *   s->g.n_inside counting the remaining particles among the first n_inside. */
    int (*remove)(struct sim *s, const int32_t *idx, size_t n, sl_err *err);
    /* append: n particles from the record columns at cols appended behind the backend's s->p.n
     *   (which grow as needed, those kept), their transient fields zero; s->p.n grows by n (the
     *   caller gives the host arrays room for it: particles_reserve). */
    int (*append)(struct sim *s, const void *cols, size_t n, sl_err *err);
    /* The places the last build_cells moved particles before[0 .. n) to (written to after, which
     *   may be before; both host memory, or both the backend's): the halo's plan follows its particles through
     *   the sort. Valid from build_cells until a pass runs (a device may keep the sort's order in
     *   the array of a field that a pass writes). */
    int (*after_sort)(struct sim *s, const int32_t *before, size_t n, int32_t *after, sl_err *err);
    /* Host memory for the exchanges' buffers, *buf grown to `bytes` (the contents are not kept):
     *   page-locked on a device, so that the copies each way run at the bus's speed. 0, or -1 out of
     *   memory. NULL, both, where malloc serves. */
    int (*host_buffer)(struct sim *s, backend_buffer *buf, size_t bytes);
    void (*host_buffer_free)(struct sim *s, backend_buffer *buf);
    /* The particles the rule chooses (slab_destinations of each particle's position along the rule's
     *   axis and its id, with the cuts first[0 .. size]), where the backend's arrays hold them: *n
     *   routes, ordered by destination (each destination's routes in index order, a particle's
     *   destinations the lower rank first), their particles' places in the backend's memory at
     *   *by_dest (valid until the next select; fetch, remove and plan take it as it is), the count
     *   of each destination in counts[0 .. size) (host). So only the counts cross the bus. NULL
     *   where the host arrays are the state (mpi_select.c loops over them with the same rule). */
    int (*select)(struct sim *s, const slab_rule *rule, const int *first, int *counts, const int32_t **by_dest,
                  size_t *n, sl_err *err);
    /* plan: the halo's plan before the sort into *buf (grown as needed, the backend's memory): the
     *   nsend places of by_dest (select's list, as the ghosts went out), then the slots first ..
     *   first + nrecv of the ghosts that arrived. NULL with select. */
    int (*plan)(struct sim *s, const int32_t *by_dest, size_t nsend, size_t first, size_t nrecv, backend_buffer *buf,
                sl_err *err);
    /* The exchanges GPU to GPU between the ranks of one host (parallel/mpi_transfer.c): the buffers
     * that gather, scatter, fetch and append are handed may then be device memory, which another
     * rank's process maps and copies from, so the bands' bytes never cross to the host. NULL, all
     * six, where the backend has no such memory.
     * peer_buffer: device memory another process can map, *buf grown to `bytes` (contents not kept);
     *   0, or -1 out of memory. peer_buffer_free frees it. */
    int (*peer_buffer)(struct sim *s, backend_buffer *buf, size_t bytes);
    void (*peer_buffer_free)(struct sim *s, backend_buffer *buf);
    /* peer_export: the handle of buf (a peer_buffer) for the other processes. peer_open: another
     *   process's buffer mapped here (*ptr its start); peer_close unmaps it. */
    int (*peer_export)(struct sim *s, const backend_buffer *buf, peer_handle *h, sl_err *err);
    int (*peer_open)(struct sim *s, const peer_handle *h, void **ptr, sl_err *err);
    void (*peer_close)(struct sim *s, void *ptr);
    /* peer_copy: bytes from src (this device's memory or a mapped peer's) to dst, queued in order
     *   with the hooks' kernels; peer_wait: everything queued on the device so far is done (what a
     *   gather wrote is in its buffer before the peers are told, a copy has landed before the
     *   buffer it read from may change). */
    int (*peer_copy)(struct sim *s, void *dst, const void *src, size_t bytes, sl_err *err);
    int (*peer_wait)(struct sim *s, sl_err *err);
} backend_halo_hooks;

typedef struct backend {
    const char *name;
    /* 1 when the backend can run on this machine (a device is present); NULL: always. */
    int (*available)(void);
    /* Sorts the particles into the neighbour grid (every particle array is reordered). */
    int (*build_cells)(struct sim *s, sl_err *err);
    /* Runs a pass over particles [0, n) with the scheme's s->args. */
    void (*run_pass)(struct sim *s, const pass *ps, size_t n);
    /* Reduction of real particle fields over [0, n); b is used by REDUCE_DOT only. */
    double (*reduce)(struct sim *s, enum reduce_op op, int a, int b, size_t n);
    /* The vector steps of the Jacobi-preconditioned CG solver; pcg_solve (solver/pcg.c) runs the
     * iteration and the matrix products (run_pass). Fields and n come from cg; S is the scalars'
     * slots (enum cg_slot), which the backend keeps where its vectors are (cg->scalar on the host),
     * so that none of these waits but cg_init and a read of cg_scalars. Each returns SL_OK, or an
     * error code once the backend has kept the error for take_error (an error kept earlier and not
     * yet taken, say a failed matrix pass, fails them too): the solver then stops. Dots are sums in
     * double as REDUCE_DOT's.
     * cg_init, after q = A x: for each i, unknown = diag[i] != 0; x[i] = 0 where not unknown;
     *   r = unknown ? b - q : 0; z = unknown ? r / diag : 0; d = z. dots = b.b, r.z, r.r. */
    int (*cg_init)(struct sim *s, const cg_problem *cg, double dots[3]);
    /* cg_dot: S[slot] = a.b (fields a and b). */
    int (*cg_dot)(struct sim *s, cg_problem *cg, int a, int b, int slot);
    /* cg_update, after q = A d, where S[dq] > 0: alpha = S[rz] / S[dq] (in double); x += (real)(alpha
     * d); r -= (real)(alpha q); z = diag != 0 ? r / diag : 0 (the new r); S[out] = r.z and S[out + 1]
     * = r.r of the new values. Where !(S[dq] > 0) (no progress possible, or a NaN) no field changes
     * and both are 0. */
    int (*cg_update)(struct sim *s, cg_problem *cg, int rz, int dq, int out);
    /* cg_decide, after cg_update(.., dq, out): the iteration's verdict, taken where the scalars are
     * (cg_decide_step of core/cg_decide.h, with cg's tolerance and max_iterations), so that the
     * driver may queue the next iterations before it reads it. */
    int (*cg_decide)(struct sim *s, cg_problem *cg, int dq, int out, double bnorm);
    /* cg_direction: d = z + (real)(beta d), beta = S[num] / S[den] (0 where den < 0).
     * cg_update and cg_direction change nothing once S[CG_STATE] is not CG_GOING. */
    int (*cg_direction)(struct sim *s, cg_problem *cg, int num, int den);
    /* cg_scalars: S[slot .. slot + count) copied into v once the work queued before is done, or set
     * from v (write). */
    int (*cg_scalars)(struct sim *s, cg_problem *cg, int slot, int count, double *v, int write);
    /* Sets field `field` to 0 over [0, n). */
    int (*fill_zero)(struct sim *s, int field, size_t n);
    /* Backends that keep the particles elsewhere (device memory) copy them to the host arrays
     * (to_host) and back (to_device); NULL where the host arrays are the state. Use
     * sim_sync_host() / sim_sync_device() rather than calling these. */
    void (*to_host)(struct sim *s);
    int (*to_device)(struct sim *s, sl_err *err);
    /* Fills *out with the device addresses of the particle state and returns 1; NULL (or a return
     * of 0) where the host arrays are the state. The viewer then writes its vertex buffer on the
     * device (src/gpu/viz_interop.cu) instead of copying through the host. */
    int (*device_view)(struct sim *s, backend_device_view *out);
    /* Spreads the fluid onto g by `method` (P2M_PARTICLE or P2M_MESH of p2m_grid.h) where the
     * particles are, and leaves g's host sums and fields current; NULL where the host arrays are
     * the state (p2m_grid_update then runs p2m_spread on them). p2m_grid_update decides the
     * method; call that rather than this. */
    int (*p2m_spread)(const struct sim *s, struct p2m_grid *g, int method, sl_err *err);
    /* Releases what the backend allocated for s (may be NULL). */
    void (*release)(struct sim *s);
    /* The first error that run_pass, reduce or the CG primitives met since the last call,
     * into err, and forgotten; SL_OK when none. NULL where they cannot fail. The engine asks after
     * each time step and step, so a failed kernel ends the run with its own message. */
    int (*take_error)(struct sim *s, sl_err *err);
    /* Per-strategy timings for `sluice bench`; NULL where the backend has no strategies. */
    const backend_bench_hooks *bench;
    /* The multigrid preconditioner's primitives (every backend has them). */
    const backend_mg_hooks *mg;
    /* Copies `bytes` from `host` into *buf (grown as needed), where the passes can read it, and
     * returns that address; NULL with the error kept for take_error on failure. NULL where the
     * passes read host memory: the host address serves. */
    const void *(*upload)(struct sim *s, backend_buffer *buf, const void *host, size_t bytes);
    /* Floating bodies: out[6 b .. 6 b + 5] = the sums over particles [0, n_inside) whose field
     * `body` is b < nbodies of rigid_body_particle_sums (physics/rigid_body.h) of the acceleration
     * fields acc (acc[2] -1 in 2D): m a and x x m a, in double. The CPU's order does not depend on
     * the thread count. An error is kept for take_error and returned. */
    int (*body_sums)(struct sim *s, int body, int nbodies, const int acc[3], double *out);
    /* Frees what upload allocated in *buf. */
    void (*buffer_free)(struct sim *s, backend_buffer *buf);
    /* The MPI halo's gathers and scatters (every backend has them). */
    const backend_halo_hooks *halo;
    /* The probes' particles (io/probes.c): *out made to hold, in particle order, the particles of
     * [0, p.n) that some region of req holds (physics/probe_sample.h), with their positions, density,
     * pressure and type (the other arrays NULL), in host memory the backend keeps until the next
     * call, and *tot the fluid's totals over all of them; *picked = 1. *picked = 0 where the host
     * arrays are the state (nothing on the device yet): the probes read those. NULL: always so. */
    int (*probe_particles)(struct sim *s, const probe_regions *req, particles *out, probe_totals *tot, int *picked,
                           sl_err *err);
    /* Whether the primitives queue their work (on a device) and a read of cg_scalars waits for it,
     * so that the CG reads its state after fewer iterations (cg_problem.ahead); 0 where each call
     * has done its work when it returns (the host). */
    int queues;
} backend;

extern const backend backend_cpu;
#ifdef SLUICE_HAVE_CUDA
extern const backend backend_cuda;
#endif

/* "cpu", "cuda" or "auto". Fails with a message naming the accepted values or why a backend is
 * missing from this build. */
int backend_select(const char *name, const backend **out, sl_err *err);

/* Comma-separated names of the backends compiled in. */
const char *backend_compiled(void);

#endif
