/* pass_kernels.cu: the passes' per-particle bodies (wcsph_passes.h, mps_passes.h) as CUDA kernels, one
 * template per interaction strategy; the physics is not written again here. Which kernels a pass
 * has is generated from the schemes' pass lists (schemes/registry.h), so a listed pass without a
 * body, pair form or GPU adapter is a build error, not a run-time one. */
/* Compiled without periodic images (physics/periodic.h, grid/nbr_grid.h): every strategy for grids with
 * no periodic axis; those with one go to pass_kernels_periodic.cu. */
#define SLUICE_NO_PERIODIC 1
#include "pass_kernels.h"

#include "body_kernels.cuh"

#include "schemes/registry.h"
#include "gpu_check.h"

#include <cuda_runtime.h>
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pass_traits.cuh" /* the passes' pair and symmetric forms */

/* Whether a FORM has a pair form (staged strategies, par-part-compact, the oracle) and a symmetric
 * one (par-part-sym). */
#define FORM_HAS_PAIRS_BODY 0
#define FORM_HAS_PAIRS_PAIRS 1
#define FORM_HAS_PAIRS_SYM 1
#define FORM_HAS_SYM_BODY 0
#define FORM_HAS_SYM_PAIRS 0
#define FORM_HAS_SYM_SYM 1

/* Whether staged candidate b lies closer to target a than the pass's reach (cut2 its square; cube:
 * along every axis): the pair body, many times longer than this test, runs only for those. */
template <class S>
__device__ static inline bool staged_near(const S &b, const S &a, bool three, bool cube, real cut2)
{
    real dx = a.x - b.x, dy = a.y - b.y, dz = three ? a.z - b.z : R(0.0);
    real d2 = cube ? fmax(dx * dx, fmax(dy * dy, dz * dz)) : dx * dx + dy * dy + dz * dz;
    return d2 < cut2;
}

/* x-pencil (and par-cell-sm with L = 1): block b takes cells [ix0, ix0 + L) of one (iy, iz) row;
 * its targets, at most blockDim of them, are contiguous; so is each source pencil. */
template <class T>
__global__ void k_pencil(const __grid_constant__ pass_ctx c, const launch_geom g, int L)
{
    extern __shared__ unsigned char smem[];
    typename T::source *src = (typename T::source *)smem;
    int pencils_x = (g.interior[0] + L - 1) / L;
    int64_t b = blockIdx.x;
    int px = (int)(b % pencils_x);
    int64_t row = b / pencils_x;
    int iy = (int)(row % g.interior[1]);
    int iz = (int)(row / g.interior[1]);
    int ix0 = px * L;
    int len = min(L, g.interior[0] - ix0);
    int32_t c0 = padded_cell(g, ix0, iy, iz);
    const int32_t *start = c.nb.cell_start;
    int32_t tb = start[c0], te = start[c0 + len];
    int32_t i = tb + (int32_t)threadIdx.x;
    bool active = i < te;
    typename T::view v = T::view_of(c);
    typename T::source a;
    typename T::acc s;
    bool want = false;
    if (active) {
        a = T::load(c, v, i);
        want = T::begin(c, v, i, a, s);
    }
    int nd = c.nb.ndiv;
    const bool three = c.P.dim == 3, cube = T::cube(c);
    const real cut2 = T::cutoff2(c) * R(1.00001); /* a margin: the pair body decides at the boundary */
    int32_t my_cell = active ? c.nb.cell[i] : c0;
    const nbr_place at = nbr_place_of(&c.nb, my_cell, active ? c.f[PF_X][i] : R(0.0), active ? c.f[PF_Y][i] : R(0.0),
                                      active && c.P.dim == 3 ? c.f[PF_Z][i] : R(0.0), T::reach(c), T::cube(c));
    while (__syncthreads_or(want)) { /* a sweep while any target of the block wants one */
        for (int r = 0; r < c.nb.nruns; ++r) {
            int32_t centre = c0 + c.nb.run_offset[r];
            int32_t sb = start[centre - nd], se = start[centre + len + nd];
            /* this target's own forward-star run inside the pencil's, cut to its reach: the same
             * candidates as par-part */
            int32_t mb, me;
            nbr_run_range_within(&c.nb, my_cell, r, &at, &mb, &me);
            for (int32_t chunk = sb; chunk < se; chunk += (int32_t)blockDim.x) {
                int32_t j = chunk + (int32_t)threadIdx.x;
                if (j < se)
                    src[threadIdx.x] = T::load(c, v, j);
                __syncthreads();
                if (want) {
                    int32_t kb = max(mb, chunk) - chunk, ke = min(me, chunk + (int32_t)blockDim.x) - chunk;
                    for (int32_t k = kb; k < ke; ++k)
                        if (staged_near(src[k], a, three, cube, cut2)) /* the rest add nothing */
                            T::add(c, a, i, src[k], chunk + k, s);
                }
                __syncthreads();
            }
        }
        if (want)
            want = T::next(c, v, i, a, s);
    }
    if (active)
        T::finish(c, v, i, a, s);
}

