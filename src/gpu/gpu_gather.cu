/* gpu_gather.cu: dst[k] = src[order[k]] for the particle arrays. */
#include "gpu_gather.h"

#include "gpu_check.h"

namespace {

/* Writes are coalesced and reads scattered: after a sort of nearly sorted particles (every step
 * but the first) the reads are nearly coalesced too. */
template <typename T>
__global__ void gather(const T *__restrict__ src, T *__restrict__ dst,
                       const int32_t *__restrict__ order, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride)
        dst[k] = src[order[k]];
}

template <typename T>
int launch_gather(const T *src, T *dst, const int32_t *order, size_t n, sl_err *err)
{
    if (n == 0)
        return SL_OK;
    gather<T><<<gpu_blocks_for(n), GPU_THREADS>>>(src, dst, order, n);
    GPU_LAUNCHED("gather", err);
    return SL_OK;
}

} // namespace

extern "C" int gpu_gather_real(const real *src, real *dst, const int32_t *order, size_t n, sl_err *err)
{
    return launch_gather(src, dst, order, n, err);
}

extern "C" int gpu_gather_i32(const int32_t *src, int32_t *dst, const int32_t *order, size_t n,
                              sl_err *err)
{
    return launch_gather(src, dst, order, n, err);
}

extern "C" int gpu_gather_u8(const uint8_t *src, uint8_t *dst, const int32_t *order, size_t n,
                             sl_err *err)
{
    return launch_gather(src, dst, order, n, err);
}
