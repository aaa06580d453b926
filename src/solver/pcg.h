/* pcg.h: the preconditioned conjugate-gradient solver, written once for every backend. */
#ifndef SLUICE_PCG_H
#define SLUICE_PCG_H

#include "core/backend.h"

struct sim;

/* Solves cg->matvec x = b (cg_problem, core/backend.h) on s's backend: the matrix products by
 * be->run_pass, d.q by be->reduce (REDUCE_DOT), the vector steps by the backend's CG primitives.
 * The preconditioner is Jacobi's, or cg->precondition (solver/multigrid.h); the product the matvec
 * pass, or cg->product. Rows spread over several processes (MPI ranks): every dot product added
 * over them by cg->sum and the vector of each product shared by cg->share, so each process takes
 * the same iterations; a preconditioner that reads the copies (cg->clear) gets r shared too, and
 * the copies' z is added to their owners' (cg->add_back, overlapping blocks) or dropped (cg->clear).
 * Fills the results in cg; a system with a NaN ends unconverged with a NaN residual (every process
 * alike). Returns SL_OK, or the error of a backend's step (taken from the backend, with its message)
 * or of a hook (cg->sum, cg->share, cg->precondition, cg->add_back, cg->clear), in err; the solve then
 * ends at once, so a process that failed calls nothing the others wait in. Records the profile phase
 * "cg.total" when s->prof.enabled. */
int pcg_solve(struct sim *s, cg_problem *cg, sl_err *err);

#endif
