/* rigid_motion.h: rigid motions of wall bodies: the transform of a body at time t from its
 * prescribed law (sine translation, sinusoidal rotation, gate), and a particle placed by it.
 *
 * A body's particle at reference position r (where the scene file puts it) is at
 *   x = R r + t,   with velocity   v(x) = v + w x (x - t)
 * (R the rotation, t the translation, v = dt/dt, w the angular velocity; for x = R r + t,
 * dx/dt = w x (R r) + dt/dt). The laws, with tau = t - start held in [0, stop - start] so the body
 * rests before start and after stop, and d the displacement from where the file puts it:
 *   sine      d = A (sin(omega tau + phi) - sin phi)                 (a sloshing tank, a piston)
 *   rotation  theta = Theta (sin(omega tau + phi) - sin phi) about the axis through the pivot p:
 *             R = rotation by theta (Rodrigues), t = p - R p         (roll or pitch sloshing)
 *   gate      velocity V f(tau), f rising from 0 to 1 as (1 - cos(pi tau / ramp)) / 2 over the
 *             first `ramp` seconds and falling likewise over the last ones (a lifted gate)
 * Every law gives the identity at tau = 0 exactly, so a body starts where the file puts it.
 * Issue 24's floating bodies fill the same transforms from their own integrator. */
#ifndef SLUICE_RIGID_MOTION_H
#define SLUICE_RIGID_MOTION_H

#include "base/real.h"
#include "base/scene.h"

#include <math.h>

/* One body's placement at one time (double: a body may sit far from the origin). */
typedef struct rigid_xform {
    double r[3][3];  /* rotation, row major */
    double t[3];     /* translation */
    double v[3];     /* velocity of the translation, m/s */
    double w[3];     /* angular velocity, rad/s */
} rigid_xform;

/* What the passes need to place moving walls (pass_args.motion): the transforms and the fields. */
typedef struct motion_args {
    const rigid_xform *xf; /* per body; host or device memory as the pass runs; NULL: nothing moves */
    int body;              /* field: each particle's body index (as a real), -1 for particles that stay */
    int ref[3];            /* fields: the reference position (ref[2] -1 in 2D) */
    int vec[3], vec_ref[3]; /* a vector field the particles carry that turns with the body (mDBC's ghost
                             * offset) and its reference; -1: none */
} motion_args;

HD static inline void rigid_xform_identity(rigid_xform *T)
{
    for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b)
            T->r[a][b] = a == b ? 1.0 : 0.0;
        T->t[a] = T->v[a] = T->w[a] = 0.0;
    }
}

/* x = R r + t and the velocity v + w x (x - t) there. */
HD static inline void rigid_xform_point(const rigid_xform *T, const double r[3], double x[3], double v[3])
{
    double d[3];
    for (int a = 0; a < 3; ++a) {
        d[a] = T->r[a][0] * r[0] + T->r[a][1] * r[1] + T->r[a][2] * r[2];
        x[a] = d[a] + T->t[a];
    }
    v[0] = T->v[0] + T->w[1] * d[2] - T->w[2] * d[1];
    v[1] = T->v[1] + T->w[2] * d[0] - T->w[0] * d[2];
    v[2] = T->v[2] + T->w[0] * d[1] - T->w[1] * d[0];
}

/* ---- the laws (host) ------------------------------------------------------------------------ */

#define RIGID_PI 3.14159265358979323846

static inline double rigid_law_omega(const scene_motion *m)
{
    return 2.0 * RIGID_PI * (m->frequency > 0 ? m->frequency : 1.0 / m->period);
}

/* tau = t - start held in [0, stop - start]; *moving = 1 strictly inside (the velocity is 0 outside). */
static inline double rigid_law_tau(const scene_motion *m, double t, int *moving)
{
    *moving = t > m->start && t < m->stop;
    double tau = t - m->start;
    if (tau < 0.0)
        tau = 0.0;
    if (tau > m->stop - m->start)
        tau = m->stop - m->start;
    return tau;
}

