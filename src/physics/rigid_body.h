/* rigid_body.h: floating bodies: what one particle adds to its body's force and moment (HD, the
 * backends' per-body sums), the soft contact of a body's particle with another body's or a wall's,
 * and the Newton-Euler update of a body (host): quaternion orientation, symplectic like the fluid.
 *
 * A body's particle i feels the fluid as a fluid particle would (the WCSPH pair terms with every fluid
 * neighbour, acceleration a_i); the fluid feels it as a dynamic boundary particle. Equal masses m on
 * both sides make the pair forces equal and opposite, so F = m sum_i a_i and the moment about the
 * origin M_O = sum_i x_i x m a_i conserve momentum with the fluid (Monaghan 2005, Rep. Prog. Phys.
 * 68:1703, sec. 8; the scheme of DualSPHysics's floating objects, Dominguez et al. 2022, sec. 2.5).
 * The torque about the centre X is M_O - X x F (sums in double: no cancellation worth a bit).
 *
 * Newton-Euler (world frame; I = R I0 R^T with I0 the inertia in the reference frame):
 *   dV/dt = F/M + g,   dW/dt = I^-1 (T - W x I W),   dq/dt = 1/2 (0, W) q,   dX/dt = V
 * stepped like the fluid's symplectic scheme (sph_integrate.h): the predictor moves the state by
 * dt/2 with the rates at t^n, the corrector by dt from t^n with the rates at t^{n+1/2}; q turned by
 * the exact rotation of the mean angular velocity and renormalised. Fixed axes (world) have zero
 * velocity and acceleration along them. The MPS schemes step it instead by semi-implicit Euler, as
 * their fluid (rigid_body_euler_predict / _correct below; the force there is the exact reaction of
 * the MPS terms, boundary/floating_mps.h). */
#ifndef SLUICE_RIGID_BODY_H
#define SLUICE_RIGID_BODY_H

#include "base/real.h"
#include "rigid_motion.h"

#include <math.h>

/* What the force pass reads and writes for floating bodies (pass_args.floating). */
typedef struct floating_args {
    int acc[3];        /* fields: a body particle's acceleration from the fluid and contacts; -1: none */
    int nfloat;        /* bodies [0, nfloat) of the motion list float (core/floating.h) */
    real contact_k;    /* contact stiffness, 1/s^2 per unit overlap fraction: c0^2 / dp */
    real contact_c;    /* contact damping, 1/s: 2 c0 / dp (critical for one particle pair) */
    real contact_r;    /* contact distance: dp */
    int mps_stage;     /* MPS schemes: which of the step's terms the reaction pass sums (enum
                        * floating_mps_stage, boundary/floating_mps.h) */
    int mps_phat;      /* semi-implicit MPS: the field where the gradient pass leaves each fluid
                        * particle's phat_i; -1: none (no floating bodies) */
} floating_args;

/* The six sums of particle i of body b: m a (3) and x x m a (3), in double. */
HD static inline void rigid_body_particle_sums(real m, real x, real y, real z, real ax, real ay, real az,
                                               double out[6])
{
    double fx = (double)m * ax, fy = (double)m * ay, fz = (double)m * az;
    out[0] = fx;
    out[1] = fy;
    out[2] = fz;
    out[3] = (double)y * fz - (double)z * fy;
    out[4] = (double)z * fx - (double)x * fz;
    out[5] = (double)x * fy - (double)y * fx;
}

/* The soft contact on a body particle from a particle of a wall or of another body at distance r
 * (0 < r < contact_r) along unit n (from the other to this one), relative normal speed vn (< 0
 * approaching): a spring of the fluid's own stiffness (the pressure rho0 c0^2 (1 - r/dp) on a
 * particle's face, per particle mass rho0 dp^d) and a dashpot, never pulling. Returns the
 * acceleration along n. */
HD static inline real rigid_body_contact(const floating_args *fa, real r, real vn)
{
    real s = fa->contact_k * (R(1.0) - r / fa->contact_r) - fa->contact_c * vn;
    return s > R(0.0) ? s : R(0.0);
}

/* What a particle of a wall or another body adds to body particle i's contact acceleration c[3]:
 * d = x_i - x_j (r2 = |d|^2), du = u_i - u_j; nothing at or beyond contact_r. */
