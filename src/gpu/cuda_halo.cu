/* cuda_halo.cu: the CUDA backend's halo hooks (backend.halo, parallel/mpi_halo.c): a few fields at
 * a list of particles gathered into a staging buffer on the device and copied to the host in one
 * copy, or copied up and scattered; the ghosts dropped, and the migration's leavers removed, by a
 * stable compaction on the device; the records of the particles to send fetched and the arrivals
 * appended through the same staging; the movers and the bands chosen by slab_rule.h's rule where
 * the particles are; the halo's plan followed through the sort by its permutation. Only the bands'
 * and the movers' values and places cross the bus, never whole arrays; a balance's histogram is
 * counted here too. */
#include "cuda_state.h"

#include "gpu_check.h"
#include "gpu_sort.h"

#include <stdlib.h>
#include <string.h>

namespace {

/* One call's arrays: f[j] for field j of the call, NULL for the tag (BACKEND_FIELD_TAG). */
struct halo_arrays {
    real *f[PF_MAX + 1];
    uint8_t *tag;
    int nf;
};

/* A thread per value: v is particle by particle, so the writes (gather) and reads (scatter) of the
 * staging buffer are coalesced; the particles' are scattered over the band's cells. */
__global__ void k_halo_gather(const __grid_constant__ halo_arrays a, const int32_t *__restrict__ idx, size_t n,
                              real *__restrict__ v)
{
    const size_t total = n * (size_t)a.nf, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
        const int32_t i = idx[e / a.nf];
        const real *f = a.f[e % a.nf];
        v[e] = f ? f[i] : (real)a.tag[i];
    }
}

/* idx names no particle twice (backend.h), so no two threads write one value. */
__global__ void k_halo_scatter(const __grid_constant__ halo_arrays a, const int32_t *__restrict__ idx, size_t n,
                               const real *__restrict__ v, int op, real fill)
{
    const size_t total = n * (size_t)a.nf, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
        const int32_t i = idx[e / a.nf];
        real *f = a.f[e % a.nf];
        const real x = op == HALO_ZERO ? (real)0 : op == HALO_FILL ? fill : v[e];
        if (!f)
            a.tag[i] = (uint8_t)x;
        else if (op == HALO_ADD)
            f[i] += x;
        else
            f[i] = x;
    }
}

/* keep[i] = (id[i] >= 0) for i < n and 0 at n, scanned afterwards into each kept particle's place
 * (the count at n). */
__global__ void k_keep(const int32_t *__restrict__ id, int32_t *__restrict__ keep, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += stride)
        keep[i] = i < n && id[i] >= 0;
}

/* keep[i] = 1 for i < n and 0 at n; then 0 at the listed particles (k_unkeep). */
__global__ void k_keep_all(int32_t *__restrict__ keep, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += stride)
        keep[i] = i < n;
}

__global__ void k_unkeep(const int32_t *__restrict__ idx, size_t count, int32_t *__restrict__ keep)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride)
        keep[idx[k]] = 0;
}

/* order[place[i]] = i for the kept particles (those whose place the scan advanced): the compaction
 * as a gather, stable since the places rise with i. */
__global__ void k_kept_order(const int32_t *__restrict__ place, int32_t *__restrict__ order, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        if (place[i + 1] > place[i])
            order[place[i]] = (int32_t)i;
}

/* count[i] = how many routes the rule gives particle i, for i < n, and 0 at n: scanned afterwards
 * into each particle's first route (the total at n). */
__global__ void k_slab_count(const slab_rule r, const int *__restrict__ first, const real *__restrict__ x,
                             const int32_t *__restrict__ id, int32_t *__restrict__ count, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += stride) {
        int dest[2];
        count[i] = i < n ? slab_destinations(&r, first, x[i], id[i], dest) : 0;
    }
}

/* count[c] += the particles i < n in column c. The particles are sorted by cell, so a warp's lanes
 * mostly share a column: one atomic for each column a warp holds, into the block's histogram in
 * shared memory (where the columns fit, `local`), then the block's into count. */
