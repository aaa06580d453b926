/* gpu_scan.cu: exclusive prefix sums of int32: a Blelloch tile scan with recursive tile sums, and CUB.
 *
 * The tile scan is the work-efficient up-sweep/down-sweep scan of Blelloch (1990), "Prefix sums
 * and their applications", in the shared-memory form of Harris, Sengupta & Owens, GPU Gems 3,
 * ch. 39 (2007), Example 39-2, with the padding of section 39.2.3 against bank conflicts. */
#include "gpu_scan.h"

#include "gpu_check.h"

#include <cub/cub.cuh>

namespace {

/* Elements per tile, two per thread. 1024 keeps three levels of recursion up to ~10^9 elements
 * and the shared array at 4.1 KiB. */
constexpr int TILE = 1024;
constexpr int TILE_THREADS = TILE / 2;
constexpr int LOG_NUM_BANKS = 5;

/* One padding word every 32 words: the strided tree accesses (stride 2^k) then hit distinct
 * banks. (GPU Gems' macro also adds n >> 10, but its operator precedence makes it shift by
 * NUM_BANKS + n; one shift is what the text means and enough for 32 banks.) */
__device__ __forceinline__ int pad(int i)
{
    return i + (i >> LOG_NUM_BANKS);
}

/* Exclusive scan of each tile of `in` into `out`; the tile's total goes to tile_sums[tile] when
 * tile_sums is not NULL. out may equal in: a block reads its whole tile before it writes. */
__global__ void __launch_bounds__(TILE_THREADS)
scan_tiles(const int32_t *in, int32_t *out, size_t n, int32_t *tile_sums)
{
    /* unsigned: wrapping on overflow is defined, as the header promises */
    __shared__ uint32_t t[TILE + TILE / 32];
    const int tid = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * TILE;
    const int ai = tid, bi = tid + TILE / 2;
    t[pad(ai)] = base + ai < n ? (uint32_t)in[base + ai] : 0u;
    t[pad(bi)] = base + bi < n ? (uint32_t)in[base + bi] : 0u;

    /* Up-sweep: after level k, t[2^(k+1) m - 1] holds the sum of its 2^(k+1) elements. */
    int offset = 1;
    for (int d = TILE >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int a = offset * (2 * tid + 1) - 1;
            int b = offset * (2 * tid + 2) - 1;
            t[pad(b)] += t[pad(a)];
        }
        offset *= 2;
    }
    if (tid == 0) {
        if (tile_sums)
            tile_sums[blockIdx.x] = (int32_t)t[pad(TILE - 1)];
        t[pad(TILE - 1)] = 0;
    }
    /* Down-sweep: each node passes its prefix to its left child and prefix + left sum to its
     * right child. */
    for (int d = 1; d < TILE; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int a = pad(offset * (2 * tid + 1) - 1);
            int b = pad(offset * (2 * tid + 2) - 1);
            uint32_t left = t[a];
            t[a] = t[b];
            t[b] += left;
        }
    }
    __syncthreads();
    if (base + ai < n)
        out[base + ai] = (int32_t)t[pad(ai)];
    if (base + bi < n)
        out[base + bi] = (int32_t)t[pad(bi)];
}

/* Adds the scanned tile sums: block b adds offsets[b] to tile b of `out` (the caller passes the
 * arrays shifted by one tile, since tile 0 adds 0). */
__global__ void __launch_bounds__(TILE_THREADS)
add_tile_offsets(int32_t *out, size_t n, const int32_t *offsets)
{
    const size_t base = (size_t)blockIdx.x * TILE;
    const uint32_t add = (uint32_t)offsets[blockIdx.x];
    for (int k = threadIdx.x; k < TILE; k += TILE_THREADS)
        if (base + k < n)
            out[base + k] = (int32_t)((uint32_t)out[base + k] + add);
}

size_t tiles(size_t n)
{
    return (n + TILE - 1) / TILE;
}

/* Scratch of the blocked scan: the tile sums of every level of the recursion. */
size_t blocked_tmp_bytes(size_t n)
{
    size_t bytes = 0;
    for (size_t nb = tiles(n); nb > 1; nb = tiles(nb))
        bytes += gpu_align(nb * sizeof(int32_t));
    return bytes;
}

int blocked_scan(const int32_t *in, int32_t *out, size_t n, char *tmp, sl_err *err)
{
    size_t nb = tiles(n);
    if (nb <= 1) {
        scan_tiles<<<1, TILE_THREADS>>>(in, out, n, NULL);
        GPU_LAUNCHED("scan_tiles", err);
        return SL_OK;
    }
    /* nb <= 2^21 for n <= INT32_MAX: well inside the grid limit */
    int32_t *sums = (int32_t *)tmp;
    scan_tiles<<<(unsigned)nb, TILE_THREADS>>>(in, out, n, sums);
    GPU_LAUNCHED("scan_tiles", err);
    SL_TRY(blocked_scan(sums, sums, nb, tmp + gpu_align(nb * sizeof(int32_t)), err));
    add_tile_offsets<<<(unsigned)(nb - 1), TILE_THREADS>>>(out + TILE, n - TILE, sums + 1);
    GPU_LAUNCHED("add_tile_offsets", err);
    return SL_OK;
}

} // namespace

extern "C" int gpu_exclusive_scan_i32_tmp(const int32_t *in, int32_t *out, size_t n,
                                          gpu_scan_kind kind, void *tmp, size_t *tmp_bytes,
                                          sl_err *err)
{
    if (n > (size_t)INT32_MAX)
        return gpu_fail_input(err, "exclusive scan of %zu elements: at most 2^31-1 supported", n);
    if (kind != GPU_SCAN_BLOCKED && kind != GPU_SCAN_CUB)
        return gpu_fail_input(err, "exclusive scan: unknown kind %d", (int)kind);
    if (!tmp) {
        if (n == 0)
            *tmp_bytes = 0;
        else if (kind == GPU_SCAN_BLOCKED)
            *tmp_bytes = blocked_tmp_bytes(n);
        else
            GPU_TRY(cub::DeviceScan::ExclusiveSum(NULL, *tmp_bytes, in, out, (int)n), err);
        /* never 0, so that passing back a buffer of the returned size is never a query */
        if (*tmp_bytes < 256)
            *tmp_bytes = 256;
        return SL_OK;
    }
    if (n == 0)
        return SL_OK;
    if (kind == GPU_SCAN_BLOCKED)
        return blocked_scan(in, out, n, (char *)tmp, err);
    GPU_TRY(cub::DeviceScan::ExclusiveSum(tmp, *tmp_bytes, in, out, (int)n), err);
    return SL_OK;
}

extern "C" int gpu_exclusive_scan_i32(const int32_t *in, int32_t *out, size_t n,
                                      gpu_scan_kind kind, gpu_scratch *s, sl_err *err)
{
    size_t bytes = 0;
    SL_TRY(gpu_exclusive_scan_i32_tmp(in, out, n, kind, NULL, &bytes, err));
    if (n == 0)
        return SL_OK;
    SL_TRY(gpu_scratch_reserve(s, bytes, err));
    return gpu_exclusive_scan_i32_tmp(in, out, n, kind, s->ptr, &bytes, err);
}
