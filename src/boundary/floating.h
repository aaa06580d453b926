/* floating.h: the floating bodies' force pass (`floating.force`): for each particle of a floating
 * body, the acceleration the fluid gives it (the WCSPH pair terms of physics/sph_forces.h with each
 * fluid neighbour, as if it were a fluid particle: the fluid's own force pass sees it as a dynamic
 * boundary particle, and the two are equal and opposite) plus the soft contact with the particles of
 * walls and other bodies (physics/rigid_body.h). Other particles are left alone. A neighbour pass in
 * gather form (FORM BODY): par-part and par-cell run it on the GPU. core/floating.c sums its output
 * per body. */
#ifndef SLUICE_BOUNDARY_FLOATING_H
#define SLUICE_BOUNDARY_FLOATING_H

#include "base/status.h"
#include "core/pass.h"
#include "physics/rigid_body.h"
#include "physics/sph_forces.h"

HD static inline void floating_force_body(const pass_ctx *c, int32_t i)
{
    const floating_args *fa = &c->a.floating;
    real *const *f = c->f;
    const sim_params *P = &c->P;
    int body = c->a.motion.body;
    if (fa->nfloat <= 0)
        return;
    real bi = f[body][i];
    if (bi < R(0.0) || bi >= (real)fa->nfloat)
        return;
    int dim = P->dim;
    sph_force_view v = {f[PF_X], f[PF_Y], f[PF_Z], f[PF_VX], f[PF_VY], f[PF_VZ], f[PF_RHO], f[PF_P], c->type,
                        (real *)0, (real *)0, (real *)0, (real *)0, (real *)0, (real *)0, (real *)0, (real *)0};
    sph_pair_options o = sph_pair_options_of(P);
    sph_particle a = sph_load_with(o, &v, i);
    a.fluid = 1; /* takes the fluid's pressure and viscous force as a fluid particle would */
    sph_force_acc acc = {0, 0, 0, 0, 0};
    real cc[3] = {0, 0, 0};
    NBR_FOR_CANDIDATES(&c->nb, i, j, {
        real dx = a.x - v.x[j], dy = a.y - v.y[j];
        real dz = dim == 3 ? a.z - v.z[j] : R(0.0);
        periodic_fold(&P->periodic, &dx, &dy, &dz);
        real r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= P->r2_max || j == i)
            continue;
        if (c->type[j] == PT_FLUID) {
            sph_particle b = sph_load_with(o, &v, j);
            sph_force_pair_with(P, o, &a, &b, dx, dy, dz, r2, &acc, (sph_force_acc *)0);
        } else if (f[body][j] != bi) { /* a wall's or another body's */
            rigid_body_contact_add(fa, dim, dx, dy, dz, r2, a.vx - v.vx[j], a.vy - v.vy[j],
                                   dim == 3 ? a.vz - v.vz[j] : R(0.0), cc);
        }
    });
    f[fa->acc[0]][i] = acc.ax + cc[0];
    f[fa->acc[1]][i] = acc.ay + cc[1];
    if (dim == 3)
        f[fa->acc[2]][i] = acc.az + cc[2];
}

#ifdef __cplusplus
extern "C" {
#endif
struct sim;
/* After each force evaluation: the force pass over the particles, then every body's force and
 * torque (backend.body_sums) into s->floating (boundary/floating.c). */
int floating_forces(struct sim *s, sl_err *err);

/* Every body's force and torque about its centre from the per-particle accelerations in the fields
 * s->args.floating.acc (backend.body_sums): into s->floating's force and torque, or added to them
 * when `add` is set (the MPS schemes sum the reactions of a step's terms, boundary/floating_mps.h). */
int floating_sums(struct sim *s, int add, sl_err *err);

/* The soft contacts' stiffness and damping (physics/rigid_body.h) for a step of dt (0: none): the
 * fluid's own stiffness c0^2/dp, critically damped per particle pair, or, when the step is too long
 * for that spring (the semi-implicit MPS step, set by the flow's speed and not by c0), the spring of
 * frequency 0.5/dt, which the explicit step still integrates stably. */
void floating_contact_params(struct sim *s, double dt);
#ifdef __cplusplus
}
#endif

#endif