HD static inline void rigid_body_contact_add(const floating_args *fa, int dim, real dx, real dy, real dz, real r2,
                                             real dux, real duy, real duz, real c[3])
{
    if (!(r2 < fa->contact_r * fa->contact_r) || !(r2 > R(0.0)))
        return;
    real r = real_sqrt(r2), nx = dx / r, ny = dy / r, nz = dz / r;
    real vn = dux * nx + duy * ny + (dim == 3 ? duz * nz : R(0.0));
    real s = rigid_body_contact(fa, r, vn);
    c[0] += s * nx;
    c[1] += s * ny;
    c[2] += s * nz;
}

/* ---- the body (host) ---------------------------------------------------------------------- */

typedef struct rigid_body_state {
    double x[3]; /* centre of mass */
    double v[3];
    double q[4]; /* orientation (w, x, y, z) from the reference frame */
    double w[3]; /* angular velocity, world frame */
} rigid_body_state;

typedef struct rigid_body_props {
    double mass;
    double com0[3];       /* the centre of mass where the file puts the body */
    double inertia0[3][3]; /* about com0, reference frame */
    double inv_inertia0[3][3];
    unsigned fix_t, fix_r; /* FLOAT_AXIS_* bits */
} rigid_body_props;

static inline void rigid_quat_matrix(const double q[4], double r[3][3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    r[0][0] = 1 - 2 * (y * y + z * z);
    r[0][1] = 2 * (x * y - w * z);
    r[0][2] = 2 * (x * z + w * y);
    r[1][0] = 2 * (x * y + w * z);
    r[1][1] = 1 - 2 * (x * x + z * z);
    r[1][2] = 2 * (y * z - w * x);
    r[2][0] = 2 * (x * z - w * y);
    r[2][1] = 2 * (y * z + w * x);
    r[2][2] = 1 - 2 * (x * x + y * y);
}

/* q turned by the rotation vector phi (world frame): q' = (cos |phi|/2, sin |phi|/2 phi/|phi|) q. */
static inline void rigid_quat_turn(double q[4], const double phi[3])
{
    double th = sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]);
    if (!(th > 0))
        return;
    double c = cos(0.5 * th), s = sin(0.5 * th) / th;
    double p[4] = {c, s * phi[0], s * phi[1], s * phi[2]}, o[4];
    o[0] = p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3];
    o[1] = p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2];
    o[2] = p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1];
    o[3] = p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0];
    double n = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3]);
    for (int k = 0; k < 4; ++k)
        q[k] = o[k] / n;
}

