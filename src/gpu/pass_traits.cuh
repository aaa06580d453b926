/* pass_traits.cuh: the passes as pass_kernels.cu's templates drive them: the traits of each pass's
 * pair form (generated from the pass lists for FORM PAIRS) and symmetric form (written here for
 * FORM SYM: the WCSPH forces, MPS's accel), par-part-sym's sums and packed candidates. The physics
 * stays in the schemes' headers; these only adapt it. Included by pass_kernels.cu alone, after
 * SLUICE_NO_PERIODIC. */
#ifndef SLUICE_PASS_TRAITS_CUH
#define SLUICE_PASS_TRAITS_CUH

#include "body_kernels.cuh"

#include "schemes/registry.h"

#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>

/* ---- staged strategies: passes in pair form -------------------------------------------------- */

/* A pass in pair form, as the staged kernels, par-part-compact and the all-pairs oracle drive it:
 *   source                 what a candidate is staged as in shared memory
 *   acc                    a target's state over its sweeps
 *   load(c, v, j)          particle j as a source
 *   begin(c, v, i, a, s)   starts target i; true when it needs a sweep over its candidates
 *   add(c, a, i, b, j, s)  what candidate j adds to target i
 *   next(c, v, i, a, s)    the end of a sweep: true when target i needs another one
 *   finish(c, v, i, a, s)  writes target i's outputs
 *   reach(c), cutoff2(c)   no pair interacts at a distance of reach (cutoff2: its square) or more
 *   cube(c)                (cube: along any axis); the runs are cut to the reach
 *                          (nbr_run_range_within) and par-part-compact tests the distance
 *   add_near(...)          add() for a candidate that passed that test and is not i
 * The block sweeps until none of its targets wants another sweep (__syncthreads_or), so the
 * multi-sweep MPS operators (stabilised gradient, LSMPS with its MPS fallback) stage their
 * candidates again for each sweep. */

/* par-part-sym's per-particle sums: four reals, aligned so that one vector atomic adds them. */
struct __align__(4 * sizeof(real)) sym_sum {
    real x, y, z, w;
};

__device__ static inline void atomic_add_sum(sym_sum *p, real x, real y, real z, real w)
{
#if !REAL_IS_DOUBLE && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    atomicAdd((float4 *)p, make_float4(x, y, z, w)); /* one 16-byte atomic (sm_90) instead of four */
#else
    atomicAdd(&p->x, x);
    atomicAdd(&p->y, y);
    atomicAdd(&p->z, z);
    atomicAdd(&p->w, w);
#endif
}

/* par-part-sym's packed neighbour data: position and density, the particle's kind in the density's
 * sign (w = rho for fluid, -rho for boundaries; densities are positive, a boundary's at least rho0),
 * so a candidate's test takes one 16-byte load (32 in double) instead of four. */
struct __align__(4 * sizeof(real)) packed_particle {
    real x, y, z, w;
};

/* The options of the WCSPH pair (sph_pair_options): read from the scene at run time, or fixed at
 * compile time (Wendland kernel, gamma 7), so that no per-pair test on them is left. */
struct options_at_run_time {
    __host__ __device__ static sph_pair_options get(const pass_ctx &c) { return sph_pair_options_of(&c.P); }
};
template <int DIM, int VISCOSITY, int DIFFUSION>
struct options_fixed {
    __host__ __device__ static sph_pair_options get(const pass_ctx &)
    {
        sph_pair_options o = {DIM, KERNEL_WENDLAND_C2, VISCOSITY, DIFFUSION, 1};
        return o;
    }
};

/* The WCSPH forces in pair form (sph_forces.h): one sweep. */
template <class OPT>
struct wcsph_forces_pairs_with {
    typedef sph_particle source;
    typedef sph_force_acc acc;
    typedef sph_force_view view;
    __device__ static view view_of(const pass_ctx &c) { return wcsph_force_view(&c); }
    __device__ static real reach(const pass_ctx &c) { return c.P.r_max; }
    __device__ static real cutoff2(const pass_ctx &c) { return c.P.r2_max; }
    __device__ static bool cube(const pass_ctx &) { return false; }
    __device__ static int dim(const pass_ctx &c) { return OPT::get(c).dim; }
    __device__ static source load(const pass_ctx &c, const view &v, int32_t j)
    {
        return sph_load_with(OPT::get(c), &v, j);
    }
    __device__ static bool begin(const pass_ctx &, const view &, int32_t, const source &, acc &s)
    {
        acc z = {0, 0, 0, 0, 0};
        s = z;
        return true;
    }
    __device__ static void add(const pass_ctx &c, const source &a, int32_t i, const source &b, int32_t j, acc &s)
    {
        sph_force_candidate(&c.P, &a, i, &b, j, &s);
    }
    __device__ static bool next(const pass_ctx &, const view &, int32_t, const source &, acc &) { return false; }
    __device__ static void finish(const pass_ctx &c, const view &v, int32_t i, const source &a, const acc &s)
    {
        sph_force_finish(&c.P, &v, i, &a, &s);
    }
    /* add() for a candidate already known to be a neighbour other than i */
    __device__ static void add_near(const pass_ctx &c, const source &a, int32_t, const source &b, int32_t, acc &s)
    {
        if (!sph_pair_matters(a.fluid, b.fluid))
            return;
        real dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
        sph_force_pair_with(&c.P, OPT::get(c), &a, &b, dx, dy, dz, dx * dx + dy * dy + dz * dz, &s,
                            (sph_force_acc *)0);
    }

