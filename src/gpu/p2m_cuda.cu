/* p2m_cuda.cu: particle-to-mesh spreading on the device, the CPU's two algorithms (src/io/p2m_grid.c)
 * over the same weights and node fields (physics/p2m_weights.h):
 *   particle-based: a thread per particle, atomicAdd on the double sums of its order^dim nodes;
 *   mesh-based:     the fluid binned by first stencil node (stable radix sort: bin starts + the
 *                   particles bin by bin, a CSR structure), then a group of G threads per node
 *                   (4..32, a sub-warp) sums a fixed share of the node's candidates each, and the
 *                   shares are combined by a fixed __shfl_down_sync tree: no atomics, deterministic. */
extern "C" {
#include "io/p2m_grid.h"
}

#include "gpu_check.h"
#include "gpu_scratch.h"
#include "gpu_sort.h"
#include "p2m_cuda.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

namespace {

constexpr unsigned FULL_MASK = 0xffffffffu;

/* Device buffers of one grid, kept between calls (p2m_grid.device). */
struct p2m_dev {
    size_t nnodes;
    double *sum;               /* 5 nnodes: m, m vx, m vy, m vz, m p (p2m_grid's mass, mom[3], pmass) */
    real *density, *velocity, *pressure;
    int32_t *start;            /* nnodes + 2: bin starts from the sort; start[nnodes] = particles binned */
    unsigned long long *count; /* particles spread (particle-based) */
    size_t cap;                /* particles the arrays below hold */
    int32_t *key, *order, *key_sorted;
    int32_t *i0x;              /* bin order: first stencil node along x */
    double *t;                 /* bin order: 3 cap, stencil offsets along x, y, z */
    real *v;                   /* bin order: 4 cap, vx vy vz p */
    gpu_scratch scratch;
};

struct sums {
    double *m, *mx, *my, *mz, *mp;
};

__device__ inline size_t node_index(const p2m_layout &L, long i, long j, long k)
{
    return (size_t)i + (size_t)L.n[0] * ((size_t)j + (size_t)L.n[1] * (size_t)k);
}

/* The stencil of particle i when it is a fluid particle the grid covers (as fluid_stencil of
 * p2m_grid.c). */
__device__ inline bool fluid_stencil(const p2m_layout &L, const p2m_cuda_input &in, size_t i, long i0[3],
                                     double t[3])
{
    if (in.type[i] != PT_FLUID)
        return false;
    real x[3] = {in.x[i], in.y[i], L.dim == 3 ? in.z[i] : R(0.0)};
    return p2m_particle_stencil(&L, x, i0, t) == 0;
}

/* ---- particle-based ---------------------------------------------------------------------------- */

/* The loop runs whole blocks in step (base is block-uniform, blockDim a multiple of 32), so every
 * lane reaches the ballot that counts the particles spread. */
__global__ void k_spread_particles(const p2m_layout L, const p2m_cuda_input in, sums S,
                                   unsigned long long *count)
{
    const unsigned lane = threadIdx.x & 31u;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const int kz_end = L.dim == 3 ? L.order : 1;
    for (size_t base = (size_t)blockIdx.x * blockDim.x; base < in.n; base += stride) {
        const size_t i = base + threadIdx.x;
        long i0[3];
        double t[3];
        const bool ok = i < in.n && fluid_stencil(L, in, i, i0, t);
        const unsigned spread = __ballot_sync(FULL_MASK, ok);
        if (lane == 0 && spread)
            atomicAdd(count, (unsigned long long)__popc(spread));
        if (!ok)
            continue;
        const double m = (double)in.mass, vx = in.vx[i], vy = in.vy[i];
        const double vz = L.dim == 3 ? (double)in.vz[i] : 0.0, pr = in.p[i];
        int k[3];
        for (k[2] = 0; k[2] < kz_end; ++k[2])
            for (k[1] = 0; k[1] < L.order; ++k[1])
                for (k[0] = 0; k[0] < L.order; ++k[0]) {
                    const double mw = m * p2m_node_weight(&L, t, k);
                    const size_t c = node_index(L, i0[0] + k[0], i0[1] + k[1], i0[2] + k[2]);
                    atomicAdd(&S.m[c], mw);
                    atomicAdd(&S.mx[c], mw * vx);
                    atomicAdd(&S.my[c], mw * vy);
                    atomicAdd(&S.mz[c], mw * vz);
                    atomicAdd(&S.mp[c], mw * pr);
                }
    }
}

__global__ void k_fields(size_t nnodes, const sums S, double vol, real *density, real *velocity, real *pressure)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x; c < nnodes; c += stride) {
        const double mom[3] = {S.mx[c], S.my[c], S.mz[c]};
        p2m_node_fields(S.m[c], mom, S.mp[c], vol, &density[c], &velocity[3 * c], &pressure[c]);
    }
}

