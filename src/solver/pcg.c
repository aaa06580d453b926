/* pcg.c: the Jacobi-preconditioned conjugate-gradient iteration over the backend's primitives. */
#include "pcg.h"

#include "core/sim.h"

#include <math.h>

/* Each backend's primitives do the arithmetic of one step the same way (the CUDA kernels of
 * gpu_cg.h round exactly as the CPU loops do), so the iteration below, its scalars in double,
 * gives the same iterates on both. */
static int solve(sim *s, cg_problem *cg)
{
    const backend *be = s->be;
    size_t n = cg->n;
    int rc;
    cg->iterations = 0;
    cg->converged = 0;

    s->args.in = cg->x;
    s->args.out = cg->q;
    be->run_pass(s, cg->matvec, n);
    double dots[3];
    if ((rc = be->cg_init(s, cg, dots)))
        return rc;
    double bnorm = sqrt(dots[0]), rz = dots[1], rnorm = sqrt(dots[2]);
    if (bnorm == 0) {
        /* A x = 0 has the solution 0 */
        if ((rc = be->fill_zero(s, cg->x, n)))
            return rc;
        cg->residual = 0;
        cg->converged = 1;
        return SL_OK;
    }
    cg->residual = rnorm / bnorm;
    while (cg->residual > cg->tolerance && cg->iterations < cg->max_iterations) {
        s->args.in = cg->d;
        s->args.out = cg->q;
        be->run_pass(s, cg->matvec, n);
        double dq = be->reduce(s, REDUCE_DOT, cg->d, cg->q, n);
        if (!(dq > 0))
            break; /* A is not positive definite on d (or d = 0): no progress possible */
        double alpha = rz / dq, up[2];
        if ((rc = be->cg_update(s, cg, alpha, up)))
            return rc;
        cg->iterations++;
        double rz_new = up[0];
        cg->residual = sqrt(up[1]) / bnorm;
        double beta = rz_new / rz;
        rz = rz_new;
        if ((rc = be->cg_direction(s, cg, beta)))
            return rc;
    }
    cg->converged = cg->residual <= cg->tolerance;
    return SL_OK;
}

void pcg_solve(sim *s, cg_problem *cg)
{
    double t0 = s->prof.enabled ? profile_now() : 0;
    if (solve(s, cg)) { /* the backend kept the error for take_error */
        cg->converged = 0;
        cg->residual = NAN;
    }
    if (s->prof.enabled)
        profile_add(&s->prof, "cg.total", NULL, profile_now() - t0);
}
