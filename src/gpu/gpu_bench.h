/* gpu_bench.h: a micro-benchmark of the GPU primitives (scans, sorts, gather, reductions) for `sluice bench`. */
#ifndef SLUICE_GPU_BENCH_H
#define SLUICE_GPU_BENCH_H

#include "base/status.h"

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Times each primitive at size n on device 0 (CUDA events; 2 warm-up runs, then the median of 11)
 * and prints a table to out: milliseconds, GB/s of effective traffic (the bytes the operation
 * must move at least, defined under the table) and the time that traffic takes at the device's
 * memory bandwidth (its attributes, gpu_peak.h; the H200's 4.8 TB/s where it does not tell them). Allocates about (25 + 5 sizeof(real)) n bytes of device memory plus the
 * primitives' scratch (about 12 n bytes for the radix sort). Fails with SL_ERR_RUNTIME when there is no device or memory runs out;
 * n must be between 1 and 2^31-1 (SL_ERR_INPUT otherwise). */
int gpu_primitives_bench(FILE *out, size_t n, sl_err *err);

#ifdef __cplusplus
}
#endif

#endif
