/* gpu_scratch.h: a growable device buffer for the temporary storage of the GPU primitives. */
#ifndef SLUICE_GPU_SCRATCH_H
#define SLUICE_GPU_SCRATCH_H

#include "base/status.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device memory owned by the caller and lent to one primitive call at a time: a primitive may
 * reallocate it, so pointers into it do not survive the next call. Start from {NULL, 0}. */
typedef struct gpu_scratch {
    void *ptr;    /* device memory, 256-byte aligned; NULL while bytes == 0 */
    size_t bytes; /* size of ptr */
} gpu_scratch;

#define GPU_SCRATCH_INIT {NULL, 0}

/* Makes s hold at least `bytes` bytes. Grows by at least half of the current size so that a
 * slowly rising particle count does not reallocate every step; never shrinks. The contents are
 * not kept when it grows. Reallocating frees the old buffer first (cudaFree waits for the work
 * queued on the device, so no kernel is still using it). */
int gpu_scratch_reserve(gpu_scratch *s, size_t bytes, sl_err *err);

/* Frees the memory and resets s to {NULL, 0}; safe on an empty scratch. */
void gpu_scratch_free(gpu_scratch *s);

#ifdef __cplusplus
}
#endif

#endif
