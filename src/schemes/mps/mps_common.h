/* mps_common.h: what semi-implicit MPS (mps.c) and explicit MPS (schemes/emps) share: the set-up of
 * parameters, fields and particle classes, the time step, and the passes before and after the
 * pressure. */
#ifndef SLUICE_MPS_COMMON_H
#define SLUICE_MPS_COMMON_H

#include "core/sim.h"
#include "mps.h"
#include "solver/multigrid.h"

/* The scheme's data (s->scheme_data): the solve of semi-implicit MPS and the statistics of both. */
typedef struct mps_data {
    cg_problem cg;          /* semi-implicit only */
    multigrid mg;           /* its preconditioner, when the scene asks for multigrid */
    int use_mg;
    mps_stats stats;
} mps_data;

static inline mps_data *mps_data_of(const sim *s)
{
    return (mps_data *)s->scheme_data;
}

/* Parameters from the scene (P.mps, c0, the radii), the scheme's fields and data, the particle
 * classes (fluid, wall layer, dummies) and the hydrostatic start. */
int mps_setup(sim *s, int is_explicit, sl_err *err);

/* The stable step: CFL on the particle speed (explicit: plus the speed of sound), and the explicit
 * viscosity's limit. */
int mps_time_step(sim *s, double *dt, sl_err *err);

/* A step up to the pressure: explicit acceleration, prediction, collisions, the number density
 * and the free surface at the predicted positions. */
int mps_step_predict(sim *s, double dt, sl_err *err);

/* Semi-implicit MPS (mps.c): the Poisson system of particles [0, n) at the current positions and
 * classes: diagonal, right-hand side, warm start, and with multigrid its rows and hierarchy. */
int mps_poisson_system(sim *s, size_t n, sl_err *err);

/* The step after the pressure: its gradient, the correction (floating bodies' too), the step's
 * statistics. */
int mps_step_correct(sim *s, sl_err *err);

#endif
