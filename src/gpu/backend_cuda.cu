/* backend_cuda.cu: the CUDA backend. The particles live on the device as structure-of-arrays; per
 * step only the scalars that decide dt and CG convergence (and the count of particles inside the
 * domain) come back to the host. The host arrays are refreshed on demand (sim_sync_host) for
 * output, probes and checkpoints. */
extern "C" {
#include "core/backend.h"
#include "io/p2m_grid.h"
#include "core/sim.h"
}

#include "backend_cuda.h"
#include "gpu_cg.h"
#include "gpu_check.h"
#include "gpu_gather.h"
#include "gpu_reduce.h"
#include "gpu_scan.h"
#include "gpu_scratch.h"
#include "gpu_sort.h"
#include "p2m_cuda.h"
#include "pass_kernels.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Strategy chosen for one pass, and the layout it was chosen on. */
typedef struct pass_choice {
    int id;
    int strategy;
    int chosen_at_max_per_cell;
} pass_choice;

enum { MAX_PASSES = 32 };

typedef struct cuda_sim {
    size_t cap;              /* particles the arrays hold */
    int nfields;             /* real fields on the device */
    real *f[PF_MAX];
    int32_t *id;
    uint8_t *type, *tag;
    int32_t *cell;           /* cell of each particle */
    int32_t *order;          /* the sort's permutation: its own array, or NULL when it borrows the
                              * array of the transient field order_field (dead from the sort to the
                              * pass that writes it, as the reorder skips it) */
    int order_field;
    real *field_slab;        /* every real field's array, one after another (see alloc_arrays) */
    int rotating[GPU_GATHER_MAX_FIELDS]; /* the transient fields whose arrays the reorder hands on */
    int nrotating;
    real *pad[GPU_GATHER_MAX_FIELDS];    /* arrays that fill the ring up to a multiple of nrotating */
    int npad;
    int32_t *cell_start;     /* ncells + 2 */
    int32_t *counters;       /* [0] particles inside, [1] most particles in a cell */
    gpu_scratch scratch;
    int host_current;        /* the host arrays hold the device state */
    int max_per_cell;
    int sm_count;
    gpu_sort_kind sort;
    gpu_scan_kind scan;
    int scan_chosen;
    int forced_strategy;     /* GS_* or -1 for auto */
    pass_choice choice[MAX_PASSES];
    int nchoices;
    cudaEvent_t ev_start, ev_stop;
    char last_error[sizeof(((sl_err *)0)->msg)];
} cuda_sim;

static cuda_sim *state_of(const sim *s)
{
    return (cuda_sim *)s->backend_data;
}

static void remember_error(sim *s, const sl_err *err)
{
    cuda_sim *st = state_of(s);
    if (st && !st->last_error[0])
        snprintf(st->last_error, sizeof st->last_error, "%s", err->msg);
    fprintf(stderr, "sluice: CUDA backend: %s\n", err->msg);
}

/* ---- device arrays -------------------------------------------------------------------------- */

static void free_arrays(cuda_sim *st)
{
    for (int k = 0; k < PF_MAX; ++k)
        st->f[k] = NULL;
    cudaFree(st->field_slab);
    st->field_slab = NULL;
    st->nrotating = st->npad = 0;
    cudaFree(st->id);
    cudaFree(st->type);
    cudaFree(st->tag);
    cudaFree(st->cell);
    cudaFree(st->order);
    st->id = st->cell = st->order = NULL;
    st->type = st->tag = NULL;
    st->cap = 0;
    st->nfields = 0;
}

/* The strategies are the scene's gpu.strategy names after "auto", in the same order: one list of
 * names (scene_load.c) serves the scene files, the command line and the tables printed here. */
static_assert((int)GS_PAR_PART == GPU_STRATEGY_PAR_PART - 1 && (int)GS_PAR_CELL == GPU_STRATEGY_PAR_CELL - 1 &&
                  (int)GS_PAR_CELL_SM == GPU_STRATEGY_PAR_CELL_SM - 1 &&
                  (int)GS_X_PENCIL == GPU_STRATEGY_X_PENCIL - 1 &&
                  (int)GS_PAR_PART_COMPACT == GPU_STRATEGY_PAR_PART_COMPACT - 1 &&
                  (int)GS_PAR_PART_SYM == GPU_STRATEGY_PAR_PART_SYM - 1 &&
                  (int)GS_COUNT == GPU_STRATEGY_PAR_PART_SYM,
              "enum gpu_strategy must follow enum gpu_strategy_name");