/* par-part-compact: a thread per target as par-part, but each run of candidates is first tested
 * for distance alone, 32 at a time, into a bit mask; the pair physics then runs over the set bits
 * without testing again (T::add_near). 32 rather than 64: the mask stays one register and the
 * pass is 4% faster; add_near saves another 2.6% (H200, docs/performance.md).
 * In par-part a warp's 32 targets test different candidates, about a quarter of them neighbours,
 * so the long pair body runs at most candidates with most lanes idle; here a warp runs it about as
 * often as its busiest lane has neighbours in the chunk. Pairs are added in par-part's order. */
enum { COMPACT_THREADS = 128 };

/* Bit k set for each neighbour chunk + k of target i at (xi, yi, zi), k < m <= 32: closer than
 * sqrt(cut2) (CUBE: along every axis) and not i. */
template <bool CUBE>
__device__ static inline unsigned near_mask(const real *X, const real *Y, const real *Z, bool three, real xi,
                                            real yi, real zi, real cut2, int32_t i, int32_t chunk, int m)
{
    unsigned near = 0;
#pragma unroll 4
    for (int k = 0; k < m; ++k) {
        int32_t j = chunk + k;
        real dx = xi - X[j], dy = yi - Y[j], dz = three ? zi - Z[j] : R(0.0);
        real d2 = CUBE ? fmax(dx * dx, fmax(dy * dy, dz * dz)) : dx * dx + dy * dy + dz * dz;
        if (d2 < cut2 && j != i)
            near |= 1u << k;
    }
    return near;
}

/* The blocks of COMPACT_THREADS an SM must hold at once for a pass's par-part-compact kernel
 * (__launch_bounds__). 6 for mps.ppe_setup and mps.gradient: with 93 and 96 registers a quarter of
 * their warps were active; capped at 80 (a few words spilled) they took 4-7% less on an H100
 * (ppe_setup 0.80 -> 0.76 ms at 217k particles and 3.83 -> 3.57 ms at 1M; 8 blocks, 64 registers
 * and more spills: 0.75 and 3.62; docs/performance.md). 1 for the others.
 * SLUICE_COMPACT_MIN_BLOCKS (-D in CMAKE_CUDA_FLAGS, a measurement knob) sets the two. */
#ifndef SLUICE_COMPACT_MIN_BLOCKS
#define SLUICE_COMPACT_MIN_BLOCKS 6
#endif
template <class T> struct compact_min_blocks { enum { value = 1 }; };
template <> struct compact_min_blocks<mps_ppe_setup_pairs> { enum { value = SLUICE_COMPACT_MIN_BLOCKS }; };
template <> struct compact_min_blocks<mps_gradient_pairs> { enum { value = SLUICE_COMPACT_MIN_BLOCKS }; };

