/* body_kernels.cuh: par-part and par-cell, the two strategies that run any pass's per-particle body
 * (its candidates through NBR_FOR_CANDIDATES), and their launcher. Included by pass_kernels.cu, which
 * compiles them without periodic images, and by pass_kernels_periodic.cu, which compiles them with. */
#ifndef SLUICE_BODY_KERNELS_CUH
#define SLUICE_BODY_KERNELS_CUH

#include "pass_kernels.h"
#include "gpu_check.h"

#include <cuda_runtime.h>
#include <stdint.h>

typedef void (*body_fn)(const pass_ctx *, int32_t);

/* ---- grid geometry on the device ------------------------------------------------------------ */

/* Index of interior cell (ix, iy, iz) in the margin-padded grid. */
__device__ static inline int32_t padded_cell(const launch_geom &g, int ix, int iy, int iz)
{
    int m = g.ndiv, mz = g.dim == 3 ? g.ndiv : 0;
    return (int32_t)((ix + m) + (int64_t)g.nc[0] * ((iy + m) + (int64_t)g.nc[1] * (iz + mz)));
}

/* ---- par-part and par-cell: any body ------------------------------------------------------- */

template <body_fn B>
__global__ void k_par_part(const __grid_constant__ pass_ctx c, int32_t n)
{
    int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        B(&c, i);
}

template <body_fn B>
__global__ void k_par_cell(const __grid_constant__ pass_ctx c, const launch_geom g)
{
    int64_t b = blockIdx.x;
    int ix = (int)(b % g.interior[0]);
    int iy = (int)((b / g.interior[0]) % g.interior[1]);
    int iz = (int)(b / ((int64_t)g.interior[0] * g.interior[1]));
    int32_t cell = padded_cell(g, ix, iy, iz);
    int32_t end = c.nb.cell_start[cell + 1];
    for (int32_t i = c.nb.cell_start[cell] + (int32_t)threadIdx.x; i < end; i += (int32_t)blockDim.x)
        B(&c, i);
}

static int64_t interior_cells(const launch_geom *g)
{
    return (int64_t)g->interior[0] * g->interior[1] * g->interior[2];
}

static unsigned round_up_warp(int n)
{
    return (unsigned)((n + 31) / 32 * 32);
}

template <body_fn B>
static int launch_body(int strategy, const pass_ctx *c, int32_t n, const launch_geom *geo, sl_err *err)
{
    if (n <= 0)
        return SL_OK;
    if (strategy == GS_PAR_CELL) {
        int64_t blocks = interior_cells(geo);
        unsigned threads = round_up_warp(geo->max_per_cell < 1 ? 1 : geo->max_per_cell > 256 ? 256 : geo->max_per_cell);
        k_par_cell<B><<<(unsigned)blocks, threads>>>(*c, *geo);
        GPU_LAUNCHED("par-cell", err);
        return SL_OK;
    }
    const unsigned threads = 128;
    k_par_part<B><<<(unsigned)((n + threads - 1) / threads), threads>>>(*c, n);
    GPU_LAUNCHED("par-part", err);
    return SL_OK;
}

#endif