const char *gpu_strategy_label(int strategy)
{
    return strategy >= 0 && strategy < GS_COUNT ? scene_gpu_strategy_name((enum gpu_strategy_name)(strategy + 1))
                                                : "?";
}

/* The real fields' arrays lie in one slab: first the persistent fields, then as many spare arrays
 * as make their number a multiple of the rotating fields', then the rotating transient fields (the
 * first transients, up to GPU_GATHER_MAX_FIELDS, but not the last one), then the other
 * transients. A rebuild gathers the persistent fields, as many at a time as there are rotating
 * arrays, into the rotating arrays and then each batch into the arrays the batch before left (see
 * reorder_fields): the arrays taken in turn run round the first part of the slab as a ring of a
 * whole number of batches, so the rotating fields always end up in arrays one after another in
 * field order, and par-part-sym can keep its packed data in the four arrays of ax..drho (WCSPH:
 * 12 persistent fields with Verlet, 15 and one spare with the symplectic integrator). The last
 * transient field's array holds the sort's permutation (its contents are dead from the sort to
 * the pass that writes it). */
static int alloc_arrays(cuda_sim *st, const particles *p, sl_err *err)
{
    free_arrays(st);
    size_t n = p->n, m = n ? n : 1;
    int nfields = p->nfields, npersistent = 0;
    st->order_field = -1;
    for (int k = 0; k < nfields; ++k) {
        if (p->transient[k])
            st->order_field = k;
        else
            ++npersistent;
    }
    for (int k = 0; k < nfields; ++k)
        if (p->transient[k] && k != st->order_field && st->nrotating < GPU_GATHER_MAX_FIELDS)
            st->rotating[st->nrotating++] = k;
    st->npad = st->nrotating ? (st->nrotating - npersistent % st->nrotating) % st->nrotating : 0;
    GPU_TRY(cudaMalloc(&st->field_slab, (size_t)(nfields + st->npad) * m * sizeof(real)), err);
    int place = 0;
    for (int k = 0; k < nfields; ++k)
        if (!p->transient[k])
            st->f[k] = st->field_slab + (size_t)place++ * m;
    for (int q = 0; q < st->npad; ++q)
        st->pad[q] = st->field_slab + (size_t)place++ * m;
    for (int k = 0; k < nfields; ++k)
        if (p->transient[k])
            st->f[k] = st->field_slab + (size_t)place++ * m;
    GPU_TRY(cudaMalloc(&st->id, m * sizeof(int32_t)), err);
    GPU_TRY(cudaMalloc(&st->type, m), err);
    GPU_TRY(cudaMalloc(&st->tag, m), err);
    GPU_TRY(cudaMalloc(&st->cell, m * sizeof(int32_t)), err);
    if (st->order_field < 0)
        GPU_TRY(cudaMalloc(&st->order, m * sizeof(int32_t)), err);
    st->cap = n;
    st->nfields = nfields;
    return SL_OK;
}

static int create_state(sim *s, sl_err *err)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        snprintf(err->msg, sizeof err->msg, "--backend cuda: no CUDA device is available (accepted: cpu)");
        return SL_ERR_INPUT;
    }
    cuda_sim *st = (cuda_sim *)calloc(1, sizeof *st);
    if (!st) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return SL_ERR_RUNTIME;
    }
    s->backend_data = st;
    cudaDeviceProp prop;
    GPU_TRY(cudaGetDeviceProperties(&prop, 0), err);
    st->sm_count = prop.multiProcessorCount;
    st->sort = s->sc->gpu_sort == GPU_SORT_NAME_RADIX ? GPU_SORT_RADIX : GPU_SORT_COUNTING;
    st->scan = s->sc->gpu_scan == GPU_SCAN_NAME_BLOCKED ? GPU_SCAN_BLOCKED : GPU_SCAN_CUB;
    st->scan_chosen = s->sc->gpu_scan != GPU_SCAN_NAME_AUTO;
    st->forced_strategy = (int)s->sc->gpu_strategy - 1; /* auto: -1 */
    GPU_TRY(cudaMalloc(&st->cell_start, ((size_t)s->g.ncells + 2) * sizeof(int32_t)), err);
    GPU_TRY(cudaMalloc(&st->counters, 2 * sizeof(int32_t)), err);
    GPU_TRY(cudaEventCreate(&st->ev_start), err);
    GPU_TRY(cudaEventCreate(&st->ev_stop), err);
    return SL_OK;
}

