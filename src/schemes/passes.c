/* passes.c: the CPU loop and the pass object of every pass, generated from the schemes' pass lists
 * (registry.h); the CPU backend runs a loop over chunks of particles from its OpenMP threads. */
#include "registry.h"

#define PASS_DEFINE(NAME, ID, LABEL, FLAGS, FORM)                                                    \
    static void NAME##_range(const pass_ctx *c, size_t begin, size_t end)                           \
    {                                                                                               \
        for (size_t i = begin; i < end; ++i)                                                        \
            NAME##_body(c, (int32_t)i);                                                             \
    }                                                                                               \
    const pass NAME##_pass = {LABEL, ID, NAME##_range, FLAGS};

SLUICE_PASSES(PASS_DEFINE)
