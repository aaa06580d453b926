/* boundary_passes.h: the passes of the wall models, declared once as a pass list (core/pass.h:
 * X(NAME, ID, LABEL, FLAGS, FORM)) that schemes/registry.h joins with the schemes' lists, so the
 * GPU dispatch is generated for them too. Their ids follow the schemes' range. */
#ifndef SLUICE_BOUNDARY_PASSES_H
#define SLUICE_BOUNDARY_PASSES_H

#include "core/pass.h"
#include "mdbc.h"
#include "mps_extrapolated.h"
#include "moving.h"
#include "floating.h"

#define BOUNDARY_PASSES(X)                                                                          \
    X(mps_wall_pressure, PASS_MPS_WALL_PRESSURE, "mps.wall_pressure", PASS_NEIGHBOURS | PASS_REPEATABLE, PAIRS) \
    X(mdbc_density, PASS_MDBC_DENSITY, "mdbc.density", PASS_NEIGHBOURS | PASS_REPEATABLE, BODY) \
    X(moving_place, PASS_MOVING_PLACE, "motion.place", 0, BODY) \
    X(floating_force, PASS_FLOATING_FORCE, "floating.force", PASS_NEIGHBOURS | PASS_REPEATABLE, BODY)

MPS_PASS_CUBES(BOUNDARY_PASSES)

#define BOUNDARY_PASS_ID(NAME, ID, LABEL, FLAGS, FORM) ID,
enum boundary_pass_id { BOUNDARY_PASS_FIRST = 1000 - 1, BOUNDARY_PASSES(BOUNDARY_PASS_ID) BOUNDARY_PASS_END };
#undef BOUNDARY_PASS_ID

#ifdef __cplusplus
extern "C" {
#endif
BOUNDARY_PASSES(PASS_EXTERN)
#ifdef __cplusplus
}
#endif

#endif
