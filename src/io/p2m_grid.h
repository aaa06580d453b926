/* p2m_grid.h: particle-to-mesh spreading of the fluid onto a regular grid (group `grid` of a scene):
 * density, velocity and pressure on nodes, written into every snapshot under /grid. */
#ifndef SLUICE_P2M_GRID_H
#define SLUICE_P2M_GRID_H

#include "base/particles.h"
#include "physics/p2m_weights.h"
#include "base/real.h"
#include "base/status.h"

#include <stddef.h>
#include <stdint.h>

/* "auto" takes the mesh-based gather from this many contributions per node on (particles spread x
 * order^dim / nodes); measured on the 2-core CI machine, docs/performance.md. With more than
 * P2M_FEW_THREADS OpenMP threads it always takes the gather (measured on 16 cores: the atomics of
 * the particle-based spreading contend). */
#define P2M_MESH_THRESHOLD 24.0
#define P2M_FEW_THREADS 2

/* The same for the CUDA kernels (src/gpu/p2m_cuda.cu), whose costs differ: launches and a radix sort
 * per call for the mesh-based gather, contended double atomics in L2 for the particle-based one.
 * Measured on the H200 (`bench_p2m DIM ORDER --backend cuda`, docs/performance.md): the crossover
 * lies between 40 and 130 contributions per node (3D order 4 on 40^3 and 100^3 cells, 2D order 4). */
#define P2M_MESH_THRESHOLD_GPU 64.0

#define P2M_MAX_NODES ((size_t)1 << 25) /* 33 M nodes, about 2 GiB of sums and fields */

enum p2m_method { P2M_PARTICLE = 1, P2M_MESH = 2 }; /* enum grid_method's values */

typedef struct p2m_grid {
    p2m_layout L;
    size_t nnodes;
    unsigned fields;          /* GRID_* bits: what io writes */
    /* accumulated sums per node, double: sum m w, sum m v w, sum m p w */
    double *mass, *mom[3], *pmass;
    /* the fields as written: kg/m^3, m/s (3 per node, x y z), Pa */
    real *density, *velocity, *pressure;
    /* mesh-based: the particles binned by their first stencil node (CSR by counting sort) */
    int32_t *bin_start;       /* nnodes + 1 */
    int32_t *pbin;            /* per particle: its bin, or -1 */
    int32_t *order;           /* particles in bin order */
    size_t cap;               /* particles the arrays above hold */
    int method_used;          /* of the last spread */
    int on_device;            /* the last spread ran on the GPU (the backend's p2m_spread) */
    size_t spread;            /* particles spread by the last call */
    double fluid_mass;        /* their mass */
    /* GPU mesh-based gather: threads per node (4, 8, 16 or 32; 0 = chosen by contributions per
     * node), and the number the last call used */
    int gpu_lanes, gpu_lanes_used;
    /* buffers a backend keeps for this grid between calls (device sums, bins, scratch), freed by
     * p2m_grid_free through device_free */
    void *device;
    void (*device_free)(void *device);
} p2m_grid;

/* Lays the grid over [dmin, dmax] (the simulation domain) with the given spacing and order, plus a
 * margin of order/2 + 1 nodes so every particle of the domain lands whole on the grid. Fails when
 * the grid would exceed max_nodes. */
int p2m_grid_init(p2m_grid *g, int dim, int order, double spacing, const double dmin[3], const double dmax[3],
                  unsigned fields, size_t max_nodes, sl_err *err);

void p2m_grid_free(p2m_grid *g);

/* Average contributions per node: fluid particles x order^dim / nodes. */
double p2m_contributions_per_node(const p2m_grid *g, size_t nfluid);

/* The contributions per node from which "auto" takes the mesh-based algorithm: P2M_MESH_THRESHOLD
 * on the CPU, P2M_MESH_THRESHOLD_GPU when the spreading runs on the device. */
double p2m_mesh_threshold(int on_device);

/* The algorithm for `requested` (enum grid_method: 0 auto, 1 particle, 2 mesh), for spreading on the
 * host (on_device 0) or on the device (1: the backend has p2m_spread). */
int p2m_pick(const p2m_grid *g, int requested, size_t nfluid, int on_device);

/* Spreads the fluid particles of p with mass `mass` each into the sums, by `method` (P2M_*):
 *   particle: each particle adds to its order^dim nodes with atomic adds (OpenMP over particles);
 *   mesh:     particles are binned by their first stencil node (counting sort, a CSR structure),
 *             and each node gathers from the order^dim bins whose stencils cover it (OpenMP over
 *             nodes, no atomics, the same sums in a fixed order).
 * Then fills density, velocity and pressure (0 where no mass reached a node). */
int p2m_spread(p2m_grid *g, const particles *p, real mass, int method, sl_err *err);

struct sim;

/* The grid of the scene's `grid` group over the simulation's domain (spacing 0: 2 numerics.spacing). */
int p2m_grid_for_sim(p2m_grid *g, const struct sim *s, sl_err *err);

/* Spreads the simulation's fluid now, by the scene's grid.method (auto: p2m_pick), where the backend
 * keeps the particles: through backend.p2m_spread when it has one (CUDA: on the device, then the sums
 * and fields are copied into g's host arrays), otherwise p2m_spread on the host arrays, which must
 * then be current (sim_sync_host). This is the one place that decides the method. */
int p2m_grid_update(p2m_grid *g, const struct sim *s, sl_err *err);

#endif
