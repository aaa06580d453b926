/* mps_passes.h: the passes of semi-implicit and explicit MPS as per-particle bodies, run by the
 * CPU loops and the CUDA kernels alike (the step sequence is in mps.c); the neighbour passes are
 * pair forms, so the CUDA kernels that stage candidates in shared memory run them too. The
 * operators are in mps_operators.h, lsmps.h, mps_ppe.h and mps_collision.h. */
#ifndef SLUICE_MPS_PASSES_H
#define SLUICE_MPS_PASSES_H

#include "core/pass_mps.h"
#include "base/scene.h"
#include "boundary/floating_mps.h"
#include "physics/lsmps.h"
#include "physics/mps_collision.h"
#include "physics/mps_operators.h"
#include "physics/mps_ppe.h"
#include "physics/mps_weight.h"

/* The scheme's fields, as pass_ctx slots (explicit MPS: P.mps.is_explicit). */
enum mps_slot {
    MS_AX, MS_AY, MS_AZ, /* explicit acceleration */
    MS_N,                /* number density at re_n */
    MS_N_START,          /* number density at the start of the step (mixed source) */
    MS_GX, MS_GY, MS_GZ, /* pressure gradient (the collision velocity change before it) */
    MS_SPEED,            /* |u| of fluid particles, for the time step */
    MS_FALLBACK,         /* LSMPS operators that fell back to MPS for this particle in this step: the
                          * accel pass's (0 or dim) plus the gradient pass's (0 or 1); the gradient
                          * pass keeps the accel share (a value >= dim) and sets its own, so it may
                          * be re-run (CUDA auto times it) */
    MS_COUNT_EXPLICIT,
    /* Poisson system and CG work fields (semi-implicit only) */
    MS_B = MS_COUNT_EXPLICIT, MS_DIAG, MS_X, MS_R, MS_Z, MS_D, MS_Q,
    MS_BLOCK_DIAG, /* the diagonal again, for the multigrid's blocks: on several MPI ranks the ghosts
                    * keep their rows there (MS_DIAG has them out: their owners solve them) */
    MS_COUNT
};

/* The passes of both MPS schemes, declared once (core/pass.h: X(NAME, ID, LABEL, FLAGS, FORM)); the
 * CPU loops, the pass objects NAME_pass and the GPU dispatch are generated from this list. Every
 * neighbour pass of the fluid has a pair form (FORM PAIRS: NAME_pass_load/begin/add/next/finish
 * below). The mps_op_* passes are single operators on the scheme's fields, for `sluice bench --case
 * operators`. floating_mps_force (boundary/floating_mps.h) gathers, for the floating bodies'
 * particles only, the reaction of a term of the step (FORM BODY). */
#define MPS_PASSES(X)                                                                               \
    X(mps_accel, PASS_MPS_ACCEL, "mps.accel", PASS_NEIGHBOURS | PASS_REPEATABLE, SYM)               \
    X(mps_predict, PASS_MPS_PREDICT, "mps.predict", 0, BODY)                                        \
    X(mps_density, PASS_MPS_DENSITY, "mps.density", PASS_NEIGHBOURS | PASS_REPEATABLE, PAIRS)       \
    X(mps_ppe_setup, PASS_MPS_PPE_SETUP, "mps.ppe_setup", PASS_NEIGHBOURS | PASS_REPEATABLE, PAIRS) \
    X(mps_ppe_apply, PASS_MPS_PPE_APPLY, "mps.ppe_apply", PASS_NEIGHBOURS | PASS_REPEATABLE, PAIRS) \
    X(mps_pressure, PASS_MPS_PRESSURE, "mps.pressure", 0, BODY)                                     \
    X(mps_gradient, PASS_MPS_GRADIENT, "mps.gradient", PASS_NEIGHBOURS | PASS_REPEATABLE, PAIRS)    \
    X(mps_correct, PASS_MPS_CORRECT, "mps.correct", 0, BODY)                                        \
    X(mps_collision, PASS_MPS_COLLISION, "mps.collision", PASS_NEIGHBOURS | PASS_REPEATABLE, PAIRS) \
    X(mps_collision_apply, PASS_MPS_COLLISION_APPLY, "mps.collision_apply", 0, BODY)                \
    X(mps_op_gradient, PASS_MPS_OP_GRADIENT, "mps.op.gradient", PASS_NEIGHBOURS | PASS_REPEATABLE, PAIRS) \
    X(mps_op_laplacian, PASS_MPS_OP_LAPLACIAN, "mps.op.laplacian", PASS_NEIGHBOURS | PASS_REPEATABLE, PAIRS) \
    X(mps_op_lsmps_gradient, PASS_MPS_OP_LSMPS_GRADIENT, "mps.op.lsmps_gradient", PASS_NEIGHBOURS | PASS_REPEATABLE, PAIRS) \
    X(floating_mps_force, PASS_FLOATING_MPS_FORCE, "floating.mps_force", PASS_NEIGHBOURS | PASS_REPEATABLE, BODY)

