/* emps.c: explicit (weakly compressible) MPS: the semi-implicit scheme's step with the pressure
 * from the equation of state, p = B ((n* / n0)^gamma - 1), instead of the Poisson solve; the wall
 * layer's pressure extrapolated from the fluid (Adami et al. 2012, boundary/mps_extrapolated) where
 * the scene asks for it, and the symmetric gradient. The passes and the shared halves of the step are MPS's
 * (schemes/mps/mps_common.h). */
#include "schemes/mps/mps_common.h"

#include "boundary/boundary.h"
#include "core/scheme.h"
#include "parallel/domain.h"
#include "schemes/registry.h"

#include <stdio.h>

static int emps_init(sim *s, sl_err *err)
{
    return mps_setup(s, 1, err);
}

static int emps_step(sim *s, double dt, sl_err *err)
{
    int rc = mps_step_predict(s, dt, err);
    if (rc)
        return rc;
    /* the wall layer's pressure from the fluid (mps_extrapolated), the ghosts' of this step */
    if (s->bnd->after_density && !(rc = domain_refresh_halo(s, err)))
        s->bnd->after_density(s);
    if (rc)
        return rc;
    return mps_step_correct(s, err);
}

static void emps_summary(const sim *s, char *buf, unsigned long len)
{
    snprintf(buf, len, "explicit MPS: %ld steps; LSMPS fell back to MPS %ld times", mps_data_of(s)->stats.steps,
             mps_data_of(s)->stats.lsmps_fallbacks);
}

const scheme scheme_emps = {
    .name = "emps",
    .description = "explicit (weakly compressible) MPS",
    .init = emps_init,
    .time_step = mps_time_step,
    .step = emps_step,
    .prepare_output = NULL,
    .summary = emps_summary,
};
