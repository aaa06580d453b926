/* mps_extrapolated.h: the extrapolated-wall-pressure model's pass (Adami, Hu & Adams 2012, J.
 * Comput. Phys. 231:7057, eq. 27, with the MPS weight): the wall layer takes the pressure
 * extrapolated from the fluid around it, hydrostatically corrected (physics/mps_ppe.h:
 * mps_wall_pressure_pair), after the density pass has set the fluid's. Fluid and dummy particles are
 * left as they are. A pass in pair form (core/pass_mps.h), so every GPU strategy runs it. */
#ifndef SLUICE_BOUNDARY_MPS_EXTRAPOLATED_H
#define SLUICE_BOUNDARY_MPS_EXTRAPOLATED_H

#include "core/pass_mps.h"
#include "physics/mps_ppe.h"

typedef struct mps_wall_pressure_pass_acc {
    int on;
    real sp, sw;
} mps_wall_pressure_pass_acc;

HD static inline mps_particle mps_wall_pressure_pass_load(const pass_ctx *c, int32_t j)
{
    mps_particle p = mps_pass_particle(c, j, 0, 0, 0, 0);
    /* only the fluid's pressure: the pass rewrites the walls' */
    p.u[0] = mps_class_is_fluid(p.cls) ? c->f[PF_P][j] : R(0.0);
    return p;
}

HD static inline int mps_wall_pressure_pass_begin(const pass_ctx *c, const mps_particle *a, int32_t i,
                                                  mps_wall_pressure_pass_acc *s)
{
    (void)a;
    uint8_t cls = c->tag[i];
    s->on = cls == MC_WALL || cls == MC_WALL_SURFACE;
    s->sp = s->sw = R(0.0);
    return s->on;
}

HD static inline void mps_wall_pressure_pass_add(const pass_ctx *c, const mps_particle *a, int32_t i,
                                                 const mps_particle *b, int32_t j, mps_wall_pressure_pass_acc *s)
{
    mps_scope fluid = mps_pass_scope(c, mps_kernel_n(&c->P), MC_BIT(MC_FLUID) | MC_BIT(MC_FLUID_SURFACE));
    mps_wall_pressure_pair(&fluid, a, i, b, j, c->P.rho0, c->P.g, &s->sp, &s->sw);
}

MPS_PASS_ONE_SWEEP(wall_pressure)

HD static inline void mps_wall_pressure_pass_finish(const pass_ctx *c, const mps_particle *a, int32_t i,
                                                    const mps_wall_pressure_pass_acc *s)
{
    (void)a;
    if (!s->on)
        return;
    real p = s->sw > R(0.0) ? s->sp / s->sw : R(0.0);
    c->f[PF_P][i] = c->P.mps.clamp && p < R(0.0) ? R(0.0) : p;
}

HD static inline real mps_wall_pressure_pass_reach(const pass_ctx *c)
{
    return c->P.mps.re_n;
}

MPS_PASS_BODY(wall_pressure)

#endif
