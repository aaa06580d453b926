/* cg_decide.h: whether the conjugate-gradient iteration goes on, decided where its scalars are
 * (backend.cg_decide: on the host for the CPU, by one device thread for CUDA), so that the driver
 * (pcg.c) can queue iterations without waiting for each verdict. The same double arithmetic as the
 * host's decision it replaces, so the same iterations stop. */
#ifndef SLUICE_CG_DECIDE_H
#define SLUICE_CG_DECIDE_H

#include "base/real.h"
#include "backend.h"

#include <math.h>

/* S[CG_STATE]: the solve goes on, or why it stopped. */
enum cg_state {
    CG_GOING = 0,
    CG_CONVERGED,   /* relative residual at most the tolerance */
    CG_LIMIT,       /* max_iterations done */
    CG_NO_PROGRESS, /* !(d.q > 0): A is not positive definite on d, or d = 0; x as it was */
    CG_NAN          /* d.q is a NaN: a NaN in the system (or the preconditioner's r.z) */
};

/* After an update whose d.q is S[dq] and whose new r.r is S[out + 1]; nothing once stopped. */
HD static inline void cg_decide_step(double *S, int dq, int out, double bnorm, double tolerance, int max_iterations)
{
    if (S[CG_STATE] != CG_GOING)
        return;
    if (!(S[dq] > 0)) { /* the update changed nothing */
        S[CG_STATE] = S[dq] != S[dq] ? CG_NAN : CG_NO_PROGRESS;
        return;
    }
    S[CG_DONE] += 1;
    S[CG_LAST_RR] = S[out + 1];
    if (sqrt(S[out + 1]) / bnorm <= tolerance)
        S[CG_STATE] = CG_CONVERGED;
    else if (S[CG_DONE] >= max_iterations)
        S[CG_STATE] = CG_LIMIT;
}

#endif
