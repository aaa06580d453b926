/* p2m_cuda.h: particle-to-mesh spreading on the device, the two algorithms of p2m_grid.h (plain C
 * interface; the kernels are in p2m_cuda.cu). The CUDA backend's p2m_spread hook calls it; the GPU
 * tests and tests/bench_p2m.c call it directly. */
#ifndef SLUICE_GPU_P2M_CUDA_H
#define SLUICE_GPU_P2M_CUDA_H

#include "base/real.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct p2m_grid;
struct particles;
typedef struct sl_err sl_err;

/* The particles as the kernels read them: device arrays of n particles, in any order (z and vz are
 * read in 3D only). */
typedef struct p2m_cuda_input {
    const real *x, *y, *z;
    const real *vx, *vy, *vz;
    const real *p;
    const uint8_t *type; /* enum particle_type: only PT_FLUID is spread */
    size_t n;
    real mass;           /* of every particle */
} p2m_cuda_input;

/* Spreads the fluid particles of `in` into g's sums and fields on the device, by `method`:
 *   P2M_PARTICLE: a thread per particle adds m w, m w v, m w p to its order^dim nodes with
 *                 atomicAdd on doubles (the order of the additions, hence the last bits, varies
 *                 from call to call);
 *   P2M_MESH:     the particles are binned by their first stencil node with the stable radix sort
 *                 of gpu_sort.h (a CSR structure: bin starts and the particles bin by bin); a group
 *                 of g->gpu_lanes threads per node (0: 4, the fastest measured) sums a
 *                 fixed share of the node's candidates each, combined by __shfl_down_sync: no
 *                 atomics and a fixed order, so two calls on the same particles agree bit for bit.
 * The fields (density, velocity, pressure) are computed on the device too. The device buffers hang
 * off g->device (allocated on the first call, grown with the particle count, freed by
 * p2m_grid_free). Sets g->spread, fluid_mass, method_used, on_device, gpu_lanes_used. Waits for the
 * device, so faults of the kernels are reported here. g's host arrays are NOT updated: call
 * p2m_cuda_to_host for that. */
int p2m_cuda_spread(struct p2m_grid *g, const p2m_cuda_input *in, int method, sl_err *err);

/* Copies the sums and fields of the last p2m_cuda_spread into g's host arrays (mass, mom, pmass,
 * density, velocity, pressure). */
int p2m_cuda_to_host(struct p2m_grid *g, sl_err *err);

/* Frees the device buffers of a grid (what p2m_grid.device_free points at). */
void p2m_cuda_free(void *device);

/* For tests and benchmarks: device copies of p's positions, velocities, pressures and types, with
 * `mass`; p2m_cuda_input_free releases them. */
int p2m_cuda_upload(const struct particles *p, real mass, p2m_cuda_input *in, sl_err *err);
void p2m_cuda_input_free(p2m_cuda_input *in);

#ifdef __cplusplus
}
#endif

#endif
