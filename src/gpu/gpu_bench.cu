/* gpu_bench.cu: timing the GPU primitives against the memory-bandwidth floor. */
#include "gpu_bench.h"

#include "core/backend.h"
#include "gpu_cg.h"
#include "gpu_check.h"
#include "gpu_gather.h"
#include "gpu_info.h"
#include "gpu_reduce.h"
#include "gpu_scan.h"
#include "gpu_sort.h"

#include <algorithm>
#include <stdint.h>

namespace {

/* The floor every row is held to: the device's memory bandwidth from its attributes (gpu_peak.h), or
 * the H200's 4.8 TB/s HBM3e peak where it does not tell its clocks. Set by gpu_primitives_bench. */
double hbm_bytes_per_s = 4.8e12;
constexpr int WARMUP = 2, REPS = 11;

__device__ __forceinline__ uint32_t mix(uint32_t x)
{
    /* the 32-bit finaliser of MurmurHash3: cheap, well spread keys */
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    x *= 0xc2b2ae35u;
    x ^= x >> 16;
    return x;
}

__global__ void fill_inputs(int32_t *rand_key, int32_t *sorted_key, int32_t *count, real *a, real *b,
                            size_t n, uint32_t nkeys)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint32_t h = mix((uint32_t)i + 0x9e3779b9u);
        rand_key[i] = (int32_t)(h % nkeys);
        sorted_key[i] = (int32_t)((uint64_t)i * nkeys / n);
        count[i] = (int32_t)(h >> 28);
        a[i] = (real)(h >> 8) * (real)(1.0 / 16777216.0);
        b[i] = (real)1 + a[i];
    }
}

/* Device buffers released on every path. */
struct buffers {
    void *p[16] = {};
    int used = 0;
    ~buffers()
    {
        for (int k = 0; k < used; ++k)
            cudaFree(p[k]);
    }
    template <typename T>
    int alloc(T **out, size_t count, sl_err *err)
    {
        void *q = NULL;
        GPU_TRY(cudaMalloc(&q, count * sizeof(T) > 0 ? count * sizeof(T) : 1), err);
        p[used++] = q;
        *out = (T *)q;
        return SL_OK;
    }
};

struct events {
    cudaEvent_t start = NULL, stop = NULL;
    ~events()
    {
        if (start)
            cudaEventDestroy(start);
        if (stop)
            cudaEventDestroy(stop);
    }
};

/* Median time of op() in ms; op returns a status. */
template <class Op>
int time_ms(Op op, events &ev, double *ms, sl_err *err)
{
    for (int k = 0; k < WARMUP; ++k)
        SL_TRY(op());
    double t[REPS];
    for (int k = 0; k < REPS; ++k) {
        GPU_TRY(cudaEventRecord(ev.start), err);
        SL_TRY(op());
        GPU_TRY(cudaEventRecord(ev.stop), err);
        GPU_TRY(cudaEventSynchronize(ev.stop), err);
        float f = 0;
        GPU_TRY(cudaEventElapsedTime(&f, ev.start, ev.stop), err);
        t[k] = f;
    }
    std::sort(t, t + REPS);
    *ms = t[REPS / 2];
    return SL_OK;
}

void row(FILE *out, const char *name, double ms, double bytes)
{
    double floor_ms = bytes / hbm_bytes_per_s * 1e3;
    fprintf(out, "%-34s %10.4f %9.1f %10.4f %7.1f%%\n", name, ms, bytes / (ms * 1e-3) / 1e9, floor_ms,
            100.0 * floor_ms / ms);
}

} // namespace