/* ---- mesh-based -------------------------------------------------------------------------------- */

/* The bin of every particle: its first stencil node, or `sink` (= nnodes, sorted last) when it is
 * not spread. */
__global__ void k_bin_keys(const p2m_layout L, const p2m_cuda_input in, int32_t sink, int32_t *key)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < in.n; i += stride) {
        long i0[3];
        double t[3];
        key[i] = fluid_stencil(L, in, i, i0, t) ? (int32_t)node_index(L, i0[0], i0[1], i0[2]) : sink;
    }
}

/* What the gather reads, in bin order (slots [0, nb) hold the binned particles): the stencil again
 * (the same arithmetic as k_bin_keys, so it succeeds) and what the particle carries. */
__global__ void k_binned(const p2m_layout L, const p2m_cuda_input in, const int32_t *__restrict__ order, size_t nb,
                         size_t cap, double *__restrict__ t, int32_t *__restrict__ i0x, real *__restrict__ v)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x; q < nb; q += stride) {
        const int32_t i = order[q];
        long i0[3] = {0, 0, 0};
        double tt[3] = {0, 0, 0};
        real x[3] = {in.x[i], in.y[i], L.dim == 3 ? in.z[i] : R(0.0)};
        p2m_particle_stencil(&L, x, i0, tt);
        for (int a = 0; a < 3; ++a)
            t[(size_t)a * cap + q] = tt[a];
        i0x[q] = (int32_t)i0[0];
        v[q] = in.vx[i];
        v[cap + q] = in.vy[i];
        v[2 * cap + q] = L.dim == 3 ? in.vz[i] : R(0.0);
        v[3 * cap + q] = in.p[i];
    }
}

/* A group of G lanes per node. The node's candidates are the particles of the order^dim bins whose
 * stencils cover it: order^(dim-1) runs, each contiguous (bins along x are consecutive), every one
 * of which contributes. Numbered across the runs, candidate r goes to lane r mod G, which adds its
 * candidates in increasing r; then lane 0 gets the G partial sums through a fixed shuffle tree and
 * writes the sums and fields. The assignment and the tree depend on the bins only, never on timing.
 * The loop keeps whole warps in step (its test is on the warp's first group), so the full mask is
 * valid for the shuffles. */