template <class T>
__global__ void __launch_bounds__(COMPACT_THREADS, compact_min_blocks<T>::value)
    k_par_part_compact(const __grid_constant__ pass_ctx c, int32_t n)
{
    int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    typename T::view v = T::view_of(c);
    typename T::source a = T::load(c, v, i);
    typename T::acc s;
    bool want = T::begin(c, v, i, a, s);
    const real *X = c.f[PF_X], *Y = c.f[PF_Y], *Z = c.f[PF_Z];
    const bool three = c.P.dim == 3;
    const real cut2 = T::cutoff2(c);
    const bool cube = T::cube(c);
    const real xi = X[i], yi = Y[i], zi = three ? Z[i] : R(0.0);
    const int32_t cell = c.nb.cell[i];
    const nbr_place at = nbr_place_of(&c.nb, cell, xi, yi, zi, T::reach(c), cube);
    while (want) {
        for (int r = 0; r < c.nb.nruns; ++r) {
            int32_t jb, je;
            nbr_run_range_within(&c.nb, cell, r, &at, &jb, &je);
            for (int32_t chunk = jb; chunk < je; chunk += 32) {
                int m = min(32, je - chunk);
                unsigned near = cube ? near_mask<true>(X, Y, Z, three, xi, yi, zi, cut2, i, chunk, m)
                                     : near_mask<false>(X, Y, Z, three, xi, yi, zi, cut2, i, chunk, m);
                while (near) {
                    int32_t j = chunk + __ffs((int)near) - 1;
                    near &= near - 1;
                    T::add_near(c, a, i, T::load(c, v, j), j, s);
                }
            }
        }
        want = T::next(c, v, i, a, s);
    }
    T::finish(c, v, i, a, s);
}

/* The packed data, and the sums cleared. */
template <class T>
__global__ void k_pack(const __grid_constant__ pass_ctx c, int32_t n, packed_particle *pk, sym_sum *sum)
{
    int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) {
        pk[i] = T::pack(c, T::view_of(c), i);
        sym_sum zero = {0, 0, 0, 0};
        sum[i] = zero;
    }
}

/* Whether packed candidate q is a neighbour of (xi, yi, zi) (closer than sqrt(cut2)) whose pair
 * matters (TYPED: its w above w_min; a warp of fluid targets leaves that test out). */
template <bool TYPED>
__device__ static inline bool packed_near(const packed_particle &q, bool three, real xi, real yi, real zi,
                                          real w_min, real cut2)
{
    real dx = xi - q.x, dy = yi - q.y, dz = three ? zi - q.z : R(0.0);
    return dx * dx + dy * dy + dz * dz < cut2 && (!TYPED || q.w > w_min);
}

/* Bit k set for each neighbour chunk + k, k < m <= 32 (packed_near); four candidates at a time, their
 * bits gathered at fixed places before one shift. */
template <bool TYPED>
__device__ static inline unsigned packed_near_mask(const packed_particle *__restrict__ pk, bool three, real xi,
                                                   real yi, real zi, real w_min, real cut2, int32_t chunk, int m)
{
    const packed_particle *q = pk + chunk;
    unsigned near = 0;
    int k = 0;
    for (; k + 4 <= m; k += 4) {
        unsigned four = (packed_near<TYPED>(q[k], three, xi, yi, zi, w_min, cut2) ? 1u : 0u) |
                        (packed_near<TYPED>(q[k + 1], three, xi, yi, zi, w_min, cut2) ? 2u : 0u) |
                        (packed_near<TYPED>(q[k + 2], three, xi, yi, zi, w_min, cut2) ? 4u : 0u) |
                        (packed_near<TYPED>(q[k + 3], three, xi, yi, zi, w_min, cut2) ? 8u : 0u);
        near |= four << k;
    }
    for (; k < m; ++k)
        if (packed_near<TYPED>(q[k], three, xi, yi, zi, w_min, cut2))
            near |= 1u << k;
    return near;
}