__global__ void k_column_counts(const slab_rule r, const real *__restrict__ x, size_t n,
                                unsigned long long *__restrict__ count, int local)
{
    extern __shared__ unsigned int block_count[];
    if (local) {
        for (int c = threadIdx.x; c < r.ncols; c += blockDim.x)
            block_count[c] = 0;
        __syncthreads();
    }
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const int c = slab_column(&r, x[i]);
        const unsigned same = __match_any_sync(__activemask(), c);
        if (c < 0 || (threadIdx.x & 31) != __ffs(same) - 1) /* the lowest lane of each column adds */
            continue;
        if (local)
            atomicAdd(&block_count[c], (unsigned)__popc(same));
        else
            atomicAdd(&count[c], (unsigned long long)__popc(same));
    }
    if (local) {
        __syncthreads();
        for (int c = threadIdx.x; c < r.ncols; c += blockDim.x)
            if (block_count[c])
                atomicAdd(&count[c], (unsigned long long)block_count[c]);
    }
}

/* Each particle's routes at its place: the lists in index order, as the host's loop makes them. */
__global__ void k_slab_routes(const slab_rule r, const int *__restrict__ first, const real *__restrict__ x,
                              const int32_t *__restrict__ id, const int32_t *__restrict__ place, size_t n,
                              int32_t *__restrict__ idx, int *__restrict__ dest_out)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        int dest[2];
        const int k = slab_destinations(&r, first, x[i], id[i], dest);
        for (int j = 0; j < k; ++j) {
            idx[place[i] + j] = (int32_t)i;
            dest_out[place[i] + j] = dest[j];
        }
    }
}

/* A ghost's id as -1 - id (parallel/domain.h). */
__global__ void k_ghost_ids(int32_t *__restrict__ id, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        id[i] = -1 - id[i];
}

/* place[order[j]] = j: where the sort put each particle (order: each place's particle before it). */
__global__ void k_invert(const int32_t *__restrict__ order, int32_t *__restrict__ place, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
        place[order[j]] = (int32_t)j;
}

__global__ void k_map(const int32_t *__restrict__ place, int32_t *__restrict__ list, size_t m)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < m; k += stride)
        list[k] = place[list[k]];
}

/* list[k] = first + k: the slots of the arrivals, in the order they came. */
__global__ void k_slots(int32_t *__restrict__ list, size_t first, size_t m)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < m; k += stride)
        list[k] = (int32_t)(first + k);
}

} // namespace

static int arrays_of(const sim *s, const int *fields, int nf, halo_arrays *a, sl_err *err)
{
    cuda_sim *st = state_of(s);
    if (!st)
        return gpu_fail_input(err, "CUDA backend: the halo's values asked for before the particles reached the device");
    if (nf < 1 || nf > PF_MAX + 1)
        return gpu_fail_input(err, "CUDA backend: %d halo fields (accepted: 1 to %d)", nf, PF_MAX + 1);
    for (int j = 0; j < nf; ++j)
        a->f[j] = fields[j] == BACKEND_FIELD_TAG ? NULL : st->f[fields[j]];
    a->tag = st->tag;
    a->nf = nf;
    return SL_OK;
}

/* One call's arrays, and the staging buffer for its n nf values where it moves any (stage). */
static int prepare(sim *s, const int *fields, int nf, size_t n, int staged, halo_arrays *a, real **stage,
                   sl_err *err)
{
    int rc = arrays_of(s, fields, nf, a, err);
    cuda_sim *st = state_of(s);
    *stage = NULL;
    if (rc || !staged)
        return rc;
    if ((rc = gpu_scratch_reserve(&st->halo_stage, n * (size_t)nf * sizeof(real), err)))
        return rc;
    *stage = (real *)st->halo_stage.ptr;
    return SL_OK;
}

