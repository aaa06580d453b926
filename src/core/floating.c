/* floating.c: floating bodies on the host: their mass properties (the file's, or their filled
 * lattice's), their state, the per-body sums of the force pass through the backend, and the
 * symplectic steps of physics/rigid_body.h. The particles' side is boundary/floating.h. */
#include "floating.h"

#include "motion.h"
#include "sim.h"
#include "geometry/scene_build.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sums over the filled lattice: points, their first and second moments (about the first point, so
 * a body far from the origin keeps its digits). */
typedef struct fill_sums {
    double n, o[3], s1[3], s2[3][3];
} fill_sums;

static void add_point(void *ctx, const double pos[3], int layer)
{
    (void)layer;
    fill_sums *f = ctx;
    if (f->n == 0)
        memcpy(f->o, pos, sizeof f->o);
    double d[3] = {pos[0] - f->o[0], pos[1] - f->o[1], pos[2] - f->o[2]};
    f->n += 1;
    for (int a = 0; a < 3; ++a) {
        f->s1[a] += d[a];
        for (int b = 0; b < 3; ++b)
            f->s2[a][b] += d[a] * d[b];
    }
}

static int invert3(const double A[3][3], double B[3][3])
{
    double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                 A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
    if (!(fabs(det) > 0) || !isfinite(det))
        return -1;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            int a1 = (b + 1) % 3, a2 = (b + 2) % 3, b1 = (a + 1) % 3, b2 = (a + 2) % 3;
            B[a][b] = (A[a1][b1] * A[a2][b2] - A[a1][b2] * A[a2][b1]) / det;
        }
    return 0;
}

int floating_mass_properties(const sim *s, int item, rigid_body_props *out, sl_err *err)
{
    const scene *sc = s->sc;
    const scene_geom *g = &sc->geom[item];
    const scene_floating *fl = &g->floating;
    int dim = sc->dim;
    fill_sums f;
    memset(&f, 0, sizeof f);
    SL_TRY(scene_item_fill(sc, g, add_point, &f, err));
    if (f.n == 0)
        return sl_fail(err, SL_ERR_INPUT, "%s:%d: key 'geometry[%d].floating': the body holds no lattice point at "
                       "numerics.spacing = %g m (accepted: a body at least one spacing thick)", sc->path, fl->line,
                       item, sc->dp);
    double cell = pow(sc->dp, dim), vol = f.n * cell;
    memset(out, 0, sizeof *out);
    out->mass = fl->mass > 0 ? fl->mass : fl->density * vol;
    double pm = out->mass / f.n; /* each point's share */
    double c[3], cov[3][3];
    for (int a = 0; a < 3; ++a)
        c[a] = f.s1[a] / f.n;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
            cov[a][b] = pm * (f.s2[a][b] - f.n * c[a] * c[b]); /* sum m d_a d_b about the centroid */
    for (int a = 0; a < 3; ++a)
        out->com0[a] = a < dim ? (fl->center_set ? fl->center[a] : f.o[a] + c[a]) : 0.0;
    /* I = sum m (|d|^2 1 - d d^T), each point a cell of side dp (its own m dp^2 / 12 per other axis) */
    double tr = cov[0][0] + cov[1][1] + cov[2][2];
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            out->inertia0[a][b] = (a == b ? tr : 0.0) - cov[a][b];
            if (a == b)
                out->inertia0[a][b] += out->mass * sc->dp * sc->dp / 12.0 * (dim - (a < dim ? 1 : 0));
        }
    if (fl->center_set) /* parallel axes to the given centre */
        for (int a = 0; a < 3; ++a) {
            double d[3] = {out->com0[0] - f.o[0] - c[0], out->com0[1] - f.o[1] - c[1],
                           dim == 3 ? out->com0[2] - f.o[2] - c[2] : 0.0};
            double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            for (int b = 0; b < 3; ++b)
                out->inertia0[a][b] += out->mass * ((a == b ? d2 : 0.0) - d[a] * d[b]);
        }
    if (fl->inertia_set) {
        memset(out->inertia0, 0, sizeof out->inertia0);
        for (int a = 0; a < 3; ++a)
            out->inertia0[a][a] = fl->inertia[a];
    }
    if (dim == 2) { /* only Izz acts; the others must only keep the matrix invertible */
        out->inertia0[0][0] = out->inertia0[1][1] = out->inertia0[2][2];
        out->inertia0[0][1] = out->inertia0[1][0] = 0.0;
    }
    if (invert3(out->inertia0, out->inv_inertia0))
        return sl_fail(err, SL_ERR_INPUT, "%s:%d: key 'geometry[%d].floating.inertia': is not positive definite "
                       "(accepted: a body with extent along every axis, or inertia given)", sc->path, fl->line, item);
    out->fix_t = fl->fix_translation;
    out->fix_r = fl->fix_rotation;
    return SL_OK;
}

