/* pass.h: a pass is one sweep over the particles. Its body is a host-device function of one
 * particle, so the CPU loops and the CUDA kernels run the same physics. The body sees the
 * particles only through a pass_ctx: plain pointers (host or device arrays) and numbers. */
#ifndef SLUICE_PASS_H
#define SLUICE_PASS_H

#include "grid/nbr_grid.h"
#include "base/particles.h"
#include "physics/params.h"
#include "base/real.h"

#include <stddef.h>
#include <stdint.h>

enum { PASS_MAX_SLOTS = 24 };

/* What the scheme sets for its passes: the step size, a flag, and the indices of its own fields
 * (named by the scheme's slot enum). `in` and `out` are set by the CG solver for the matvec. */
typedef struct pass_args {
    real dt;
    int flag;
    int slot[PASS_MAX_SLOTS];
    int in, out;
} pass_args;

typedef struct pass_ctx {
    sim_params P;
    nbr_view nb;
    real *f[PF_MAX];       /* particle fields (s->p.f on the CPU, device copies on the GPU) */
    const uint8_t *type;
    uint8_t *tag;
    pass_args a;
} pass_ctx;

/* Field of the scheme's slot k. */
#define PASS_FIELD(c, k) ((c)->f[(c)->a.slot[k]])

enum pass_flags {
    PASS_NEIGHBOURS = 1u << 0,  /* walks neighbours: the GPU interaction strategy matters */
    PASS_REPEATABLE = 1u << 1   /* running it twice gives what running it once does, so the GPU
                                 * backend may time it on the live state to pick a strategy */
};

typedef struct pass {
    const char *name;
    int id;                                                    /* maps the pass to its GPU kernel */
    void (*cpu)(const pass_ctx *c, size_t begin, size_t end);  /* the body over [begin, end) */
    unsigned flags;                                            /* enum pass_flags */
} pass;

/* Defines NAME_range(c, begin, end), the CPU loop over the per-particle body NAME(c, i). */
#define PASS_CPU_RANGE(body)                                                                        \
    static void body##_range(const pass_ctx *c, size_t begin, size_t end)                          \
    {                                                                                               \
        for (size_t i = begin; i < end; ++i)                                                        \
            body(c, (int32_t)i);                                                                    \
    }

#endif