/* par-part-sym: par-part-compact over half of the pairs. Thread i takes only candidates j > i (in
 * cell order the runs of the rows below its own hold none and are not visited, and its own row's
 * run is cut at i), evaluates each pair once for both particles (the pass's symmetric form:
 * add_both) and adds j's share to j's sums with atomics; i's own share goes in the same way at the
 * end, and a second kernel writes the outputs. Half the pair work of a gather, for 16 bytes per
 * particle of scratch (the sums; the packed data lie in the outputs' arrays until the second
 * kernel writes them, T::packed_area); float atomics add in whatever order the threads arrive, so
 * the last bits of a sum vary from run to run: not valid when bit-identical runs are asked for
 * (the radix sort). The candidates are tested on packed data (T::pack: position and density with
 * the kind, one load each), and pairs that add nothing (sph_pair_matters) fail the test, so they
 * cost no pair body. */
template <class T>
__global__ void k_par_part_sym(const __grid_constant__ pass_ctx c, int32_t n, sym_sum *sum,
                               const packed_particle *__restrict__ pk)
{
    int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    typename T::view v = T::view_of(c);
    const typename T::source a = T::unpack(c, v, pk[i], i);
    typename T::both_acc t = T::begin_both();
    const bool three = T::dim(c) == 3;
    const real cut2 = T::cutoff2(c);
    const real w_min = T::w_above(a);
    const bool typed = !__all_sync(__activemask(), T::fluid(a)); /* one value per warp */
    const int32_t cell = c.nb.cell[i];
    const nbr_place at = nbr_place_of(&c.nb, cell, a.x, a.y, a.z, T::reach(c), 0);
    /* The runs before the own row's hold no j > i. Each warp starts at a different one of the rest
     * (5 apart: neighbouring warps would otherwise sweep the same rows above together), so the
     * atomics of warps running at once fall more often on different particles' sums: 1% faster. */
    const int own = nbr_own_row_run(&c.nb), count = c.nb.nruns - own;
    const int first = (int)(((i >> 5) * 5) % count);
    for (int q = 0; q < count; ++q) {
        int r = own + q + first;
        if (r >= c.nb.nruns)
            r -= count;
        int32_t jb, je;
        nbr_run_range_within(&c.nb, cell, r, &at, &jb, &je);
        jb = max(jb, i + 1);
        for (int32_t chunk = jb; chunk < je; chunk += 32) {
            int m = min(32, je - chunk);
            unsigned near = typed ? packed_near_mask<true>(pk, three, a.x, a.y, a.z, w_min, cut2, chunk, m)
                                  : packed_near_mask<false>(pk, three, a.x, a.y, a.z, w_min, cut2, chunk, m);
            while (near) {
                int32_t j = chunk + __ffs((int)near) - 1;
                near &= near - 1;
                T::add_both(c, a, T::unpack(c, v, pk[j], j), j, sum, t);
            }
        }
    }
    T::end_both(c, v, i, a, sum, t);
}

template <class T>
__global__ void k_sym_finish(const __grid_constant__ pass_ctx c, int32_t n, const sym_sum *sum)
{
    int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        T::finish_both(c, T::view_of(c), i, sum);
}

/* All pairs, tiled: the oracle of the tests. */
template <class T>
__global__ void k_all_pairs(const __grid_constant__ pass_ctx c, int32_t n)
{
    extern __shared__ unsigned char smem[];
    typename T::source *src = (typename T::source *)smem;
    int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    bool active = i < n;
    typename T::view v = T::view_of(c);
    typename T::source a;
    typename T::acc s;
    bool want = false;
    if (active) {
        a = T::load(c, v, i);
        want = T::begin(c, v, i, a, s);
    }
    while (__syncthreads_or(want)) {
        for (int32_t tile = 0; tile < n; tile += (int32_t)blockDim.x) {
            int32_t j = tile + (int32_t)threadIdx.x;
            if (j < n)
                src[threadIdx.x] = T::load(c, v, j);
            __syncthreads();
            int count = min((int32_t)blockDim.x, n - tile);
            if (want)
                for (int k = 0; k < count; ++k)
                    T::add(c, a, i, src[k], tile + k, s);
            __syncthreads();
        }
        if (want)
            want = T::next(c, v, i, a, s);
    }
    if (active)
        T::finish(c, v, i, a, s);
}

