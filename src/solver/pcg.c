/* pcg.c: the preconditioned conjugate-gradient iteration over the backend's primitives. */
#include "pcg.h"

#include "core/sim.h"

#include <math.h>

/* Each backend's primitives do the arithmetic of one step the same way (the CUDA kernels of
 * gpu_cg.h round exactly as the CPU loops do), so the iteration below, its scalars in double,
 * gives the same iterates on both. */
static int product(sim *s, const cg_problem *cg, int in, int out)
{
    if (cg->product)
        return cg->product(s, cg, in, out);
    s->args.in = in;
    s->args.out = out;
    s->be->run_pass(s, cg->matvec, cg->n); /* an error is kept for take_error; the primitives see it */
    return SL_OK;
}

/* z = M^-1 r by the scheme's preconditioner (the primitives wrote Jacobi's z, now replaced), and
 * r.z of it. */
static int precondition(sim *s, const cg_problem *cg, double *rz)
{
    int rc = cg->precondition(s, cg);
    if (rc)
        return rc;
    *rz = s->be->reduce(s, REDUCE_DOT, cg->r, cg->z, cg->n);
    return *rz == *rz ? SL_OK : SL_ERR_RUNTIME;
}

static int solve(sim *s, cg_problem *cg)
{
    const backend *be = s->be;
    size_t n = cg->n;
    int rc;
    cg->iterations = 0;
    cg->converged = 0;

    if ((rc = product(s, cg, cg->x, cg->q)))
        return rc;
    double dots[3];
    if ((rc = be->cg_init(s, cg, dots)))
        return rc;
    double bnorm = sqrt(dots[0]), rz = dots[1], rnorm = sqrt(dots[2]);
    if (cg->precondition && bnorm != 0) {
        if ((rc = precondition(s, cg, &rz)) || (rc = be->cg_direction(s, cg, 0.0))) /* d = z */
            return rc;
    }
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
        if ((rc = product(s, cg, cg->d, cg->q)))
            return rc;
        double dq = be->reduce(s, REDUCE_DOT, cg->d, cg->q, n);
        if (!(dq > 0))
            break; /* A is not positive definite on d (or d = 0): no progress possible */
        double alpha = rz / dq, up[2];
        if ((rc = be->cg_update(s, cg, alpha, up)))
            return rc;
        cg->iterations++;
        double rz_new = up[0];
        cg->residual = sqrt(up[1]) / bnorm;
        if (cg->residual <= cg->tolerance)
            break;
        if (cg->precondition && (rc = precondition(s, cg, &rz_new)))
            return rc;
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
