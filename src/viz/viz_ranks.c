/* viz_ranks.c: the viewer on an MPI run. The root draws; every rank takes part in the gather of the
 * state it draws, and in learning when the root's viewer ends the run, so that the ranks' calls to
 * the collectives stay in step. */
#include "viz.h"

#include "parallel/domain.h"

static int after_step_ranks(void *ctx, sim *s, sl_err *err)
{
    viz_ranks *r = ctx;
    /* the root's wish, every rank's answer (domain_any: only the root says yes) */
    int want = domain_any(s, r->v && viz_wants_state(r->v, s)), rc = SL_OK;
    if (want) /* the positions and what colours them */
        rc = domain_gather(s, DOMAIN_GATHER_CORE, err);
    if (r->v && rc == SL_OK) {
        engine_observer o = viz_observer(r->v);
        viz_state_whole(r->v, want);
        rc = o.after_step(o.ctx, s, err);
        viz_state_whole(r->v, 0);
    }
    if (want)
        domain_ungather(s);
    /* an error stops the root's run and the command stops the rest (domain_abort); a quit is every
     * rank's at this step */
    int quit = domain_any(s, rc == SL_INTERRUPTED);
    return rc == SL_OK && quit ? SL_INTERRUPTED : rc;
}

engine_observer viz_ranks_observer(viz_ranks *r)
{
    engine_observer o = {r, after_step_ranks, NULL};
    return o;
}
