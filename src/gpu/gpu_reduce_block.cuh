/* gpu_reduce_block.cuh: the deterministic reduction shared by gpu_reduce.cu and gpu_cg.cu (internal
 * to src/gpu), in one kernel.
 *
 * Determinism: the grid size is a function of n only (never of the device), every thread folds a
 * fixed grid-stride subsequence in index order, warps combine by a fixed shuffle tree, warps of a
 * block by a fixed tree over shared memory, and the per-block partials are combined by whichever
 * block finishes last (an integer ticket), always in the same order: thread t folds partials t,
 * t + THREADS, ... in turn, then the same trees. No floating-point atomics, so the result depends
 * only on the data and n, and repeated runs are bit-identical (also on another GPU model). (A second
 * kernel of one block combined the partials before; the CG's three reductions an iteration each
 * paid its launch: about 2.4 us, 70 us a step of SPHERIC MPS on an H200.) */
#ifndef SLUICE_GPU_REDUCE_BLOCK_CUH
#define SLUICE_GPU_REDUCE_BLOCK_CUH

#include "gpu_check.h"
#include "gpu_scratch.h"

#include <math.h>
#include <stdint.h>

namespace gpu_red {

constexpr unsigned THREADS = 256;     /* first pass: threads per block */
constexpr unsigned MAX_BLOCKS = 1024; /* first pass: at most this many partials (one wave on an
                                         H200: 132 SMs x 8 blocks of 256) */
constexpr unsigned FULL_MASK = 0xffffffffu;

/* Blocks of the first pass: about one element per thread up to MAX_BLOCKS blocks, then longer
 * grid-stride runs per thread. A function of n only, see above. */
inline unsigned blocks(size_t n)
{
    size_t b = (n + THREADS - 1) / THREADS;
    if (b < 1)
        b = 1;
    return (unsigned)(b < MAX_BLOCKS ? b : MAX_BLOCKS);
}

struct sum_op {
    static __host__ __device__ __forceinline__ double identity() { return 0.0; }
    __device__ __forceinline__ double operator()(double a, double b) const { return a + b; }
};

/* NaN wins, so that one NaN anywhere makes the result NaN (as the CPU backend's reduce). */
struct min_op {
    static __host__ __device__ __forceinline__ double identity() { return INFINITY; }
    __device__ __forceinline__ double operator()(double a, double b) const
    {
        return a != a ? a : b != b ? b : b < a ? b : a;
    }
};

struct max_op {
    static __host__ __device__ __forceinline__ double identity() { return -INFINITY; }
    __device__ __forceinline__ double operator()(double a, double b) const
    {
        return a != a ? a : b != b ? b : b > a ? b : a;
    }
};

/* A term of a dot product: the product of the doubles, rounded, then added (__dmul_rn is never
 * fused with the addition: the same arithmetic as the CPU backend's cpu_dot). */
__device__ __forceinline__ double term(double a, double b)
{
    return __dmul_rn(a, b);
}

/* Combines v[0..K) over the block; thread 0 ends up with the results (other threads hold
 * garbage). blockDim.x must be a multiple of 32 and at most 1024. */
template <int K, class Op>
__device__ __forceinline__ void block_reduce(double (&v)[K], Op op)
{
    __shared__ double warp_part[K][32];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const unsigned nwarps = blockDim.x >> 5;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
#pragma unroll
        for (int j = 0; j < K; ++j)
            v[j] = op(v[j], __shfl_down_sync(FULL_MASK, v[j], off));
    if (lane == 0)
#pragma unroll
        for (int j = 0; j < K; ++j)
            warp_part[j][warp] = v[j];
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int j = 0; j < K; ++j)
            v[j] = lane < nwarps ? warp_part[j][lane] : Op::identity();
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
#pragma unroll
            for (int j = 0; j < K; ++j)
                v[j] = op(v[j], __shfl_down_sync(FULL_MASK, v[j], off));
    }
}

/* The blocks that have finished a reduction (reduce_pass), each device its own; the last block
 * sets it back to 0, so every reduction starts from 0. Reductions run one at a time, on the
 * default stream. */
static __device__ unsigned finished_blocks;

/* body(i, v) folds element i into the thread's accumulators v[0..K) (and may write element-wise
 * results: the fused CG updates). Each block writes partial[j * gridDim.x + block]; the last block
 * to finish writes out[j], the combination of every block's partial of j. */
template <int K, class Op, class Body>
__global__ void __launch_bounds__(THREADS) reduce_pass(Body body, size_t n, double *partial, double *out)
{
    Op op;
    double v[K];
#pragma unroll
    for (int j = 0; j < K; ++j)
        v[j] = Op::identity();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        body(i, v, op);
    block_reduce<K>(v, op);
    __shared__ bool last;
    if (threadIdx.x == 0) {
#pragma unroll
        for (int j = 0; j < K; ++j)
            partial[(size_t)j * gridDim.x + blockIdx.x] = v[j];
        __threadfence(); /* the partials visible before the ticket that counts them */
        last = atomicAdd(&finished_blocks, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
#pragma unroll
    for (int j = 0; j < K; ++j) {
        v[j] = Op::identity();
        for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) /* L2: the others' writes */
            v[j] = op(v[j], __ldcg(&partial[(size_t)j * gridDim.x + b]));
    }
    block_reduce<K>(v, op);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int j = 0; j < K; ++j)
            out[j] = v[j];
        finished_blocks = 0;
    }
}

/* Runs the reduction over [0, n) into the device array out[0 .. K), without waiting; n == 0 gives
 * the identities. The partials take s's scratch from `offset` bytes on. */
template <int K, class Op, class Body>
int run_into(Body body, size_t n, double *out, gpu_scratch *s, size_t offset, sl_err *err)
{
    const unsigned nb = n ? blocks(n) : 1; /* n = 0: one block of identities */
    SL_TRY(gpu_scratch_reserve(s, offset + (size_t)K * nb * sizeof(double), err));
    double *partial = (double *)((char *)s->ptr + offset);
    reduce_pass<K, Op><<<nb, THREADS>>>(body, n, partial, out);
    GPU_LAUNCHED("reduce_pass", err);
    return SL_OK;
}

/* Runs both passes over [0, n) and copies the K results to the host array result (the copy waits
 * for the kernels, so errors inside them are reported here). n == 0 gives the identities. */
template <int K, class Op, class Body>
int run(Body body, size_t n, double *result, gpu_scratch *s, sl_err *err)
{
    if (n == 0) {
        for (int j = 0; j < K; ++j)
            result[j] = Op::identity();
        return SL_OK;
    }
    const unsigned nb = blocks(n);
    /* scratch: out[K] | partial[K * nb] */
    const size_t out_bytes = gpu_align(K * sizeof(double));
    SL_TRY(gpu_scratch_reserve(s, out_bytes + (size_t)K * nb * sizeof(double), err));
    double *out = (double *)s->ptr;
    double *partial = (double *)((char *)s->ptr + out_bytes);
    reduce_pass<K, Op><<<nb, THREADS>>>(body, n, partial, out);
    GPU_LAUNCHED("reduce_pass", err);
    GPU_TRY(cudaMemcpy(result, out, K * sizeof(double), cudaMemcpyDeviceToHost), err);
    return SL_OK;
}

} // namespace gpu_red

#endif