/* Host -> device: every field, id, type, tag. */
static int cuda_to_device(sim *s, sl_err *err)
{
    int rc;
    if (!state_of(s) && (rc = create_state(s, err)))
        return rc;
    cuda_sim *st = state_of(s);
    const particles *p = &s->p;
    if (p->n > st->cap || p->nfields != st->nfields)
        if ((rc = alloc_arrays(st, p, err)))
            return rc;
    for (int k = 0; k < p->nfields; ++k)
        GPU_TRY(cudaMemcpy(st->f[k], p->f[k], p->n * sizeof(real), cudaMemcpyHostToDevice), err);
    GPU_TRY(cudaMemcpy(st->id, p->id, p->n * sizeof(int32_t), cudaMemcpyHostToDevice), err);
    GPU_TRY(cudaMemcpy(st->type, p->type, p->n, cudaMemcpyHostToDevice), err);
    GPU_TRY(cudaMemcpy(st->tag, p->tag, p->n, cudaMemcpyHostToDevice), err);
    st->host_current = 1;
    return SL_OK;
}

/* Device -> host: the particles and the neighbour grid (for host code that walks neighbours). */
static int copy_to_host(sim *s, sl_err *err)
{
    cuda_sim *st = state_of(s);
    if (!st || st->host_current)
        return SL_OK;
    particles *p = &s->p;
    for (int k = 0; k < p->nfields; ++k)
        GPU_TRY(cudaMemcpy(p->f[k], st->f[k], p->n * sizeof(real), cudaMemcpyDeviceToHost), err);
    GPU_TRY(cudaMemcpy(p->id, st->id, p->n * sizeof(int32_t), cudaMemcpyDeviceToHost), err);
    GPU_TRY(cudaMemcpy(p->type, st->type, p->n, cudaMemcpyDeviceToHost), err);
    GPU_TRY(cudaMemcpy(p->tag, st->tag, p->n, cudaMemcpyDeviceToHost), err);
    int rc = nbr_grid_reserve(&s->g, p->n, err);
    if (rc)
        return rc;
    GPU_TRY(cudaMemcpy(s->g.cell_start, st->cell_start, ((size_t)s->g.ncells + 2) * sizeof(int32_t),
                       cudaMemcpyDeviceToHost), err);
    GPU_TRY(cudaMemcpy(s->g.cell, st->cell, p->n * sizeof(int32_t), cudaMemcpyDeviceToHost), err);
    s->g.view.cell = s->g.cell;
    st->host_current = 1;
    return SL_OK;
}

static void cuda_to_host(sim *s)
{
    sl_err err;
    if (copy_to_host(s, &err))
        remember_error(s, &err);
}

static void cuda_release(sim *s)
{
    cuda_sim *st = state_of(s);
    if (!st)
        return;
    free_arrays(st);
    cudaFree(st->cell_start);
    cudaFree(st->counters);
    gpu_scratch_free(&st->scratch);
    cudaEventDestroy(st->ev_start);
    cudaEventDestroy(st->ev_stop);
    free(st);
    s->backend_data = NULL;
}

/* The context the kernels run with: device arrays, host numbers. */
static pass_ctx device_ctx(const sim *s)
{
    const cuda_sim *st = state_of(s);
    pass_ctx c;
    memset(&c, 0, sizeof c);
    c.P = s->P;
    c.nb = s->g.view;
    c.nb.cell_start = st->cell_start;
    c.nb.cell = st->cell;
    for (int k = 0; k < st->nfields; ++k)
        c.f[k] = st->f[k];
    c.type = st->type;
    c.tag = st->tag;
    c.a = s->args;
    return c;
}

static launch_geom geometry(const sim *s)
{
    const cuda_sim *st = state_of(s);
    launch_geom g;
    g.dim = s->g.dim;
    g.ndiv = s->g.ndiv;
    for (int a = 0; a < 3; ++a) {
        g.interior[a] = s->g.interior[a];
        g.nc[a] = s->g.nc[a];
    }
    g.n = (int32_t)s->g.n_inside;
    g.max_per_cell = st->max_per_cell;
    g.sm_count = st->sm_count;
    g.reproducible = st->sort == GPU_SORT_RADIX;
    return g;
}

/* ---- timing --------------------------------------------------------------------------------- */

static void timer_start(sim *s)
{
    if (s->prof.enabled)
        cudaEventRecord(state_of(s)->ev_start);
}