MPS_PASS_CUBES(MPS_PASSES)

/* ---- accel: n at the start of the step; a = nu lap u + g for fluid particles (walls and dummies,
 * with the wall's velocity, 0 unless it moves, take part as neighbours) ---- */

enum { MA_FIRST, MA_LAP, MA_LSMPS, MA_DONE };

typedef struct mps_accel_pass_acc {
    int stage;
    int support_wanted;  /* the LSMPS Laplacian is on: measure the support first */
    int lap_now;         /* the MPS Laplacian in the first sweep */
    int fallbacks;
    real n_start, support;
    real lsum[3];
    lsmps2_acc l;
    real lap[3];
} mps_accel_pass_acc;

HD static inline int mps_accel_nv(const pass_ctx *c)
{
    return c->P.dim == 3 ? 3 : 2;
}

HD static inline lsmps2_op mps_accel_lsmps_op(const pass_ctx *c)
{
    mps_scope s = mps_pass_scope(c, mps_kernel_lap(&c->P), MC_MASK_ALL);
    return lsmps2_op_of(&s, c->P.mps.inv_rs, c->P.dim, 0, 0);
}

HD static inline mps_particle mps_accel_pass_load(const pass_ctx *c, int32_t j)
{
    return mps_pass_velocity(c, j);
}

HD static inline int mps_accel_pass_begin(const pass_ctx *c, const mps_particle *a, int32_t i, mps_accel_pass_acc *s)
{
    const sim_params *P = &c->P;
    (void)a;
    int fluid = mps_class_is_fluid(c->tag[i]);
    s->stage = MA_FIRST;
    /* The second-order LSMPS Laplacian only where the Laplacian's domain is full: near a free
     * surface its curvature terms are extrapolated from one side, and the explicit viscous step
     * with them is unstable at dt = 0.2 l0^2/nu (lsmps_full_support). */
    s->support_wanted = fluid && P->mps.lsmps && P->nu > 0;
    s->lap_now = fluid && !P->mps.lsmps && P->nu > 0;
    s->fallbacks = 0;
    s->n_start = s->support = R(0.0);
    for (int d = 0; d < 3; ++d)
        s->lsum[d] = s->lap[d] = R(0.0);
    return 1;
}

HD static inline void mps_accel_pass_add(const pass_ctx *c, const mps_particle *a, int32_t i, const mps_particle *b,
                                         int32_t j, mps_accel_pass_acc *s)
{
    const sim_params *P = &c->P;
    mps_scope lap = mps_pass_scope(c, mps_kernel_lap(P), MC_MASK_ALL);
    if (s->stage == MA_FIRST) {
        mps_scope n = mps_pass_scope(c, mps_kernel_n(P), MPS_EVERY_CLASS);
        mps_density_pair(&n, a, i, b, j, &s->n_start);
        if (s->support_wanted) {
            mps_scope full = mps_pass_scope(c, mps_kernel_lap(P), MPS_EVERY_CLASS);
            mps_density_pair(&full, a, i, b, j, &s->support);
        }
        if (s->lap_now)
            mps_laplacian_pair(&lap, a, i, b, j, mps_accel_nv(c), s->lsum);
    } else if (s->stage == MA_LAP) {
        mps_laplacian_pair(&lap, a, i, b, j, mps_accel_nv(c), s->lsum);
    } else if (s->stage == MA_LSMPS) {
        lsmps2_op op = mps_accel_lsmps_op(c);
        lsmps2_add(&op, a, i, b, j, &s->l);
    }
}

HD static inline void mps_accel_lap_done(const pass_ctx *c, mps_accel_pass_acc *s)
{
    mps_scope lap = mps_pass_scope(c, mps_kernel_lap(&c->P), MC_MASK_ALL);
    real f = mps_laplacian_factor(&lap);
    s->lap[0] = f * s->lsum[0];
    s->lap[1] = f * s->lsum[1];
    s->lap[2] = mps_accel_nv(c) == 3 ? f * s->lsum[2] : R(0.0);
}