    /* The symmetric form (par-part-sym). A thread's state: target i's own sums, and the largest
     * signal speed its pairs set for their other particles (sph_signal_speed), which stands for
     * those particles' largest viscous terms without a per-particle atomic maximum. */
    struct both_acc {
        acc own;
        real speed_others;
    };
    __device__ static both_acc begin_both()
    {
        both_acc t = {{0, 0, 0, 0, 0}, R(0.0)};
        return t;
    }
    /* The packed neighbour data (packed_particle) of particle i, and particle j from it. */
    __device__ static packed_particle pack(const pass_ctx &c, const view &v, int32_t i)
    {
        const source a = load(c, v, i); /* what it does not pack is never read */
        packed_particle q = {a.x, a.y, a.z, a.fluid ? a.rho : -a.rho};
        return q;
    }
    __device__ static source unpack(const pass_ctx &c, const view &v, const packed_particle &q, int32_t j)
    {
        return sph_particle_at(OPT::get(c), &v, j, q.x, q.y, q.z, fabs(q.w), q.w > R(0.0));
    }
    /* the packed w of the candidates whose pair with target a matters (sph_pair_matters): above
     * this; a boundary target takes fluid ones only */
    __device__ static real w_above(const source &a) { return a.fluid ? -FLT_MAX : R(0.0); }
    __device__ static bool fluid(const source &a) { return a.fluid; }
    /* The memory of the outputs ax, ay, az, drho when they lie one after another, as the CUDA
     * backend keeps transient fields: only the finishing kernel writes them, so the packed data
     * may live there until then. NULL otherwise. */
    static packed_particle *packed_area(const pass_ctx *c, int32_t n)
    {
        real *ax = PASS_FIELD(c, WS_AX);
        ptrdiff_t stride = PASS_FIELD(c, WS_AY) - ax;
        if (stride < (ptrdiff_t)n || PASS_FIELD(c, WS_AZ) != ax + 2 * stride ||
            PASS_FIELD(c, WS_DRHO) != ax + 3 * stride || (uintptr_t)ax % sizeof(packed_particle))
            return NULL;
        return (packed_particle *)ax;
    }
    /* neighbour pair (i, j): both shares at once, j's added to sum[j] */
    __device__ static void add_both(const pass_ctx &c, const source &a, const source &b, int32_t j, sym_sum *sum,
                                    both_acc &t)
    {
        const sph_pair_options o = OPT::get(c);
        real dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
        acc sj = {0, 0, 0, 0, 0};
        sph_force_pair_with(&c.P, o, &a, &b, dx, dy, dz, dx * dx + dy * dy + dz * dz, &t.own, &sj);
        atomic_add_sum(&sum[j], sj.ax, sj.ay, sj.az, sj.drho);
        t.speed_others = fmax(t.speed_others, sph_signal_speed_with(&c.P, o, b.rho, sj.visc_max));
    }
    /* i's own share into sum[i]; dt_limit[i] holds the step of the largest signal speed of the
     * thread's pairs, either side, until finish_both */
    __device__ static void end_both(const pass_ctx &c, const view &v, int32_t i, const source &a, sym_sum *sum,
                                    const both_acc &t)
    {
        atomic_add_sum(&sum[i], t.own.ax, t.own.ay, t.own.az, t.own.drho);
        real speed = fmax(t.speed_others, sph_signal_speed_with(&c.P, OPT::get(c), a.rho, t.own.visc_max));
        v.dt_limit[i] = sph_dt_acoustic(&c.P, speed);
    }
    /* particle i's outputs once every share has arrived: finish() without a viscous term, then the
     * smaller of that and the pairs' step */
    __device__ static void finish_both(const pass_ctx &c, const view &v, int32_t i, const sym_sum *sum)
    {
        sym_sum q = sum[i];
        acc s = {q.x, q.y, q.z, q.w, 0};
        real pairs = v.dt_limit[i];
        finish(c, v, i, load(c, v, i), s);
        v.dt_limit[i] = fmin(v.dt_limit[i], pairs);
    }
};
typedef wcsph_forces_pairs_with<options_at_run_time> wcsph_forces_pairs;

/* A pass of FORM PAIRS (core/pass.h): its pair form NAME_pass_load/begin/add/next/finish/cube, the
 * functions its CPU body runs, as the traits NAME_pairs that the staged kernels drive. */