/* The gate's speed factor f(tau) in [0, 1] and its integral F(tau) (s). */
static inline void rigid_gate_profile(const scene_motion *m, double tau, double *f, double *F)
{
    double r = m->ramp, T = m->stop - m->start; /* T infinite: no ramp at the end */
    double up = r > 0.0 ? (tau < r ? tau : r) : 0.0;
    /* rising ramp: int_0^s (1 - cos(pi u / r)) / 2 du = s/2 - r/(2 pi) sin(pi s / r) */
    double rise = r > 0.0 ? 0.5 * up - r / (2.0 * RIGID_PI) * sin(RIGID_PI * up / r) : 0.0;
    *f = r > 0.0 && tau < r ? 0.5 * (1.0 - cos(RIGID_PI * tau / r)) : 1.0;
    *F = rise + (tau > r ? tau - r : 0.0);
    if (r > 0.0 && isfinite(T) && tau > T - r) { /* falling ramp, mirrored */
        double s = T - tau;                  /* in [0, r) */
        *f = 0.5 * (1.0 - cos(RIGID_PI * s / r));
        /* the full run less what the mirrored rising ramp has not yet covered */
        double full = r + (T - 2.0 * r);     /* F(T) = r/2 + (T - 2r) + r/2 */
        *F = full - (0.5 * s - r / (2.0 * RIGID_PI) * sin(RIGID_PI * s / r));
    }
}

/* Rotation matrix by angle th about the unit axis u (Rodrigues). */
static inline void rigid_rotation(const double u[3], double th, double r[3][3])
{
    double c = cos(th), s = sin(th), k = 1.0 - c;
    r[0][0] = c + u[0] * u[0] * k;
    r[0][1] = u[0] * u[1] * k - u[2] * s;
    r[0][2] = u[0] * u[2] * k + u[1] * s;
    r[1][0] = u[1] * u[0] * k + u[2] * s;
    r[1][1] = c + u[1] * u[1] * k;
    r[1][2] = u[1] * u[2] * k - u[0] * s;
    r[2][0] = u[2] * u[0] * k - u[1] * s;
    r[2][1] = u[2] * u[1] * k + u[0] * s;
    r[2][2] = c + u[2] * u[2] * k;
}

/* The transform of law m at time t (dim 2: z stays 0, rotations are about z). */
static inline void rigid_law_eval(const scene_motion *m, int dim, double t, rigid_xform *T)
{
    rigid_xform_identity(T);
    int moving;
    double tau = rigid_law_tau(m, t, &moving);
    switch (m->law) {
    case MOTION_NONE:
        break;
    case MOTION_SINE: {
        double om = rigid_law_omega(m), ph = m->phase * RIGID_PI / 180.0;
        double s = sin(om * tau + ph) - sin(ph), ds = moving ? om * cos(om * tau + ph) : 0.0;
        for (int a = 0; a < dim; ++a) {
            T->t[a] = m->amplitude[a] * s;
            T->v[a] = m->amplitude[a] * ds;
        }
        break;
    }
    case MOTION_ROTATION: {
        double om = rigid_law_omega(m), ph = m->phase * RIGID_PI / 180.0, th0 = m->angle * RIGID_PI / 180.0;
        double th = th0 * (sin(om * tau + ph) - sin(ph)), dth = moving ? th0 * om * cos(om * tau + ph) : 0.0;
        rigid_rotation(m->axis, th, T->r);
        const double *p = m->pivot;
        for (int a = 0; a < 3; ++a) {
            double rp = T->r[a][0] * p[0] + T->r[a][1] * p[1] + T->r[a][2] * p[2];
            T->t[a] = p[a] - rp;
            T->w[a] = dth * m->axis[a];
        }
        /* dt/dt = -w x (R p): the pivot stays put */
        double rp[3];
        for (int a = 0; a < 3; ++a)
            rp[a] = p[a] - T->t[a];
        T->v[0] = -(T->w[1] * rp[2] - T->w[2] * rp[1]);
        T->v[1] = -(T->w[2] * rp[0] - T->w[0] * rp[2]);
        T->v[2] = -(T->w[0] * rp[1] - T->w[1] * rp[0]);
        break;
    }
    case MOTION_GATE: {
        double f, F;
        rigid_gate_profile(m, tau, &f, &F);
        for (int a = 0; a < dim; ++a) {
            T->t[a] = m->velocity[a] * F;
            T->v[a] = moving ? m->velocity[a] * f : 0.0;
        }
        break;
    }
    }
    if (dim == 2) /* round-off of the rotation's z row must not lift a 2D body off its plane */
        T->t[2] = T->v[2] = 0.0;
}

#endif