HD static inline int mps_accel_pass_next(const pass_ctx *c, const mps_particle *a, int32_t i, mps_accel_pass_acc *s)
{
    const sim_params *P = &c->P;
    (void)i;
    if (s->stage == MA_FIRST && s->support_wanted) {
        if (s->support >= P->mps.beta * P->mps.n0_lap) {
            lsmps2_op op = mps_accel_lsmps_op(c);
            lsmps2_begin(&op, a, &s->l);
            s->stage = MA_LSMPS;
        } else {
            s->stage = MA_LAP;
            s->fallbacks += P->dim;
        }
        return 1;
    }
    if (s->stage == MA_LSMPS) {
        lsmps2_op op = mps_accel_lsmps_op(c);
        if (lsmps2_next(&op, a, &s->l))
            return 1;
        for (int d = 0; d < P->dim; ++d)
            s->lap[d] = s->l.lap[d];
        if (s->l.fell_back)
            s->fallbacks += P->dim;
    } else if (s->stage == MA_LAP || s->lap_now) {
        mps_accel_lap_done(c, s);
    }
    s->stage = MA_DONE;
    return 0;
}

HD static inline void mps_accel_pass_finish(const pass_ctx *c, const mps_particle *a, int32_t i,
                                            const mps_accel_pass_acc *s)
{
    const sim_params *P = &c->P;
    (void)a;
    real acc[3] = {0, 0, 0};
    PASS_FIELD(c, MS_N_START)[i] = s->n_start;
    if (mps_class_is_fluid(c->tag[i]))
        for (int d = 0; d < 3; ++d)
            acc[d] = P->nu * s->lap[d] + P->g[d];
    PASS_FIELD(c, MS_AX)[i] = acc[0];
    PASS_FIELD(c, MS_AY)[i] = acc[1];
    PASS_FIELD(c, MS_AZ)[i] = P->dim == 3 ? acc[2] : 0;
    PASS_FIELD(c, MS_FALLBACK)[i] = (real)s->fallbacks;
}

/* accel's symmetric form (FORM SYM: par-part-sym on the GPU), for a run without the LSMPS
 * Laplacian (mps_accel_pass_symmetric): pair (i, j) taken once, i's terms added to own and j's to
 * other, each {Laplacian sum x, y, z; start density}: the weights and masks of mps_accel_pass_add's
 * first sweep, the density's term symmetric and the Laplacian's antisymmetric. */
HD static inline int mps_accel_pass_symmetric(const sim_params *P)
{
    return !(P->mps.lsmps && P->nu > 0);
}

HD static inline void mps_accel_pass_both(const pass_ctx *c, const mps_particle *a, int32_t i, const mps_particle *b,
                                          int32_t j, real own[4], real other[4])
{
    const sim_params *P = &c->P;
    mps_scope n = mps_pass_scope(c, mps_kernel_n(P), MPS_EVERY_CLASS);
    mps_pair g;
    real w = mps_neighbour_weight(&n, a, i, b, j, &g);
    if (w > R(0.0)) {
        own[3] += w;
        if (mps_admits(n.mask, j, a, i))
            other[3] += w;
    }
    if (!(P->nu > R(0.0)))
        return;
    mps_scope lap = mps_pass_scope(c, mps_kernel_lap(P), MC_MASK_ALL);
    w = mps_neighbour_weight(&lap, a, i, b, j, &g);
    if (!(w > R(0.0)))
        return;
    const int other_too = mps_admits(lap.mask, j, a, i);
    for (int d = 0; d < mps_accel_nv(c); ++d) {
        real t = (b->u[d] - a->u[d]) * w;
        own[d] += t;
        if (other_too)
            other[d] -= t;
    }
}

/* Particle i's outputs from the sums of every pair (mps_accel_pass_both's own and other added):
 * what mps_accel_pass_finish writes after the first sweep. */
HD static inline void mps_accel_pass_finish_sums(const pass_ctx *c, int32_t i, const real sums[4])
{
    mps_accel_pass_acc s;
    mps_particle a = mps_accel_pass_load(c, i);
    mps_accel_pass_begin(c, &a, i, &s);
    s.n_start = sums[3];
    for (int d = 0; d < 3; ++d)
        s.lsum[d] = sums[d];
    mps_accel_pass_next(c, &a, i, &s); /* the Laplacian's factor where the gather's first sweep applies it */
    mps_accel_pass_finish(c, &a, i, &s);
}

HD static inline real mps_accel_pass_reach(const pass_ctx *c)
{
    return c->P.r_max /* re_lap, and re_n for the starting density */;
}

MPS_PASS_BODY(accel)

/* u* = u + dt a, x* = x + dt u* for fluid particles. */
HD static inline void mps_predict_body(const pass_ctx *c, int32_t i)
{
    if (!mps_class_is_fluid(c->tag[i]))
        return;
    real *const *f = c->f;
    for (int d = 0; d < c->P.dim; ++d) {
        real u = f[PF_VX + d][i] + c->a.dt * PASS_FIELD(c, MS_AX + d)[i];
        f[PF_VX + d][i] = u;
        f[PF_X + d][i] += c->a.dt * u;
    }
}