static int cuda_halo_gather(sim *s, const int *fields, int nf, const int32_t *idx, size_t n, real *v, sl_err *err)
{
    halo_arrays a;
    real *stage;
    int rc;
    if (n == 0 || (rc = prepare(s, fields, nf, n, 1, &a, &stage, err)))
        return n == 0 ? SL_OK : rc;
    k_halo_gather<<<gpu_blocks_for(n * (size_t)nf), GPU_THREADS>>>(a, idx, n, stage);
    GPU_LAUNCHED("halo_gather", err);
    GPU_TRY(cudaMemcpy(v, stage, n * (size_t)nf * sizeof(real), cudaMemcpyDefault), err); /* v: host or device */
    return SL_OK;
}

static int cuda_halo_scatter(sim *s, const int *fields, int nf, const int32_t *idx, size_t n, const real *v,
                             enum backend_halo_op op, sl_err *err)
{
    halo_arrays a;
    real *stage;
    int rc;
    const int staged = op == HALO_SET || op == HALO_ADD; /* a value a particle; zero and fill ride the launch */
    if (n == 0 || (rc = prepare(s, fields, nf, n, staged, &a, &stage, err)))
        return n == 0 ? SL_OK : rc;
    /* the copy has left the host buffer when it returns (pageable or page-locked), so the caller may
     * change it; the kernel after it on the same stream reads the copy */
    if (stage)
        GPU_TRY(cudaMemcpy(stage, v, n * (size_t)nf * sizeof(real), cudaMemcpyDefault), err);
    k_halo_scatter<<<gpu_blocks_for(n * (size_t)nf), GPU_THREADS>>>(a, idx, n, stage, (int)op,
                                                                     op == HALO_FILL ? v[0] : (real)0);
    GPU_LAUNCHED("halo_scatter", err);
    state_of(s)->host_current = 0;
    return SL_OK;
}

/* Every real field, then the ids, kinds and tags, gathered along order[0 .. m) through the scratch
 * and copied back in place, so that the arrays keep their places in the slab (cuda_storage.cu). */
static int gather_in_place(sim *s, const int32_t *order, size_t m, sl_err *err)
{
    cuda_sim *st = state_of(s);
    int rc;
    /* room for the ids too, so that cuda_reorder_ids does not replace the scratch that the copies
     * queued here still read */
    const size_t id_bytes = sizeof(int32_t) + 2 * sizeof(uint8_t);
    if ((rc = gpu_scratch_reserve(&st->scratch, m * (sizeof(real) > id_bytes ? sizeof(real) : id_bytes), err)))
        return rc;
    real *tmp = (real *)st->scratch.ptr;
    for (int k = 0; k < st->nfields; ++k) {
        if ((rc = gpu_gather_real(st->f[k], tmp, order, m, err)))
            return rc;
        GPU_TRY(cudaMemcpyAsync(st->f[k], tmp, m * sizeof(real), cudaMemcpyDeviceToDevice), err);
    }
    return cuda_reorder_ids(s, order, m, err);
}

/* The particles whose flag place[i] is set (place: n + 1 ints in st->halo_index, 0 at n) kept in
 * their order; s->p.n and s->g.n_inside follow. keep_rates: every field (transient ones too: the
 * rates a step integrates after the drop) gathered in place (gather_in_place). Otherwise the sort's
 * reorder moves the persistent fields into the transients' arrays and round, one gather each and no
 * copy back (the rates, 5 of WCSPH's 17 fields with Verlet, are not moved at all: about a third of
 * the bytes). The cells are not moved: the next build_cells computes them again. */
static int compact_flagged(sim *s, int32_t *place, int keep_rates, sl_err *err)
{
    cuda_sim *st = state_of(s);
    size_t n = s->p.n;
    int rc;
    int32_t *order = place + n + 1;
    if ((rc = gpu_exclusive_scan_i32(place, place, n + 1, st->scan, &st->scratch, err)))
        return rc;
    k_kept_order<<<gpu_blocks_for(n), GPU_THREADS>>>(place, order, n);
    GPU_LAUNCHED("halo_kept_order", err);
    int32_t kept, inside; /* the kept particles, and those of them in the grid's cells (first) */
    size_t was_inside = s->g.n_inside < n ? s->g.n_inside : n;
    GPU_TRY(cudaMemcpy(&kept, place + n, sizeof kept, cudaMemcpyDeviceToHost), err);
    GPU_TRY(cudaMemcpy(&inside, place + was_inside, sizeof inside, cudaMemcpyDeviceToHost), err);
    size_t m = (size_t)kept;
    if (m > 0 && (rc = keep_rates ? gather_in_place(s, order, m, err) : cuda_reorder_fields(s, order, m, err)))
        return rc;
    s->p.n = m;
    s->g.n_inside = (size_t)inside;
    st->host_current = 0;
    return SL_OK;
}

