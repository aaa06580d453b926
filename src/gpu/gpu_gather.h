/* gpu_gather.h: reordering particle arrays on the device after a sort (dst[k] = src[order[k]]). */
#ifndef SLUICE_GPU_GATHER_H
#define SLUICE_GPU_GATHER_H

#include "real.h"
#include "status.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst[k] = src[order[k]] for k < n, with order from gpu_sort_keys (every order[k] in [0, n) of
 * src's indices; src may be longer). Device pointers; dst must not overlap src or order (gather
 * into a second buffer and swap). Queued on the default stream; returns without waiting. */
int gpu_gather_real(const real *src, real *dst, const int32_t *order, size_t n, sl_err *err);
int gpu_gather_i32(const int32_t *src, int32_t *dst, const int32_t *order, size_t n, sl_err *err);
int gpu_gather_u8(const uint8_t *src, uint8_t *dst, const int32_t *order, size_t n, sl_err *err);

#ifdef __cplusplus
}
#endif

#endif
