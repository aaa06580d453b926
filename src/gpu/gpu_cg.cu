/* gpu_cg.cu: the fused conjugate-gradient vector updates (one kernel each, dots in the same pass). */
#include "gpu_cg.h"

#include "gpu_reduce_block.cuh"
#include "core/cg_decide.h"

namespace {

/* Correctly rounded arithmetic by intrinsics: they are never contracted into an FMA nor changed
 * by fast-math flags, which keeps the results equal to the CPU's (x86-64 SSE, no FMA). */
#if REAL_IS_DOUBLE
__device__ __forceinline__ real add_rn(real a, real b) { return __dadd_rn(a, b); }
__device__ __forceinline__ real sub_rn(real a, real b) { return __dsub_rn(a, b); }
__device__ __forceinline__ real div_rn(real a, real b) { return __ddiv_rn(a, b); }
#else
__device__ __forceinline__ real add_rn(real a, real b) { return __fadd_rn(a, b); }
__device__ __forceinline__ real sub_rn(real a, real b) { return __fsub_rn(a, b); }
__device__ __forceinline__ real div_rn(real a, real b) { return __fdiv_rn(a, b); }
#endif

/* (real)(s * v) with the product in double, as the CPU writes it */
__device__ __forceinline__ real scaled(double s, real v)
{
    return (real)__dmul_rn(s, (double)v);
}

struct init_body {
    real *x;
    const real *b, *q, *diag;
    real *r, *z, *d;
    __device__ __forceinline__ void operator()(size_t i, double (&v)[3], gpu_red::sum_op op) const
    {
        const real bi = b[i], di = diag[i];
        const bool unknown = di != (real)0;
        if (!unknown)
            x[i] = (real)0;
        const real ri = unknown ? sub_rn(bi, q[i]) : (real)0;
        const real zi = unknown ? div_rn(ri, di) : (real)0;
        r[i] = ri;
        z[i] = zi;
        d[i] = zi;
        v[0] = op(v[0], gpu_red::term(bi, bi));
        v[1] = op(v[1], gpu_red::term(ri, zi));
        v[2] = op(v[2], gpu_red::term(ri, ri));
    }
};

/* alpha from the device's scalars, the same double division the host made: ok where S[dq] > 0
 * and the solve goes on */
__device__ __forceinline__ bool step_of(const double *S, int rz, int dq, double &alpha)
{
    const double den = S[dq];
    const bool go = den > 0 && S[CG_STATE] == CG_GOING;
    alpha = go ? __ddiv_rn(S[rz], den) : 0.0;
    return go;
}

struct update_body {
    const double *S;
    int rz, dq;
    real *x, *r, *z;
    const real *d, *q, *diag;
    __device__ __forceinline__ void operator()(size_t i, double (&v)[2], gpu_red::sum_op op) const
    {
        double alpha;
        if (!step_of(S, rz, dq, alpha))
            return;
        const real di = diag[i];
        x[i] = add_rn(x[i], scaled(alpha, d[i]));
        const real ri = sub_rn(r[i], scaled(alpha, q[i]));
        const real zi = di != (real)0 ? div_rn(ri, di) : (real)0;
        r[i] = ri;
        z[i] = zi;
        v[0] = op(v[0], gpu_red::term(ri, zi));
        v[1] = op(v[1], gpu_red::term(ri, ri));
    }
};

struct dot_body {
    const real *a, *b;
    __device__ __forceinline__ void operator()(size_t i, double (&v)[1], gpu_red::sum_op op) const
    {
        v[0] = op(v[0], gpu_red::term((double)a[i], (double)b[i]));
    }
};

__global__ void direction(const double *__restrict__ S, int num, int den, const real *__restrict__ z,
                          real *__restrict__ d, size_t n)
{
    if (S[CG_STATE] != CG_GOING)
        return;
    const double beta = den < 0 ? 0.0 : __ddiv_rn(S[num], S[den]);
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        d[i] = add_rn(z[i], scaled(beta, d[i]));
}

__global__ void decide(double *S, int dq, int out, double bnorm, double tolerance, int max_iterations)
{
    cg_decide_step(S, dq, out, bnorm, tolerance, max_iterations);
}

} // namespace

extern "C" int gpu_cg_init(real *x, const real *b, const real *q, const real *diag, real *r, real *z,
                           real *d, size_t n, double dots[3], gpu_scratch *s, sl_err *err)
{
    return gpu_red::run<3, gpu_red::sum_op>(init_body{x, b, q, diag, r, z, d}, n, dots, s, err);
}

extern "C" int gpu_cg_dot(const real *a, const real *b, size_t n, double *S, int slot, gpu_scratch *s, sl_err *err)
{
    return gpu_red::run_into<1, gpu_red::sum_op>(dot_body{a, b}, n, S + slot, s, 0, err);
}

extern "C" int gpu_cg_update(double *S, int rz, int dq, int out, real *x, real *r, real *z, const real *d,
                             const real *q, const real *diag, size_t n, gpu_scratch *s, sl_err *err)
{
    return gpu_red::run_into<2, gpu_red::sum_op>(update_body{S, rz, dq, x, r, z, d, q, diag}, n, S + out, s, 0, err);
}

extern "C" int gpu_cg_direction(const double *S, int num, int den, const real *z, real *d, size_t n, sl_err *err)
{
    if (n == 0)
        return SL_OK;
    direction<<<gpu_blocks_for(n), GPU_THREADS>>>(S, num, den, z, d, n);
    GPU_LAUNCHED("direction", err);
    return SL_OK;
}

extern "C" int gpu_cg_decide(double *S, int dq, int out, double bnorm, double tolerance, int max_iterations, sl_err *err)
{
    decide<<<1, 1>>>(S, dq, out, bnorm, tolerance, max_iterations);
    GPU_LAUNCHED("decide", err);
    return SL_OK;
}