/* ---- collision: the velocity change of the collision law (mps_collision.h) into gx..gz (free until
 * the pressure gradient) ---- */

typedef struct mps_collision_pass_acc {
    int on;
    real du[3];
} mps_collision_pass_acc;

HD static inline mps_particle mps_collision_pass_load(const pass_ctx *c, int32_t j)
{
    return mps_pass_velocity(c, j);
}

HD static inline int mps_collision_pass_begin(const pass_ctx *c, const mps_particle *a, int32_t i,
                                              mps_collision_pass_acc *s)
{
    (void)a;
    s->on = mps_class_is_fluid(c->tag[i]);
    s->du[0] = s->du[1] = s->du[2] = R(0.0);
    return s->on;
}

HD static inline void mps_collision_pass_add(const pass_ctx *c, const mps_particle *a, int32_t i,
                                             const mps_particle *b, int32_t j, mps_collision_pass_acc *s)
{
    mps_collision_law law = mps_collision_law_of(&c->P.mps, c->a.dt);
    mps_collision_pair(c->P.dim, &c->P.periodic, MC_MASK_ALL, &law, a, i, b, j, s->du);
}

MPS_PASS_ONE_SWEEP(collision)

HD static inline void mps_collision_pass_finish(const pass_ctx *c, const mps_particle *a, int32_t i,
                                                const mps_collision_pass_acc *s)
{
    (void)a;
    PASS_FIELD(c, MS_GX)[i] = s->du[0];
    PASS_FIELD(c, MS_GY)[i] = s->du[1];
    PASS_FIELD(c, MS_GZ)[i] = c->P.dim == 3 ? s->du[2] : R(0.0);
}

HD static inline real mps_collision_pass_reach(const pass_ctx *c)
{
    return c->P.mps.collision_distance;
}

MPS_PASS_BODY(collision)

HD static inline void mps_collision_apply_body(const pass_ctx *c, int32_t i)
{
    real *const *f = c->f;
    for (int d = 0; d < c->P.dim; ++d) {
        real du = PASS_FIELD(c, MS_GX + d)[i];
        f[PF_VX + d][i] += du;
        f[PF_X + d][i] += c->a.dt * du;
    }
}

/* ---- density: n* and the free surface; explicit MPS also takes its pressure from n* here ---- */

typedef struct mps_density_pass_acc {
    real n;
} mps_density_pass_acc;

HD static inline mps_particle mps_density_pass_load(const pass_ctx *c, int32_t j)
{
    mps_particle p;
    p.x = c->f[PF_X][j];
    p.y = c->f[PF_Y][j];
    p.z = c->P.dim == 3 ? c->f[PF_Z][j] : R(0.0);
    p.u[0] = p.u[1] = p.u[2] = R(0.0);
    p.cls = 0; /* every class counts; the pass rewrites the classes, so it must not read them */
    return p;
}

HD static inline int mps_density_pass_begin(const pass_ctx *c, const mps_particle *a, int32_t i,
                                            mps_density_pass_acc *s)
{
    (void)c, (void)a, (void)i;
    s->n = R(0.0);
    return 1;
}

HD static inline void mps_density_pass_add(const pass_ctx *c, const mps_particle *a, int32_t i, const mps_particle *b,
                                           int32_t j, mps_density_pass_acc *s)
{
    mps_scope n = mps_pass_scope(c, mps_kernel_n(&c->P), MPS_EVERY_CLASS);
    mps_density_pair(&n, a, i, b, j, &s->n);
}

MPS_PASS_ONE_SWEEP(density)

HD static inline void mps_density_pass_finish(const pass_ctx *c, const mps_particle *a, int32_t i,
                                              const mps_density_pass_acc *s)
{
    const sim_params *P = &c->P;
    real *const *f = c->f;
    (void)a;
    real n0 = P->mps.n0_n;
    real n = s->n;
    uint8_t cls = mps_classify(c->tag[i], n, P->mps.beta * n0);
    c->tag[i] = cls;
    PASS_FIELD(c, MS_N)[i] = n;
    f[PF_RHO][i] = P->rho0 * n / n0;
    if (c->P.mps.is_explicit)
        f[PF_P][i] = mps_admissible_pressure(cls, P->eos_b * (real_pow(n / n0, P->eos_gamma) - R(1.0)),
                                             P->mps.clamp);
}

HD static inline real mps_density_pass_reach(const pass_ctx *c)
{
    return c->P.mps.re_n;
}

MPS_PASS_BODY(density)