static void timer_stop(sim *s, const char *phase, const char *detail)
{
    if (!s->prof.enabled)
        return;
    cuda_sim *st = state_of(s);
    float ms = 0;
    cudaEventRecord(st->ev_stop);
    cudaEventSynchronize(st->ev_stop);
    cudaEventElapsedTime(&ms, st->ev_start, st->ev_stop);
    profile_add(&s->prof, phase, detail, 1e-3 * ms);
}

/* ---- binning -------------------------------------------------------------------------------- */

__global__ void k_cell_of(nbr_grid g, const real *x, const real *y, const real *z, int32_t *cell, int32_t n)
{
    int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        cell[i] = nbr_cell_of(&g, x[i], y[i], z[i]);
}

/* counters[0] = particles inside (cell_start[ncells]); counters[1] = most particles in a cell. */
__global__ void k_cell_stats(const int32_t *cell_start, int64_t ncells, int32_t *counters)
{
    int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c == 0)
        counters[0] = cell_start[ncells];
    if (c < ncells) {
        int32_t k = cell_start[c + 1] - cell_start[c];
        if (k > 0)
            atomicMax(&counters[1], k);
    }
}

/* Runs launch(arg) `reps` times between events and gives the fastest time after the first (a
 * warm-up), in ms: how the automatic choices of scan and strategy measure. */
static int time_best_of(cuda_sim *st, int reps, int (*launch)(void *arg, sl_err *err), void *arg, float *best,
                        sl_err *err)
{
    *best = INFINITY;
    for (int rep = 0; rep < reps; ++rep) {
        GPU_TRY(cudaEventRecord(st->ev_start), err);
        int rc = launch(arg, err);
        if (rc)
            return rc;
        GPU_TRY(cudaEventRecord(st->ev_stop), err);
        GPU_TRY(cudaEventSynchronize(st->ev_stop), err);
        float ms;
        GPU_TRY(cudaEventElapsedTime(&ms, st->ev_start, st->ev_stop), err);
        if (rep > 0 && ms < *best)
            *best = ms;
    }
    return SL_OK;
}

typedef struct scan_trial {
    cuda_sim *st;
    size_t n;
    gpu_scan_kind kind;
} scan_trial;

static int launch_scan_trial(void *arg, sl_err *err)
{
    scan_trial *t = (scan_trial *)arg;
    return gpu_exclusive_scan_i32(t->st->cell_start, t->st->cell_start, t->n, t->kind, &t->st->scratch, err);
}

/* auto scan: time both on the live cell count once and keep the faster. */
static int choose_scan(sim *s, sl_err *err)
{
    cuda_sim *st = state_of(s);
    if (st->scan_chosen)
        return SL_OK;
    float best = INFINITY;
    gpu_scan_kind kinds[2] = {GPU_SCAN_BLOCKED, GPU_SCAN_CUB};
    for (int k = 0; k < 2; ++k) {
        scan_trial trial = {st, (size_t)s->g.ncells + 2, kinds[k]};
        float ms;
        int rc = time_best_of(st, 4, launch_scan_trial, &trial, &ms, err);
        if (rc)
            return rc;
        if (ms < best) {
            best = ms;
            st->scan = kinds[k];
        }
    }
    st->scan_chosen = 1;
    return SL_OK;
}

/* cell[i] of every particle from its position (before the sort: the keys; after the reorder: the
 * cells of the sorted particles). */
static int compute_cells(sim *s, sl_err *err)
{
    cuda_sim *st = state_of(s);
    size_t n = s->p.n;
    if (n > 0) {
        k_cell_of<<<(unsigned)((n + 255) / 256), 256>>>(s->g, st->f[PF_X], st->f[PF_Y], st->f[PF_Z], st->cell,
                                                       (int32_t)n);
        GPU_LAUNCHED("cell_of", err);
    }
    return SL_OK;
}

/* The particle arrays in the sort's order. The persistent fields (and the spare arrays after them)
 * go over in batches as wide as the rotating arrays (alloc_arrays), each batch into the arrays that
 * are free at that point, which are first the rotating fields' and then those the batch before
 * left; the last batch's leave the rotating fields their new arrays. A spare array's contents are
 * not moved, only its place. Without rotating fields the batches are of one field and the scratch
 * is the first free array; the first field, which landed there, moves to the last freed array, one
 * copy.
 * Identities, kinds and tags go through the scratch. */
