/* pcg.c: the preconditioned conjugate-gradient iteration over the backend's primitives. */
#include "pcg.h"

#include "core/cg_decide.h"
#include "core/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Each backend's primitives do the arithmetic of one step the same way (the CUDA kernels of
 * gpu_cg.h round exactly as the CPU loops do), so the iteration below, its scalars in double,
 * gives the same iterates on both. The scalars stay where the backend keeps its vectors (enum
 * cg_slot): alpha and beta are formed there, so that an iteration waits once for the device, for
 * the residual that decides whether to go on (before, d.q, the update's dots and r.z each waited:
 * about 20 waits a step of semi-implicit MPS). */

/* This process's partial sums added over every process that holds rows (cg->sum): every decision
 * below is taken from totals, so each process iterates alike. */
static int total(sim *s, const cg_problem *cg, double *v, int count, sl_err *err)
{
    return cg->sum ? cg->sum(s, v, count, err) : SL_OK;
}

/* A primitive failed: the backend kept its error (with the message) for take_error. */
static int backend_failed(sim *s, sl_err *err)
{
    int rc = sim_backend_error(s, err);
    return rc ? rc : sl_fail(err, SL_ERR_RUNTIME, "pressure solve: a step of the backend failed");
}

/* Slots [slot, slot + count) made totals over the processes that hold rows (a wait for the device
 * and a collective), the totals also left in v[slot ..] (v has CG_SLOTS room); nothing on one
 * process, v untouched. */
static int total_slots(sim *s, cg_problem *cg, int slot, int count, double *v, sl_err *err)
{
    if (!cg->sum)
        return SL_OK;
    if (s->be->cg_scalars(s, cg, slot, count, v + slot, 0))
        return backend_failed(s, err);
    int rc = total(s, cg, v + slot, count, err);
    if (rc)
        return rc;
    return s->be->cg_scalars(s, cg, slot, count, v + slot, 1) ? backend_failed(s, err) : SL_OK;
}

static int product(sim *s, const cg_problem *cg, int in, int out, sl_err *err)
{
    if (cg->share) { /* the other processes' unknowns this product reads */
        int rc = cg->share(s, in, err);
        if (rc)
            return rc;
    }
    if (cg->product)
        return cg->product(s, cg, in, out) ? backend_failed(s, err) : SL_OK;
    s->args.in = in;
    s->args.out = out;
    s->be->run_pass(s, cg->matvec, cg->n); /* an error is kept for take_error; the primitives see it */
    return SL_OK;
}

/* z = M^-1 r by the scheme's preconditioner (the primitives wrote Jacobi's z, now replaced), and
 * S[slot] = r.z of it. One that reads the copies' r (cg->clear) writes their z too: z there is
 * added to the copies' owners' (overlapping blocks, cg->add_back) or dropped. */
static int precondition(sim *s, cg_problem *cg, int slot, sl_err *err)
{
    int rc;
    if (cg->clear && (rc = cg->share(s, cg->r, err)))
        return rc;
    if ((rc = cg->precondition(s, cg, err)))
        return rc;
    const int copies[] = {cg->r, cg->z};
    if (cg->add_back && (rc = cg->add_back(s, cg->z, err)))
        return rc;
    if (cg->clear && (rc = cg->clear(s, copies, 2, err)))
        return rc;
    if (s->be->cg_dot(s, cg, cg->r, cg->z, slot))
        return backend_failed(s, err);
    double v[CG_SLOTS];
    return total_slots(s, cg, slot, 1, v, err);
}

/* The slot of iteration k's r.z (its r.r is the next): even and odd iterations alternate, so that
 * beta divides the new r.z by the last one. */
static int rz_slot(int k)
{
    return k % 2 ? CG_RZ_ODD : CG_RZ_EVEN;
}