/* ---- launch geometry ------------------------------------------------------------------------ */

enum { STAGED_MAX_THREADS = 256 };

/* Pencil length: as many cells as fit the block at the fullest cell, shrunk until there are
 * about eight blocks per SM. */
static int pencil_length(const launch_geom *g)
{
    int per = g->max_per_cell > 0 ? g->max_per_cell : 1;
    int L = STAGED_MAX_THREADS / per;
    if (L < 1)
        L = 1;
    if (L > g->interior[0])
        L = g->interior[0];
    int64_t rows = (int64_t)g->interior[1] * g->interior[2];
    while (L > 1 && rows * ((g->interior[0] + L - 1) / L) < 8 * (int64_t)g->sm_count)
        L /= 2;
    return L;
}

/* Whether pass_id has a pair form, and a symmetric form (par-part-sym: its launcher NAME_sym with the
 * pass's traits (both_acc, begin_both, add_both, end_both, finish_both, pack, unpack, w_above,
 * packed_area)), from the pass lists. */
#define PAIR_FORM_FLAG(NAME, ID, LABEL, FLAGS, FORM) \
    case ID: return FORM_HAS_PAIRS_##FORM;
#define SYM_FORM_FLAG(NAME, ID, LABEL, FLAGS, FORM) \
    case ID: return FORM_HAS_SYM_##FORM;

static int has_pair_form(int pass_id)
{
    switch (pass_id) {
        SLUICE_PASSES(PAIR_FORM_FLAG)
    default: return 0;
    }
}

static int has_sym_form(int pass_id)
{
    switch (pass_id) {
        SLUICE_PASSES(SYM_FORM_FLAG)
    default: return 0;
    }
}
#undef PAIR_FORM_FLAG
#undef SYM_FORM_FLAG

int gpu_strategy_valid(int pass_id, int strategy, int32_t n, const launch_geom *geo)
{
    /* the staged, compact and symmetric kernels walk the runs themselves, without the seam */
    if (geo->periodic && strategy != GS_PAR_PART && strategy != GS_PAR_CELL)
        return 0;
    switch (strategy) {
    case GS_PAR_PART:
        return 1;
    case GS_PAR_CELL:
        return n == geo->n;
    case GS_PAR_CELL_SM:
    case GS_X_PENCIL:
        return n == geo->n && has_pair_form(pass_id) && geo->max_per_cell <= STAGED_MAX_THREADS;
    case GS_PAR_PART_COMPACT:
        return has_pair_form(pass_id);
    case GS_PAR_PART_SYM:
        return n == geo->n && has_sym_form(pass_id) && !geo->reproducible &&
               !(pass_id == PASS_MPS_ACCEL && geo->lsmps_laplacian);
    default:
        return 0;
    }
}

template <class T>
static int launch_compact(const pass_ctx *c, int32_t n, sl_err *err)
{
    if (n <= 0)
        return SL_OK;
    k_par_part_compact<T><<<(unsigned)((n + COMPACT_THREADS - 1) / COMPACT_THREADS), COMPACT_THREADS>>>(*c, n);
    GPU_LAUNCHED("par-part-compact", err);
    return SL_OK;
}

template <class T>
static int launch_sym(const pass_ctx *c, int32_t n, gpu_scratch *work, sl_err *err)
{
    if (n <= 0)
        return SL_OK;
    /* the sums, and the packed data where the pass's outputs cannot hold them */
    packed_particle *pk = T::packed_area(c, n);
    int rc = gpu_scratch_reserve(work, (size_t)n * (sizeof(sym_sum) + (pk ? 0 : sizeof(packed_particle))), err);
    if (rc)
        return rc;
    sym_sum *sum = (sym_sum *)work->ptr;
    if (!pk)
        pk = (packed_particle *)(sum + n);
    unsigned blocks = (unsigned)((n + COMPACT_THREADS - 1) / COMPACT_THREADS);
    k_pack<T><<<blocks, COMPACT_THREADS>>>(*c, n, pk, sum);
    GPU_LAUNCHED("par-part-sym pack", err);
    k_par_part_sym<T><<<blocks, COMPACT_THREADS>>>(*c, n, sum, pk);
    GPU_LAUNCHED("par-part-sym", err);
    k_sym_finish<T><<<blocks, COMPACT_THREADS>>>(*c, n, sum);
    GPU_LAUNCHED("par-part-sym finish", err);
    return SL_OK;
}