template <int G>
__global__ void k_gather(const p2m_layout L, const int32_t *__restrict__ start, const double *__restrict__ t,
                         const int32_t *__restrict__ i0x, const real *__restrict__ v, size_t cap, double mass,
                         size_t nnodes, double vol, sums S, real *density, real *velocity, real *pressure)
{
    static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "lanes per node: a power of 2 up to a warp");
    const int lane = (int)(threadIdx.x % G);
    const size_t per_block = blockDim.x / G;
    const size_t ngroups = (size_t)gridDim.x * per_block;
    const size_t group = (size_t)blockIdx.x * per_block + threadIdx.x / G;
    const size_t warp_group0 = (size_t)blockIdx.x * per_block + (threadIdx.x & ~31u) / G;
    const long nx = L.n[0], ny = L.n[1], nz = L.n[2], p = L.order;
    const int kz_end = L.dim == 3 ? L.order : 1;
    for (size_t round = 0; warp_group0 + round * ngroups < nnodes; ++round) {
        const size_t c = group + round * ngroups;
        double sm = 0, sx = 0, sy = 0, sz = 0, sp = 0;
        if (c < nnodes) {
            const long i = (long)(c % (size_t)nx), j = (long)((c / (size_t)nx) % (size_t)ny);
            const long kk = (long)(c / ((size_t)nx * (size_t)ny));
            const long ib = i - p + 1 < 0 ? 0 : i - p + 1;
            const long ie = i < nx - p ? i : nx - p; /* bins exist up to n - order */
            long before = 0;                         /* candidates in the runs already visited */
            for (int dz = 0; dz < kz_end && ib <= ie; ++dz) {
                const long bk = kk - dz;
                if (bk < 0 || bk > nz - kz_end)
                    continue;
                for (int dy = 0; dy < p; ++dy) {
                    const long bj = j - dy;
                    if (bj < 0 || bj > ny - p)
                        continue;
                    const int32_t qb = start[node_index(L, ib, bj, bk)];
                    const int32_t qe = start[node_index(L, ie, bj, bk) + 1];
                    const long first = ((lane - before) % G + G) % G;
                    for (long q = qb + first; q < qe; q += G) {
                        const double tq[3] = {t[q], t[cap + (size_t)q], t[2 * cap + (size_t)q]};
                        const int k[3] = {(int)(i - i0x[q]), dy, dz};
                        const double mw = mass * p2m_node_weight(&L, tq, k);
                        sm += mw;
                        sx += mw * v[q];
                        sy += mw * v[cap + (size_t)q];
                        sz += mw * v[2 * cap + (size_t)q];
                        sp += mw * v[3 * cap + (size_t)q];
                    }
                    before += qe - qb;
                }
            }
        }
        for (int off = G / 2; off > 0; off >>= 1) {
            sm += __shfl_down_sync(FULL_MASK, sm, off, G);
            sx += __shfl_down_sync(FULL_MASK, sx, off, G);
            sy += __shfl_down_sync(FULL_MASK, sy, off, G);
            sz += __shfl_down_sync(FULL_MASK, sz, off, G);
            sp += __shfl_down_sync(FULL_MASK, sp, off, G);
        }
        if (c < nnodes && lane == 0) {
            S.m[c] = sm;
            S.mx[c] = sx;
            S.my[c] = sy;
            S.mz[c] = sz;
            S.mp[c] = sp;
            const double mom[3] = {sx, sy, sz};
            p2m_node_fields(sm, mom, sp, vol, &density[c], &velocity[3 * c], &pressure[c]);
        }
    }
}

/* Lanes per node when the grid does not ask for a number. Measured on the H200 (bench_p2m, every
 * lane count, 2D and 3D, orders 2 and 4, 0.1 to 330 contributions per node): 4 lanes were the
 * fastest in every row, up to 2x faster than 32 on dense grids; a node's candidates come from
 * order^dim bins, and with more lanes the shuffles and idle lanes cost more than they share. */
enum { DEFAULT_LANES = 4 };

/* ---- buffers ------------------------------------------------------------------------------------- */

void free_particle_arrays(p2m_dev *d)
{
    cudaFree(d->key);
    cudaFree(d->order);
    cudaFree(d->key_sorted);
    cudaFree(d->i0x);
    cudaFree(d->t);
    cudaFree(d->v);
    d->key = d->order = d->key_sorted = d->i0x = NULL;
    d->t = NULL;
    d->v = NULL;
    d->cap = 0;
}

int alloc_nodes(p2m_dev *d, size_t nnodes, sl_err *err)
{
    const size_t nn = nnodes ? nnodes : 1;
    d->nnodes = nnodes;
    GPU_TRY(cudaMalloc(&d->sum, 5 * nn * sizeof(double)), err);
    GPU_TRY(cudaMalloc(&d->density, nn * sizeof(real)), err);
    GPU_TRY(cudaMalloc(&d->velocity, 3 * nn * sizeof(real)), err);
    GPU_TRY(cudaMalloc(&d->pressure, nn * sizeof(real)), err);
    GPU_TRY(cudaMalloc(&d->start, (nn + 2) * sizeof(int32_t)), err);
    GPU_TRY(cudaMalloc(&d->count, sizeof(unsigned long long)), err);
    return SL_OK;
}

int alloc_particles(p2m_dev *d, size_t n, sl_err *err)
{
    const size_t m = n ? n : 1;
    GPU_TRY(cudaMalloc(&d->key, m * sizeof(int32_t)), err);
    GPU_TRY(cudaMalloc(&d->order, m * sizeof(int32_t)), err);
    GPU_TRY(cudaMalloc(&d->key_sorted, m * sizeof(int32_t)), err);
    GPU_TRY(cudaMalloc(&d->i0x, m * sizeof(int32_t)), err);
    GPU_TRY(cudaMalloc(&d->t, 3 * m * sizeof(double)), err);
    GPU_TRY(cudaMalloc(&d->v, 4 * m * sizeof(real)), err);
    d->cap = m;
    return SL_OK;
}

/* The buffers of g: the node arrays made on the first call, the particle arrays of the mesh-based
 * algorithm grown with the particle count. A failed allocation leaves nothing half made. */
