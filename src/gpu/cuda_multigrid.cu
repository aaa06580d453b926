/* cuda_multigrid.cu: the CUDA backend's multigrid primitives (backend.mg): one kernel per kind over
 * the elements of core/multigrid_ops.h, the arithmetic the CPU loops run. */
#include "cuda_state.h"

#include "gpu_check.h"

#include <stdlib.h>

namespace {

template <int KIND>
__global__ void k_mg(const mg_args m, int64_t n)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
        mg_element(&m, KIND, e);
}

/* A sequence of small loops in one block, in order, a barrier after each: the coarse end of the
 * V-cycle is levels of a few hundred cells or fewer, where a launch per loop costs more than its
 * work (SPHERIC Test 2 with MPS: 0.36 ms per V-cycle as a graph of about 70 kernels,
 * docs/performance.md). Each loop writes only its own elements and reads what the loops before it
 * wrote, which the barrier makes visible inside the block. */
enum { MG_BLOCK_THREADS = 1024, MG_BLOCK_OPS = 32 };

/* The loops' operands are copied into shared memory a chunk at a time by all the threads together,
 * so each loop starts with its operands at hand and one barrier a loop suffices: with one thread
 * fetching each loop's operands while the others waited (a barrier before the loop and one after),
 * the cell levels took 1.89 against 1.76 ms a step at 217k particles on an H200 (512 threads: 1.77,
 * 256: 1.80; docs/performance.md). */
__global__ void __launch_bounds__(MG_BLOCK_THREADS) k_mg_block(const mg_args *ops, int count)
{
    __shared__ mg_args held[MG_BLOCK_OPS];
    static_assert(sizeof(mg_args) % 4 == 0, "mg_args copied as 32-bit words");
    for (int first = 0; first < count; first += MG_BLOCK_OPS) {
        const int chunk = min(count - first, (int)MG_BLOCK_OPS);
        const int words = chunk * (int)(sizeof(mg_args) / 4);
        const uint32_t *from = (const uint32_t *)(ops + first);
        uint32_t *to = (uint32_t *)held; /* the last chunk's loops ended at a barrier */
        for (int w = threadIdx.x; w < words; w += blockDim.x)
            to[w] = from[w];
        __syncthreads();
        for (int k = 0; k < chunk; ++k) {
            const mg_args *m = &held[k];
            const int64_t n = mg_range(m);
            for (int64_t e = threadIdx.x; e < n; e += blockDim.x)
                mg_element(m, m->kind, e);
            __syncthreads();
        }
    }
}

/* The row partials a block of rows at a time: each thread sums its row into its own column of a
 * tile in shared memory, then the block writes the tile out a slot at a time, the slot's rows
 * consecutive. Written straight to the slot-major partials, the lanes of a warp stored different
 * slots at different times, 4 bytes to a sector (issue 18: 2.76 ms of the 1M box's step on an H100). */
enum { PARTIALS_THREADS = 64 };

__global__ void __launch_bounds__(PARTIALS_THREADS) k_row_partials(const mg_args m)
{
    extern __shared__ real tile[]; /* nst x PARTIALS_THREADS */
    const int64_t first = (int64_t)blockIdx.x * PARTIALS_THREADS, i = first + threadIdx.x;
    if (i < m.n)
        mg_row_partials_into(&m, i, tile + threadIdx.x, PARTIALS_THREADS);
    __syncthreads();
    const int rows = (int)min((int64_t)PARTIALS_THREADS, m.n - first);
    const int slots = m.coarse.nst * PARTIALS_THREADS;
    for (int e = threadIdx.x; e < slots; e += PARTIALS_THREADS) {
        const int s = e / PARTIALS_THREADS, r = e % PARTIALS_THREADS;
        if (r < rows)
            m.partial[s * m.A.stride + first + r] = tile[e];
    }
}