static int reorder_fields(sim *s, const int32_t *order, sl_err *err)
{
    cuda_sim *st = state_of(s);
    size_t n = s->p.n;
    int rc;
    const size_t id_bytes = sizeof(int32_t) + 2 * sizeof(uint8_t);
    if ((rc = gpu_scratch_reserve(&st->scratch, n * (sizeof(real) > id_bytes ? sizeof(real) : id_bytes), err)))
        return rc;
    real *const tmp = (real *)st->scratch.ptr;
    /* the ring's order: the persistent fields in field order, then the spare arrays */
    real **ring[PF_MAX + GPU_GATHER_MAX_FIELDS];
    int len = 0;
    for (int k = 0; k < st->nfields; ++k)
        if (!s->p.transient[k])
            ring[len++] = &st->f[k];
    const int persistent = len; /* ring[k] for k >= persistent: spares, whose contents do not move */
    for (int q = 0; q < st->npad; ++q)
        ring[len++] = &st->pad[q];
    real *spare[2 * GPU_GATHER_MAX_FIELDS + PF_MAX]; /* a queue: taken at head, handed in at tail */
    int head = 0, tail = 0;
    const int width = st->nrotating > 0 ? st->nrotating : 1;
    for (int r = 0; r < st->nrotating; ++r)
        spare[tail++] = st->f[st->rotating[r]];
    if (!st->nrotating)
        spare[tail++] = tmp;
    for (int b = 0; b < len; b += width) {
        const int count = len - b < width ? len - b : width;
        const real *src[GPU_GATHER_MAX_FIELDS];
        real *dst[GPU_GATHER_MAX_FIELDS], *to[GPU_GATHER_MAX_FIELDS];
        int gathered = 0;
        for (int q = 0; q < count; ++q) {
            to[q] = spare[head++];
            if (b + q < persistent) {
                src[gathered] = *ring[b + q];
                dst[gathered++] = to[q];
            }
        }
        if (gathered && (rc = gpu_gather_reals(src, dst, gathered, order, n, err)))
            return rc;
        for (int q = 0; q < count; ++q) {
            spare[tail++] = *ring[b + q];
            *ring[b + q] = to[q];
        }
    }
    for (int r = 0; r < st->nrotating; ++r)
        st->f[st->rotating[r]] = spare[head++];
    if (!st->nrotating && persistent > 0) { /* the first field, batch 0, lies in the scratch */
        GPU_TRY(cudaMemcpyAsync(spare[head], tmp, n * sizeof(real), cudaMemcpyDeviceToDevice), err);
        *ring[0] = spare[head];
    }
    int32_t *id_out = (int32_t *)tmp;
    uint8_t *type_out = (uint8_t *)(id_out + n), *tag_out = type_out + n;
    if ((rc = gpu_gather_ids(st->id, st->type, st->tag, id_out, type_out, tag_out, order, n, err)))
        return rc;
    GPU_TRY(cudaMemcpyAsync(st->id, id_out, n * sizeof(int32_t), cudaMemcpyDeviceToDevice), err);
    GPU_TRY(cudaMemcpyAsync(st->type, type_out, n, cudaMemcpyDeviceToDevice), err);
    GPU_TRY(cudaMemcpyAsync(st->tag, tag_out, n, cudaMemcpyDeviceToDevice), err);
    return SL_OK;
}

static int cuda_build_cells(sim *s, sl_err *err)
{
    int rc;
    if (!state_of(s) && (rc = cuda_to_device(s, err)))
        return rc;
    cuda_sim *st = state_of(s);
    GPU_TRY(cudaGetLastError(), err); /* a launch that failed since the last check */
    if ((rc = choose_scan(s, err)))
        return rc;
    size_t n = s->p.n;
    int32_t *order = st->order_field >= 0 ? (int32_t *)st->f[st->order_field] : st->order;
    timer_start(s);
    if ((rc = compute_cells(s, err)))
        return rc;
    if ((rc = gpu_sort_keys(st->cell, n, (size_t)s->g.ncells + 1, st->sort, st->scan, order,
                            NULL, st->cell_start, &st->scratch, err)))
        return rc;
    timer_stop(s, "build.sort", st->sort == GPU_SORT_RADIX ? "radix" : st->scan == GPU_SCAN_CUB ? "counting+cub" : "counting+blocked");
    timer_start(s);
    if ((rc = reorder_fields(s, order, err)))
        return rc;
    /* the cells of the sorted particles from their sorted positions: the same function of the same
     * values as the keys, so no second cell array is kept for the sort's sorted keys */
    if ((rc = compute_cells(s, err)))
        return rc;
    timer_stop(s, "build.reorder", NULL);

    GPU_TRY(cudaMemsetAsync(st->counters, 0, 2 * sizeof(int32_t)), err);
    int64_t nc = s->g.ncells;
    k_cell_stats<<<(unsigned)((nc + 255) / 256), 256>>>(st->cell_start, nc, st->counters);
    GPU_LAUNCHED("cell_stats", err);
    int32_t counters[2];
    GPU_TRY(cudaMemcpy(counters, st->counters, sizeof counters, cudaMemcpyDeviceToHost), err);
    s->g.n_inside = (size_t)counters[0];
    st->max_per_cell = counters[1];
    st->host_current = 0;
    return SL_OK;
}

