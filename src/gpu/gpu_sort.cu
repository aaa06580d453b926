/* gpu_sort.cu: binning particles by key: counting sort (atomics + scan + scatter) and CUB radix sort. */
#include "gpu_sort.h"

#include "gpu_check.h"

#include <cub/cub.cuh>

namespace {

constexpr unsigned FULL_MASK = 0xffffffffu;

/* Warp-aggregated atomics: the lanes of a warp holding the same key elect one lane that does a
 * single atomicAdd for all of them. Particles arrive nearly sorted by cell (and a skewed
 * distribution piles up on one key), so this cuts the atomics on one address by up to 32x.
 * The loops run whole warps in step (base is uniform over the block and blockDim is a multiple
 * of 32), so the full mask is valid for __match_any_sync; lanes past n carry key -1 and only
 * match each other. */
struct key_group {
    bool valid;      /* this lane holds particle i < n */
    int32_t key;     /* its key (-1 past n) */
    unsigned peers;  /* the lanes holding the same key */
    unsigned leader; /* the lowest of them, which does the group's atomic */
};

__device__ static inline key_group group_of(const int32_t *__restrict__ key, size_t i, size_t n)
{
    key_group g;
    g.valid = i < n;
    g.key = g.valid ? key[i] : -1;
    g.peers = __match_any_sync(FULL_MASK, g.key);
    g.leader = (unsigned)__ffs((int)g.peers) - 1u;
    return g;
}

__global__ void count_keys(const int32_t *__restrict__ key, size_t n, int32_t *__restrict__ count)
{
    const unsigned lane = threadIdx.x & 31u;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t base = (size_t)blockIdx.x * blockDim.x; base < n; base += stride) {
        const key_group g = group_of(key, base + threadIdx.x, n);
        if (g.valid && lane == g.leader)
            atomicAdd(&count[g.key], __popc(g.peers));
    }
}

/* Scatter: the leader of each group of equal keys reserves slots for the whole group; the lanes
 * take them in lane order. */
__global__ void scatter_keys(const int32_t *__restrict__ key, size_t n, int32_t *__restrict__ cursor,
                             int32_t *__restrict__ order, int32_t *__restrict__ key_sorted)
{
    const unsigned lane = threadIdx.x & 31u;
    const unsigned lanes_below = (1u << lane) - 1u;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t base = (size_t)blockIdx.x * blockDim.x; base < n; base += stride) {
        const size_t i = base + threadIdx.x;
        const key_group g = group_of(key, i, n);
        int32_t first = 0;
        if (g.valid && lane == g.leader)
            first = atomicAdd(&cursor[g.key], __popc(g.peers));
        first = __shfl_sync(FULL_MASK, first, (int)g.leader);
        if (g.valid) {
            const int32_t slot = first + __popc(g.peers & lanes_below);
            order[slot] = (int32_t)i;
            if (key_sorted)
                key_sorted[slot] = g.key;
        }
    }
}

__global__ void iota(int32_t *__restrict__ v, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        v[i] = (int32_t)i;
}

/* Marks where each key's run ends in the sorted keys: end[c] = one past the last slot of key c,
 * for the keys present (the caller zeroes end[] first). The number of particles with key <= c is
 * then the largest end[] over keys <= c, an inclusive max-scan, which also gives every empty key
 * its start without a serial walk over gaps of empty cells. */
__global__ void mark_run_ends(const int32_t *__restrict__ key_sorted, size_t n, int32_t *__restrict__ end)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        const int32_t c = key_sorted[k];
        if (k + 1 == n || key_sorted[k + 1] != c)
            end[c] = (int32_t)(k + 1);
    }
}

struct max_op {
    __host__ __device__ __forceinline__ int32_t operator()(int32_t a, int32_t b) const
    {
        return a > b ? a : b;
    }
};

/* Bits that keys in [0, nkeys) need: ceil(log2(nkeys)), 0 for nkeys == 1. */
int key_bits(size_t nkeys)
{
    int bits = 0;
    while (bits < 31 && ((size_t)1 << bits) < nkeys)
        ++bits;
    return bits;
}

int counting_sort(const int32_t *key, size_t n, size_t nkeys, gpu_scan_kind scan, int32_t *order,
                  int32_t *key_sorted, int32_t *start, gpu_scratch *s, sl_err *err)
{
    /* scratch: cursor[nkeys] | scan temporary storage */
    const size_t cursor_bytes = gpu_align(nkeys * sizeof(int32_t));
    size_t scan_bytes = 0;
    SL_TRY(gpu_exclusive_scan_i32_tmp(start, start, nkeys + 1, scan, NULL, &scan_bytes, err));
    SL_TRY(gpu_scratch_reserve(s, cursor_bytes + scan_bytes, err));
    int32_t *cursor = (int32_t *)s->ptr;
    void *scan_tmp = (char *)s->ptr + cursor_bytes;

    /* start[nkeys] counts nothing, so the exclusive scan leaves the total n there */
    GPU_TRY(cudaMemsetAsync(start, 0, (nkeys + 1) * sizeof(int32_t)), err);
    if (n > 0) {
        count_keys<<<gpu_blocks_for(n), GPU_THREADS>>>(key, n, start);
        GPU_LAUNCHED("count_keys", err);
    }
    SL_TRY(gpu_exclusive_scan_i32_tmp(start, start, nkeys + 1, scan, scan_tmp, &scan_bytes, err));
    if (n == 0)
        return SL_OK;
    GPU_TRY(cudaMemcpyAsync(cursor, start, nkeys * sizeof(int32_t), cudaMemcpyDeviceToDevice), err);
    scatter_keys<<<gpu_blocks_for(n), GPU_THREADS>>>(key, n, cursor, order, key_sorted);
    GPU_LAUNCHED("scatter_keys", err);
    return SL_OK;
}