/* ---- PPE set-up: A's diagonal, the right-hand side, the warm start ---- */

typedef struct mps_ppe_setup_pass_acc {
    int on;
    int32_t entries; /* the row's off-diagonal entries, when the solver wants A assembled */
    sparse_ell_pending pending; /* its entries not yet written */
    real wsum; /* sum of w over the neighbours with a pressure */
    real div;  /* the divergence's sum (mixed source) */
} mps_ppe_setup_pass_acc;

HD static inline mps_particle mps_ppe_setup_pass_load(const pass_ctx *c, int32_t j)
{
    return mps_pass_velocity(c, j);
}

HD static inline int mps_ppe_setup_pass_begin(const pass_ctx *c, const mps_particle *a, int32_t i,
                                              mps_ppe_setup_pass_acc *s)
{
    (void)a;
    uint8_t cls = c->tag[i];
    s->on = cls == MC_FLUID || cls == MC_WALL;
    s->entries = 0;
    sparse_ell_pending_clear(&s->pending);
    s->wsum = s->div = R(0.0);
    return s->on;
}

HD static inline void mps_ppe_setup_pass_add(const pass_ctx *c, const mps_particle *a, int32_t i,
                                             const mps_particle *b, int32_t j, mps_ppe_setup_pass_acc *s)
{
    const sim_params *P = &c->P;
    mps_scope with_pressure = mps_pass_scope(c, mps_kernel_lap(P), MC_MASK_PRESSURE);
    mps_pair g;
    real w = mps_neighbour_weight(&with_pressure, a, i, b, j, &g);
    if (w > R(0.0)) {
        s->wsum += w;
        /* A's entry -c w_ij of each unknown neighbour, as mps_ppe_apply_pair sums them: the same
         * weight, the unknowns being particles with a pressure, so it is not computed again */
        mps_scope unknown = mps_pass_scope(c, mps_kernel_lap(P), MC_MASK_UNKNOWN);
        if (c->a.ell.val && mps_admits(unknown.mask, i, b, j))
            sparse_ell_append(&c->a.ell, i, &s->entries, &s->pending, j, -mps_laplacian_factor(&unknown) * w);
    }
    if (P->mps.source != MPS_SOURCE_DENSITY) {
        mps_scope all = mps_pass_scope(c, mps_kernel_n(P), MC_MASK_ALL);
        mps_divergence_pair(&all, a, i, b, j, &s->div);
    }
}

MPS_PASS_ONE_SWEEP(ppe_setup)

HD static inline void mps_ppe_setup_pass_finish(const pass_ctx *c, const mps_particle *a, int32_t i,
                                                const mps_ppe_setup_pass_acc *s)
{
    const sim_params *P = &c->P;
    real *const *f = c->f;
    (void)a;
    real *diag = PASS_FIELD(c, MS_DIAG), *b = PASS_FIELD(c, MS_B), *x = PASS_FIELD(c, MS_X);
    if (c->a.ell.val) {
        sparse_ell_finish_row(&c->a.ell, i, s->entries, &s->pending);
        c->a.ell.count[i] = s->entries;
    }
    if (!s->on) {
        diag[i] = b[i] = x[i] = PASS_FIELD(c, MS_BLOCK_DIAG)[i] = 0;
        return;
    }
    mps_scope with_pressure = mps_pass_scope(c, mps_kernel_lap(P), MC_MASK_PRESSURE);
    real dt = c->a.dt, n0 = P->mps.n0_n;
    int at_start = P->mps.source != MPS_SOURCE_DENSITY;
    /* weight of the density term: gamma in the mixed source, the relaxation factor otherwise */
    real k_density = P->mps.source == MPS_SOURCE_MIXED ? P->mps.mixed_gamma : P->mps.relaxation;
    diag[i] = mps_laplacian_factor(&with_pressure) * s->wsum + P->rho0 * P->mps.compressibility / (dt * dt);
    PASS_FIELD(c, MS_BLOCK_DIAG)[i] = diag[i];
    /* the mixed and ECS sources correct the density error left at the start of the step; their
     * divergence term takes care of this step's motion */
    real n_src = at_start ? PASS_FIELD(c, MS_N_START)[i] : PASS_FIELD(c, MS_N)[i];
    real div = at_start ? (real)P->dim / P->mps.n0_n * s->div : R(0.0);
    b[i] = mps_ppe_source(P->mps.source, k_density, P->rho0, dt, n_src - n0, n0, div);
    x[i] = f[PF_P][i] > 0 ? f[PF_P][i] : 0; /* warm start from the last pressure */
}

HD static inline real mps_ppe_setup_pass_reach(const pass_ctx *c)
{
    return c->P.r_max /* re_lap, and re_n for the surface rows */;
}

