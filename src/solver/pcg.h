/* pcg.h: the preconditioned conjugate-gradient solver, written once for every backend. */
#ifndef SLUICE_PCG_H
#define SLUICE_PCG_H

#include "core/backend.h"

struct sim;

/* Solves cg->matvec x = b (cg_problem, core/backend.h) on s's backend: the matrix products by
 * be->run_pass, d.q by be->reduce (REDUCE_DOT), the vector steps by the backend's CG primitives.
 * The preconditioner is Jacobi's, or cg->precondition (solver/multigrid.h); the product the matvec
 * pass, or cg->product. Fills the results in cg. An error of the backend ends the solve unconverged with a NaN residual;
 * the backend keeps the error for take_error (sim_step reports it). Records the profile phase
 * "cg.total" when s->prof.enabled. */
void pcg_solve(struct sim *s, cg_problem *cg);

#endif
