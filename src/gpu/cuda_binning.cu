/* cuda_binning.cu: the CUDA backend's build_cells: cells of the particles, the sort, the reorder. */
#include "cuda_state.h"

#include "gpu_check.h"

#include <math.h>

/* Each particle's key (nbr_sort_key: its cell, or the parked ghosts' key); positions that left
 * across a periodic seam are folded back first. */
__global__ void k_cell_of(nbr_grid g, real *x, real *y, real *z, const int32_t *id, int32_t *cell, int32_t n)
{
    int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    if (g.view.periodic)
        nbr_fold_position(&g.view, &x[i], &y[i], &z[i]);
    cell[i] = nbr_sort_key(&g, x[i], y[i], z[i], id[i]);
}

/* counters[0] = particles inside (cell_start[ncells]); counters[1] = most particles in a cell;
 * counters[2] = the particles before the parked ghosts' key (cell_start[ncells + 1]). */
__global__ void k_cell_stats(const int32_t *cell_start, int64_t ncells, int32_t *counters)
{
    int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c == 0) {
        counters[0] = cell_start[ncells];
        counters[2] = cell_start[ncells + 1];
    }
    if (c < ncells) {
        int32_t k = cell_start[c + 1] - cell_start[c];
        if (k > 0)
            atomicMax(&counters[1], k);
    }
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
    /* the trials scan cell_start in place before any sort has written it: give it defined contents
     * (compute-sanitizer initcheck reported every element of the first trial as uninitialised) */
    GPU_TRY(cudaMemset(st->cell_start, 0, ((size_t)s->g.ncells + 3) * sizeof(int32_t)), err);
    gpu_scan_kind kinds[2] = {GPU_SCAN_BLOCKED, GPU_SCAN_CUB};
    for (int k = 0; k < 2; ++k) {
        scan_trial trial = {st, (size_t)s->g.ncells + 3, kinds[k]};
        float ms;
        int rc = cuda_time_best_of(st, 4, launch_scan_trial, &trial, &ms, err);
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
 * cells of the sorted particles, no parked ghost among them). */
static int compute_cells(sim *s, sl_err *err)
{
    cuda_sim *st = state_of(s);
    size_t n = s->p.n;
    if (n > 0) {
        k_cell_of<<<(unsigned)((n + 255) / 256), 256>>>(s->g, st->f[PF_X], st->f[PF_Y], st->f[PF_Z], st->id,
                                                       st->cell, (int32_t)n);
        GPU_LAUNCHED("cell_of", err);
    }
    return SL_OK;
}

/* The particle arrays in the sort's order. The persistent fields (and the spare arrays after them)
 * go over in batches as wide as the rotating arrays (alloc_arrays), each batch into the arrays that
 * are free at that point, which are first the rotating ones and then those the batch before left;
 * the last batch's leave the rotating fields their new arrays. A
 * spare array's contents are not moved, only its place. With neither the batches are of one field
 * and the scratch is the first free array; the first field, which landed there, moves to the last
 * freed array, one copy.
 * Identities, kinds and tags go through the scratch. */
int cuda_reorder_fields(sim *s, const int32_t *order, size_t n, sl_err *err)
{
    cuda_sim *st = state_of(s);
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
    const int spares = st->nrotating, width = spares > 0 ? spares : 1;
    for (int r = 0; r < st->nrotating; ++r)
        spare[tail++] = st->f[st->rotating[r]];
    if (!spares)
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
    if (!spares && persistent > 0) { /* the first field, batch 0, lies in the scratch */
        GPU_TRY(cudaMemcpyAsync(spare[head], tmp, n * sizeof(real), cudaMemcpyDeviceToDevice), err);
        *ring[0] = spare[head];
    }
    return cuda_reorder_ids(s, order, n, err);
}

int cuda_reorder_ids(sim *s, const int32_t *order, size_t n, sl_err *err)
{
    cuda_sim *st = state_of(s);
    const size_t id_bytes = sizeof(int32_t) + 2 * sizeof(uint8_t);
    int rc;
    if (n == 0)
        return SL_OK;
    if ((rc = gpu_scratch_reserve(&st->scratch, n * id_bytes, err)))
        return rc;
    int32_t *id_out = (int32_t *)st->scratch.ptr;
    uint8_t *type_out = (uint8_t *)(id_out + n), *tag_out = type_out + n;
    if ((rc = gpu_gather_ids(st->id, st->type, st->tag, id_out, type_out, tag_out, order, n, err)))
        return rc;
    GPU_TRY(cudaMemcpyAsync(st->id, id_out, n * sizeof(int32_t), cudaMemcpyDeviceToDevice), err);
    GPU_TRY(cudaMemcpyAsync(st->type, type_out, n, cudaMemcpyDeviceToDevice), err);
    GPU_TRY(cudaMemcpyAsync(st->tag, tag_out, n, cudaMemcpyDeviceToDevice), err);
    return SL_OK;
}

int cuda_build_cells(sim *s, sl_err *err)
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
    cuda_timer_start(s);
    if ((rc = compute_cells(s, err)))
        return rc;
    /* the cells, the sink and the parked ghosts' key (nbr_sort_key) */
    if ((rc = gpu_sort_keys(st->cell, n, (size_t)s->g.ncells + 2, st->sort, st->scan, order,
                            NULL, st->cell_start, &st->scratch, err)))
        return rc;
    cuda_timer_stop(s, "build.sort", st->sort == GPU_SORT_RADIX ? "radix" : st->scan == GPU_SCAN_CUB ? "counting+cub" : "counting+blocked");
    cuda_timer_start(s);
    /* the parked ghosts, sorted last, are not reordered: dropped (their count is the caller's, so
     * nothing waits for the sort; the stats below check it) */
    if (s->g.parked > n)
        return gpu_fail_input(err, "CUDA backend: %zu ghosts parked among %zu particles", s->g.parked, n);
    st->sorted_from = n;
    s->p.n = n = n - s->g.parked;
    if ((rc = cuda_reorder_fields(s, order, n, err)))
        return rc;
    /* the cells of the sorted particles from their sorted positions: the same function of the same
     * values as the keys, so no second cell array is kept for the sort's sorted keys */
    if ((rc = compute_cells(s, err)))
        return rc;
    cuda_timer_stop(s, "build.reorder", NULL);

    GPU_TRY(cudaMemsetAsync(st->counters, 0, 3 * sizeof(int32_t)), err);
    int64_t nc = s->g.ncells;
    k_cell_stats<<<(unsigned)((nc + 255) / 256), 256>>>(st->cell_start, nc, st->counters);
    GPU_LAUNCHED("cell_stats", err);
    int32_t counters[3];
    GPU_TRY(cudaMemcpy(counters, st->counters, sizeof counters, cudaMemcpyDeviceToHost), err);
    if ((size_t)counters[2] != n)
        return gpu_fail_input(err, "CUDA backend: the sort found %zu parked ghosts where %zu were parked",
                              st->sorted_from - (size_t)counters[2], s->g.parked);
    s->g.parked = 0;
    s->g.n_inside = (size_t)counters[0];
    st->max_per_cell = counters[1];
    st->host_current = 0;
    return SL_OK;
}