MPS_PASS_BODY(ppe_setup)

/* ---- PPE apply: out = A in, the Poisson matrix applied (the CG solver sets c->a.in and c->a.out) ---- */

typedef struct mps_ppe_apply_pass_acc {
    int on;
    real sum;
} mps_ppe_apply_pass_acc;

HD static inline mps_particle mps_ppe_apply_pass_load(const pass_ctx *c, int32_t j)
{
    return mps_pass_particle(c, j, 1, c->f[c->a.in], 0, 0);
}

HD static inline int mps_ppe_apply_pass_begin(const pass_ctx *c, const mps_particle *a, int32_t i,
                                              mps_ppe_apply_pass_acc *s)
{
    (void)a;
    s->on = PASS_FIELD(c, MS_DIAG)[i] != 0;
    s->sum = R(0.0);
    return s->on;
}

HD static inline void mps_ppe_apply_pass_add(const pass_ctx *c, const mps_particle *a, int32_t i,
                                             const mps_particle *b, int32_t j, mps_ppe_apply_pass_acc *s)
{
    mps_scope unknown = mps_pass_scope(c, mps_kernel_lap(&c->P), MC_MASK_UNKNOWN);
    mps_ppe_apply_pair(&unknown, a, i, b, j, &s->sum);
}

MPS_PASS_ONE_SWEEP(ppe_apply)

HD static inline void mps_ppe_apply_pass_finish(const pass_ctx *c, const mps_particle *a, int32_t i,
                                                const mps_ppe_apply_pass_acc *s)
{
    mps_scope unknown = mps_pass_scope(c, mps_kernel_lap(&c->P), MC_MASK_UNKNOWN);
    c->f[c->a.out][i] = s->on ? mps_ppe_apply_finish(&unknown, PASS_FIELD(c, MS_DIAG)[i], a->u[0], s->sum) : 0;
}

HD static inline real mps_ppe_apply_pass_reach(const pass_ctx *c)
{
    return c->P.mps.re_lap;
}

MPS_PASS_BODY(ppe_apply)

HD static inline void mps_pressure_body(const pass_ctx *c, int32_t i)
{
    c->f[PF_P][i] = mps_admissible_pressure(c->tag[i], PASS_FIELD(c, MS_X)[i], c->P.mps.clamp);
}

/* ---- gradient: the pressure gradient of fluid particles into gx..gz ----
 * semi-implicit MPS: the MPS gradient (stabilised as the scene says); explicit MPS: the symmetric
 * gradient; with LSMPS: the first-order LSMPS gradient (of p_j - phat_i in semi-implicit MPS with
 * the stabilised gradient), the MPS gradient where the fit is singular (counted in fallback). */

enum { MGP_NONE, MGP_SYMMETRIC, MGP_MPS, MGP_LSMPS };

typedef struct mps_gradient_pass_acc {
    int kind; /* MGP_* */
    real sym[3];
    mps_gradient_acc mps;
    lsmps_gradient_acc lsmps;
} mps_gradient_pass_acc;

HD static inline mps_scope mps_gradient_pass_scope(const pass_ctx *c)
{
    return mps_pass_scope(c, mps_kernel_n(&c->P), MC_MASK_PRESSURE);
}

HD static inline mps_gradient_op mps_gradient_pass_mps_op(const pass_ctx *c)
{
    mps_gradient_op op;
    op.s = mps_gradient_pass_scope(c);
    op.stabilised = c->P.mps.stabilised;
    return op;
}

HD static inline lsmps_gradient_op mps_gradient_pass_lsmps_op(const pass_ctx *c)
{
    const mps_params *M = &c->P.mps;
    mps_scope s = mps_gradient_pass_scope(c);
    return lsmps_gradient_op_of(&s, M->inv_rs, M->stabilised && !c->P.mps.is_explicit, M->stabilised ? 1 : 0);
}

HD static inline mps_particle mps_gradient_pass_load(const pass_ctx *c, int32_t j)
{
    return mps_pass_particle(c, j, 1, c->f[PF_P], 0, 0);
}

HD static inline int mps_gradient_pass_begin(const pass_ctx *c, const mps_particle *a, int32_t i,
                                             mps_gradient_pass_acc *s)
{
    s->sym[0] = s->sym[1] = s->sym[2] = R(0.0);
    if (!mps_class_is_fluid(c->tag[i])) {
        s->kind = MGP_NONE;
        return 0;
    }
    if (c->P.mps.lsmps) {
        lsmps_gradient_op op = mps_gradient_pass_lsmps_op(c);
        s->kind = MGP_LSMPS;
        return lsmps_gradient_begin(&op, a, &s->lsmps);
    }
    if (c->P.mps.is_explicit) {
        s->kind = MGP_SYMMETRIC;
        return 1;
    }
    mps_gradient_op op = mps_gradient_pass_mps_op(c);
    s->kind = MGP_MPS;
    return mps_gradient_begin(&op, a, &s->mps);
}