/* The ghosts (negative ids) dropped by a stable compaction. */
static int cuda_halo_drop(sim *s, int keep_rates, sl_err *err)
{
    cuda_sim *st = state_of(s);
    size_t n = s->p.n;
    if (!st)
        return gpu_fail_input(err, "CUDA backend: ghosts dropped before the particles reached the device");
    if (n == 0)
        return SL_OK;
    int rc;
    if ((rc = gpu_scratch_reserve(&st->halo_index, (2 * n + 1) * sizeof(int32_t), err)))
        return rc;
    int32_t *place = (int32_t *)st->halo_index.ptr;
    k_keep<<<gpu_blocks_for(n + 1), GPU_THREADS>>>(st->id, place, n);
    GPU_LAUNCHED("halo_keep", err);
    return compact_flagged(s, place, keep_rates, err);
}

/* The listed particles (the migration's leavers) removed by the same compaction; the list comes up
 * behind the flags and the order in st->halo_index. */
static int cuda_halo_remove(sim *s, const int32_t *idx, size_t count, sl_err *err)
{
    cuda_sim *st = state_of(s);
    size_t n = s->p.n;
    if (!st)
        return gpu_fail_input(err, "CUDA backend: particles removed before they reached the device");
    if (count == 0 || n == 0)
        return SL_OK;
    int rc;
    if ((rc = gpu_scratch_reserve(&st->halo_index, (2 * n + 1 + count) * sizeof(int32_t), err)))
        return rc;
    int32_t *place = (int32_t *)st->halo_index.ptr, *list = place + 2 * n + 1;
    GPU_TRY(cudaMemcpy(list, idx, count * sizeof *list, cudaMemcpyDefault), err); /* host or device */
    k_keep_all<<<gpu_blocks_for(n + 1), GPU_THREADS>>>(place, n);
    GPU_LAUNCHED("halo_keep_all", err);
    k_unkeep<<<gpu_blocks_for(count), GPU_THREADS>>>(list, count, place);
    GPU_LAUNCHED("halo_unkeep", err);
    return compact_flagged(s, place, 1, err);
}

/* The records of the listed particles: the persistent fields gathered column by column, then the
 * ids, kinds and tags, into the staging buffer in record_columns' layout, and one copy down. */
static int cuda_halo_fetch(sim *s, const int32_t *idx, size_t n, void *cols, int ghost, sl_err *err)
{
    cuda_sim *st = state_of(s);
    if (!st)
        return gpu_fail_input(err, "CUDA backend: particles fetched before they reached the device");
    if (n == 0)
        return SL_OK;
    const particles *p = &s->p;
    int pf[PF_MAX], np = 0;
    for (int k = 0; k < st->nfields; ++k)
        if (!p->transient[k])
            pf[np++] = k;
    const size_t bytes = record_columns_bytes(np, n);
    int rc;
    if ((rc = gpu_scratch_reserve(&st->halo_index, n * sizeof(int32_t), err)) ||
        (rc = gpu_scratch_reserve(&st->halo_stage, bytes, err)))
        return rc;
    int32_t *list = (int32_t *)st->halo_index.ptr;
    record_columns v = record_columns_at(st->halo_stage.ptr, np, n);
    GPU_TRY(cudaMemcpy(list, idx, n * sizeof *list, cudaMemcpyDefault), err); /* host or device */
    for (int j = 0; j < np; ++j)
        if ((rc = gpu_gather_real(st->f[pf[j]], v.f + (size_t)j * n, list, n, err)))
            return rc;
    if ((rc = gpu_gather_ids(st->id, st->type, st->tag, v.id, v.type, v.tag, list, n, err)))
        return rc;
    if (ghost) {
        k_ghost_ids<<<gpu_blocks_for(n), GPU_THREADS>>>(v.id, n);
        GPU_LAUNCHED("ghost_ids", err);
    }
    GPU_TRY(cudaMemcpy(cols, st->halo_stage.ptr, bytes, cudaMemcpyDefault), err); /* host or device */
    return SL_OK;
}

