/* bench_floors.h: what a phase of a step must at least cost, for `sluice bench`: the work counted on
 * the particles' layout, and the arithmetic and memory-traffic floors that follow from it at the
 * machine's peak rates. */
#ifndef SLUICE_BENCH_FLOORS_H
#define SLUICE_BENCH_FLOORS_H

#include "gpu/gpu_peak.h"
#include "base/real.h"
#include "core/sim.h"

/* Flops of the MPS pieces, counted from the code (mps_operators.h, lsmps.h, mps_weight.h) with the
 * rules of bench_floors.c:
 *   a candidate: r_ij 3 sub, |r_ij|^2 3 mul 2 add (8), and the domain test: r2 < re * re (1 mul) in
 *     the sphere, |x_a| < re (0) in the cube;
 *   the weight: quadratic: re * re, sqrt, / re, 1 - q, q^2 (5); cubic: 3 x (/ re, 1 - q), ax ay az,
 *     w^2 (9);
 *   pairs: MPS gradient: phi_j - phat, * w, / r2, 3 mul-adds (9); Laplacian, per component:
 *     phi_j - phi_i, * w, + (3); first-order LSMPS (3D): q = r / rs (3), dphi (1), w dphi (1), per
 *     unknown a: w p_a (1), b_a += (2), M_aq += for q <= a (2 each) (21): 26. */
enum bench_mps_flop {
    FLOP_CANDIDATE_SPHERE = 9,
    FLOP_CANDIDATE_CUBE = 8,
    FLOP_WEIGHT_QUADRATIC = 5,
    FLOP_WEIGHT_CUBIC = 9,
    FLOP_MPS_GRADIENT = 9,
    FLOP_MPS_LAPLACIAN = 3,
    FLOP_LSMPS_GRADIENT = 26
};

/* Peak rates the floors are held to. */
typedef struct bench_machine {
    double peak_flops, bandwidth; /* flop/s, bytes/s */
    char peak_name[96], memory_name[96];
} bench_machine;

/* The CPU's (threads x 3 GHz x 2 flop/cycle, scalar code; a nominal 20 GB/s), or the GPU's: `gpu`
 * as its attributes give it (gpu/gpu_peak.h) under `gpu_name`, or without them (NULL) the H200's
 * published figures (67 Tflop/s FP32, 34 FP64, non-tensor; HBM3e 4.8 TB/s), named as assumed. */
bench_machine bench_machine_of(int cpu, int threads, const gpu_peak *gpu, const char *gpu_name);

/* Per particle, averaged over the particles inside the domain: the candidates (every particle of
 * the forward-star runs, i included) and the neighbours within each of the scheme's radii (WCSPH:
 * the kernel support, pairs that matter, sph_pair_matters; MPS: re_n and re_lap, in the weight's
 * domain, every class); the same summed over fluid targets only (divided by all particles: the
 * passes that work for fluid particles alone); and for WCSPH the symmetric form's share, the pairs
 * j > i, with those of two fluid particles. */
typedef struct bench_work {
    int nradii;
    real radius[2];
    double candidates, candidates_fluid;
    double neighbours[2], neighbours_fluid[2];
    double candidates_after, neighbours_after, fluid_pairs_after;
} bench_work;

/* Counts on the host copy of the grid (sim_sync_host first). */
void bench_count_work(sim *s, bench_work *w);

/* Flop per particle of one call of the phase `name` (the passes' names), counted from the code as
 * the operators benchmark counts them; 0 for a phase without a model (the sort, the updates, the
 * passes whose work depends on options the model leaves out). */
double bench_phase_flop(const sim *s, const bench_work *w, const char *name);

/* Bytes per particle a step must move through memory at least: every real field of the state read
 * and written once (the reorder moves them all), the identities, kinds and tags likewise, and
 * each of the `matvecs` matrix-vector products of the CG solve its positions and vectors. */
double bench_step_bytes(const sim *s, double matvecs);

#endif