/* ---- passes ----------------------------------------------------------------------------------- */

static pass_choice *choice_for(cuda_sim *st, int id)
{
    for (int k = 0; k < st->nchoices; ++k)
        if (st->choice[k].id == id)
            return &st->choice[k];
    if (st->nchoices == MAX_PASSES)
        return NULL;
    pass_choice *c = &st->choice[st->nchoices++];
    c->id = id;
    c->strategy = -1;
    c->chosen_at_max_per_cell = 0;
    return c;
}

typedef struct pass_trial {
    const pass_ctx *c;
    const launch_geom *g;
    int pass_id, strategy;
    int32_t n;
    gpu_scratch *work;
} pass_trial;

static int launch_pass_trial(void *arg, sl_err *err)
{
    pass_trial *t = (pass_trial *)arg;
    return gpu_launch_pass(t->pass_id, t->strategy, t->c, t->n, t->g, t->work, err);
}

/* Times every valid strategy on the live state (the pass is repeatable) and keeps the fastest. */
static int measure(sim *s, const pass *ps, size_t n, pass_choice *ch, sl_err *err)
{
    cuda_sim *st = state_of(s);
    pass_ctx c = device_ctx(s);
    launch_geom g = geometry(s);
    float best = INFINITY;
    int first = ch->strategy < 0;
    char line[256] = "";
    int used = 0;
    for (int k = 0; k < GS_COUNT; ++k) {
        if (!gpu_strategy_valid(ps->id, k, (int32_t)n, &g))
            continue;
        pass_trial trial = {&c, &g, ps->id, k, (int32_t)n, &st->scratch};
        float t;
        int rc = time_best_of(st, 3, launch_pass_trial, &trial, &t, err);
        if (rc)
            return rc;
        if (used < (int)sizeof line)
            used += snprintf(line + used, sizeof line - (size_t)used, " %s %.3f ms", gpu_strategy_label(k), t);
        if (t < best) {
            best = t;
            ch->strategy = k;
        }
    }
    ch->chosen_at_max_per_cell = st->max_per_cell;
    /* a strategy timed and not kept (par-part-sym in double) may have grown the scratch: give it
     * back, and let the next user reserve what it needs */
    gpu_scratch_free(&st->scratch);
    if (first && !s->quiet && getenv("SLUICE_QUIET_STRATEGIES") == NULL)
        fprintf(stderr, "sluice: strategy for %s (%zu particles, at most %d per cell):%s -> %s\n", ps->name, n,
                st->max_per_cell, line, gpu_strategy_label(ch->strategy));
    return SL_OK;
}

static int run_pass_checked(sim *s, const pass *ps, size_t n, sl_err *err)
{
    cuda_sim *st = state_of(s);
    launch_geom g = geometry(s);
    int strategy = GS_PAR_PART;
    if (st->forced_strategy >= 0 && gpu_strategy_valid(ps->id, st->forced_strategy, (int32_t)n, &g)) {
        strategy = st->forced_strategy;
    } else if (st->forced_strategy < 0 && (ps->flags & PASS_NEIGHBOURS)) {
        pass_choice *ch = choice_for(st, ps->id);
        if (ch && (ps->flags & PASS_REPEATABLE)) {
            int grown = ch->chosen_at_max_per_cell > 0 &&
                        fabs((double)st->max_per_cell - ch->chosen_at_max_per_cell) >
                            0.25 * ch->chosen_at_max_per_cell;
            if (ch->strategy < 0 || grown || !gpu_strategy_valid(ps->id, ch->strategy, (int32_t)n, &g)) {
                int rc = measure(s, ps, n, ch, err);
                if (rc)
                    return rc;
            }
            strategy = ch->strategy;
        } else if (ch && ch->strategy >= 0 && gpu_strategy_valid(ps->id, ch->strategy, (int32_t)n, &g)) {
            strategy = ch->strategy;
        }
    }
    pass_ctx c = device_ctx(s);
    timer_start(s);
    int rc = gpu_launch_pass(ps->id, strategy, &c, (int32_t)n, &g, &st->scratch, err);
    timer_stop(s, ps->name, gpu_strategy_label(strategy));
    st->host_current = 0;
    return rc;
}