/* The WCSPH forces by par-part-sym, compiled for the option sets of the Wendland kernel and gamma 7
 * (dimension, viscosity, diffusion: 12 of them); any other set reads its options at run time. */
static int wcsph_forces_sym(const pass_ctx *c, int32_t n, gpu_scratch *work, sl_err *err)
{
    const sph_pair_options o = sph_pair_options_of(&c->P);
    if (o.kernel == KERNEL_WENDLAND_C2 && o.gamma7) {
#define WCSPH_SYM_FIXED(DIM, VISCOSITY, DIFFUSION)                                                    \
    if (o.dim == DIM && o.viscosity == VISCOSITY && o.diffusion == DIFFUSION)                         \
        return launch_sym<wcsph_forces_pairs_with<options_fixed<DIM, VISCOSITY, DIFFUSION> > >(c, n, work, err);
#define WCSPH_SYM_FIXED_DIFFUSION(DIM, VISCOSITY)                                                     \
    WCSPH_SYM_FIXED(DIM, VISCOSITY, SPH_NO_DIFFUSION)                                                  \
    WCSPH_SYM_FIXED(DIM, VISCOSITY, DIFFUSION_MOLTENI)                                                 \
    WCSPH_SYM_FIXED(DIM, VISCOSITY, DIFFUSION_FOURTAKAS)
        WCSPH_SYM_FIXED_DIFFUSION(3, VISCOSITY_ARTIFICIAL)
        WCSPH_SYM_FIXED_DIFFUSION(3, VISCOSITY_LAMINAR)
        WCSPH_SYM_FIXED_DIFFUSION(2, VISCOSITY_ARTIFICIAL)
        WCSPH_SYM_FIXED_DIFFUSION(2, VISCOSITY_LAMINAR)
#undef WCSPH_SYM_FIXED_DIFFUSION
#undef WCSPH_SYM_FIXED
    }
    return launch_sym<wcsph_forces_pairs>(c, n, work, err);
}

static int mps_accel_sym(const pass_ctx *c, int32_t n, gpu_scratch *work, sl_err *err)
{
    return launch_sym<mps_accel_pairs>(c, n, work, err);
}

template <class T>
static int launch_staged(int strategy, const pass_ctx *c, const launch_geom *geo, sl_err *err)
{
    if (geo->n <= 0)
        return SL_OK;
    int L = strategy == GS_X_PENCIL ? pencil_length(geo) : 1;
    int per = geo->max_per_cell < 1 ? 1 : geo->max_per_cell;
    unsigned threads = round_up_warp(L * per);
    if (threads > STAGED_MAX_THREADS)
        threads = STAGED_MAX_THREADS;
    int64_t blocks = (int64_t)((geo->interior[0] + L - 1) / L) * geo->interior[1] * geo->interior[2];
    size_t shared = threads * sizeof(typename T::source);
    k_pencil<T><<<(unsigned)blocks, threads, shared>>>(*c, *geo, L);
    GPU_LAUNCHED("x-pencil / par-cell-sm", err);
    return SL_OK;
}

template <class T>
static int launch_all_pairs(const pass_ctx *c, int32_t n, sl_err *err)
{
    const unsigned threads = 128;
    k_all_pairs<T><<<(unsigned)((n + threads - 1) / threads), threads, threads * sizeof(typename T::source)>>>(*c, n);
    GPU_LAUNCHED("all-pairs oracle", err);
    return SL_OK;
}