int launch_row_partials(const mg_args &m, cudaStream_t stream, sl_err *err)
{
    const size_t bytes = (size_t)m.coarse.nst * PARTIALS_THREADS * sizeof(real); /* 88 KB at ndiv 3 */
    static size_t allowed = 0;
    if (bytes > allowed) {
        GPU_TRY(cudaFuncSetAttribute(k_row_partials, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes), err);
        allowed = bytes;
    }
    const unsigned blocks = (unsigned)((m.n + PARTIALS_THREADS - 1) / PARTIALS_THREADS);
    k_row_partials<<<blocks, PARTIALS_THREADS, bytes, stream>>>(m);
    return SL_OK;
}

__global__ void k_longest_row(const int32_t *count, size_t n, int32_t *longest)
{
    int32_t most = 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        most = max(most, count[i]);
    for (int off = 16; off > 0; off /= 2)
        most = max(most, __shfl_down_sync(0xffffffffu, most, off));
    if ((threadIdx.x & 31) == 0 && most > 0)
        atomicMax(longest, most);
}

int launch(const mg_args &m, cudaStream_t stream, sl_err *err)
{
    const int64_t n = mg_range(&m);
    if (n <= 0)
        return SL_OK;
    const unsigned blocks = gpu_blocks_for((size_t)n);
    switch (m.kind) {
#define MG_LAUNCH(K)                                                                                \
    case K:                                                                                         \
        k_mg<K><<<blocks, GPU_THREADS, 0, stream>>>(m, n);                                          \
        break;
        MG_LAUNCH(MG_FINE_PRODUCT)
        MG_LAUNCH(MG_FINE_SMOOTH)
        MG_LAUNCH(MG_FINE_RESIDUAL)
        MG_LAUNCH(MG_FINE_CORRECT)
        MG_LAUNCH(MG_FINE_PROLONG)
        MG_LAUNCH(MG_FINE_RESTRICT)
        MG_LAUNCH(MG_FINE_RESTRICT_ROWS)
        MG_LAUNCH(MG_CELL_UNKNOWN)
        MG_LAUNCH(MG_FINE_RESTRICT_SMOOTHED)
        MG_LAUNCH(MG_FINE_POST_ZERO)
    case MG_ROW_PARTIALS:
        if (launch_row_partials(m, stream, err))
            return SL_ERR_RUNTIME;
        break;
        MG_LAUNCH(MG_FINE_POST)
        MG_LAUNCH(MG_FIRST_LEVEL)
        MG_LAUNCH(MG_SMOOTH)
        MG_LAUNCH(MG_RESIDUAL)
        MG_LAUNCH(MG_SWEEP)
        MG_LAUNCH(MG_PROLONG)
        MG_LAUNCH(MG_RESTRICT)
        MG_LAUNCH(MG_GALERKIN)
#undef MG_LAUNCH
    default:
        return gpu_fail_input(err, "multigrid: unknown loop kind %d", m.kind);
    }
    if (stream) /* capturing: no synchronisation allowed, and the launch is only recorded */
        GPU_TRY(cudaGetLastError(), err);
    else
        GPU_LAUNCHED("k_mg", err);
    return SL_OK;
}

void *cuda_mg_alloc(sim *s, size_t bytes, sl_err *err)
{
    (void)s;
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e == cudaSuccess)
        e = cudaMemset(p, 0, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        cudaFree(p);
        gpu_fail(err, "cudaMalloc of the multigrid hierarchy", e);
        return NULL;
    }
    return p;
}

void cuda_mg_free(sim *s, void *p)
{
    (void)s;
    cudaFree(p);
}