static void cuda_run_pass(sim *s, const pass *ps, size_t n)
{
    sl_err err;
    if (run_pass_checked(s, ps, n, &err))
        remember_error(s, &err);
}

static double cuda_reduce(sim *s, enum reduce_op op, int a, int b, size_t n)
{
    cuda_sim *st = state_of(s);
    double result;
    sl_err err;
    timer_start(s);
    int rc = gpu_reduce_real((int)op, st->f[a], op == REDUCE_DOT ? st->f[b] : NULL, n, &result, &st->scratch, &err);
    timer_stop(s, "reduce", NULL);
    if (rc) {
        remember_error(s, &err);
        return NAN;
    }
    return result;
}

/* ---- conjugate gradients: the CPU solver's arithmetic, fused kernels (gpu_cg.h) --------------- */

static int cg_solve_checked(sim *s, cg_problem *cg, sl_err *err)
{
    cuda_sim *st = state_of(s);
    real *x = st->f[cg->x], *b = st->f[cg->b], *diag = st->f[cg->diag];
    real *r = st->f[cg->r], *z = st->f[cg->z], *d = st->f[cg->d], *q = st->f[cg->q];
    size_t n = cg->n;
    int rc;
    cg->iterations = 0;
    cg->converged = 0;
    s->args.in = cg->x;
    s->args.out = cg->q;
    if ((rc = run_pass_checked(s, cg->matvec, n, err)))
        return rc;
    double dots[3];
    if ((rc = gpu_cg_init(x, b, q, diag, r, z, d, n, dots, &st->scratch, err)))
        return rc;
    double bnorm = sqrt(dots[0]), rz = dots[1], rnorm = sqrt(dots[2]);
    if (bnorm == 0) {
        GPU_TRY(cudaMemset(x, 0, n * sizeof(real)), err); /* A x = 0 has the solution 0 */
        cg->residual = 0;
        cg->converged = 1;
        return SL_OK;
    }
    cg->residual = rnorm / bnorm;
    while (cg->residual > cg->tolerance && cg->iterations < cg->max_iterations) {
        s->args.in = cg->d;
        s->args.out = cg->q;
        if ((rc = run_pass_checked(s, cg->matvec, n, err)))
            return rc;
        double dq;
        if ((rc = gpu_reduce_real(REDUCE_DOT, d, q, n, &dq, &st->scratch, err)))
            return rc;
        if (!(dq > 0))
            break; /* A is not positive definite on d (or d = 0): no progress possible */
        double alpha = rz / dq, up[2];
        if ((rc = gpu_cg_update(alpha, x, r, z, d, q, diag, n, up, &st->scratch, err)))
            return rc;
        cg->iterations++;
        cg->residual = sqrt(up[1]) / bnorm;
        double beta = up[0] / rz;
        rz = up[0];
        if ((rc = gpu_cg_direction(beta, z, d, n, err)))
            return rc;
    }
    cg->converged = cg->residual <= cg->tolerance;
    return SL_OK;
}

static void cuda_cg_solve(sim *s, cg_problem *cg)
{
    sl_err err;
    double t0 = s->prof.enabled ? profile_now() : 0;
    if (cg_solve_checked(s, cg, &err)) {
        remember_error(s, &err);
        cg->converged = 0;
        cg->residual = NAN;
    }
    if (s->prof.enabled)
        profile_add(&s->prof, "cg.total", NULL, profile_now() - t0);
}

/* ---- what the rest of the program sees --------------------------------------------------------- */

extern "C" size_t cuda_device_bytes(const sim *s)
{
    const cuda_sim *st = state_of(s);
    if (!st)
        return 0;
    size_t per = (size_t)(st->nfields + st->npad) * sizeof(real) + sizeof(int32_t) + 2 + sizeof(int32_t) +
                 (st->order ? sizeof(int32_t) : 0);
    return st->cap * per + ((size_t)s->g.ncells + 2) * sizeof(int32_t) + st->scratch.bytes;
}

/* backend.take_error: the first error remember_error kept since the last call */
static int cuda_take_error(sim *s, sl_err *err)
{
    cuda_sim *st = state_of(s);
    if (!st || !st->last_error[0])
        return SL_OK;
    snprintf(err->msg, sizeof err->msg, "%s", st->last_error);
    st->last_error[0] = '\0';
    return SL_ERR_RUNTIME;
}