static inline void rigid_cross(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* y = R A R^T x */
static inline void rigid_turned_product(const double r[3][3], const double A[3][3], const double x[3], double y[3])
{
    double u[3], t[3];
    for (int a = 0; a < 3; ++a)
        u[a] = r[0][a] * x[0] + r[1][a] * x[1] + r[2][a] * x[2];
    for (int a = 0; a < 3; ++a)
        t[a] = A[a][0] * u[0] + A[a][1] * u[1] + A[a][2] * u[2];
    for (int a = 0; a < 3; ++a)
        y[a] = r[a][0] * t[0] + r[a][1] * t[1] + r[a][2] * t[2];
}

/* The accelerations of body state s under force f and torque tq (about its centre), gravity g. */
static inline void rigid_body_rates(const rigid_body_props *b, const rigid_body_state *s, const double f[3],
                                    const double tq[3], const double g[3], double acc[3], double alpha[3])
{
    double r[3][3], Iw[3], gyro[3], t[3];
    rigid_quat_matrix(s->q, r);
    rigid_turned_product(r, b->inertia0, s->w, Iw);
    rigid_cross(s->w, Iw, gyro);
    for (int a = 0; a < 3; ++a) {
        acc[a] = (b->fix_t >> a) & 1u ? 0.0 : f[a] / b->mass + g[a];
        t[a] = tq[a] - gyro[a];
    }
    rigid_turned_product(r, b->inv_inertia0, t, alpha);
    for (int a = 0; a < 3; ++a)
        if ((b->fix_r >> a) & 1u)
            alpha[a] = 0.0;
}

/* Predictor: s from s0 by dt/2 with the rates at t^n. */
static inline void rigid_body_predict(const rigid_body_props *b, const rigid_body_state *s0, rigid_body_state *s,
                                      const double f[3], const double tq[3], const double g[3], double dt)
{
    double acc[3], alpha[3], phi[3], h = 0.5 * dt;
    rigid_body_rates(b, s0, f, tq, g, acc, alpha);
    *s = *s0;
    for (int a = 0; a < 3; ++a) {
        s->x[a] = s0->x[a] + h * s0->v[a];
        s->v[a] = s0->v[a] + h * acc[a];
        s->w[a] = s0->w[a] + h * alpha[a];
        phi[a] = h * s0->w[a];
    }
    rigid_quat_turn(s->q, phi);
}

/* Corrector: s from s0 by dt with the rates at t^{n+1/2} (s holds the predicted state on entry). */
static inline void rigid_body_correct(const rigid_body_props *b, const rigid_body_state *s0, rigid_body_state *s,
                                      const double f[3], const double tq[3], const double g[3], double dt)
{
    double acc[3], alpha[3], phi[3];
    rigid_body_rates(b, s, f, tq, g, acc, alpha);
    rigid_body_state n = *s0;
    for (int a = 0; a < 3; ++a) {
        n.v[a] = s0->v[a] + dt * acc[a];
        n.x[a] = s0->x[a] + 0.5 * dt * (s0->v[a] + n.v[a]);
        n.w[a] = s0->w[a] + dt * alpha[a];
        phi[a] = 0.5 * dt * (s0->w[a] + n.w[a]);
    }
    rigid_quat_turn(n.q, phi);
    *s = n;
}

/* The MPS schemes' semi-implicit Euler step (schemes/mps/mps_common.c), in two halves like the
 * fluid's: the predictor from s0 (t^n) with the force and torque known before the pressure (the
 * viscous term at t^n) plus gravity and the gyroscopic term at t^n,
 *   V* = V + dt a,  W* = W + dt alpha,  X* = X + dt V*,  q* = turn(q, dt W*),
 * and the corrector with the force and torque of the pressure (and collisions, contacts) at the
 * predicted state (neither gravity nor the gyroscopic term again),
 *   V' = V* + dt F/M,  W' = W* + dt I(q*)^-1 T,  X' = X + dt V',  q' = turn(q, dt W'),
 * so the body moves as x^{n+1} = x^n + dt u^{n+1}, as the fluid's particles do. */
static inline void rigid_body_euler_predict(const rigid_body_props *b, const rigid_body_state *s0,
                                            rigid_body_state *s, const double f[3], const double tq[3],
                                            const double g[3], double dt)
{
    double acc[3], alpha[3], phi[3];
    rigid_body_rates(b, s0, f, tq, g, acc, alpha);
    *s = *s0;
    for (int a = 0; a < 3; ++a) {
        s->v[a] = s0->v[a] + dt * acc[a];
        s->w[a] = s0->w[a] + dt * alpha[a];
        s->x[a] = s0->x[a] + dt * s->v[a];
        phi[a] = dt * s->w[a];
    }
    rigid_quat_turn(s->q, phi);
}

static inline void rigid_body_euler_correct(const rigid_body_props *b, const rigid_body_state *s0,
                                            rigid_body_state *s, const double f[3], const double tq[3], double dt)
{
    static const double none[3] = {0.0, 0.0, 0.0};
    double acc[3], alpha[3], phi[3];
    rigid_body_state at = *s;
    for (int a = 0; a < 3; ++a)
        at.w[a] = 0.0; /* no gyroscopic term: the predictor took it */
    rigid_body_rates(b, &at, f, tq, none, acc, alpha);
    rigid_body_state n = *s0;
    for (int a = 0; a < 3; ++a) {
        n.v[a] = s->v[a] + dt * acc[a];
        n.w[a] = s->w[a] + dt * alpha[a];
        n.x[a] = s0->x[a] + dt * n.v[a];
        phi[a] = dt * n.w[a];
    }
    rigid_quat_turn(n.q, phi);
    *s = n;
}

/* The transform that places the body's particles (rigid_motion.h): x = R r + t with t = X - R c0,
 * and the velocity V + W x (x - X) there, i.e. xf.v = V - W x (R c0). dim 2: z stays 0. */
static inline void rigid_body_xform(const rigid_body_props *b, const rigid_body_state *s, int dim, rigid_xform *T)
{
    double rc[3], wrc[3];
    rigid_quat_matrix(s->q, T->r);
    for (int a = 0; a < 3; ++a)
        rc[a] = T->r[a][0] * b->com0[0] + T->r[a][1] * b->com0[1] + T->r[a][2] * b->com0[2];
    rigid_cross(s->w, rc, wrc);
    for (int a = 0; a < 3; ++a) {
        T->t[a] = s->x[a] - rc[a];
        T->v[a] = s->v[a] - wrc[a];
        T->w[a] = s->w[a];
    }
    if (dim == 2)
        T->t[2] = T->v[2] = 0.0;
}

#endif