static int solve(sim *s, cg_problem *cg, sl_err *err)
{
    const backend *be = s->be;
    size_t n = cg->n;
    int rc;
    cg->iterations = 0;
    cg->converged = 0;
    cg->residual = NAN;

    if ((rc = product(s, cg, cg->x, cg->q, err)))
        return rc;
    double dots[3];
    if (be->cg_init(s, cg, dots))
        return backend_failed(s, err);
    if ((rc = total(s, cg, dots, 3, err)))
        return rc;
    double bnorm = sqrt(dots[0]), rz = dots[1], rnorm = sqrt(dots[2]);
    /* r.z, then the state (the last solve's is there, and the direction below reads it) in one
     * write: slots CG_RZ_EVEN (rz_slot(0)) to CG_LAST_RR, the pairs between them written before read */
    double start[CG_SLOTS] = {0};
    start[rz_slot(0)] = rz;
    start[CG_STATE] = CG_GOING;
    start[CG_LAST_RR] = dots[2];
    if (be->cg_scalars(s, cg, rz_slot(0), CG_LAST_RR + 1 - rz_slot(0), start + rz_slot(0), 1))
        return backend_failed(s, err);
    double state[3] = {CG_GOING, 0, dots[2]}; /* CG_STATE, CG_DONE, CG_LAST_RR as last read */
    if (cg->precondition && bnorm != 0) {
        /* its r.z stays where the backend keeps it, unread: a NaN there makes the first d.q one, and
         * the first verdict (cg_decide_step) stops the solve before x changes, as reading it would */
        if ((rc = precondition(s, cg, rz_slot(0), err)))
            return rc;
        if (be->cg_direction(s, cg, 0, -1)) /* d = z */
            return backend_failed(s, err);
    }
    if (bnorm == 0) {
        /* A x = 0 has the solution 0 */
        if (be->fill_zero(s, cg->x, n))
            return backend_failed(s, err);
        cg->residual = 0;
        cg->converged = 1;
        return SL_OK;
    }
    cg->residual = rz == rz ? rnorm / bnorm : NAN; /* a NaN in the system (Jacobi's r.z) ends the solve unconverged */
    if (!(cg->residual > cg->tolerance) || cg->max_iterations <= 0) {
        cg->converged = cg->residual <= cg->tolerance;
        return SL_OK;
    }
    /* The verdicts are the backend's (cg_decide); the state is read once an iteration (on several
     * processes, whose totals wait anyway), or from iteration cg->ahead + 1 on, after which the
     * iterations queued past a stop change nothing. */
    const int ahead = cg->sum ? 0 : cg->ahead;
    for (int queued = 1;; ++queued) {
        const int last = rz_slot(queued - 1), next = rz_slot(queued);
        if ((rc = product(s, cg, cg->d, cg->q, err)))
            return rc;
        double v[CG_SLOTS]; /* d.q and the new pair totalled over the processes (where several) */
        if (be->cg_dot(s, cg, cg->d, cg->q, CG_DQ))
            return backend_failed(s, err);
        if ((rc = total_slots(s, cg, CG_DQ, 1, v, err)))
            return rc;
        if (be->cg_update(s, cg, last, CG_DQ, next)) /* alpha = r.z / d.q where d.q > 0 */
            return backend_failed(s, err);
        if ((rc = total_slots(s, cg, next, 2, v, err)))
            return rc;
        if (be->cg_decide(s, cg, CG_DQ, next, bnorm))
            return backend_failed(s, err);
        if (queued > ahead || queued >= cg->max_iterations) {
            if (be->cg_scalars(s, cg, CG_STATE, 3, state, 0))
                return backend_failed(s, err);
            if (state[0] != CG_GOING)
                break;
        }
        if (cg->precondition && (rc = precondition(s, cg, next, err)))
            return rc;
        if (be->cg_direction(s, cg, next, last)) /* beta = new r.z / last r.z */
            return backend_failed(s, err);
    }
    cg->iterations = (int)state[1];
    cg->residual = state[0] == CG_NAN ? NAN : sqrt(state[2]) / bnorm;
    cg->converged = cg->residual <= cg->tolerance;
    return SL_OK;
}

int pcg_solve(sim *s, cg_problem *cg, sl_err *err)
{
    double t0 = s->prof.enabled ? profile_now() : 0;
    /* SLUICE_CG_AHEAD (a measurement knob): 0 reads the state after every iteration, 1 queues ahead
     * on any backend (the CPU too: the tests), unset where the backend queues its work */
    const char *knob = getenv("SLUICE_CG_AHEAD");
    const int read_ahead = knob && *knob ? strcmp(knob, "0") != 0 : s->be->queues;
    const int last = cg->iterations;
    cg->ahead = read_ahead && last > 2 ? last - 2 : 0;
    int rc = solve(s, cg, err);
    if (rc) {
        cg->converged = 0;
        cg->residual = NAN;
    }
    if (s->prof.enabled)
        profile_add(&s->prof, "cg.total", NULL, profile_now() - t0);
    return rc;
}