int radix_sort(const int32_t *key, size_t n, size_t nkeys, int32_t *order, int32_t *key_sorted,
               int32_t *start, gpu_scratch *s, sl_err *err)
{
    GPU_TRY(cudaMemsetAsync(start, 0, (nkeys + 1) * sizeof(int32_t)), err);
    if (n == 0)
        return SL_OK;
    const int bits = key_bits(nkeys);
    /* Keys are non-negative, so as uint32 they have the same bits and order; sorting them as
     * unsigned keeps CUB from flipping a sign bit outside [0, bits). */
    const uint32_t *kin = (const uint32_t *)key;
    uint32_t *kout = (uint32_t *)key_sorted; /* NULL: in the scratch, set below */
    const int items = (int)n;

    /* scratch: iota[n] | sorted keys[n] when the caller does not want them | CUB temporary
     * storage, shared by the sort and the max-scan (they run one after the other on the same
     * stream) */
    size_t sort_bytes = 0, scan_bytes = 0;
    if (bits > 0)
        GPU_TRY(cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, kin, kout, (const int32_t *)NULL,
                                                order, items, 0, bits),
                err);
    GPU_TRY(cub::DeviceScan::InclusiveScan(NULL, scan_bytes, start + 1, start + 1, max_op(), (int)nkeys),
            err);
    const size_t iota_bytes = gpu_align(n * sizeof(int32_t));
    const size_t keys_bytes = key_sorted ? 0 : iota_bytes;
    size_t cub_bytes = sort_bytes > scan_bytes ? sort_bytes : scan_bytes;
    SL_TRY(gpu_scratch_reserve(s, iota_bytes + keys_bytes + cub_bytes, err));
    int32_t *index = (int32_t *)s->ptr;
    if (!key_sorted)
        key_sorted = (int32_t *)((char *)s->ptr + iota_bytes);
    kout = (uint32_t *)key_sorted;
    void *cub_tmp = (char *)s->ptr + iota_bytes + keys_bytes;

    if (bits == 0) {
        /* one key: nothing to sort (and CUB is not asked for a zero-bit sort) */
        iota<<<gpu_blocks_for(n), GPU_THREADS>>>(order, n);
        GPU_LAUNCHED("iota", err);
        GPU_TRY(cudaMemcpyAsync(key_sorted, key, n * sizeof(int32_t), cudaMemcpyDeviceToDevice), err);
    } else {
        iota<<<gpu_blocks_for(n), GPU_THREADS>>>(index, n);
        GPU_LAUNCHED("iota", err);
        GPU_TRY(cub::DeviceRadixSort::SortPairs(cub_tmp, sort_bytes, kin, kout, (const int32_t *)index,
                                                order, items, 0, bits),
                err);
    }
    /* start[c + 1] = particles with key <= c = max over c' <= c of run_end[c'] */
    mark_run_ends<<<gpu_blocks_for(n), GPU_THREADS>>>(key_sorted, n, start + 1);
    GPU_LAUNCHED("mark_run_ends", err);
    GPU_TRY(cub::DeviceScan::InclusiveScan(cub_tmp, scan_bytes, start + 1, start + 1, max_op(), (int)nkeys),
            err);
    return SL_OK;
}

} // namespace

extern "C" int gpu_sort_keys(const int32_t *key, size_t n, size_t nkeys, gpu_sort_kind kind,
                             gpu_scan_kind scan, int32_t *order, int32_t *key_sorted, int32_t *start,
                             gpu_scratch *s, sl_err *err)
{
    if (n > (size_t)INT32_MAX)
        return gpu_fail_input(err, "sort of %zu particles: at most 2^31-1 supported", n);
    if (nkeys < 1 || nkeys > (size_t)INT32_MAX - 1)
        return gpu_fail_input(err, "sort into %zu keys: 1 to 2^31-2 supported", nkeys);
    if (kind == GPU_SORT_COUNTING)
        return counting_sort(key, n, nkeys, scan, order, key_sorted, start, s, err);
    if (kind == GPU_SORT_RADIX)
        return radix_sort(key, n, nkeys, order, key_sorted, start, s, err);
    return gpu_fail_input(err, "sort: unknown kind %d", (int)kind);
}