extern "C" const char *cuda_strategy_label(int strategy)
{
    return gpu_strategy_label(strategy);
}

extern "C" int cuda_strategy_valid(sim *s, int pass_id, int strategy)
{
    launch_geom g = geometry(s);
    return gpu_strategy_valid(pass_id, strategy, g.n, &g);
}

extern "C" int cuda_run_pass_strategy(sim *s, int pass_id, int strategy, sl_err *err)
{
    pass_ctx c = device_ctx(s);
    launch_geom g = geometry(s);
    state_of(s)->host_current = 0;
    int rc = gpu_launch_pass(pass_id, strategy, &c, g.n, &g, &state_of(s)->scratch, err);
    if (rc == SL_OK)
        GPU_TRY(cudaDeviceSynchronize(), err);
    return rc;
}

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

extern "C" int cuda_time_pass(sim *s, int pass_id, int strategy, int warmup, int reps, double *median_ms, sl_err *err)
{
    cuda_sim *st = state_of(s);
    pass_ctx c = device_ctx(s);
    launch_geom g = geometry(s);
    st->host_current = 0;
    int rc;
    for (int k = 0; k < warmup; ++k)
        if ((rc = gpu_launch_pass(pass_id, strategy, &c, g.n, &g, &state_of(s)->scratch, err)))
            return rc;
    float times[64];
    if (reps < 1)
        reps = 1;
    if (reps > 64)
        reps = 64;
    for (int k = 0; k < reps; ++k) {
        GPU_TRY(cudaEventRecord(st->ev_start), err);
        if ((rc = gpu_launch_pass(pass_id, strategy, &c, g.n, &g, &state_of(s)->scratch, err)))
            return rc;
        GPU_TRY(cudaEventRecord(st->ev_stop), err);
        GPU_TRY(cudaEventSynchronize(st->ev_stop), err);
        GPU_TRY(cudaEventElapsedTime(&times[k], st->ev_start, st->ev_stop), err);
    }
    qsort(times, (size_t)reps, sizeof times[0], compare_float);
    *median_ms = reps % 2 ? times[reps / 2] : 0.5 * ((double)times[reps / 2 - 1] + times[reps / 2]);
    return SL_OK;
}

extern "C" int cuda_pass_oracle(sim *s, int pass_id, sl_err *err)
{
    pass_ctx c = device_ctx(s);
    state_of(s)->host_current = 0;
    int rc = gpu_pass_all_pairs(pass_id, &c, (int32_t)s->g.n_inside, err);
    if (rc == SL_OK)
        GPU_TRY(cudaDeviceSynchronize(), err);
    return rc;
}

extern "C" int cuda_device_present(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count > 0;
}

/* The viewer's CUDA-OpenGL path reads the particles where they are. */
static int cuda_device_view(sim *s, backend_device_view *out)
{
    const cuda_sim *st = state_of(s);
    if (!st)
        return 0;
    for (int k = 0; k < 8; ++k)
        out->field[k] = st->f[PF_X + k];
    out->type = st->type;
    out->n = s->p.n;
    return 1;
}

/* The grid (scene group `grid`) is spread where the particles are (p2m_cuda.cu), then its sums and
 * fields are copied into the host arrays that the snapshot writer reads. */
static int cuda_p2m_spread(const sim *s, p2m_grid *g, int method, sl_err *err)
{
    const cuda_sim *st = state_of(s);
    if (!st) /* nothing on the device yet: the host arrays are the state */
        return p2m_spread(g, &s->p, s->P.mass, method, err);
    p2m_cuda_input in = {st->f[PF_X], st->f[PF_Y], st->f[PF_Z], st->f[PF_VX], st->f[PF_VY], st->f[PF_VZ],
                         st->f[PF_P], st->type, s->p.n, s->P.mass};
    int rc = p2m_cuda_spread(g, &in, method, err);
    return rc ? rc : p2m_cuda_to_host(g, err);
}

/* C++ has designated initializers only from C++20: the order is that of struct backend. */
extern "C" const backend backend_cuda = {
    "cuda",
    cuda_build_cells,
    cuda_run_pass,
    cuda_reduce,
    cuda_cg_solve,
    cuda_to_host,
    cuda_to_device,
    cuda_device_view,
    cuda_p2m_spread,
    cuda_release,
    cuda_take_error,
};
