/* mps.c: semi-implicit MPS (Koshizuka & Oka 1996).
 *
 * One step:
 *   1. a = nu lap u + g (explicit), u* = u + dt a, x* = x + dt u*         passes accel, predict
 *   2. n* at x*, free surface where n* < beta n0                          pass density
 *   3. A p = b (physics/mps_ppe.h) by preconditioned CG (solver/pcg.h)    passes ppe_setup, ppe_apply
 *   4. u = u* - dt/rho0 grad p, x = x* + dt (u - u*)                      passes gradient, correct
 * Steps 1, 2 and 4 are shared with explicit MPS (mps_common.c). */
#include "mps_common.h"

#include "core/scheme.h"
#include "schemes/registry.h"
#include "solver/pcg.h"

#include <stdio.h>

static int mps_init(sim *s, sl_err *err)
{
    int rc = mps_setup(s, 0, err);
    if (rc)
        return rc;
    const int *slot = s->args.slot;
    cg_problem *cg = &mps_data_of(s)->cg;
    cg->matvec = &mps_ppe_apply_pass;
    cg->x = slot[MS_X];
    cg->b = slot[MS_B];
    cg->diag = slot[MS_DIAG];
    cg->r = slot[MS_R];
    cg->z = slot[MS_Z];
    cg->d = slot[MS_D];
    cg->q = slot[MS_Q];
    cg->tolerance = s->sc->mps.cg_tolerance;
    cg->max_iterations = s->sc->mps.cg_max_iterations;
    return SL_OK;
}

static void record_solve(mps_stats *st, const cg_problem *cg)
{
    st->cg_iterations += cg->iterations;
    st->cg_last_iterations = cg->iterations;
    st->cg_last_residual = cg->residual;
    if (cg->iterations > st->cg_max_iterations)
        st->cg_max_iterations = cg->iterations;
    if (cg->residual > st->cg_max_residual)
        st->cg_max_residual = cg->residual;
    if (!cg->converged)
        st->cg_unconverged++;
}

static int mps_step(sim *s, double dt, sl_err *err)
{
    mps_data *d = mps_data_of(s);
    const backend *be = s->be;
    int rc = mps_step_predict(s, dt, err);
    if (rc)
        return rc;
    size_t n = s->g.n_inside;
    be->run_pass(s, &mps_ppe_setup_pass, n);
    d->cg.n = n;
    pcg_solve(s, &d->cg);
    record_solve(&d->stats, &d->cg);
    be->run_pass(s, &mps_pressure_pass, n);
    mps_step_correct(s);
    return SL_OK;
}

static void mps_summary(const sim *s, char *buf, unsigned long len)
{
    const mps_data *d = mps_data_of(s);
    const mps_stats *st = &d->stats;
    snprintf(buf, len,
             "pressure Poisson solve: %.1f CG iterations per step (at most %d), residual at most %.2g "
             "(tolerance %.2g), %ld of %ld steps unconverged; LSMPS fell back to MPS %ld times",
             st->steps ? (double)st->cg_iterations / (double)st->steps : 0.0, st->cg_max_iterations,
             st->cg_max_residual, d->cg.tolerance, st->cg_unconverged, st->steps, st->lsmps_fallbacks);
}

const scheme scheme_mps = {
    .name = "mps",
    .description = "semi-implicit MPS (pressure Poisson equation, CG)",
    .init = mps_init,
    .time_step = mps_time_step,
    .step = mps_step,
    .prepare_output = NULL,
    .summary = mps_summary,
};
