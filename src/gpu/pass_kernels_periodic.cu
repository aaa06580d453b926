/* pass_kernels_periodic.cu: the passes' bodies by par-part and par-cell on grids with a periodic axis,
 * compiled with the seam arithmetic and the nearest-image folds that pass_kernels.cu leaves out
 * (SLUICE_NO_PERIODIC there, not here). The other strategies walk the runs themselves, without
 * the seam (gpu_strategy_valid). */
#include "body_kernels.cuh"

#include "schemes/registry.h"

#define PERIODIC_BODY_CASE(NAME, ID, LABEL, FLAGS, FORM) \
    case ID: return launch_body<NAME##_body>(strategy, c, n, geo, err);

int gpu_launch_pass_periodic(int pass_id, int strategy, const pass_ctx *c, int32_t n, const launch_geom *geo,
                             sl_err *err)
{
    switch (pass_id) {
        SLUICE_PASSES(PERIODIC_BODY_CASE)
    default:
        return gpu_fail_input(err, "the CUDA backend has no kernel for pass %d", pass_id);
    }
}
