/* gpu_gather.cu: dst[k] = src[order[k]] for the particle arrays. */
#include "gpu_gather.h"

#include "gpu_check.h"

namespace {

struct real_arrays {
    const real *src[GPU_GATHER_MAX_FIELDS];
    real *dst[GPU_GATHER_MAX_FIELDS];
};

/* Writes are coalesced and reads scattered: after a sort of nearly sorted particles (every step
 * but the first) the reads are nearly coalesced too. COUNT arrays per pass: order is read once,
 * and a rebuild launches a quarter of the kernels. */
template <int COUNT>
__global__ void gather_reals(const __grid_constant__ real_arrays a, const int32_t *__restrict__ order, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        const int32_t o = order[k];
#pragma unroll
        for (int f = 0; f < COUNT; ++f)
            a.dst[f][k] = a.src[f][o];
    }
}

__global__ void gather_ids(const int32_t *__restrict__ id, const uint8_t *__restrict__ type,
                           const uint8_t *__restrict__ tag, int32_t *__restrict__ id_out,
                           uint8_t *__restrict__ type_out, uint8_t *__restrict__ tag_out,
                           const int32_t *__restrict__ order, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        const int32_t o = order[k];
        id_out[k] = id[o];
        type_out[k] = type[o];
        tag_out[k] = tag[o];
    }
}

} // namespace

extern "C" int gpu_gather_reals(const real *const *src, real *const *dst, int count, const int32_t *order, size_t n,
                                sl_err *err)
{
    if (count < 1 || count > GPU_GATHER_MAX_FIELDS) {
        snprintf(err->msg, sizeof err->msg, "gpu_gather_reals: %d arrays (accepted: 1 to %d)", count,
                 (int)GPU_GATHER_MAX_FIELDS);
        return SL_ERR_RUNTIME;
    }
    if (n == 0)
        return SL_OK;
    real_arrays a = {};
    for (int f = 0; f < count; ++f) {
        a.src[f] = src[f];
        a.dst[f] = dst[f];
    }
    const unsigned blocks = gpu_blocks_for(n);
    switch (count) {
    case 1: gather_reals<1><<<blocks, GPU_THREADS>>>(a, order, n); break;
    case 2: gather_reals<2><<<blocks, GPU_THREADS>>>(a, order, n); break;
    case 3: gather_reals<3><<<blocks, GPU_THREADS>>>(a, order, n); break;
    default: gather_reals<4><<<blocks, GPU_THREADS>>>(a, order, n); break;
    }
    GPU_LAUNCHED("gather", err);
    return SL_OK;
}

extern "C" int gpu_gather_real(const real *src, real *dst, const int32_t *order, size_t n, sl_err *err)
{
    return gpu_gather_reals(&src, &dst, 1, order, n, err);
}

extern "C" int gpu_gather_ids(const int32_t *id, const uint8_t *type, const uint8_t *tag, int32_t *id_out,
                              uint8_t *type_out, uint8_t *tag_out, const int32_t *order, size_t n, sl_err *err)
{
    if (n == 0)
        return SL_OK;
    gather_ids<<<gpu_blocks_for(n), GPU_THREADS>>>(id, type, tag, id_out, type_out, tag_out, order, n);
    GPU_LAUNCHED("gather ids", err);
    return SL_OK;
}