int device_of(p2m_grid *g, size_t n, int mesh, p2m_dev **out, sl_err *err)
{
    if (g->device && g->device_free != p2m_cuda_free) { /* another backend's buffers */
        g->device_free(g->device);
        g->device = NULL;
    }
    p2m_dev *d = (p2m_dev *)g->device;
    int rc;
    if (!d) {
        d = (p2m_dev *)calloc(1, sizeof *d);
        if (!d)
            return gpu_fail(err, "grid: host memory for the device buffers", cudaErrorMemoryAllocation);
        if ((rc = alloc_nodes(d, g->nnodes, err))) {
            p2m_cuda_free(d);
            return rc;
        }
        g->device = d;
        g->device_free = p2m_cuda_free;
    }
    if (mesh && (n > d->cap || !d->key)) {
        free_particle_arrays(d);
        if ((rc = alloc_particles(d, n, err))) {
            free_particle_arrays(d);
            return rc;
        }
    }
    *out = d;
    return SL_OK;
}

sums sums_of(const p2m_dev *d)
{
    size_t nn = d->nnodes;
    sums S = {d->sum, d->sum + nn, d->sum + 2 * nn, d->sum + 3 * nn, d->sum + 4 * nn};
    return S;
}

int launch_gather(int lanes, const p2m_layout &L, const p2m_dev *d, double mass, double vol, sl_err *err)
{
    const size_t nn = d->nnodes;
    const unsigned blocks = gpu_blocks_for(nn * (size_t)lanes);
#define P2M_GATHER(G)                                                                                       \
    k_gather<G><<<blocks, GPU_THREADS>>>(L, d->start, d->t, d->i0x, d->v, d->cap, mass, nn, vol, sums_of(d), \
                                         d->density, d->velocity, d->pressure)
    switch (lanes) {
    case 4:
        P2M_GATHER(4);
        break;
    case 8:
        P2M_GATHER(8);
        break;
    case 16:
        P2M_GATHER(16);
        break;
    case 32:
        P2M_GATHER(32);
        break;
    default:
        return gpu_fail_input(err, "grid: %d threads per node (accepted: 4, 8, 16, 32)", lanes);
    }
#undef P2M_GATHER
    GPU_LAUNCHED("p2m gather", err);
    return SL_OK;
}

} // namespace

extern "C" void p2m_cuda_free(void *device)
{
    p2m_dev *d = (p2m_dev *)device;
    if (!d)
        return;
    free_particle_arrays(d);
    cudaFree(d->sum);
    cudaFree(d->density);
    cudaFree(d->velocity);
    cudaFree(d->pressure);
    cudaFree(d->start);
    cudaFree(d->count);
    gpu_scratch_free(&d->scratch);
    free(d);
}

