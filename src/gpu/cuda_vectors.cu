/* cuda_vectors.cu: the CUDA backend's reductions and conjugate-gradient primitives (gpu_cg.h). */
#include "cuda_state.h"

#include "gpu_cg.h"
#include "gpu_check.h"
#include "gpu_reduce.h"

#include <math.h>

double cuda_reduce(sim *s, enum reduce_op op, int a, int b, size_t n)
{
    cuda_sim *st = state_of(s);
    double result;
    sl_err err;
    cuda_timer_start(s);
    int rc = gpu_reduce_real((int)op, st->f[a], op == REDUCE_DOT ? st->f[b] : NULL, n, &result, &st->scratch, &err);
    cuda_timer_stop(s, "reduce", NULL);
    if (rc) {
        cuda_remember_error(s, &err);
        return NAN;
    }
    return result;
}

/* ---- conjugate gradients: the CPU solver's arithmetic, fused kernels (gpu_cg.h) --------------- */

/* Each primitive keeps its error for take_error and returns its code, so pcg_solve stops. An error
 * kept before and not yet taken (the matrix pass of this iteration, which returns none) fails them
 * too: the solver stops at once rather than iterating on what a failed pass left. */
static int kept(sim *s, int rc, const sl_err *err)
{
    if (rc)
        cuda_remember_error(s, err);
    return rc;
}

/* The state for a primitive that is about to write device fields, or NULL when an error is kept. */
static cuda_sim *writable(sim *s)
{
    cuda_sim *st = state_of(s);
    if (st->last_error[0])
        return NULL;
    st->host_current = 0;
    return st;
}

int cuda_cg_init(sim *s, const cg_problem *cg, double dots[3])
{
    cuda_sim *st = writable(s);
    if (!st)
        return SL_ERR_RUNTIME;
    real *const *f = st->f;
    sl_err err;
    return kept(s, gpu_cg_init(f[cg->x], f[cg->b], f[cg->q], f[cg->diag], f[cg->r], f[cg->z], f[cg->d], cg->n, dots,
                               &st->scratch, &err),
                &err);
}

static int checked(cudaError_t e, const char *what, sl_err *err)
{
    return e == cudaSuccess ? SL_OK : gpu_fail(err, what, e);
}

/* The CG's scalars on the device (backend.h: enum cg_slot), made at the first use. */
static double *cg_scalars_of(cuda_sim *st, sl_err *err)
{
    if (!st->cg_scalar && checked(cudaMalloc(&st->cg_scalar, CG_SLOTS * sizeof(double)), "cudaMalloc of the CG's scalars", err))
        return NULL;
    return st->cg_scalar;
}

int cuda_cg_dot(sim *s, cg_problem *cg, int a, int b, int slot)
{
    cuda_sim *st = writable(s);
    if (!st)
        return SL_ERR_RUNTIME;
    sl_err err;
    double *S = cg_scalars_of(st, &err);
    return kept(s, S ? gpu_cg_dot(st->f[a], st->f[b], cg->n, S, slot, &st->scratch, &err) : SL_ERR_RUNTIME, &err);
}

int cuda_cg_update(sim *s, cg_problem *cg, int rz, int dq, int out)
{
    cuda_sim *st = writable(s);
    if (!st)
        return SL_ERR_RUNTIME;
    real *const *f = st->f;
    sl_err err;
    double *S = cg_scalars_of(st, &err);
    return kept(s, S ? gpu_cg_update(S, rz, dq, out, f[cg->x], f[cg->r], f[cg->z], f[cg->d], f[cg->q], f[cg->diag], cg->n,
                                     &st->scratch, &err)
                     : SL_ERR_RUNTIME,
                &err);
}

int cuda_cg_decide(sim *s, cg_problem *cg, int dq, int out, double bnorm)
{
    cuda_sim *st = writable(s);
    if (!st)
        return SL_ERR_RUNTIME;
    sl_err err;
    double *S = cg_scalars_of(st, &err);
    return kept(s, S ? gpu_cg_decide(S, dq, out, bnorm, cg->tolerance, cg->max_iterations, &err) : SL_ERR_RUNTIME, &err);
}

int cuda_cg_direction(sim *s, cg_problem *cg, int num, int den)
{
    cuda_sim *st = writable(s);
    if (!st)
        return SL_ERR_RUNTIME;
    sl_err err;
    double *S = cg_scalars_of(st, &err);
    return kept(s, S ? gpu_cg_direction(S, num, den, st->f[cg->z], st->f[cg->d], cg->n, &err) : SL_ERR_RUNTIME, &err);
}

int cuda_cg_scalars(sim *s, cg_problem *cg, int slot, int count, double *v, int write)
{
    (void)cg;
    cuda_sim *st = state_of(s);
    if (!st || st->last_error[0])
        return SL_ERR_RUNTIME;
    sl_err err;
    double *S = cg_scalars_of(st, &err);
    if (!S)
        return kept(s, SL_ERR_RUNTIME, &err);
    /* a read waits for the work queued before it, so an error of a kernel there shows here */
    cudaError_t e = write ? cudaMemcpy(S + slot, v, (size_t)count * sizeof *v, cudaMemcpyHostToDevice)
                          : cudaMemcpy(v, S + slot, (size_t)count * sizeof *v, cudaMemcpyDeviceToHost);
    return kept(s, checked(e, write ? "the CG's scalars to the device" : "the CG's scalars to the host", &err), &err);
}

static int fill_zero_checked(real *a, size_t n, sl_err *err)
{
    GPU_TRY(cudaMemset(a, 0, n * sizeof(real)), err);
    return SL_OK;
}

int cuda_fill_zero(sim *s, int field, size_t n)
{
    cuda_sim *st = writable(s);
    if (!st)
        return SL_ERR_RUNTIME;
    sl_err err;
    return kept(s, fill_zero_checked(st->f[field], n, &err), &err);
}