/* The arrivals' columns copied up in one copy, each column to its array behind the device's
 * particles (the arrays grown first, cuda_storage.cu); the transient fields zeroed. */
static int cuda_halo_append(sim *s, const void *cols, size_t n, sl_err *err)
{
    cuda_sim *st = state_of(s);
    particles *p = &s->p;
    if (!st)
        return gpu_fail_input(err, "CUDA backend: particles appended before the others reached the device");
    if (p->nfields != st->nfields)
        return gpu_fail_input(err, "CUDA backend: particles of %d fields appended to %d", p->nfields, st->nfields);
    const size_t first = p->n;
    int rc;
    if ((rc = cuda_reserve(s, first + n, first, err)))
        return rc;
    if (n == 0)
        return SL_OK;
    const int np = record_columns_fields(p);
    const size_t bytes = record_columns_bytes(np, n);
    if ((rc = gpu_scratch_reserve(&st->halo_stage, bytes, err)))
        return rc;
    GPU_TRY(cudaMemcpy(st->halo_stage.ptr, cols, bytes, cudaMemcpyDefault), err);
    record_columns v = record_columns_at(st->halo_stage.ptr, np, n);
    const real *f = v.f;
    for (int k = 0; k < st->nfields; ++k) {
        if (p->transient[k]) {
            GPU_TRY(cudaMemsetAsync(st->f[k] + first, 0, n * sizeof(real)), err);
            continue;
        }
        GPU_TRY(cudaMemcpyAsync(st->f[k] + first, f, n * sizeof(real), cudaMemcpyDeviceToDevice), err);
        f += n;
    }
    GPU_TRY(cudaMemcpyAsync(st->id + first, v.id, n * sizeof(int32_t), cudaMemcpyDeviceToDevice), err);
    GPU_TRY(cudaMemcpyAsync(st->type + first, v.type, n, cudaMemcpyDeviceToDevice), err);
    GPU_TRY(cudaMemcpyAsync(st->tag + first, v.tag, n, cudaMemcpyDeviceToDevice), err);
    p->n = first + n;
    st->host_current = 0;
    return SL_OK;
}

/* The balance's histogram on the device: ncols counts come down instead of every position. */
static int cuda_halo_column_counts(sim *s, const slab_rule *rule, int64_t *count, sl_err *err)
{
    static_assert(sizeof(int64_t) == sizeof(unsigned long long), "the counts come down as they are");
    cuda_sim *st = state_of(s);
    if (!st)
        return gpu_fail_input(err, "CUDA backend: columns counted before the particles reached the device");
    if (rule->axis < 0 || rule->axis > 2 || rule->ncols < 1)
        return gpu_fail_input(err, "CUDA backend: %d columns along axis %d", rule->ncols, rule->axis);
    const size_t n = s->p.n, cols = (size_t)rule->ncols, shared = cols * sizeof(unsigned int);
    int rc;
    if ((rc = gpu_scratch_reserve(&st->halo_index, cols * sizeof(unsigned long long), err)))
        return rc;
    unsigned long long *dev = (unsigned long long *)st->halo_index.ptr;
    const int local = shared <= 48 * 1024; /* without opting in to more */
    GPU_TRY(cudaMemsetAsync(dev, 0, cols * sizeof *dev), err);
    if (n) {
        k_column_counts<<<gpu_blocks_for(n), GPU_THREADS, local ? shared : 0>>>(*rule, st->f[PF_X + rule->axis], n,
                                                                               dev, local);
        GPU_LAUNCHED("column_counts", err);
    }
    GPU_TRY(cudaMemcpy(count, dev, cols * sizeof *dev, cudaMemcpyDeviceToHost), err);
    return SL_OK;
}

