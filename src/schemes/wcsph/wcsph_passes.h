/* wcsph_passes.h: the WCSPH passes as per-particle bodies, run by the CPU loops and the CUDA
 * kernels alike. The physics is in sph_forces.h and sph_integrate.h; this file only maps the
 * scheme's fields (pass_ctx slots) to the views those functions take. */
#ifndef SLUICE_WCSPH_PASSES_H
#define SLUICE_WCSPH_PASSES_H

#include "core/pass.h"
#include "physics/sph_forces.h"
#include "physics/sph_integrate.h"

/* The scheme's fields, as pass_ctx slots (x0..z0 are -1 with the Verlet integrator). */
enum wcsph_slot {
    WS_AX, WS_AY, WS_AZ, WS_DRHO, WS_DT_LIMIT,        /* rates at the last force evaluation */
    WS_X0, WS_Y0, WS_Z0, WS_VX0, WS_VY0, WS_VZ0, WS_RHO0, /* integrator history */
    WS_MOVED, /* the predictor's displacement, where the corrector may reuse the cells (-1: not) */
    WS_COUNT
};

/* The scheme's passes, declared once (core/pass.h: X(NAME, ID, LABEL, FLAGS, FORM)); the CPU loops,
 * the pass objects NAME_pass and the GPU dispatch are generated from this list. The forces' pair
 * form and symmetric form (FORM SYM) are the sph_force_* functions of sph_forces.h, which the GPU
 * adapts per option set (gpu/pass_traits.cuh, gpu/pass_kernels.cu). */
#define WCSPH_PASSES(X)                                                                             \
    X(wcsph_forces, PASS_WCSPH_FORCES, "wcsph.forces", PASS_NEIGHBOURS | PASS_REPEATABLE, SYM)      \
    X(wcsph_predict, PASS_WCSPH_PREDICT, "wcsph.predict", 0, BODY)                                  \
    X(wcsph_correct, PASS_WCSPH_CORRECT, "wcsph.correct", 0, BODY)                                  \
    X(wcsph_verlet, PASS_WCSPH_VERLET, "wcsph.verlet", 0, BODY)

HD static inline real *wcsph_field_or_null(const pass_ctx *c, int slot)
{
    return c->a.slot[slot] >= 0 ? PASS_FIELD(c, slot) : (real *)0;
}

HD static inline sph_force_view wcsph_force_view(const pass_ctx *c)
{
    real *const *f = c->f;
    const int *wv = c->a.wall_visc; /* 0: none (no-slip off) */
    sph_force_view v = {f[PF_X], f[PF_Y], f[PF_Z], f[PF_VX], f[PF_VY], f[PF_VZ], f[PF_RHO], f[PF_P],
                        c->type, PASS_FIELD(c, WS_AX), PASS_FIELD(c, WS_AY), PASS_FIELD(c, WS_AZ),
                        PASS_FIELD(c, WS_DRHO), PASS_FIELD(c, WS_DT_LIMIT), wv[0] > 0 ? f[wv[0]] : (real *)0,
                        wv[0] > 0 ? f[wv[1]] : (real *)0, wv[0] > 0 && wv[2] > 0 ? f[wv[2]] : (real *)0};
    return v;
}

HD static inline sph_state_view wcsph_state_view(const pass_ctx *c)
{
    real *const *f = c->f;
    sph_state_view v = {f[PF_X], f[PF_Y], f[PF_Z], f[PF_VX], f[PF_VY], f[PF_VZ], f[PF_RHO], f[PF_P],
                        c->type, PASS_FIELD(c, WS_AX), PASS_FIELD(c, WS_AY), PASS_FIELD(c, WS_AZ),
                        PASS_FIELD(c, WS_DRHO), wcsph_field_or_null(c, WS_X0), wcsph_field_or_null(c, WS_Y0),
                        wcsph_field_or_null(c, WS_Z0), PASS_FIELD(c, WS_VX0), PASS_FIELD(c, WS_VY0),
                        PASS_FIELD(c, WS_VZ0), PASS_FIELD(c, WS_RHO0), wcsph_field_or_null(c, WS_MOVED)};
    return v;
}

HD static inline void wcsph_forces_body(const pass_ctx *c, int32_t i)
{
    sph_force_view v = wcsph_force_view(c);
    sph_force_particle(&c->P, &c->nb, &v, i);
}

HD static inline void wcsph_predict_body(const pass_ctx *c, int32_t i)
{
    sph_state_view v = wcsph_state_view(c);
    sph_symplectic_predict(&c->P, &v, i, c->a.dt);
}

HD static inline void wcsph_correct_body(const pass_ctx *c, int32_t i)
{
    sph_state_view v = wcsph_state_view(c);
    sph_symplectic_correct(&c->P, &v, i, c->a.dt);
}

/* c->a.euler_step: this is the periodic Euler step */
HD static inline void wcsph_verlet_body(const pass_ctx *c, int32_t i)
{
    sph_state_view v = wcsph_state_view(c);
    sph_verlet_step(&c->P, &v, i, c->a.dt, c->a.euler_step);
}

#endif