HD static inline void mps_gradient_pass_add(const pass_ctx *c, const mps_particle *a, int32_t i,
                                            const mps_particle *b, int32_t j, mps_gradient_pass_acc *s)
{
    if (s->kind == MGP_LSMPS) {
        lsmps_gradient_op op = mps_gradient_pass_lsmps_op(c);
        lsmps_gradient_add(&op, a, i, b, j, &s->lsmps);
    } else if (s->kind == MGP_MPS) {
        mps_gradient_op op = mps_gradient_pass_mps_op(c);
        mps_gradient_add(&op, a, i, b, j, &s->mps);
    } else if (s->kind == MGP_SYMMETRIC) {
        mps_scope sc = mps_gradient_pass_scope(c);
        mps_symmetric_gradient_pair(&sc, a, i, b, j, s->sym);
    }
}

HD static inline int mps_gradient_pass_next(const pass_ctx *c, const mps_particle *a, int32_t i,
                                            mps_gradient_pass_acc *s)
{
    (void)i;
    if (s->kind == MGP_LSMPS) {
        lsmps_gradient_op op = mps_gradient_pass_lsmps_op(c);
        return lsmps_gradient_next(&op, a, &s->lsmps);
    }
    if (s->kind == MGP_MPS) {
        mps_gradient_op op = mps_gradient_pass_mps_op(c);
        return mps_gradient_next(&op, a, &s->mps);
    }
    return 0;
}

HD static inline void mps_gradient_pass_finish(const pass_ctx *c, const mps_particle *a, int32_t i,
                                               const mps_gradient_pass_acc *s)
{
    (void)a;
    real g[3] = {0, 0, 0};
    int fell_back = 0;
    if (s->kind == MGP_LSMPS) {
        for (int d = 0; d < 3; ++d)
            g[d] = s->lsmps.grad[d];
        fell_back = s->lsmps.fell_back;
    } else if (s->kind == MGP_MPS) {
        for (int d = 0; d < 3; ++d)
            g[d] = s->mps.grad[d];
    } else if (s->kind == MGP_SYMMETRIC) {
        mps_scope sc = mps_gradient_pass_scope(c);
        mps_gradient_scale(&sc, s->sym, g);
    }
    PASS_FIELD(c, MS_GX)[i] = g[0];
    PASS_FIELD(c, MS_GY)[i] = g[1];
    PASS_FIELD(c, MS_GZ)[i] = g[2];
    if (s->kind == MGP_MPS && c->a.floating.mps_phat >= 0) /* the floating bodies' reaction reads it */
        c->f[c->a.floating.mps_phat][i] = s->mps.m;
    real *fallback = PASS_FIELD(c, MS_FALLBACK);
    real accel_part = fallback[i] >= (real)c->P.dim ? (real)c->P.dim : R(0.0);
    fallback[i] = accel_part + (real)fell_back;
}

HD static inline real mps_gradient_pass_reach(const pass_ctx *c)
{
    return c->P.mps.re_n;
}

MPS_PASS_BODY(gradient)

/* ---- single operators of the pressure field for `sluice bench --case operators`: every particle,
 * every class as a neighbour; the gradient into gx..gz, the Laplacian into ax, the LSMPS fallbacks
 * into fallback (set, not added: the passes may be re-run) ---- */

/* The MPS gradient (plain) with the density kernel. */
typedef struct mps_op_gradient_pass_acc {
    mps_gradient_acc g;
} mps_op_gradient_pass_acc;

HD static inline mps_gradient_op mps_op_gradient_op(const pass_ctx *c)
{
    mps_gradient_op op;
    op.s = mps_pass_scope(c, mps_kernel_n(&c->P), MPS_EVERY_CLASS);
    op.stabilised = 0;
    return op;
}

HD static inline mps_particle mps_op_gradient_pass_load(const pass_ctx *c, int32_t j)
{
    return mps_pass_particle(c, j, 1, c->f[PF_P], 0, 0);
}

MPS_PASS_OF_OPERATOR(op_gradient, mps_gradient)

HD static inline void mps_op_gradient_pass_finish(const pass_ctx *c, const mps_particle *a, int32_t i,
                                                  const mps_op_gradient_pass_acc *s)
{
    (void)a;
    PASS_FIELD(c, MS_GX)[i] = s->g.grad[0];
    PASS_FIELD(c, MS_GY)[i] = s->g.grad[1];
    PASS_FIELD(c, MS_GZ)[i] = s->g.grad[2];
}

