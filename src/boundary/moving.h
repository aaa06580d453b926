/* moving.h: walls with prescribed motion: the pass that places every particle of a moving body
 * (a tank or obstacle with a `motion` law) at x = R r + t from its reference position r, with the
 * body's velocity there (physics/rigid_motion.h), so the wall model and the scheme's pair terms
 * see the wall's velocity; and the calls that set it up and run it. The integrators never move wall
 * particles: this pass alone does, at the times the scheme's step asks (schemes/). A body (FORM
 * BODY): par-part runs it on the GPU, reading the transforms from device memory (core/motion.h). */
#ifndef SLUICE_BOUNDARY_MOVING_H
#define SLUICE_BOUNDARY_MOVING_H

#include "core/pass.h"

/* Particle i of a body: position and velocity from the body's transform; the carried vector
 * (mDBC's ghost offset) turned with it. Particles of no body, and every particle while there are no
 * transforms, are left as they are. */
HD static inline void moving_place_body(const pass_ctx *c, int32_t i)
{
    const motion_args *m = &c->a.motion;
    if (!m->xf)
        return;
    real *const *f = c->f;
    real b = f[m->body][i];
    if (b < R(0.0))
        return;
    const rigid_xform *T = &m->xf[(int)b];
    int dim = c->P.dim;
    double r[3] = {f[m->ref[0]][i], f[m->ref[1]][i], dim == 3 ? (double)f[m->ref[2]][i] : 0.0};
    double x[3], v[3];
    rigid_xform_point(T, r, x, v);
    for (int a = 0; a < dim; ++a) {
        f[PF_X + a][i] = (real)x[a];
        f[PF_VX + a][i] = (real)v[a];
    }
    if (m->vec_ref[0] >= 0) { /* a vector turns and does not translate */
        double q[3] = {f[m->vec_ref[0]][i], f[m->vec_ref[1]][i], dim == 3 ? (double)f[m->vec_ref[2]][i] : 0.0};
        for (int a = 0; a < dim; ++a)
            f[m->vec[a]][i] = (real)(T->r[a][0] * q[0] + T->r[a][1] * q[1] + T->r[a][2] * q[2]);
    }
}

#ifdef __cplusplus
extern "C" {
#endif
struct sim;

/* Before the wall model's init: no body, no field (the model may then name the vector field its
 * particles carry, s->args.motion.vec). */
void moving_walls_prepare(struct sim *s);

/* After it: the bodies (core/motion.h), each particle's body and reference position as fields
 * (reordered and checkpointed with the others), and the walls' velocities at t = 0. Nothing when no
 * item moves. */
int moving_walls_setup(struct sim *s, sl_err *err);

/* Places the moving walls at time t: every body's transform, then the pass over the particles.
 * Nothing when no item moves. */
int moving_walls_place(struct sim *s, double t, sl_err *err);
#ifdef __cplusplus
}
#endif

#endif
