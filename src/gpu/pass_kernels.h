/* pass_kernels.h: running a pass's per-particle body on the GPU with one of the interaction
 * strategies (CUDA sources only).
 *
 *   par-part     a thread per target particle, in particle order (cells are contiguous, so a warp
 *                mostly walks the same cells).
 *   par-cell     a block per non-margin cell, a thread per particle of the cell.
 *   par-cell-sm  a block per cell; the sources of each forward-star run are staged through shared
 *                memory in chunks of blockDim particles.
 *   x-pencil     a block per run of L cells along x: the targets of L cells, and for each of the
 *                (2 ndiv + 1)^(d-1) source pencils (L + 2 ndiv cells, contiguous in memory) the
 *                sources staged through shared memory chunk by chunk; each target reads only the
 *                part of a staged chunk that lies in its own forward-star run, so it tests the
 *                same candidates as par-part. par-cell-sm is x-pencil with L = 1. L comes from the
 *                block size and the most particles in a cell, shrunk so
 *                that every SM gets several blocks.
 *   par-part-compact  par-part, but each thread first tests a chunk of 32 candidates for distance
 *                alone into a bit mask, then runs the pair physics over the set bits (in par-part
 *                most lanes idle through the long pair body: a quarter of the candidates are
 *                neighbours). Any pass with a pair form; the test is its traits' cutoff2 (a
 *                sphere, or for the cubic MPS domain a cube: traits cube()).
 *   par-part-sym  par-part-compact over half of the pairs: thread i takes the candidates j > i,
 *                evaluates each pair once for both particles and adds j's share to j's sums by
 *                atomics (16 bytes per particle of scratch); passes with a symmetric form only
 *                (the WCSPH forces; MPS's accel without the LSMPS Laplacian), and not when runs must
 *                be bit-identical (the order of the float atomics varies).
 * par-part and par-cell run any body. The staged strategies need the pass's pair form (load a
 * source, begin a target, add a pair, end a sweep, finish a target): the WCSPH forces
 * (sph_forces.h) and every MPS neighbour pass (mps_passes.h: accel, collision, density,
 * wall_pressure, ppe_setup, ppe_apply, gradient, and the single operators of the benchmark)
 * have one. Operators of more than one sweep (the stabilised gradient, LSMPS with its MPS
 * fallback) sweep the block's candidates again until no target of the block wants more. */
#ifndef SLUICE_GPU_PASS_KERNELS_H
#define SLUICE_GPU_PASS_KERNELS_H

#include "core/pass.h"
#include "base/status.h"
#include "gpu_scratch.h"
#include "strategy_choice.h" /* enum gpu_strategy */

#include <stdint.h>


/* The grid as the launches see it. */
typedef struct launch_geom {
    int dim, ndiv;
    int interior[3];   /* interior cells per axis (1 along z in 2D) */
    int nc[3];         /* cells per axis with the margins */
    int32_t n;         /* particles inside the domain (all in cells) */
    int max_per_cell;  /* most particles in one cell */
    int sm_count;      /* streaming multiprocessors */
    int reproducible;  /* bit-identical runs asked for (radix sort): no strategy whose sums vary */
    int periodic;      /* the grid wraps around: only the strategies that walk the candidates through
                        * NBR_FOR_CANDIDATES (par-part, par-cell) see across the seam */
    int lsmps_laplacian; /* MPS's viscous Laplacian is LSMPS's, whose sweeps have no symmetric form:
                          * mps.accel takes no par-part-sym (mps_accel_pass_symmetric) */
} launch_geom;

/* A strategy's name as scene files and the command line spell it (defined in backend_cuda.cu,
 * from the scene loader's table in io/scene_tables.c; the GS_* follow its names after "auto"). */
const char *gpu_strategy_label(int strategy);

/* Whether `strategy` can run pass `pass_id` over n particles (the staged strategies need the
 * pair form and cells of at most 256 particles; the cell strategies and par-part-sym need
 * n = geo->n; a periodic grid takes par-part and par-cell only). */
int gpu_strategy_valid(int pass_id, int strategy, int32_t n, const launch_geom *geo);

/* Queues pass `pass_id` with `strategy` over particles [0, n); `work` is scratch the pass may grow
 * and use until the next call (par-part-sym's sums). */
int gpu_launch_pass(int pass_id, int strategy, const pass_ctx *c, int32_t n, const launch_geom *geo,
                    gpu_scratch *work, sl_err *err);

/* gpu_launch_pass for a periodic grid (geo->periodic; par-part or par-cell, already checked): the
 * body kernels compiled with periodic images, in pass_kernels_periodic.cu. pass_kernels.cu compiles
 * every strategy without them (SLUICE_NO_PERIODIC), which saves 10 to 25 registers per thread in the
 * MPS passes (ptxas -v) and the occupancy they cost. */
int gpu_launch_pass_periodic(int pass_id, int strategy, const pass_ctx *c, int32_t n, const launch_geom *geo,
                             sl_err *err);

/* The test oracle: pass `pass_id` (one with a pair form) computed by an all-pairs tiled kernel
 * (targets in registers, every particle [0, n) as a candidate, staged through shared memory tile
 * by tile). Writes the same fields as the pass. */
int gpu_pass_all_pairs(int pass_id, const pass_ctx *c, int32_t n, sl_err *err);

#endif
