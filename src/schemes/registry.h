/* registry.h: the registry of schemes and of their passes. A new scheme adds one line to
 * SLUICE_SCHEMES and, when it brings passes of its own, its list to SLUICE_PASSES (with the
 * #include of its passes header); the scheme table (registry.c), the pass ids, the pass objects
 * (passes.c) and the GPU dispatch (gpu/pass_kernels.cu) are generated from these lists. */
#ifndef SLUICE_SCHEMES_REGISTRY_H
#define SLUICE_SCHEMES_REGISTRY_H

#include "boundary/boundary_passes.h"
#include "core/pass.h"
#include "schemes/mps/mps_passes.h"
#include "schemes/packing/packing_passes.h"
#include "schemes/wcsph/wcsph_passes.h"

/* S(NAME): simulation.method NAME, the scheme object scheme_NAME (core/scheme.h) in schemes/NAME/. */
#define SLUICE_SCHEMES(S) S(wcsph) S(mps) S(emps)

/* X(NAME, ID, LABEL, FLAGS, FORM) for every pass of the schemes (core/pass.h); explicit MPS runs
 * MPS's passes. */
#define SCHEME_PASSES(X) WCSPH_PASSES(X) MPS_PASSES(X)

/* Every pass: the schemes', the wall models' (boundary/boundary_passes.h) and particle packing's
 * (packing/packing_passes.h, run before any scheme). */
#define SLUICE_PASSES(X) SCHEME_PASSES(X) BOUNDARY_PASSES(X) PACKING_PASSES(X)

/* The schemes' pass ids, in list order (the wall models' follow from 1000). */
#define PASS_LIST_ID(NAME, ID, LABEL, FLAGS, FORM) ID,
enum pass_id { SCHEME_PASSES(PASS_LIST_ID) SCHEME_PASS_END };
#undef PASS_LIST_ID

#ifdef __cplusplus
extern "C" {
#endif
SCHEME_PASSES(PASS_EXTERN)
#ifdef __cplusplus
}
#endif

#endif