extern "C" int p2m_cuda_spread(p2m_grid *g, const p2m_cuda_input *in, int method, sl_err *err)
{
    if (method != P2M_PARTICLE && method != P2M_MESH)
        return gpu_fail_input(err, "grid: unknown spreading method %d", method);
    if (in->n > (size_t)INT32_MAX - 1)
        return gpu_fail_input(err, "grid: %zu particles do not fit 32-bit indices", in->n);
    if (g->nnodes > (size_t)INT32_MAX - 2)
        return gpu_fail_input(err, "grid: %zu nodes do not fit 32-bit bins", g->nnodes);
    GPU_TRY(cudaGetLastError(), err); /* a launch that failed since the last check: said here, not later */
    p2m_dev *d;
    int rc = device_of(g, in->n, method == P2M_MESH, &d, err);
    if (rc)
        return rc;
    const p2m_layout L = g->L;
    const size_t nn = g->nnodes, n = in->n;
    const double vol = pow(L.spacing, L.dim), mass = (double)in->mass;
    size_t spread = 0;
    int lanes = 0;
    if (method == P2M_MESH) {
        k_bin_keys<<<gpu_blocks_for(n), GPU_THREADS>>>(L, *in, (int32_t)nn, d->key);
        GPU_LAUNCHED("p2m bin keys", err);
        /* stable, so a bin keeps the particles' order and the sums theirs: the single-pass counting
         * sort of gpu_sort.h places the particles of a bin by the timing of its atomics */
        if ((rc = gpu_sort_keys(d->key, n, nn + 1, GPU_SORT_RADIX, GPU_SCAN_CUB, d->order, d->key_sorted, d->start,
                                &d->scratch, err)))
            return rc;
        int32_t nb = 0;
        GPU_TRY(cudaMemcpy(&nb, d->start + nn, sizeof nb, cudaMemcpyDeviceToHost), err);
        spread = (size_t)nb;
        lanes = g->gpu_lanes > 0 ? g->gpu_lanes : DEFAULT_LANES;
        if (nb > 0) {
            k_binned<<<gpu_blocks_for(spread), GPU_THREADS>>>(L, *in, d->order, spread, d->cap, d->t, d->i0x, d->v);
            GPU_LAUNCHED("p2m binned", err);
        }
        if ((rc = launch_gather(lanes, L, d, mass, vol, err)))
            return rc;
    } else {
        GPU_TRY(cudaMemsetAsync(d->sum, 0, 5 * nn * sizeof(double)), err);
        GPU_TRY(cudaMemsetAsync(d->count, 0, sizeof(unsigned long long)), err);
        if (n > 0) {
            k_spread_particles<<<gpu_blocks_for(n), GPU_THREADS>>>(L, *in, sums_of(d), d->count);
            GPU_LAUNCHED("p2m spread particles", err);
        }
        k_fields<<<gpu_blocks_for(nn), GPU_THREADS>>>(nn, sums_of(d), vol, d->density, d->velocity, d->pressure);
        GPU_LAUNCHED("p2m fields", err);
        unsigned long long count = 0;
        GPU_TRY(cudaMemcpy(&count, d->count, sizeof count, cudaMemcpyDeviceToHost), err);
        spread = (size_t)count;
    }
    GPU_TRY(cudaDeviceSynchronize(), err);
    g->method_used = method;
    g->on_device = 1;
    g->gpu_lanes_used = lanes;
    g->spread = spread;
    g->fluid_mass = (double)spread * mass;
    return SL_OK;
}

extern "C" int p2m_cuda_to_host(p2m_grid *g, sl_err *err)
{
    const p2m_dev *d = (const p2m_dev *)g->device;
    if (!d || g->device_free != p2m_cuda_free || !g->on_device)
        return gpu_fail_input(err, "grid: nothing spread on the device to copy");
    const size_t nn = g->nnodes;
    double *host[5] = {g->mass, g->mom[0], g->mom[1], g->mom[2], g->pmass};
    for (int k = 0; k < 5; ++k)
        GPU_TRY(cudaMemcpy(host[k], d->sum + (size_t)k * nn, nn * sizeof(double), cudaMemcpyDeviceToHost), err);
    GPU_TRY(cudaMemcpy(g->density, d->density, nn * sizeof(real), cudaMemcpyDeviceToHost), err);
    GPU_TRY(cudaMemcpy(g->velocity, d->velocity, 3 * nn * sizeof(real), cudaMemcpyDeviceToHost), err);
    GPU_TRY(cudaMemcpy(g->pressure, d->pressure, nn * sizeof(real), cudaMemcpyDeviceToHost), err);
    return SL_OK;
}

extern "C" int p2m_cuda_upload(const particles *p, real mass, p2m_cuda_input *in, sl_err *err)
{
    memset(in, 0, sizeof *in);
    size_t m = p->n ? p->n : 1;
    const real **dst[7] = {&in->x, &in->y, &in->z, &in->vx, &in->vy, &in->vz, &in->p};
    const int src[7] = {PF_X, PF_Y, PF_Z, PF_VX, PF_VY, PF_VZ, PF_P};
    for (int k = 0; k < 7; ++k) {
        real *a = NULL;
        GPU_TRY(cudaMalloc(&a, m * sizeof(real)), err);
        *dst[k] = a;
        GPU_TRY(cudaMemcpy(a, p->f[src[k]], p->n * sizeof(real), cudaMemcpyHostToDevice), err);
    }
    uint8_t *type = NULL;
    GPU_TRY(cudaMalloc(&type, m), err);
    in->type = type;
    GPU_TRY(cudaMemcpy(type, p->type, p->n, cudaMemcpyHostToDevice), err);
    in->n = p->n;
    in->mass = mass;
    return SL_OK;
}

extern "C" void p2m_cuda_input_free(p2m_cuda_input *in)
{
    const void *a[8] = {in->x, in->y, in->z, in->vx, in->vy, in->vz, in->p, in->type};
    for (int k = 0; k < 8; ++k)
        cudaFree((void *)a[k]);
    memset(in, 0, sizeof *in);
}
