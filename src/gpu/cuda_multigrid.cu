/* cuda_multigrid.cu: the CUDA backend's multigrid primitives (backend.mg): one kernel per kind over
 * the elements of core/multigrid_ops.h, the arithmetic the CPU loops run. */
#include "cuda_state.h"

#include "gpu_check.h"

namespace {

template <int KIND>
__global__ void k_mg(const mg_args m, int64_t n)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
        mg_element(&m, KIND, e);
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
        MG_LAUNCH(MG_ROW_PARTIALS)
        MG_LAUNCH(MG_FIRST_LEVEL)
        MG_LAUNCH(MG_SMOOTH)
        MG_LAUNCH(MG_RESIDUAL)
        MG_LAUNCH(MG_CORRECT)
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
        if (capture(s, st, record, ctx, &exec, &err)) {
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
};
