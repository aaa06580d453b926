/* cuda_hooks.cu: what the CUDA backend offers beyond the backend interface: the functions of
 * backend_cuda.h (for `sluice bench`, `sluice check` and the GPU tests) and its bench hooks. */
#include "cuda_state.h"

#include "backend_cuda.h"
#include "gpu_bench.h"
#include "gpu_check.h"

#include <stdlib.h>

extern "C" size_t cuda_device_bytes(const sim *s)
{
    const cuda_sim *st = state_of(s);
    if (!st)
        return 0;
    size_t per = (size_t)(st->nfields + st->npad) * sizeof(real) + sizeof(int32_t) + 2 + sizeof(int32_t) +
                 (st->order ? sizeof(int32_t) : 0);
    return st->cap * per + ((size_t)s->g.ncells + 2) * sizeof(int32_t) + st->scratch.bytes;
}

extern "C" const char *cuda_strategy_label(int strategy)
{
    return gpu_strategy_label(strategy);
}

extern "C" int cuda_strategy_valid(sim *s, int pass_id, int strategy)
{
    launch_geom g = cuda_geometry(s);
    return gpu_strategy_valid(pass_id, strategy, g.n, &g);
}

extern "C" int cuda_run_pass_strategy(sim *s, int pass_id, int strategy, sl_err *err)
{
    pass_ctx c = cuda_device_ctx(s);
    launch_geom g = cuda_geometry(s);
    state_of(s)->host_current = 0;
    int rc = gpu_launch_pass(pass_id, strategy, &c, g.n, &g, &state_of(s)->scratch, err);
    if (rc == SL_OK)
        GPU_TRY(cudaDeviceSynchronize(), err);
    return rc;
}

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

extern "C" int cuda_time_pass(sim *s, int pass_id, int strategy, int warmup, int reps, double *median_ms, sl_err *err)
{
    cuda_sim *st = state_of(s);
    pass_ctx c = cuda_device_ctx(s);
    launch_geom g = cuda_geometry(s);
    st->host_current = 0;
    int rc;
    for (int k = 0; k < warmup; ++k)
        if ((rc = gpu_launch_pass(pass_id, strategy, &c, g.n, &g, &state_of(s)->scratch, err)))
            return rc;
    float times[64];
    if (reps < 1)
        reps = 1;
    if (reps > 64)
        reps = 64;
    for (int k = 0; k < reps; ++k) {
        GPU_TRY(cudaEventRecord(st->ev_start), err);
        if ((rc = gpu_launch_pass(pass_id, strategy, &c, g.n, &g, &state_of(s)->scratch, err)))
            return rc;
        GPU_TRY(cudaEventRecord(st->ev_stop), err);
        GPU_TRY(cudaEventSynchronize(st->ev_stop), err);
        GPU_TRY(cudaEventElapsedTime(&times[k], st->ev_start, st->ev_stop), err);
    }
    qsort(times, (size_t)reps, sizeof times[0], compare_float);
    *median_ms = reps % 2 ? times[reps / 2] : 0.5 * ((double)times[reps / 2 - 1] + times[reps / 2]);
    return SL_OK;
}

extern "C" int cuda_pass_oracle(sim *s, int pass_id, sl_err *err)
{
    pass_ctx c = cuda_device_ctx(s);
    state_of(s)->host_current = 0;
    int rc = gpu_pass_all_pairs(pass_id, &c, (int32_t)s->g.n_inside, err);
    if (rc == SL_OK)
        GPU_TRY(cudaDeviceSynchronize(), err);
    return rc;
}

extern "C" int cuda_device_present(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count > 0;
}

/* Why a strategy may not run a pass: par-part-sym needs the symmetric pair form, the staged
 * strategies cells of at most 256 particles (gpu_strategy_valid). */
static const char *strategy_invalid_reason(int strategy)
{
    return strategy == GS_PAR_PART_SYM ? "no symmetric pair form" : "cells of more than 256 particles";
}

/* C++ has designated initializers only from C++20: the order is that of struct backend_bench_hooks. */
const backend_bench_hooks cuda_bench_hooks = {
    cuda_device_bytes,
    gpu_primitives_bench,
    GS_COUNT,
    cuda_strategy_label,
    cuda_strategy_valid,
    strategy_invalid_reason,
    cuda_time_pass,
};

extern "C" int cuda_copy_to_host(void *host, const void *device, size_t bytes)
{
    return bytes && cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost) != cudaSuccess ? -1 : 0;
}