/* The rule applied where the particles are: a count per particle, its scan, the routes at their
 * places, then ordered by destination by a stable radix sort of the destinations (each
 * destination's routes keep their index order). The list stays on the device for fetch, remove and
 * plan; only the total and the counts per destination cross the bus. */
static int cuda_halo_select(sim *s, const slab_rule *rule, const int *first, int *counts, const int32_t **by_dest,
                            size_t *count, sl_err *err)
{
    static_assert(sizeof(int) == sizeof(int32_t), "the routes' destinations sort as 32-bit keys");
    cuda_sim *st = state_of(s);
    const size_t n = s->p.n, nfirst = (size_t)rule->size + 1;
    *count = 0;
    *by_dest = NULL;
    if (!st)
        return gpu_fail_input(err, "CUDA backend: particles chosen before they reached the device");
    if (rule->axis < 0 || rule->axis > 2 || rule->size < 1 || rule->rank < 0 || rule->rank >= rule->size)
        return gpu_fail_input(err, "CUDA backend: a slab rule of rank %d of %d along axis %d", rule->rank, rule->size,
                              rule->axis);
    for (int q = 0; q < rule->size; ++q)
        counts[q] = 0;
    int rc;
    if ((rc = gpu_scratch_reserve(&st->halo_index, (n + 1 + nfirst) * sizeof(int32_t), err)))
        return rc;
    int32_t *place = (int32_t *)st->halo_index.ptr;
    int *first_dev = (int *)(place + n + 1);
    const real *x = st->f[PF_X + rule->axis];
    GPU_TRY(cudaMemcpy(first_dev, first, nfirst * sizeof *first, cudaMemcpyHostToDevice), err);
    k_slab_count<<<gpu_blocks_for(n + 1), GPU_THREADS>>>(*rule, first_dev, x, st->id, place, n);
    GPU_LAUNCHED("slab_count", err);
    if ((rc = gpu_exclusive_scan_i32(place, place, n + 1, st->scan, &st->scratch, err)))
        return rc;
    int32_t total;
    GPU_TRY(cudaMemcpy(&total, place + n, sizeof total, cudaMemcpyDeviceToHost), err);
    const size_t m = (size_t)total;
    if (m == 0 || n == 0)
        return SL_OK;
    /* idx | dest | order (then the list by destination) | start, in the routes' own scratch, which
     * outlives fetch, remove and plan's use of the others */
    if ((rc = gpu_scratch_reserve(&st->halo_routes, (3 * m + nfirst) * sizeof(int32_t), err)))
        return rc;
    int32_t *idx_dev = (int32_t *)st->halo_routes.ptr, *dest_dev = idx_dev + m, *order = dest_dev + m;
    int32_t *start = order + m;
    k_slab_routes<<<gpu_blocks_for(n), GPU_THREADS>>>(*rule, first_dev, x, st->id, place, n, idx_dev, dest_dev);
    GPU_LAUNCHED("slab_routes", err);
    if ((rc = gpu_sort_keys(dest_dev, m, (size_t)rule->size, GPU_SORT_RADIX, st->scan, order, NULL, start,
                            &st->scratch, err)))
        return rc;
    k_map<<<gpu_blocks_for(m), GPU_THREADS>>>(idx_dev, order, m); /* the routes' particles, by destination */
    GPU_LAUNCHED("halo_by_destination", err);
    GPU_TRY(cudaMemcpy(counts, start, (size_t)rule->size * sizeof *counts, cudaMemcpyDeviceToHost), err);
    for (int q = 0; q + 1 < rule->size; ++q) /* starts to counts */
        counts[q] = counts[q + 1] - counts[q];
    counts[rule->size - 1] = (int)m - counts[rule->size - 1];
    *by_dest = order;
    *count = m;
    return SL_OK;
}

