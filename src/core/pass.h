/* pass.h: a pass is one sweep over the particles. Its body is a host-device function of one
 * particle, so the CPU loops and the CUDA kernels run the same physics. The body sees the
 * particles only through a pass_ctx: plain pointers (host or device arrays) and numbers. */
#ifndef SLUICE_PASS_H
#define SLUICE_PASS_H

#include "sparse_ell.h"
#include "grid/nbr_grid.h"
#include "base/particles.h"
#include "physics/params.h"
#include "physics/rigid_body.h"
#include "physics/rigid_motion.h"
#include "base/real.h"

#include <stddef.h>
#include <stdint.h>

enum { PASS_MAX_SLOTS = 24 };

/* What the scheme sets for its passes: the step size, the indices of its own fields (named by the
 * scheme's slot enum), and what changes from step to step. `in` and `out` are set by the Krylov
 * solver for the matvec. */
typedef struct pass_args {
    real dt;
    int euler_step;        /* WCSPH Verlet: this step is the periodic Euler step */
    int slot[PASS_MAX_SLOTS];
    int in, out;
    sparse_ell ell;        /* where the matrix pass's set-up writes the assembled operator's rows
                            * (ell.val NULL: the solver wants none) */
    motion_args motion;    /* the moving walls' transforms and fields (core/motion.h) */
    floating_args floating; /* the floating bodies' force pass (core/floating.h) */
    int wall_visc[3];      /* fields (added ones, >= PF_CORE): the velocity a wall particle shows the
                            * viscous term (mDBC no-slip); 0: its own velocity */
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
    const char *name;                                          /* LABEL: timings, `sluice bench` */
    int id;                                                    /* ID: its entry in the GPU dispatch */
    void (*cpu)(const pass_ctx *c, size_t begin, size_t end);  /* the body over [begin, end) */
    unsigned flags;                                            /* enum pass_flags */
} pass;

/* A scheme (or a wall model) declares its passes once, as a list of X(NAME, ID, LABEL, FLAGS, FORM):
 *   NAME   the pass: its per-particle body is the HD function NAME_body(c, i) in the passes
 *          header, its pass object `const pass NAME_pass` (PASS_DEFINE below)
 *   ID     its enumerator (schemes/registry.h, boundary/boundary_passes.h)
 *   LABEL  its name in timings and `sluice bench` tables
 *   FLAGS  enum pass_flags
 *   FORM   BODY   the body only (par-part and par-cell run it on the GPU)
 *          PAIRS  also a pair form, NAME_pass_load/begin/add/next/finish/cube (pass_mps.h), which
 *                 the staged GPU strategies and the all-pairs oracle drive
 *          SYM    also a pair form and a symmetric form whose GPU adapter NAME_pairs and launcher
 *                 NAME_sym live in gpu/pass_traits.cuh and gpu/pass_kernels.cu (the WCSPH forces,
 *                 compiled per option set; MPS's accel)
 * schemes/registry.h joins every list (SLUICE_PASSES); the ids, the CPU loops and pass objects
 * (schemes/passes.c, boundary/passes.c) and the GPU dispatch (gpu/pass_kernels.cu) are generated
 * from the lists, so a pass whose body, pair form or GPU adapter is missing does not build. */

/* The CPU loop NAME_range over the body, and the pass object NAME_pass, of a list entry. */
#define PASS_DEFINE(NAME, ID, LABEL, FLAGS, FORM)                                                    \
    static void NAME##_range(const pass_ctx *c, size_t begin, size_t end)                           \
    {                                                                                               \
        for (size_t i = begin; i < end; ++i)                                                        \
            NAME##_body(c, (int32_t)i);                                                             \
    }                                                                                               \
    const pass NAME##_pass = {LABEL, ID, NAME##_range, FLAGS};

/* The declaration of a list entry's pass object. */
#define PASS_EXTERN(NAME, ID, LABEL, FLAGS, FORM) extern const pass NAME##_pass;

#endif