/* The launchers of the pair-form kernels, one signature: L::run<traits>(strategy, c, n, geo, err). */
struct staged_launch {
    template <class T>
    static int run(int strategy, const pass_ctx *c, int32_t, const launch_geom *geo, sl_err *err)
    {
        return launch_staged<T>(strategy, c, geo, err);
    }
};
struct compact_launch {
    template <class T>
    static int run(int, const pass_ctx *c, int32_t n, const launch_geom *, sl_err *err)
    {
        return launch_compact<T>(c, n, err);
    }
};
struct all_pairs_launch {
    template <class T>
    static int run(int, const pass_ctx *c, int32_t n, const launch_geom *, sl_err *err)
    {
        return launch_all_pairs<T>(c, n, err);
    }
};

/* The switch cases of the pass lists: FORM PAIRS and SYM passes launch L with their traits, FORM SYM
 * passes run par-part-sym by their launcher, every pass runs its body. */
#define PAIR_CASE_BODY(NAME, ID)
#define PAIR_CASE_PAIRS(NAME, ID) \
    case ID: return L::template run<NAME##_pairs>(strategy, c, n, geo, err);
#define PAIR_CASE_SYM(NAME, ID) PAIR_CASE_PAIRS(NAME, ID)
#define PAIR_CASE(NAME, ID, LABEL, FLAGS, FORM) PAIR_CASE_##FORM(NAME, ID)
#define SYM_CASE_BODY(NAME, ID)
#define SYM_CASE_PAIRS(NAME, ID)
#define SYM_CASE_SYM(NAME, ID) \
    case ID: return NAME##_sym(c, n, work, err);
#define SYM_CASE(NAME, ID, LABEL, FLAGS, FORM) SYM_CASE_##FORM(NAME, ID)
#define BODY_CASE(NAME, ID, LABEL, FLAGS, FORM) \
    case ID: return launch_body<NAME##_body>(strategy, c, n, geo, err);

/* Launches L with the pair-form traits of pass_id. */
template <class L>
static int with_pair_form(int pass_id, int strategy, const pass_ctx *c, int32_t n, const launch_geom *geo,
                          sl_err *err)
{
    switch (pass_id) {
        SLUICE_PASSES(PAIR_CASE)
    default:
        return gpu_fail_input(err, "pass %d has no pair form", pass_id);
    }
}

int gpu_launch_pass(int pass_id, int strategy, const pass_ctx *c, int32_t n, const launch_geom *geo,
                    gpu_scratch *work, sl_err *err)
{
    if (!gpu_strategy_valid(pass_id, strategy, n, geo))
        return gpu_fail_input(err, "strategy %s cannot run pass %d", gpu_strategy_label(strategy), pass_id);
    if (geo->periodic)
        return gpu_launch_pass_periodic(pass_id, strategy, c, n, geo, err);
    if (strategy == GS_PAR_PART_SYM) {
        switch (pass_id) {
            SLUICE_PASSES(SYM_CASE)
        }
    }
    if (strategy == GS_PAR_CELL_SM || strategy == GS_X_PENCIL)
        return with_pair_form<staged_launch>(pass_id, strategy, c, n, geo, err);
    if (strategy == GS_PAR_PART_COMPACT)
        return with_pair_form<compact_launch>(pass_id, strategy, c, n, geo, err);
    switch (pass_id) {
        SLUICE_PASSES(BODY_CASE)
    default:
        return gpu_fail_input(err, "the CUDA backend has no kernel for pass %d", pass_id);
    }
}

int gpu_pass_all_pairs(int pass_id, const pass_ctx *c, int32_t n, sl_err *err)
{
    if (n <= 0)
        return SL_OK;
    if (c->P.periodic.axes) /* compiled without images, above */
        return gpu_fail_input(err, "the all-pairs oracle has no periodic images (pass %d)", pass_id);
    return with_pair_form<all_pairs_launch>(pass_id, 0, c, n, NULL, err);
}