int floating_count(const scene *sc)
{
    int n = 0;
    for (int k = 0; k < sc->ngeom; ++k)
        n += sc->geom[k].floating.enabled;
    return n;
}

int floating_create(sim *s, sl_err *err)
{
    const scene *sc = s->sc;
    int n = floating_count(sc);
    if (n == 0)
        return SL_OK;
    floating *fl = calloc(1, sizeof *fl);
    if (!fl)
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the floating bodies");
    s->floating = fl;
    fl->props = calloc((size_t)n, sizeof *fl->props);
    fl->state = calloc((size_t)n, sizeof *fl->state);
    fl->state0 = calloc((size_t)n, sizeof *fl->state0);
    fl->force = calloc((size_t)n, sizeof *fl->force);
    fl->torque = calloc((size_t)n, sizeof *fl->torque);
    fl->sums = calloc((size_t)n * 6, sizeof *fl->sums);
    fl->force_pre = calloc((size_t)n, sizeof *fl->force_pre);
    fl->torque_pre = calloc((size_t)n, sizeof *fl->torque_pre);
    if (!fl->props || !fl->state || !fl->state0 || !fl->force || !fl->torque || !fl->sums || !fl->force_pre ||
        !fl->torque_pre)
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the floating bodies");
    for (int k = 0; k < sc->ngeom; ++k) {
        const scene_floating *f = &sc->geom[k].floating;
        if (!f->enabled)
            continue;
        int b = fl->n++;
        SL_TRY(floating_mass_properties(s, k, &fl->props[b], err));
        rigid_body_state *st = &fl->state[b];
        memset(st, 0, sizeof *st);
        st->q[0] = 1.0;
        for (int a = 0; a < 3; ++a) {
            st->x[a] = fl->props[b].com0[a];
            st->v[a] = (fl->props[b].fix_t >> a) & 1u ? 0.0 : f->velocity[a];
            st->w[a] = (fl->props[b].fix_r >> a) & 1u ? 0.0 : f->omega[a];
        }
        fl->state0[b] = *st;
    }
    /* the force pass's contact: the fluid's own stiffness, critically damped per particle pair */
    floating_args *fa = &s->args.floating;
    fa->nfloat = fl->n;
    fa->contact_r = (real)sc->dp;
    return SL_OK;
}

void floating_predict(sim *s, double dt)
{
    floating *fl = s->floating;
    for (int b = 0; fl && b < fl->n; ++b) {
        fl->state0[b] = fl->state[b];
        rigid_body_predict(&fl->props[b], &fl->state0[b], &fl->state[b], fl->force[b], fl->torque[b],
                           s->sc->gravity, dt);
    }
}

void floating_correct(sim *s, double dt)
{
    floating *fl = s->floating;
    for (int b = 0; fl && b < fl->n; ++b)
        rigid_body_correct(&fl->props[b], &fl->state0[b], &fl->state[b], fl->force[b], fl->torque[b],
                           s->sc->gravity, dt);
}

void floating_euler_predict(sim *s, double dt)
{
    floating *fl = s->floating;
    for (int b = 0; fl && b < fl->n; ++b) {
        fl->state0[b] = fl->state[b];
        memcpy(fl->force_pre[b], fl->force[b], sizeof fl->force[b]);
        memcpy(fl->torque_pre[b], fl->torque[b], sizeof fl->torque[b]);
        rigid_body_euler_predict(&fl->props[b], &fl->state0[b], &fl->state[b], fl->force[b], fl->torque[b],
                                 s->sc->gravity, dt);
    }
}

void floating_euler_correct(sim *s, double dt)
{
    floating *fl = s->floating;
    for (int b = 0; fl && b < fl->n; ++b) {
        rigid_body_euler_correct(&fl->props[b], &fl->state0[b], &fl->state[b], fl->force[b], fl->torque[b], dt);
        for (int a = 0; a < 3; ++a) {
            fl->force[b][a] += fl->force_pre[b][a];
            fl->torque[b][a] += fl->torque_pre[b][a];
        }
    }
}

void floating_xform(const sim *s, int b, rigid_xform *T)
{
    rigid_body_xform(&s->floating->props[b], &s->floating->state[b], s->sc->dim, T);
}

void floating_free(sim *s)
{
    floating *fl = s->floating;
    if (!fl)
        return;
    free(fl->props);
    free(fl->state);
    free(fl->state0);
    free(fl->force);
    free(fl->torque);
    free(fl->sums);
    free(fl->force_pre);
    free(fl->torque_pre);
    free(fl);
    s->floating = NULL;
}
