/* registry.h: the registry of schemes and of their passes. A new scheme adds one line to
 * SLUICE_SCHEMES and, when it brings passes of its own, its list to SLUICE_PASSES (with the
 * #include of its passes header); the scheme table (registry.c), the pass ids, the pass objects
 * (passes.c) and the GPU dispatch (gpu/pass_kernels.cu) are generated from these lists. */
#ifndef SLUICE_SCHEMES_REGISTRY_H
#define SLUICE_SCHEMES_REGISTRY_H

#include "core/pass.h"
#include "schemes/mps/mps_passes.h"
#include "schemes/wcsph/wcsph_passes.h"

/* S(NAME): simulation.method NAME, the scheme object scheme_NAME (core/scheme.h) in schemes/NAME/. */
#define SLUICE_SCHEMES(S) S(wcsph) S(mps) S(emps)

/* X(NAME, ID, LABEL, FLAGS, FORM) for every pass (core/pass.h); explicit MPS runs MPS's passes. */
#define SLUICE_PASSES(X) WCSPH_PASSES(X) MPS_PASSES(X)

/* Dense ids, in list order: the GPU dispatch tables are indexed by them. */
#define PASS_LIST_ID(NAME, ID, LABEL, FLAGS, FORM) ID,
enum pass_id { SLUICE_PASSES(PASS_LIST_ID) PASS_COUNT };
#undef PASS_LIST_ID

#ifdef __cplusplus
extern "C" {
#endif
#define PASS_LIST_EXTERN(NAME, ID, LABEL, FLAGS, FORM) extern const pass NAME##_pass;
SLUICE_PASSES(PASS_LIST_EXTERN)
#undef PASS_LIST_EXTERN
#ifdef __cplusplus
}
#endif

#endif