#define PAIR_FORM_TRAITS_AS(NAME, STRUCT)                                                               \
    struct STRUCT {                                                                                     \
        typedef decltype(NAME##_pass_load((const pass_ctx *)0, 0)) source;                              \
        typedef NAME##_pass_acc acc;                                                                    \
        typedef int view;                                                                               \
        __device__ static view view_of(const pass_ctx &) { return 0; }                                  \
        __device__ static real reach(const pass_ctx &c) { return NAME##_pass_reach(&c); }               \
        __device__ static real cutoff2(const pass_ctx &c) { return reach(c) * reach(c); }               \
        __device__ static bool cube(const pass_ctx &c) { return NAME##_pass_cube(&c) != 0; }            \
        __device__ static source load(const pass_ctx &c, const view &, int32_t j)                       \
        {                                                                                               \
            return NAME##_pass_load(&c, j);                                                             \
        }                                                                                               \
        __device__ static bool begin(const pass_ctx &c, const view &, int32_t i, const source &a, acc &s) \
        {                                                                                               \
            return NAME##_pass_begin(&c, &a, i, &s) != 0;                                               \
        }                                                                                               \
        __device__ static void add(const pass_ctx &c, const source &a, int32_t i, const source &b, int32_t j, \
                                   acc &s)                                                              \
        {                                                                                               \
            NAME##_pass_add(&c, &a, i, &b, j, &s);                                                      \
        }                                                                                               \
        /* add(): the pair function tests its own domain all the same */                                \
        __device__ static void add_near(const pass_ctx &c, const source &a, int32_t i, const source &b,  \
                                        int32_t j, acc &s)                                              \
        {                                                                                               \
            add(c, a, i, b, j, s);                                                                      \
        }                                                                                               \
        __device__ static bool next(const pass_ctx &c, const view &, int32_t i, const source &a, acc &s)  \
        {                                                                                               \
            return NAME##_pass_next(&c, &a, i, &s) != 0;                                                \
        }                                                                                               \
        __device__ static void finish(const pass_ctx &c, const view &, int32_t i, const source &a,        \
                                      const acc &s)                                                     \
        {                                                                                               \
            NAME##_pass_finish(&c, &a, i, &s);                                                          \
        }                                                                                               \
    };

#define PAIR_FORM_TRAITS(NAME) PAIR_FORM_TRAITS_AS(NAME, NAME##_pairs)

/* mps.accel: its pair form, and its symmetric form (mps_accel_pass_both) for par-part-sym. Every
 * pair counts for both particles (the start density of every class), so there is no typed test: the
 * packed data are the position alone. Not valid with the LSMPS Laplacian (launch_geom). */
PAIR_FORM_TRAITS_AS(mps_accel, mps_accel_pair_form)
struct mps_accel_pairs : mps_accel_pair_form {
    struct both_acc {
        real own[4];
    };
    __device__ static int dim(const pass_ctx &c) { return c.P.dim; }
    __device__ static bool fluid(const source &) { return true; }
    __device__ static real w_above(const source &) { return -FLT_MAX; }
    __device__ static both_acc begin_both()
    {
        both_acc t = {{0, 0, 0, 0}};
        return t;
    }
    __device__ static packed_particle pack(const pass_ctx &c, const view &v, int32_t i)
    {
        const source a = load(c, v, i);
        packed_particle q = {a.x, a.y, a.z, R(1.0)};
        return q;
    }
    __device__ static source unpack(const pass_ctx &c, const view &v, const packed_particle &, int32_t j)
    {
        return load(c, v, j);
    }
    static packed_particle *packed_area(const pass_ctx *, int32_t) { return NULL; }
    __device__ static void add_both(const pass_ctx &c, const source &a, const source &b, int32_t j, sym_sum *sum,
                                    both_acc &t)
    {
        real other[4] = {0, 0, 0, 0};
        mps_accel_pass_both(&c, &a, -1, &b, j, t.own, other); /* j > i: never i, and a is not j */
        atomic_add_sum(&sum[j], other[0], other[1], other[2], other[3]);
    }
    __device__ static void end_both(const pass_ctx &, const view &, int32_t i, const source &, sym_sum *sum,
                                    const both_acc &t)
    {
        atomic_add_sum(&sum[i], t.own[0], t.own[1], t.own[2], t.own[3]);
    }
    __device__ static void finish_both(const pass_ctx &c, const view &, int32_t i, const sym_sum *sum)
    {
        const sym_sum q = sum[i];
        const real sums[4] = {q.x, q.y, q.z, q.w};
        mps_accel_pass_finish_sums(&c, i, sums);
    }
};

/* The traits of every pass with a pair form, from the pass lists: generated for FORM PAIRS; FORM
 * SYM's are written above (wcsph_forces_pairs, mps_accel_pairs). */
#define PAIR_TRAITS_BODY(NAME)
#define PAIR_TRAITS_PAIRS(NAME) PAIR_FORM_TRAITS(NAME)
#define PAIR_TRAITS_SYM(NAME)
#define PAIR_TRAITS(NAME, ID, LABEL, FLAGS, FORM) PAIR_TRAITS_##FORM(NAME)
SLUICE_PASSES(PAIR_TRAITS)
#undef PAIR_TRAITS

#endif