extern "C" int gpu_primitives_bench(FILE *out, size_t n, sl_err *err)
{
    if (n < 1 || n > (size_t)INT32_MAX)
        return gpu_fail_input(err, "bench: n = %zu out of range (1 to 2^31-1)", n);
    int ndev = 0;
    GPU_TRY(cudaGetDeviceCount(&ndev), err);
    if (ndev == 0)
        return gpu_fail(err, "cudaGetDeviceCount (no device)", cudaErrorNoDevice);
    cudaDeviceProp prop;
    GPU_TRY(cudaGetDeviceProperties(&prop, 0), err);

    /* about 4 particles per cell, as the neighbour grid of a dense fluid */
    const size_t nkeys = n / 4 + 1;
    buffers buf;
    int32_t *rand_key, *sorted_key, *count, *scanned, *order, *key_sorted, *start;
    real *a, *b, *gathered, *r, *z;
    SL_TRY(buf.alloc(&rand_key, n, err));
    SL_TRY(buf.alloc(&sorted_key, n, err));
    SL_TRY(buf.alloc(&count, n, err));
    SL_TRY(buf.alloc(&scanned, n, err));
    SL_TRY(buf.alloc(&order, n, err));
    SL_TRY(buf.alloc(&key_sorted, n, err));
    SL_TRY(buf.alloc(&start, nkeys + 1, err));
    SL_TRY(buf.alloc(&a, n, err));
    SL_TRY(buf.alloc(&b, n, err));
    SL_TRY(buf.alloc(&gathered, n, err));
    SL_TRY(buf.alloc(&r, n, err));
    SL_TRY(buf.alloc(&z, n, err));
    fill_inputs<<<gpu_blocks_for(n), GPU_THREADS>>>(rand_key, sorted_key, count, a, b, n, (uint32_t)nkeys);
    GPU_LAUNCHED("fill_inputs", err);
    GPU_TRY(cudaMemcpy(r, a, n * sizeof(real), cudaMemcpyDeviceToDevice), err);
    GPU_TRY(cudaDeviceSynchronize(), err);

    gpu_scratch s = GPU_SCRATCH_INIT;
    struct scratch_guard {
        gpu_scratch *s;
        ~scratch_guard() { gpu_scratch_free(s); }
    } guard{&s};
    events ev;
    GPU_TRY(cudaEventCreate(&ev.start), err);
    GPU_TRY(cudaEventCreate(&ev.stop), err);

    const double N = (double)n, K = (double)(nkeys + 1), RS = (double)sizeof(real);
    const double scan_bytes = 8 * N;                 /* read n, write n */
    const double sort_bytes = 12 * N + 4 * K;        /* read keys; write order, sorted keys, start */
    const double gather_bytes = (4 + 2 * RS) * N;    /* read order and src, write dst */
    const double dot_bytes = 2 * RS * N;             /* read a, b */
    const double cg_bytes = 8 * RS * N;              /* read x r d q diag, write x r z */
    double ms = 0, dots[2];

    gpu_peak peak;
    if (gpu_peak_of_current(&peak, nullptr, 0) == 0)
        hbm_bytes_per_s = peak.bandwidth;
    fprintf(out, "GPU primitives on %s (sm_%d%d), n = %zu, real = %s; median of %d runs after %d warm-ups\n",
            prop.name, prop.major, prop.minor, n, REAL_NAME, REPS, WARMUP);
    fprintf(out, "sort keys: %zu keys (about 4 per key), uniformly random or already sorted\n", nkeys);
    fprintf(out, "%-34s %10s %9s %10s %8s\n", "primitive", "ms", "GB/s", "floor ms", "of peak");

    const struct {
        const char *name;
        gpu_scan_kind kind;
    } scans[] = {{"scan blocked (Blelloch)", GPU_SCAN_BLOCKED}, {"scan cub", GPU_SCAN_CUB}};
    for (const auto &sc : scans) {
        SL_TRY(time_ms([&] { return gpu_exclusive_scan_i32(count, scanned, n, sc.kind, &s, err); }, ev, &ms, err));
        row(out, sc.name, ms, scan_bytes);
    }

    const struct {
        const char *name;
        gpu_sort_kind kind;
        gpu_scan_kind scan;
        const int32_t *keys;
    } sorts[] = {
        {"sort counting+blocked, random", GPU_SORT_COUNTING, GPU_SCAN_BLOCKED, rand_key},
        {"sort counting+cub, random", GPU_SORT_COUNTING, GPU_SCAN_CUB, rand_key},
        {"sort radix, random", GPU_SORT_RADIX, GPU_SCAN_CUB, rand_key},
        {"sort counting+cub, presorted", GPU_SORT_COUNTING, GPU_SCAN_CUB, sorted_key},
        {"sort radix, presorted", GPU_SORT_RADIX, GPU_SCAN_CUB, sorted_key},
    };
    for (const auto &so : sorts) {
        SL_TRY(time_ms([&] { return gpu_sort_keys(so.keys, n, nkeys, so.kind, so.scan, order, key_sorted,
                                                  start, &s, err); },
                       ev, &ms, err));
        row(out, so.name, ms, sort_bytes);
    }

    /* order is the last sort's (presorted keys: the identity), so gather by a random order too */
    SL_TRY(gpu_sort_keys(rand_key, n, nkeys, GPU_SORT_RADIX, GPU_SCAN_CUB, order, key_sorted, start, &s, err));
    SL_TRY(time_ms([&] { return gpu_gather_real(a, gathered, order, n, err); }, ev, &ms, err));
    row(out, "gather real, random order", ms, gather_bytes);

    SL_TRY(time_ms([&] { return gpu_reduce_real(REDUCE_DOT, a, b, n, dots, &s, err); }, ev, &ms, err));
    row(out, "reduce dot (incl. result copy)", ms, dot_bytes);

    /* x = gathered, d = a, q = diag = b; alpha = 0 keeps x and r the same from one repetition to
     * the next (the arithmetic and the traffic are those of any alpha) */
    double *S = NULL; /* the scalars (enum cg_slot): S[0] = 0 over S[1] = 1, the solve going on */
    double slots[CG_SLOTS] = {0.0, 1.0};
    GPU_TRY(cudaMalloc(&S, sizeof slots), err);
    GPU_TRY(cudaMemcpy(S, slots, sizeof slots, cudaMemcpyHostToDevice), err);
    int rc = time_ms([&] { return gpu_cg_update(S, 0, 1, 2, gathered, r, z, a, b, b, n, &s, err); }, ev, &ms, err);
    cudaFree(S);
    if (rc)
        return rc;
    row(out, "cg update + 2 dots (on the device)", ms, cg_bytes);

    fprintf(out, "effective traffic: scan 8n B; sort 12n + 4(nkeys+1) B (read keys, write order, sorted\n"
                 "keys, start); gather (4 + 2 sizeof(real)) n; dot 2 sizeof(real) n; cg update\n"
                 "8 sizeof(real) n. floor ms = that traffic at %.1f TB/s; 'of peak' = floor / measured.\n",
            hbm_bytes_per_s / 1e12);
    return SL_OK;
}