int cuda_mg_run(sim *s, mg_args *m, int diag, int in, int out, int work)
{
    cuda_sim *st = state_of(s);
    if (st->last_error[0]) /* a kept error fails the primitives until it is taken */
        return SL_ERR_RUNTIME;
    st->host_current = 0;
    m->diag = diag >= 0 ? st->f[diag] : NULL;
    m->in = in >= 0 ? st->f[in] : NULL;
    m->out = out >= 0 ? st->f[out] : NULL;
    m->work = work >= 0 ? st->f[work] : NULL;
    m->cell = st->cell;
    m->cell_start = st->cell_start;
    sl_err err;
    int rc;
    if (st->mg_recording) { /* listed for the graph that cuda_mg_replay makes of them */
        if (st->mg_nops == st->mg_ops_cap) {
            int cap = st->mg_ops_cap ? 2 * st->mg_ops_cap : 64;
            mg_args *ops = (mg_args *)realloc(st->mg_ops, (size_t)cap * sizeof *ops);
            if (!ops) {
                gpu_fail_input(&err, "multigrid: out of host memory for the cycle's loops");
                cuda_remember_error(s, &err);
                return SL_ERR_RUNTIME;
            }
            st->mg_ops = ops;
            st->mg_ops_cap = cap;
        }
        st->mg_ops[st->mg_nops++] = *m;
        return SL_OK;
    }
    if (st->mg_capturing) {
        rc = launch(*m, st->mg_stream, &err);
    } else {
        cuda_timer_start(s);
        rc = launch(*m, 0, &err);
        cuda_timer_stop(s, mg_kind_label(m->kind), NULL);
    }
    if (rc)
        cuda_remember_error(s, &err);
    return rc;
}

/* Captures record's launches on a stream of their own into a graph (the stream does not
 * synchronise with the legacy default stream, as capture requires; nothing runs while capturing). */
int capture(sim *s, cuda_sim *st, int (*record)(sim *s, void *ctx), void *ctx, cudaGraphExec_t *exec, sl_err *err)
{
    if (!st->mg_stream)
        GPU_TRY(cudaStreamCreateWithFlags(&st->mg_stream, cudaStreamNonBlocking), err);
    GPU_TRY(cudaStreamBeginCapture(st->mg_stream, cudaStreamCaptureModeThreadLocal), err);
    st->mg_capturing = 1;
    int rc = record(s, ctx);
    st->mg_capturing = 0;
    cudaGraph_t graph = NULL;
    cudaError_t e = cudaStreamEndCapture(st->mg_stream, &graph);
    if (rc) {
        if (graph)
            cudaGraphDestroy(graph);
        return rc;
    }
    if (e != cudaSuccess)
        return gpu_fail(err, "cudaStreamEndCapture of the multigrid cycle", e);
    e = cudaGraphInstantiate(exec, graph, 0);
    cudaGraphDestroy(graph);
    if (e != cudaSuccess)
        return gpu_fail(err, "cudaGraphInstantiate of the multigrid cycle", e);
    return SL_OK;
}

/* The recorded loops (mg_ops) launched on the capture stream: each run of two or more small ones
 * as one k_mg_block, the others as their own kernels. */
int launch_recorded(sim *s, void *ctx)
{
    (void)ctx;
    cuda_sim *st = state_of(s);
    sl_err err;
    for (int k = 0; k < st->mg_nops;) {
        int e = k;
        while (e < st->mg_nops && mg_range(&st->mg_ops[e]) <= st->mg_block_max)
            ++e;
        if (e - k >= 2) {
            k_mg_block<<<1, MG_BLOCK_THREADS, 0, st->mg_stream>>>(st->mg_ops_dev + k, e - k);
            GPU_TRY(cudaGetLastError(), &err);
            k = e;
            continue;
        }
        if (launch(st->mg_ops[k], st->mg_stream, &err)) {
            cuda_remember_error(s, &err);
            return SL_ERR_RUNTIME;
        }
        ++k;
    }
    return SL_OK;
}

