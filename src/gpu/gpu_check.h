/* gpu_check.h: turning CUDA errors into sl_err messages (internal to src/gpu; CUDA sources only). */
#ifndef SLUICE_GPU_CHECK_H
#define SLUICE_GPU_CHECK_H

#include "base/status.h"

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>

/* Formats the message here rather than through sl_fail() so that sluice_gpu does not depend on
 * sluice_core (which links it). Returns SL_ERR_RUNTIME. Also clears the runtime's last-error
 * state, so a non-sticky error (a failed allocation) is not blamed on a later launch. */
static inline int gpu_fail(sl_err *err, const char *what, cudaError_t e)
{
    (void)cudaGetLastError();
    if (err)
        snprintf(err->msg, sizeof err->msg, "CUDA error in %s: %s (%s)", what, cudaGetErrorName(e),
                 cudaGetErrorString(e));
    return SL_ERR_RUNTIME;
}

/* A bad argument (size limits, unknown kinds): formats msg into err, returns SL_ERR_INPUT. */
static inline int gpu_fail_input(sl_err *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static inline int gpu_fail_input(sl_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return SL_ERR_INPUT;
}

/* Returns SL_ERR_RUNTIME from the calling function, with the call's text in the message, when a
 * CUDA runtime call fails. */
#define GPU_TRY(call, err)                          \
    do {                                            \
        cudaError_t gpu_e_ = (call);                \
        if (gpu_e_ != cudaSuccess)                  \
            return gpu_fail((err), #call, gpu_e_);  \
    } while (0)

/* After a kernel launch: catches bad launch configurations at once. Faults inside the kernel show
 * up at the next synchronising call; define SLUICE_GPU_SYNC_CHECK to synchronise here instead, so
 * the message names the kernel that faulted (slow: debugging only). */
#ifdef SLUICE_GPU_SYNC_CHECK
#define GPU_LAUNCHED(name, err)                                     \
    do {                                                            \
        GPU_TRY(cudaGetLastError(), err);                           \
        cudaError_t gpu_e_ = cudaDeviceSynchronize();               \
        if (gpu_e_ != cudaSuccess)                                  \
            return gpu_fail((err), "kernel " name, gpu_e_);         \
    } while (0)
#else
#define GPU_LAUNCHED(name, err)                                     \
    do {                                                            \
        cudaError_t gpu_e_ = cudaGetLastError();                    \
        if (gpu_e_ != cudaSuccess)                                  \
            return gpu_fail((err), "launch of kernel " name, gpu_e_); \
    } while (0)
#endif

/* Grid sizes for element-wise kernels: blocks of 256 threads, grid-stride loops beyond this many
 * blocks (also keeps the 64-bit element count away from the 32-bit grid limit). */
constexpr unsigned GPU_THREADS = 256;
constexpr size_t GPU_MAX_BLOCKS = 65535;

static inline unsigned gpu_blocks_for(size_t n)
{
    size_t b = (n + GPU_THREADS - 1) / GPU_THREADS;
    if (b < 1)
        b = 1;
    return (unsigned)(b < GPU_MAX_BLOCKS ? b : GPU_MAX_BLOCKS);
}

/* Rounds a byte count up so that buffers carved from one scratch allocation stay 256-byte aligned
 * (what cudaMalloc guarantees and CUB expects). */
static inline size_t gpu_align(size_t bytes)
{
    return (bytes + 255) & ~(size_t)255;
}

#endif
