/* cuda_multigrid.cu: the CUDA backend's multigrid primitives (backend.mg): one kernel per kind over
 * the elements of core/multigrid_ops.h, the arithmetic the CPU loops run. */
/* CUB before our headers: base/real.h's R() macro breaks its templates */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda_state.h"

#include "gpu_check.h"

#include <stdlib.h>
#include <string.h>

namespace {

template <int KIND>
__global__ void k_mg(const mg_args m, int64_t n)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
        mg_element(&m, KIND, e);
}

/* The same over a count on the device: the kinds over the listed cells of `coarse`
 * (mg_listed_coarse). */
template <int KIND>
__global__ void k_mg_counted(const mg_args m)
{
    const int64_t n = mg_range(&m), stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
        mg_element(&m, KIND, e);
}

/* A listed kind's loop (mg_listed) over fine.active, the threads numbered from `thread` with stride
 * `threads` (a multiple of 32): mg_listed_lanes consecutive threads a cell, each summing its lane
 * of the product (mg_lane_sum), folded by shuffles down in mg_fold's pairs into the group's first,
 * which finishes the cell. A group's threads go round the loop together, so each shuffle names its
 * own group's lanes alone. */
__device__ void listed_loop(const mg_args *m, int64_t thread, int64_t threads)
{
    const mg_grid *g = &m->fine;
    const int lanes = mg_listed_lanes(m), lane = (int)(thread % lanes);
    const int product = m->kind == MG_RESIDUAL || m->kind == MG_SWEEP;
    const unsigned group = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u) << ((threadIdx.x & 31u) & ~(unsigned)(lanes - 1));
    const int64_t count = *g->nactive;
    for (int64_t e = thread / lanes; e < count; e += threads / lanes) {
        const int64_t c = g->active[e];
        real ax = R(0.0);
        if (product) {
            ax = mg_lane_sum(g, c, g->x, lane, lanes);
            for (int half = lanes / 2; half > 0; half /= 2)
                ax += __shfl_down_sync(group, ax, half, lanes);
        }
        if (lane == 0)
            mg_listed_finish(m, m->kind, c, ax);
    }
}

/* The listed kinds on their own: a grid of at most a few waves, since the count is on the device and
 * the cells with unknowns are far fewer than the level's box (the grid is sized by the box). */
__global__ void k_mg_listed(const mg_args m)
{
    listed_loop(&m, (int64_t)blockIdx.x * blockDim.x + threadIdx.x, (int64_t)gridDim.x * blockDim.x);
}

/* The listed cells of a level: whether c has an unknown (its diagonal, once copied out). */
struct has_unknown {
    mg_grid g;
    __device__ bool operator()(int32_t c) const { return mg_lists(&g, c, mg_diagonal(&g, c)); }
};

/* The start of a level's listing: its diagonal copied out of the stencils, x = t = 0. */
__global__ void k_list_prepare(const mg_grid g)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < g.ncells; c += stride) {
        g.d[c] = mg_centre(&g, c);
        g.x[c] = R(0.0);
        g.t[c] = R(0.0);
    }
}

/* A small level's whole listing in one block (k_list_prepare's work, then the cells with unknowns
 * compacted in order by a block-wide scan, a block's width of cells at a time): one launch where a
 * large level takes three (the coarse levels are listed at every set-up, seven levels at 217k
 * particles). */
enum { LIST_BLOCK_THREADS = 1024, LIST_BLOCK_CELLS = 8192 };