/* The halo's plan before the sort, in buf: the list by destination as it went out, then the
 * arrivals' slots first .. first + nrecv. */
static int cuda_halo_plan(sim *s, const int32_t *by_dest, size_t nsend, size_t first, size_t nrecv,
                          backend_buffer *buf, sl_err *err)
{
    (void)s;
    int rc = cuda_buffer_reserve(buf, (nsend + nrecv) * sizeof(int32_t), "cudaMalloc of the halo's plan", err);
    if (rc)
        return rc;
    int32_t *plan = (int32_t *)buf->ptr;
    if (nsend)
        GPU_TRY(cudaMemcpyAsync(plan, by_dest, nsend * sizeof *plan, cudaMemcpyDefault), err);
    if (nrecv) {
        k_slots<<<gpu_blocks_for(nrecv), GPU_THREADS>>>(plan + nsend, first, nrecv);
        GPU_LAUNCHED("halo_slots", err);
    }
    return SL_OK;
}

/* The sort's permutation (cuda_binning.cu: its own array, or the borrowed array of a transient field
 * that no pass has written since) inverted, and the list mapped through it. */
static int cuda_halo_after_sort(sim *s, const int32_t *before, size_t m, int32_t *after, sl_err *err)
{
    cuda_sim *st = state_of(s);
    const size_t n = s->p.n;
    if (!st)
        return gpu_fail_input(err, "CUDA backend: the sort asked about before the particles reached the device");
    if (m == 0)
        return SL_OK;
    const int32_t *order = st->order_field >= 0 ? (const int32_t *)st->f[st->order_field] : st->order;
    int rc;
    const size_t sorted = st->sorted_from > n ? st->sorted_from : n; /* the parked among them dropped */
    if ((rc = gpu_scratch_reserve(&st->halo_index, (sorted + m) * sizeof(int32_t), err)))
        return rc;
    int32_t *place = (int32_t *)st->halo_index.ptr, *list = place + sorted;
    k_invert<<<gpu_blocks_for(n), GPU_THREADS>>>(order, place, n);
    GPU_LAUNCHED("halo_invert", err);
    GPU_TRY(cudaMemcpy(list, before, m * sizeof *list, cudaMemcpyDefault), err); /* host or device */
    k_map<<<gpu_blocks_for(m), GPU_THREADS>>>(place, list, m);
    GPU_LAUNCHED("halo_map", err);
    GPU_TRY(cudaMemcpy(after, list, m * sizeof *after, cudaMemcpyDefault), err);
    return SL_OK;
}

/* Page-locked: the records and the bands' values cross the bus at its speed, not through the
 * driver's pageable staging. */
static int cuda_host_buffer(sim *s, backend_buffer *buf, size_t bytes)
{
    (void)s;
    cudaFreeHost(buf->ptr);
    buf->ptr = NULL;
    buf->cap = 0;
    if (cudaHostAlloc(&buf->ptr, bytes, cudaHostAllocDefault) != cudaSuccess) {
        buf->ptr = NULL;
        return -1;
    }
    buf->cap = bytes;
    return 0;
}

static void cuda_host_buffer_free(sim *s, backend_buffer *buf)
{
    (void)s;
    cudaFreeHost(buf->ptr);
    buf->ptr = NULL;
    buf->cap = 0;
}

extern "C" const backend_halo_hooks cuda_halo_hooks = {
    cuda_halo_gather,      cuda_halo_scatter,     cuda_halo_drop,        cuda_halo_column_counts,
    cuda_halo_fetch,       cuda_halo_remove,      cuda_halo_append,      cuda_halo_after_sort,
    cuda_host_buffer,      cuda_host_buffer_free, cuda_halo_select,      cuda_halo_plan,
    cuda_peer_buffer,
    cuda_peer_buffer_free, cuda_peer_export,      cuda_peer_open,        cuda_peer_close,
    cuda_peer_copy,        cuda_peer_wait};
