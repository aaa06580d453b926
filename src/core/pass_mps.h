/* pass_mps.h: MPS particles read from a pass context, and the pair-form protocol of the MPS passes:
 * what every MPS pass shares, those of the schemes (schemes/mps/mps_passes.h) and those of the MPS
 * wall models (boundary/). The operators themselves are in physics/. */
#ifndef SLUICE_PASS_MPS_H
#define SLUICE_PASS_MPS_H

#include "pass.h"
#include "physics/mps_operators.h"
#include "physics/mps_weight.h"

/* No MPS pair interacts beyond r_max: in distance, or along any axis for the cubic domain. */
HD static inline int mps_domain_is_cube(const sim_params *P)
{
    return P->mps.weight == MPS_WEIGHT_CUBIC;
}

/* NAME_pass_cube(c) of the pair form for every pass of a pass list: MPS passes share the scheme's
 * interaction domain. */
#define MPS_PASS_CUBE(NAME, ID, LABEL, FLAGS, FORM)                                                 \
    HD static inline int NAME##_pass_cube(const pass_ctx *c)                                        \
    {                                                                                               \
        return mps_domain_is_cube(&c->P);                                                           \
    }
#define MPS_PASS_CUBES(LIST) LIST(MPS_PASS_CUBE)

HD static inline mps_kernel mps_kernel_n(const sim_params *P)
{
    mps_kernel k = {P->mps.weight, P->mps.re_n, P->mps.n0_n, P->mps.lambda0_n};
    return k;
}

HD static inline mps_kernel mps_kernel_lap(const sim_params *P)
{
    mps_kernel k = {P->mps.weight, P->mps.re_lap, P->mps.n0_lap, P->mps.lambda0_lap};
    return k;
}

/* ---- passes in pair form ------------------------------------------------------------------------
 * Every neighbour pass NAME is a pair form (mps_operators.h) over the pass context:
 *   mps_NAME_pass_acc                         particle i's state over its sweeps
 *   mps_NAME_pass_load(c, j)                  particle j as the pair functions read it
 *   mps_NAME_pass_begin(c, a, i, acc)         1 when i needs a sweep over its candidates
 *   mps_NAME_pass_add(c, a, i, b, j, acc)     what candidate j adds
 *   mps_NAME_pass_next(c, a, i, acc)          the end of a sweep: 1 when another is needed
 *   mps_NAME_pass_finish(c, a, i, acc)        writes particle i's outputs (and nothing else)
 *   mps_NAME_pass_cube(c)                      the interaction domain is a cube (above)
 *   mps_NAME_pass_reach(c)                     no pair farther apart adds anything: the runs are
 *                                              cut to it (nbr_run_range_within)
 * MPS_PASS_BODY(NAME) makes mps_NAME_body(c, i) of them: the gather loop that the CPU loops and the
 * par-part / par-cell kernels run; the staged kernels of pass_kernels.cu drive the same functions
 * with the candidates in shared memory. */

#define MPS_PASS_BODY(NAME)                                                                         \
    HD static inline void mps_##NAME##_body(const pass_ctx *c, int32_t i)                           \
    {                                                                                               \
        mps_particle a = mps_##NAME##_pass_load(c, i);                                              \
        mps_##NAME##_pass_acc s;                                                                    \
        if (mps_##NAME##_pass_begin(c, &a, i, &s)) {                                                \
            do {                                                                                    \
                NBR_FOR_CANDIDATES_WITHIN(&c->nb, i, a.x, a.y, a.z, mps_##NAME##_pass_reach(c),      \
                                          mps_domain_is_cube(&c->P), j, {                          \
                    mps_particle b = mps_##NAME##_pass_load(c, j);                                  \
                    mps_##NAME##_pass_add(c, &a, i, &b, j, &s);                                     \
                });                                                                                 \
            } while (mps_##NAME##_pass_next(c, &a, i, &s));                                         \
        }                                                                                           \
        mps_##NAME##_pass_finish(c, &a, i, &s);                                                     \
    }

/* Particle j with nv (0..3, a constant at each call) field values. */
HD static inline mps_particle mps_pass_particle(const pass_ctx *c, int32_t j, int nv, const real *u0, const real *u1,
                                                const real *u2)
{
    real *const *f = c->f;
    mps_particle p;
    p.x = f[PF_X][j];
    p.y = f[PF_Y][j];
    p.z = c->P.dim == 3 ? f[PF_Z][j] : R(0.0);
    p.u[0] = nv > 0 ? u0[j] : R(0.0);
    p.u[1] = nv > 1 ? u1[j] : R(0.0);
    p.u[2] = nv > 2 ? u2[j] : R(0.0);
    p.cls = c->tag[j];
    return p;
}

HD static inline mps_particle mps_pass_velocity(const pass_ctx *c, int32_t j)
{
    return mps_pass_particle(c, j, 3, c->f[PF_VX], c->f[PF_VY], c->f[PF_VZ]);
}

HD static inline mps_scope mps_pass_scope(const pass_ctx *c, mps_kernel k, unsigned mask)
{
    mps_scope s;
    s.k = k;
    s.mask = mask;
    s.dim = c->P.dim;
    s.periodic = &c->P.periodic;
    return s;
}

/* ---- passes of a single sweep: next() ends them ---- */

#define MPS_PASS_ONE_SWEEP(NAME)                                                                    \
    HD static inline int mps_##NAME##_pass_next(const pass_ctx *c, const mps_particle *a, int32_t i,   \
                                                mps_##NAME##_pass_acc *s)                           \
    {                                                                                               \
        (void)c, (void)a, (void)i, (void)s;                                                         \
        return 0;                                                                                   \
    }

/* begin, add and next of pass NAME as those of operator OP (OP_begin/add/next, the protocol of
 * MPS_GATHER), with the operator built by mps_NAME_op(c) and its state in the acc's member g. */
#define MPS_PASS_OF_OPERATOR(NAME, OP)                                                              \
    HD static inline int mps_##NAME##_pass_begin(const pass_ctx *c, const mps_particle *a, int32_t i,  \
                                                 mps_##NAME##_pass_acc *s)                          \
    {                                                                                               \
        OP##_op op = mps_##NAME##_op(c);                                                            \
        (void)i;                                                                                    \
        return OP##_begin(&op, a, &s->g);                                                           \
    }                                                                                               \
    HD static inline void mps_##NAME##_pass_add(const pass_ctx *c, const mps_particle *a, int32_t i,   \
                                                const mps_particle *b, int32_t j, mps_##NAME##_pass_acc *s) \
    {                                                                                               \
        OP##_op op = mps_##NAME##_op(c);                                                            \
        OP##_add(&op, a, i, b, j, &s->g);                                                           \
    }                                                                                               \
    HD static inline int mps_##NAME##_pass_next(const pass_ctx *c, const mps_particle *a, int32_t i,   \
                                                mps_##NAME##_pass_acc *s)                           \
    {                                                                                               \
        OP##_op op = mps_##NAME##_op(c);                                                            \
        (void)i;                                                                                    \
        return OP##_next(&op, a, &s->g);                                                            \
    }

#define MPS_EVERY_CLASS (~0u) /* the number density: walls and dummies count, whatever their class */

#endif
