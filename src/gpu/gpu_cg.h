/* gpu_cg.h: fused vector updates of the Jacobi-preconditioned conjugate-gradient solver on the device.
 *
 * The element-wise arithmetic is exactly the CPU backend's (core/backend_cpu.c: cpu_cg_init,
 * cpu_cg_update; the iteration is solver/pcg.c's for both): alpha and beta are doubles, alpha * d[i] is formed in double and rounded to real before it is added, and
 * z = r / diag is a correctly rounded division (not r times a stored reciprocal), so the
 * updated fields are bit-identical to what the CPU computes from the same inputs and scalars. The
 * dot products are the deterministic reductions of gpu_reduce.h (same error bound), computed in
 * the same kernel as the update from the values just written, so each CG iteration reads every
 * field once for the update and once for the direction. Rows with diag[i] == 0 are not unknowns:
 * their z (hence d) is 0 and x stays as it is (0 after gpu_cg_init).
 * All arrays are device arrays of n reals; an array written must not overlap any other (arrays
 * only read may be the same). gpu_cg_init waits for its dots (one small device-to-host copy); s
 * provides 8 KiB of scratch. */
#ifndef SLUICE_GPU_CG_H
#define SLUICE_GPU_CG_H

#include "gpu_scratch.h"
#include "base/real.h"
#include "base/status.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Start of the solve, after q = A x was computed from the initial guess. For each i:
 *   unknown = diag[i] != 0;
 *   if (!unknown) x[i] = 0;
 *   r[i] = unknown ? b[i] - q[i] : 0;
 *   z[i] = unknown ? r[i] / diag[i] : 0;
 *   d[i] = z[i];
 * dots[0] = sum b[i]^2, dots[1] = sum r[i] z[i], dots[2] = sum r[i]^2 (doubles, as REDUCE_DOT). */
int gpu_cg_init(real *x, const real *b, const real *q, const real *diag, real *r, real *z, real *d,
                size_t n, double dots[3], gpu_scratch *s, sl_err *err);

/* The scalars of the iteration stay in device memory (S, CG_SLOTS doubles; backend.h: enum
 * cg_slot): none of the calls below waits. Once S[CG_STATE] is not CG_GOING (core/cg_decide.h)
 * the update and the direction write nothing to the fields (iterations the driver queued past the
 * solve's stop).
 * S[slot] = sum a[i] b[i] (as REDUCE_DOT). */
int gpu_cg_dot(const real *a, const real *b, size_t n, double *S, int slot, gpu_scratch *s, sl_err *err);

/* One step after q = A d. Where S[dq] > 0, with alpha = S[rz] / S[dq] (double), for each i:
 *   x[i] = x[i] + (real)(alpha * d[i]);
 *   r[i] = r[i] - (real)(alpha * q[i]);
 *   z[i] = diag[i] != 0 ? r[i] / diag[i] : 0;       (the new r[i])
 * S[out] = sum r[i] z[i], S[out + 1] = sum r[i]^2 over the new values. Where !(S[dq] > 0) nothing
 * is written but S[out] = S[out + 1] = 0. */
int gpu_cg_update(double *S, int rz, int dq, int out, real *x, real *r, real *z, const real *d, const real *q,
                  const real *diag, size_t n, gpu_scratch *s, sl_err *err);

/* The iteration's verdict after gpu_cg_update(.., dq, out, ..): cg_decide_step (core/cg_decide.h)
 * by one device thread. */
int gpu_cg_decide(double *S, int dq, int out, double bnorm, double tolerance, int max_iterations, sl_err *err);

/* New search direction, beta = S[num] / S[den] (0 where den < 0). For each i:
 *   d[i] = z[i] + (real)(beta * d[i]); */
int gpu_cg_direction(const double *S, int num, int den, const real *z, real *d, size_t n, sl_err *err);

#ifdef __cplusplus
}
#endif

#endif