/* The cycle's loops, listed by running record, and their operands copied to the device. */
int record_loops(sim *s, cuda_sim *st, int (*record)(sim *s, void *ctx), void *ctx, sl_err *err)
{
    if (!st->mg_block_max) { /* SLUICE_MG_BLOCK: the largest loop a block takes, 0 for none (measurements) */
        const char *v = getenv("SLUICE_MG_BLOCK");
        long max = v ? strtol(v, NULL, 10) : 2048;
        st->mg_block_max = max > 0 ? max : -1;
    }
    st->mg_nops = 0;
    st->mg_recording = 1;
    int rc = record(s, ctx);
    st->mg_recording = 0;
    if (rc)
        return rc;
    if (st->mg_nops > st->mg_ops_dev_cap) {
        cudaFree(st->mg_ops_dev);
        st->mg_ops_dev = NULL;
        st->mg_ops_dev_cap = 0;
        GPU_TRY(cudaMalloc(&st->mg_ops_dev, (size_t)st->mg_nops * sizeof(mg_args)), err);
        st->mg_ops_dev_cap = st->mg_nops;
    }
    if (st->mg_nops)
        GPU_TRY(cudaMemcpy(st->mg_ops_dev, st->mg_ops, (size_t)st->mg_nops * sizeof(mg_args), cudaMemcpyHostToDevice),
                err);
    return SL_OK;
}

int cuda_mg_replay(sim *s, const void *key, long generation, int (*record)(sim *s, void *ctx), void *ctx)
{
    cuda_sim *st = state_of(s);
    if (st->last_error[0])
        return SL_ERR_RUNTIME;
    if (st->mg_graph_off)
        return record(s, ctx);
    sl_err err;
    if (!st->mg_graph || st->mg_graph_key != key || st->mg_graph_generation != generation) {
        if (st->mg_graph)
            cudaGraphExecDestroy(st->mg_graph);
        st->mg_graph = NULL;
        cudaGraphExec_t exec = NULL;
        if (record_loops(s, st, record, ctx, &err)) {
            if (!st->last_error[0])
                cuda_remember_error(s, &err);
            return SL_ERR_RUNTIME;
        }
        if (capture(s, st, launch_recorded, NULL, &exec, &err)) {
            if (st->last_error[0]) /* a launch failed: a real error */
                return SL_ERR_RUNTIME;
            /* graphs unavailable here: say so once and run the loops one by one from now on */
            if (!s->quiet)
                fprintf(stderr, "sluice: multigrid: %s; the cell levels run without a graph\n", err.msg);
            st->mg_graph_off = 1;
            return record(s, ctx);
        }
        st->mg_graph = exec;
        st->mg_graph_key = key;
        st->mg_graph_generation = generation;
    }
    st->host_current = 0;
    cuda_timer_start(s);
    cudaError_t e = cudaGraphLaunch(st->mg_graph, 0);
    cuda_timer_stop(s, "mg.levels", "graph");
    if (e != cudaSuccess) {
        gpu_fail(&err, "cudaGraphLaunch of the multigrid cycle", e);
        cuda_remember_error(s, &err);
        return SL_ERR_RUNTIME;
    }
    return SL_OK;
}

int longest_row(cuda_sim *st, const sparse_ell *A, size_t n, int32_t *longest, sl_err *err)
{
    if (!st->mg_longest)
        GPU_TRY(cudaMalloc(&st->mg_longest, sizeof(int32_t)), err);
    GPU_TRY(cudaMemset(st->mg_longest, 0, sizeof(int32_t)), err);
    if (n > 0) {
        k_longest_row<<<gpu_blocks_for(n), GPU_THREADS>>>(A->count, n, st->mg_longest);
        GPU_LAUNCHED("k_longest_row", err);
    }
    GPU_TRY(cudaMemcpy(longest, st->mg_longest, sizeof(int32_t), cudaMemcpyDeviceToHost), err);
    return SL_OK;
}

int cuda_mg_longest_row(sim *s, const sparse_ell *A, size_t n, int32_t *longest)
{
    cuda_sim *st = state_of(s);
    if (st->last_error[0])
        return SL_ERR_RUNTIME;
    sl_err err;
    int rc = longest_row(st, A, n, longest, &err);
    if (rc)
        cuda_remember_error(s, &err);
    return rc;
}

} // namespace

extern "C" const backend_mg_hooks cuda_mg_hooks = {
    cuda_mg_alloc,
    cuda_mg_free,
    cuda_mg_run,
    cuda_mg_longest_row,
    cuda_mg_replay,
    3, /* row_group_shift */
    1, /* hybrid_cycle */
};
