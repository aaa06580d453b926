/* gpu_scan.h: exclusive prefix sums of int32 on the device (plain C interface to src/gpu). */
#ifndef SLUICE_GPU_SCAN_H
#define SLUICE_GPU_SCAN_H

#include "gpu_scratch.h"
#include "base/status.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gpu_scan_kind {
    GPU_SCAN_BLOCKED, /* ours: Blelloch work-efficient scan per tile of 1024, tile sums scanned
                         recursively and added back (about 4 n words of traffic) */
    GPU_SCAN_CUB      /* cub::DeviceScan::ExclusiveSum: single pass, decoupled look-back (~2 n) */
} gpu_scan_kind;

/* out[0] = 0, out[i] = in[0] + ... + in[i-1] for 0 < i < n, in 32-bit integer arithmetic (the
 * partial sums must fit in int32; they wrap otherwise). out may be the same array as in (in
 * place); other overlaps are not allowed. in and out are device pointers; n <= INT32_MAX (larger n
 * fails with SL_ERR_INPUT); n == 0 does nothing. Both kinds give identical results (integer
 * sums). Work is queued on the default stream and the call returns without waiting; a fault in
 * a kernel surfaces at the next synchronising call. s provides the temporary storage (reserved
 * here, see gpu_scratch.h). */
int gpu_exclusive_scan_i32(const int32_t *in, int32_t *out, size_t n, gpu_scan_kind kind,
                           gpu_scratch *s, sl_err *err);

/* The same with caller-managed temporary storage, for callers that carve one scratch buffer into
 * several parts: with tmp == NULL only sets *tmp_bytes to the bytes needed (never 0) and queues
 * nothing; otherwise tmp must be a 256-byte aligned device buffer of *tmp_bytes bytes, at least
 * what the query returned for the same n and kind. */
int gpu_exclusive_scan_i32_tmp(const int32_t *in, int32_t *out, size_t n, gpu_scan_kind kind,
                               void *tmp, size_t *tmp_bytes, sl_err *err);

#ifdef __cplusplus
}
#endif

#endif
