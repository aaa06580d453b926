/* backend_cuda.h: what the CUDA backend tells the rest of the program beyond the backend
 * interface (for `sluice bench`, `sluice check` and the GPU tests). C linkage. */
#ifndef SLUICE_BACKEND_CUDA_H
#define SLUICE_BACKEND_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sim;

/* 1 when a CUDA device can be used. */
int cuda_device_present(void);

/* Device memory held for s (particle arrays, grid, scratch), bytes. */
size_t cuda_device_bytes(const struct sim *s);

/* The name of a strategy (enum gpu_strategy of pass_kernels.h): "par-part", ... */
const char *cuda_strategy_label(int strategy);

/* For the GPU tests: bytes of device memory (a list a hook left there) copied to host memory; 0, or
 * -1 where the copy failed. */
int cuda_copy_to_host(void *host, const void *device, size_t bytes);

/* For the GPU tests and `sluice bench`: runs pass `pass_id` over the particles inside with
 * `strategy` (enum gpu_strategy), or with the all-pairs oracle kernel (passes with a pair form). */
typedef struct sl_err sl_err;
int cuda_strategy_valid(struct sim *s, int pass_id, int strategy);
int cuda_run_pass_strategy(struct sim *s, int pass_id, int strategy, sl_err *err);
int cuda_pass_oracle(struct sim *s, int pass_id, sl_err *err);

/* Runs pass `pass_id` with `strategy` warmup times, then times reps runs (at most 64) with CUDA
 * events, one run between a pair; *median_ms is the median time of one run. */
int cuda_time_pass(struct sim *s, int pass_id, int strategy, int warmup, int reps, double *median_ms, sl_err *err);

#ifdef __cplusplus
}
#endif

#endif