__global__ void __launch_bounds__(LIST_BLOCK_THREADS) k_list_block(const mg_grid g)
{
    typedef cub::BlockScan<int, LIST_BLOCK_THREADS> block_scan;
    __shared__ typename block_scan::TempStorage scratch;
    __shared__ int listed;
    if (threadIdx.x == 0)
        listed = 0;
    __syncthreads();
    for (int64_t first = 0; first < g.ncells; first += LIST_BLOCK_THREADS) {
        const int64_t c = first + threadIdx.x;
        int unknown = 0;
        if (c < g.ncells) {
            const real d = mg_centre(&g, c);
            g.d[c] = d;
            g.x[c] = R(0.0);
            g.t[c] = R(0.0);
            unknown = mg_lists(&g, c, d);
        }
        int at, total;
        block_scan(scratch).ExclusiveSum(unknown, at, total);
        if (unknown)
            g.active[listed + at] = (int32_t)c;
        __syncthreads(); /* every thread has read `listed`; the scan's scratch is free again */
        if (threadIdx.x == 0)
            listed += total;
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *g.nactive = listed;
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
            if (mg_listed(m->kind)) {
                listed_loop(m, threadIdx.x, blockDim.x);
            } else {
                const int64_t n = mg_range(m);
                for (int64_t e = threadIdx.x; e < n; e += blockDim.x)
                    mg_element(m, m->kind, e);
            }
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

/* The levels' counts of listed cells (each g->nactive, on the device) in one launch, into host memory
 * the device writes directly (count_listed). */
struct level_counts {
    const int32_t *nactive[MG_MAX_LEVELS];
    int nlevels;
};

__global__ void k_level_counts(const level_counts c, int32_t *out)
{
    const int l = (int)threadIdx.x;
    if (l < c.nlevels)
        out[l] = *c.nactive[l];
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

/* Blocks for a loop over a level's listed cells: the level's blocks a cell (list_cells) times the
 * loop's threads or elements a cell, within the grid's limit. */
unsigned level_blocks(const mg_grid &g, int per_cell)
{
    const size_t blocks = (size_t)(g.blocks > 0 ? g.blocks : 1) * (size_t)per_cell;
    return (unsigned)(blocks < GPU_MAX_BLOCKS ? blocks : GPU_MAX_BLOCKS);
}

int launch(const mg_args &m, cudaStream_t stream, sl_err *err)
{
    const int64_t n = mg_range_bound(&m);
    if (n <= 0)
        return SL_OK;
    const unsigned blocks = gpu_blocks_for((size_t)n);
    if (mg_listed(m.kind)) {
        k_mg_listed<<<level_blocks(m.fine, mg_listed_lanes(&m)), GPU_THREADS, 0, stream>>>(m);
    } else switch (m.kind) {
#define MG_LAUNCH(K)                                                                                \
    case K:                                                                                         \
        k_mg<K><<<blocks, GPU_THREADS, 0, stream>>>(m, n);                                          \
        break;
#define MG_LAUNCH_COUNTED(K)                                                                        \
    case K:                                                                                         \
        k_mg_counted<K><<<level_blocks(m.coarse, mg_listed_coarse_per_cell(&m)), GPU_THREADS, 0, stream>>>(m); \
        break;
        MG_LAUNCH(MG_FINE_PRODUCT)
        MG_LAUNCH(MG_FINE_SMOOTH)
        MG_LAUNCH(MG_FINE_RESIDUAL)
        MG_LAUNCH(MG_FINE_CORRECT)
        MG_LAUNCH(MG_FINE_PROLONG)
        MG_LAUNCH(MG_FINE_RESTRICT)
        MG_LAUNCH_COUNTED(MG_FINE_RESTRICT_ROWS)
        MG_LAUNCH_COUNTED(MG_FIRST_LEVEL)
        MG_LAUNCH_COUNTED(MG_GALERKIN)
        MG_LAUNCH(MG_CELL_UNKNOWN)
        MG_LAUNCH_COUNTED(MG_FINE_RESTRICT_SMOOTHED)
        MG_LAUNCH(MG_FINE_POST_ZERO)
    case MG_ROW_PARTIALS:
        if (launch_row_partials(m, stream, err))
            return SL_ERR_RUNTIME;
        break;
        MG_LAUNCH(MG_FINE_POST)
        MG_LAUNCH(MG_FIRST_DIAGONAL)
        MG_LAUNCH(MG_GALERKIN_DIAGONAL)
        MG_LAUNCH_COUNTED(MG_RESTRICT)
#undef MG_LAUNCH
#undef MG_LAUNCH_COUNTED
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
        while (e < st->mg_nops && mg_range_bound(&st->mg_ops[e]) <= st->mg_block_max)
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

/* The loops of record(s, ctx), listed (st->mg_ops) without running them. */
int record_loops(sim *s, cuda_sim *st, int (*record)(sim *s, void *ctx), void *ctx)
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
    return rc;
}

static_assert(sizeof(mg_grid) == 12 * sizeof(int) + sizeof(int64_t) + 7 * sizeof(void *),
              "mg_grid has padding, which a byte-for-byte comparison of operands would read");
static_assert(sizeof(mg_args) == 2 * sizeof(int) + sizeof(int64_t) + sizeof(sparse_ell) + 9 * sizeof(void *) +
                                     2 * sizeof(mg_grid) + 2 * sizeof(real),
              "mg_args has padding, which a byte-for-byte comparison of operands would read");
static_assert(sizeof(sparse_ell) == 3 * sizeof(void *) + 2 * sizeof(int32_t) + sizeof(int64_t),
              "sparse_ell has padding, which a byte-for-byte comparison of operands would read");

/* Whether the loops just listed are those the graph was captured from: the same kinds, sizes,
 * shapes and arrays (the particle fields' arrays, A's and the levels' are all in the operands). */
bool same_as_captured(const cuda_sim *st)
{
    return st->mg_graph && st->mg_nops == st->mg_captured_nops &&
           memcmp(st->mg_ops, st->mg_captured, (size_t)st->mg_nops * sizeof(mg_args)) == 0;
}

/* The listed loops' operands copied to the device (k_mg_block reads them there) and kept on the host
 * as the graph's. */
int keep_captured(cuda_sim *st, sl_err *err)
{
    if (st->mg_nops > st->mg_ops_dev_cap) {
        cudaFree(st->mg_ops_dev);
        free(st->mg_captured);
        st->mg_ops_dev = NULL;
        st->mg_ops_dev_cap = 0;
        st->mg_captured = (mg_args *)malloc((size_t)st->mg_nops * sizeof(mg_args));
        if (!st->mg_captured)
            return gpu_fail_input(err, "multigrid: out of host memory for the graph's loops");
        GPU_TRY(cudaMalloc(&st->mg_ops_dev, (size_t)st->mg_nops * sizeof(mg_args)), err);
        st->mg_ops_dev_cap = st->mg_nops;
    }
    if (st->mg_nops) {
        GPU_TRY(cudaMemcpy(st->mg_ops_dev, st->mg_ops, (size_t)st->mg_nops * sizeof(mg_args), cudaMemcpyHostToDevice),
                err);
        memcpy(st->mg_captured, st->mg_ops, (size_t)st->mg_nops * sizeof(mg_args));
    }
    st->mg_captured_nops = st->mg_nops;
    return SL_OK;
}

/* Whether the caller's stamp and the particle arrays are those of the last listing (then the loops
 * listed again would be the same: backend.mg.replay). */
bool same_stamp(const cuda_sim *st, const void *stamp, size_t bytes)
{
    return st->mg_graph && bytes > 0 && bytes == st->mg_stamp_bytes && memcmp(stamp, st->mg_stamp, bytes) == 0 &&
           memcmp(st->f, st->mg_stamp_f, sizeof st->f) == 0 && st->cell == st->mg_stamp_cell &&
           st->cell_start == st->mg_stamp_cell_start;
}

void keep_stamp(cuda_sim *st, const void *stamp, size_t bytes)
{
    st->mg_stamp_bytes = bytes <= sizeof st->mg_stamp ? bytes : 0; /* too long: list every time */
    if (st->mg_stamp_bytes)
        memcpy(st->mg_stamp, stamp, bytes);
    memcpy(st->mg_stamp_f, st->f, sizeof st->f);
    st->mg_stamp_cell = st->cell;
    st->mg_stamp_cell_start = st->cell_start;
}

/* The graph of the listed loops, launched. */
int launch_graph(sim *s, cuda_sim *st)
{
    sl_err err;
    st->host_current = 0;
    cuda_timer_start(s);
    cudaError_t e = cudaGraphLaunch(st->mg_graph, 0);
    cuda_timer_stop(s, "mg.cycle", "graph");
    if (e != cudaSuccess) {
        gpu_fail(&err, "cudaGraphLaunch of the multigrid cycle", e);
        cuda_remember_error(s, &err);
        return SL_ERR_RUNTIME;
    }
    return SL_OK;
}

/* The loops are listed (host work only) and compared with the graph's, so a graph is never replayed
 * on arrays or sizes it was not captured for: a particle field that moved to another array at a
 * cell rebuild, a new particle count, a level listed in another shape. The listing is skipped where
 * the caller's stamp and the particle arrays are as at the last one: the CG's iterations after its
 * first, whose listing (about 25 us of host time) the device would otherwise wait for once the host
 * no longer runs ahead. */
int cuda_mg_replay(sim *s, int (*record)(sim *s, void *ctx), void *ctx, const void *stamp, size_t stamp_bytes)
{
    cuda_sim *st = state_of(s);
    if (st->last_error[0])
        return SL_ERR_RUNTIME;
    static int graph_wanted = -1; /* SLUICE_MG_GRAPH=0: every loop its own launch (a measurement knob) */
    if (graph_wanted < 0) {
        const char *v = getenv("SLUICE_MG_GRAPH");
        graph_wanted = !(v && strcmp(v, "0") == 0);
    }
    if (st->mg_graph_off || !graph_wanted)
        return record(s, ctx);
    sl_err err;
    if (same_stamp(st, stamp, stamp_bytes))
        return launch_graph(s, st);
    st->mg_stamp_bytes = 0; /* kept again once listed and captured */
    if (record_loops(s, st, record, ctx)) {
        if (!st->last_error[0]) {
            gpu_fail_input(&err, "multigrid: listing the preconditioner's loops failed");
            cuda_remember_error(s, &err);
        }
        return SL_ERR_RUNTIME;
    }
    if (!same_as_captured(st)) {
        double t0 = s->prof.enabled ? profile_now() : 0;
        if (st->mg_graph)
            cudaGraphExecDestroy(st->mg_graph);
        st->mg_graph = NULL;
        st->mg_captured_nops = 0;
        cudaGraphExec_t exec = NULL;
        if (keep_captured(st, &err)) {
            cuda_remember_error(s, &err);
            return SL_ERR_RUNTIME;
        }
        if (capture(s, st, launch_recorded, NULL, &exec, &err)) {
            st->mg_captured_nops = 0;
            if (st->last_error[0]) /* a launch failed: a real error */
                return SL_ERR_RUNTIME;
            /* graphs unavailable here: say so once and run the loops one by one from now on */
            if (!s->quiet)
                fprintf(stderr, "sluice: multigrid: %s; the preconditioner runs without a graph\n", err.msg);
            st->mg_graph_off = 1;
            return record(s, ctx);
        }
        st->mg_graph = exec;
        if (s->prof.enabled) /* how often the graph is captured again: `sluice bench` counts it */
            profile_add(&s->prof, "mg.capture", NULL, profile_now() - t0);
    }
    keep_stamp(st, stamp, stamp_bytes);
    return launch_graph(s, st);
}

/* The threads the device holds at once, times SLUICE_MG_WAVES (a measurement knob; 2). */
int64_t listed_threads_wanted(void)
{
    static int64_t wanted = 0;
    if (!wanted) {
        const char *v = getenv("SLUICE_MG_WAVES");
        const long waves = v && strtol(v, NULL, 10) > 0 ? strtol(v, NULL, 10) : 2;
        int dev = 0, sms = 0, threads = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
        wanted = (int64_t)waves * (sms > 0 ? sms : 1) * (threads > 0 ? threads : 2048);
    }
    return wanted;
}

/* SLUICE_MG_LANES, a measurement knob: the most lanes a cell (0: the stencil's), read once. */
int listed_lanes_cap(void)
{
    static int cap = -1;
    if (cap < 0) {
        const char *v = getenv("SLUICE_MG_LANES");
        const long lanes = v ? strtol(v, NULL, 10) : 0;
        cap = lanes > 0 && lanes <= MG_MAX_LANES ? (int)lanes : 0;
    }
    return cap;
}

/* Whether a level's shape depends on its count: not where all its cells at the most lanes make no
 * more threads than wanted (the coarse levels). */
int listed_shape_counts(const mg_grid *g)
{
    return g->ncells * mg_lanes(g) > listed_threads_wanted();
}

/* How the listed loops of a level run, from st->mg_counts[level] (list_cells: the last set-up's count,
 * for the set-up's own loops, whose sums do not depend on it; count_listed: this set-up's, for the
 * cycle; a stale count costs speed, not correctness, since the loops stride over the count on the
 * device): the fewest lanes a cell (at most the stencil's, SLUICE_MG_LANES a measurement cap) that
 * make the threads wanted, so a dense level keeps one thread a cell and a sparse one splits each
 * cell's latency; and blocks for a quarter more cells than counted, rounded up to a power of two so
 * that the graph is captured again only when the count moves far. Changing either makes the next
 * replay capture again. */
void choose_listed_shape(cuda_sim *st, mg_grid *g, int level)
{
    const int64_t counted = listed_shape_counts(g) ? st->mg_counts[level] : 0;
    const int64_t cells = counted > 0 ? counted : g->ncells;
    int most = mg_lanes(g);
    if (listed_lanes_cap() > 0 && listed_lanes_cap() < most)
        most = listed_lanes_cap();
    int lanes = 1;
    while (2 * lanes <= most && cells * lanes < listed_threads_wanted())
        lanes *= 2;
    int64_t blocks = 1;
    while (blocks * GPU_THREADS < cells + cells / 4 && blocks < (int64_t)GPU_MAX_BLOCKS)
        blocks *= 2;
    g->lanes = lanes;
    g->blocks = (int)blocks;
}

int list_cells(sim *s, cuda_sim *st, mg_grid *g, int level, sl_err *err)
{
    if (!st->mg_counts) { /* mapped: k_level_counts writes it */
        GPU_TRY(cudaHostAlloc(&st->mg_counts, MG_MAX_LEVELS * sizeof(int32_t), cudaHostAllocMapped), err);
        memset(st->mg_counts, 0, MG_MAX_LEVELS * sizeof(int32_t));
    }
    if (level >= 0) /* (a ring's listing, level -1, runs in its level's shape: solver/multigrid.c) */
        choose_listed_shape(st, g, level);
    cuda_timer_start(s);
    if (g->ncells <= LIST_BLOCK_CELLS) {
        k_list_block<<<1, LIST_BLOCK_THREADS>>>(*g);
    } else {
        k_list_prepare<<<gpu_blocks_for((size_t)g->ncells), GPU_THREADS>>>(*g);
        thrust::counting_iterator<int32_t> cells(0);
        has_unknown pick = {*g};
        size_t bytes = 0;
        GPU_TRY(cub::DeviceSelect::If(NULL, bytes, cells, g->active, g->nactive, (int)g->ncells, pick), err);
        int rc = gpu_scratch_reserve(&st->mg_select, bytes, err);
        if (rc)
            return rc;
        GPU_TRY(cub::DeviceSelect::If(st->mg_select.ptr, bytes, cells, g->active, g->nactive, (int)g->ncells, pick),
                err);
    }
    cuda_timer_stop(s, "mg.setup", NULL);
    GPU_LAUNCHED("the listing of the cells with unknowns", err);
    return SL_OK;
}

int cuda_mg_list_cells(sim *s, mg_grid *g, int level)
{
    cuda_sim *st = state_of(s);
    if (st->last_error[0])
        return SL_ERR_RUNTIME;
    sl_err err;
    int rc = list_cells(s, st, g, level, &err);
    if (rc)
        cuda_remember_error(s, &err);
    return rc;
}

/* The levels' counts from their listings (list_cells) in one launch and one wait, then each level
 * shaped from this set-up's count. (A copy a level in the stream, as the listings ran, cost two
 * gaps of about 5 us each in the stream a level: six levels, 60 us a step.) */
int count_listed(sim *s, cuda_sim *st, mg_grid *levels, int nlevels, int64_t *counts, sl_err *err)
{
    (void)s;
    if (nlevels > MG_MAX_LEVELS || !st->mg_counts)
        return gpu_fail_input(err, "multigrid: %d levels counted before any was listed, or more than %d", nlevels,
                              MG_MAX_LEVELS);
    level_counts c;
    c.nlevels = nlevels;
    for (int l = 0; l < nlevels; ++l)
        c.nactive[l] = levels[l].nactive;
    int32_t *out = NULL;
    GPU_TRY(cudaHostGetDevicePointer((void **)&out, st->mg_counts, 0), err);
    k_level_counts<<<1, 32>>>(c, out);
    GPU_LAUNCHED("the levels' listed counts", err);
    GPU_TRY(cudaStreamSynchronize(0), err);
    for (int l = 0; l < nlevels; ++l) {
        counts[l] = st->mg_counts[l];
        choose_listed_shape(st, &levels[l], l);
    }
    return SL_OK;
}

int cuda_mg_count_listed(sim *s, mg_grid *levels, int nlevels, int64_t *counts)
{
    cuda_sim *st = state_of(s);
    if (st->last_error[0])
        return SL_ERR_RUNTIME;
    sl_err err;
    int rc = count_listed(s, st, levels, nlevels, counts, &err);
    if (rc)
        cuda_remember_error(s, &err);
    return rc;
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

/* A span's values packed run after run into `packed` (pack), or written back from there. */
__global__ void k_span(real *v, const mg_span sp, real *packed, int pack)
{
    const int64_t n = sp.run * sp.count, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
        const int64_t k = e / sp.run;
        real *at = v + sp.first + k * sp.pitch + (e - k * sp.run);
        if (pack)
            packed[e] = *at;
        else
            *at = packed[e];
    }
}

/* A halo's columns, every span packed into one buffer: a level-0 column along x is thousands of
 * runs of a few cells, which a strided copy would move run by run. Through the host: one staging
 * buffer and one copy each way on the legacy stream, after the loops before it (a copy's latency,
 * tens of microseconds, is a good part of a halo's cost: hundreds of halos a step); the copy up is
 * synchronous, so that the host buffer is free for the next halo's messages. Into device memory
 * (the halo's copies GPU to GPU): the kernels alone, queued. */
int columns(cuda_sim *st, real *v, const mg_span *sp, int nspans, real *buf, int to_buf, int on_device, sl_err *err)
{
    size_t values = 0;
    for (int j = 0; j < nspans; ++j)
        values += (size_t)(sp[j].run * sp[j].count);
    const size_t bytes = values * sizeof(real);
    if (!values)
        return SL_OK;
    real *packed = buf;
    if (!on_device) {
        int rc = gpu_scratch_reserve(&st->halo_stage, bytes, err);
        if (rc)
            return rc;
        packed = (real *)st->halo_stage.ptr;
        if (!to_buf)
            GPU_TRY(cudaMemcpy(packed, buf, bytes, cudaMemcpyHostToDevice), err);
    }
    size_t at = 0;
    for (int j = 0; j < nspans; ++j) {
        const size_t n = (size_t)(sp[j].run * sp[j].count);
        if (n) {
            k_span<<<gpu_blocks_for(n), GPU_THREADS>>>(v, sp[j], packed + at, to_buf);
            GPU_LAUNCHED("the packing or unpacking of a cell level's halo", err);
        }
        at += n;
    }
    if (to_buf && !on_device)
        GPU_TRY(cudaMemcpy(buf, packed, bytes, cudaMemcpyDeviceToHost), err);
    return SL_OK;
}

int cuda_mg_columns(sim *s, real *v, const mg_span *sp, int nspans, real *buf, int to_buf, int on_device)
{
    cuda_sim *st = state_of(s);
    if (st->last_error[0])
        return SL_ERR_RUNTIME;
    sl_err err;
    cuda_timer_start(s);
    int rc = columns(st, v, sp, nspans, buf, to_buf, on_device, &err);
    cuda_timer_stop(s, "mg.halo", NULL);
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
    cuda_mg_list_cells,
    cuda_mg_count_listed,
    cuda_mg_columns,
    3, /* row_group_shift */
    1, /* hybrid_cycle */
};