HD static inline real mps_op_gradient_pass_reach(const pass_ctx *c)
{
    return c->P.mps.re_n;
}

MPS_PASS_BODY(op_gradient)

/* The MPS Laplacian with the Laplacian kernel. */
typedef struct mps_op_laplacian_pass_acc {
    real sum[3];
} mps_op_laplacian_pass_acc;

HD static inline mps_particle mps_op_laplacian_pass_load(const pass_ctx *c, int32_t j)
{
    return mps_pass_particle(c, j, 1, c->f[PF_P], 0, 0);
}

HD static inline int mps_op_laplacian_pass_begin(const pass_ctx *c, const mps_particle *a, int32_t i,
                                                 mps_op_laplacian_pass_acc *s)
{
    (void)c, (void)a, (void)i;
    s->sum[0] = s->sum[1] = s->sum[2] = R(0.0);
    return 1;
}

HD static inline void mps_op_laplacian_pass_add(const pass_ctx *c, const mps_particle *a, int32_t i,
                                                const mps_particle *b, int32_t j, mps_op_laplacian_pass_acc *s)
{
    mps_scope sc = mps_pass_scope(c, mps_kernel_lap(&c->P), MPS_EVERY_CLASS);
    mps_laplacian_pair(&sc, a, i, b, j, 1, s->sum);
}

MPS_PASS_ONE_SWEEP(op_laplacian)

HD static inline void mps_op_laplacian_pass_finish(const pass_ctx *c, const mps_particle *a, int32_t i,
                                                   const mps_op_laplacian_pass_acc *s)
{
    (void)a;
    mps_scope sc = mps_pass_scope(c, mps_kernel_lap(&c->P), MPS_EVERY_CLASS);
    PASS_FIELD(c, MS_AX)[i] = mps_laplacian_factor(&sc) * s->sum[0];
}

HD static inline real mps_op_laplacian_pass_reach(const pass_ctx *c)
{
    return c->P.mps.re_lap;
}

MPS_PASS_BODY(op_laplacian)

/* The first-order LSMPS gradient (of p_j - p_i) with the density kernel, the plain MPS gradient
 * where the fit is singular. */
typedef struct mps_op_lsmps_gradient_pass_acc {
    lsmps_gradient_acc g;
} mps_op_lsmps_gradient_pass_acc;

HD static inline lsmps_gradient_op mps_op_lsmps_gradient_op(const pass_ctx *c)
{
    mps_scope s = mps_pass_scope(c, mps_kernel_n(&c->P), MPS_EVERY_CLASS);
    return lsmps_gradient_op_of(&s, c->P.mps.inv_rs, 0, 0);
}

HD static inline mps_particle mps_op_lsmps_gradient_pass_load(const pass_ctx *c, int32_t j)
{
    return mps_pass_particle(c, j, 1, c->f[PF_P], 0, 0);
}

MPS_PASS_OF_OPERATOR(op_lsmps_gradient, lsmps_gradient)

HD static inline void mps_op_lsmps_gradient_pass_finish(const pass_ctx *c, const mps_particle *a, int32_t i,
                                                        const mps_op_lsmps_gradient_pass_acc *s)
{
    (void)a;
    PASS_FIELD(c, MS_GX)[i] = s->g.grad[0];
    PASS_FIELD(c, MS_GY)[i] = s->g.grad[1];
    PASS_FIELD(c, MS_GZ)[i] = s->g.grad[2];
    PASS_FIELD(c, MS_FALLBACK)[i] = (real)s->g.fell_back;
}

HD static inline real mps_op_lsmps_gradient_pass_reach(const pass_ctx *c)
{
    return c->P.mps.re_n;
}

MPS_PASS_BODY(op_lsmps_gradient)

/* u = u* - dt/rho0 grad p, x += dt du; the speed for the next time step. */
HD static inline void mps_correct_body(const pass_ctx *c, int32_t i)
{
    real *const *f = c->f;
    real dt = c->a.dt, k = dt / c->P.rho0;
    real sp = 0;
    if (mps_class_is_fluid(c->tag[i])) {
        real u2 = 0;
        for (int d = 0; d < c->P.dim; ++d) {
            real du = -k * PASS_FIELD(c, MS_GX + d)[i];
            real u = f[PF_VX + d][i] + du;
            f[PF_VX + d][i] = u;
            f[PF_X + d][i] += dt * du;
            u2 += u * u;
        }
        sp = real_sqrt(u2);
    }
    PASS_FIELD(c, MS_SPEED)[i] = sp;
}

#endif
