/* gpu_reduce.h: deterministic reductions of real device arrays (min, max, sum, dot). */
#ifndef SLUICE_GPU_REDUCE_H
#define SLUICE_GPU_REDUCE_H

#include "gpu_scratch.h"
#include "base/real.h"
#include "base/status.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* *result = reduction of a[0..n) (device pointers; b is read by REDUCE_DOT only), op an
 * enum reduce_op of backend.h:
 *   REDUCE_MIN / REDUCE_MAX: smallest / largest a[i], exact (converted to double); NaN if any
 *     a[i] is NaN; +inf / -inf for n == 0 (as the CPU backend).
 *   REDUCE_SUM: sum of (double)a[i]; REDUCE_DOT: sum of (double)a[i] * (double)b[i]; 0 for n == 0.
 *     Accumulated in double in a fixed order (see gpu_reduce_block.cuh): bit-identical from run
 *     to run for the same data and n, independent of the GPU model. The order differs from the
 *     CPU backend's, so the two agree to rounding, not bit for bit: each term passes through at
 *     most ceil(n / 2^18) additions in its thread and 23 after (the trees, and 3 as the last block folds
 *     the partials), so the error is below
 *     (ceil(n / 2^18) + 24) * 2^-53 * sum |terms| (first order; 7e-15 relative at n = 10^7).
 * Waits for the result (one device-to-host copy), so faults of earlier queued work are reported
 * here too. n < 2^63; an unknown op fails with SL_ERR_INPUT. s provides 8 KiB of scratch. */
int gpu_reduce_real(int op, const real *a, const real *b, size_t n, double *result,
                    gpu_scratch *s, sl_err *err);

#ifdef __cplusplus
}
#endif

#endif
