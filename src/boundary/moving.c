/* moving.c: the particles of moving walls: which body each follows and its reference position
 * (fields added with particles_add_field, so cell rebuilds reorder them and checkpoints carry
 * them), and placing them at a time (the pass of moving.h). */
#include "boundary_passes.h"

#include "core/motion.h"
#include "core/sim.h"
#include "geometry/scene_build.h"

#include <math.h>
#include <stdlib.h>

void moving_walls_prepare(sim *s)
{
    motion_args *a = &s->args.motion;
    a->xf = NULL;
    a->body = -1;
    s->args.floating.nfloat = 0;
    for (int d = 0; d < 3; ++d)
        s->args.floating.acc[d] = -1;
    for (int d = 0; d < 3; ++d)
        a->ref[d] = a->vec[d] = a->vec_ref[d] = -1;
}

static int add_field(sim *s, const char *name, int *slot, sl_err *err)
{
    if ((*slot = particles_add_field(&s->p, name, 0)) < 0)
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory or field slots for the moving walls' field %s", name);
    return SL_OK;
}

/* Each body's reference box centre and the farthest of its particles from it (the speed bound): two
 * sweeps over the particles whatever the number of bodies. */
static int body_extent(sim *s, const real *body, sl_err *err)
{
    motion *m = s->motion;
    const particles *p = &s->p;
    int dim = s->sc->dim;
    double(*lo)[3] = m->centre; /* the boxes' corners, then the centres */
    double(*hi)[3] = malloc((size_t)m->nbodies * sizeof *hi);
    if (!hi)
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the moving walls");
    for (int b = 0; b < m->nbodies; ++b) {
        m->radius[b] = 0;
        for (int a = 0; a < 3; ++a) {
            lo[b][a] = a < dim ? INFINITY : 0.0;
            hi[b][a] = a < dim ? -INFINITY : 0.0;
        }
    }
    for (size_t i = 0; i < p->n; ++i) {
        int b = (int)body[i];
        for (int a = 0; b >= 0 && a < dim; ++a) {
            lo[b][a] = fmin(lo[b][a], p->f[PF_X + a][i]);
            hi[b][a] = fmax(hi[b][a], p->f[PF_X + a][i]);
        }
    }
    for (int b = 0; b < m->nbodies; ++b)
        for (int a = 0; a < 3; ++a)
            m->centre[b][a] = a < dim && isfinite(lo[b][a]) ? 0.5 * (lo[b][a] + hi[b][a]) : 0.0;
    free(hi);
    for (size_t i = 0; i < p->n; ++i) {
        int b = (int)body[i];
        if (b < 0)
            continue;
        double d2 = 0;
        for (int a = 0; a < dim; ++a)
            d2 += (p->f[PF_X + a][i] - m->centre[b][a]) * (p->f[PF_X + a][i] - m->centre[b][a]);
        m->radius[b] = fmax(m->radius[b], sqrt(d2));
    }
    return SL_OK;
}

int moving_walls_setup(sim *s, sl_err *err)
{
    const scene *sc = s->sc;
    SL_TRY(motion_create(s, err));
    motion *m = s->motion;
    if (!m)
        return SL_OK;
    particles *p = &s->p;
    motion_args *a = &s->args.motion;
    static const char *const ref_names[3] = {"motion_rx", "motion_ry", "motion_rz"};
    static const char *const vec_names[3] = {"motion_qx", "motion_qy", "motion_qz"};
    SL_TRY(add_field(s, "motion_body", &a->body, err));
    for (int d = 0; d < sc->dim; ++d)
        SL_TRY(add_field(s, ref_names[d], &a->ref[d], err));
    int turns = s->floating != NULL; /* a floating body may turn */
    for (int b = 0; b < m->nbodies; ++b)
        turns |= m->law[b]->law == MOTION_ROTATION;
    if (turns && a->vec[0] >= 0)
        for (int d = 0; d < sc->dim; ++d)
            SL_TRY(add_field(s, vec_names[d], &a->vec_ref[d], err));

    if (s->floating) { /* the force pass's output: rates, written after every cell rebuild */
        static const char *const acc_names[3] = {"float_ax", "float_ay", "float_az"};
        s->args.floating.acc[2] = -1;
        for (int d = 0; d < sc->dim; ++d)
            if ((s->args.floating.acc[d] = particles_add_field(p, acc_names[d], 1)) < 0)
                return sl_fail(err, SL_ERR_RUNTIME, "out of memory or field slots for the floating bodies");
    }

    /* the items' particles, by the ids the builder gave them */
    size_t *first = calloc((size_t)sc->ngeom, sizeof *first), *count = calloc((size_t)sc->ngeom, sizeof *count);
    int *body_of_id = malloc(p->n * sizeof *body_of_id);
    int rc = first && count && body_of_id ? SL_OK
                                          : sl_fail(err, SL_ERR_RUNTIME, "out of memory for the moving walls");
    if (rc == SL_OK)
        rc = scene_item_ranges(sc, first, count, err);
    if (rc == SL_OK) {
        for (size_t id = 0; id < p->n; ++id)
            body_of_id[id] = -1;
        for (int b = 0; b < m->nbodies; ++b)
            for (size_t id = first[m->item[b]]; id < first[m->item[b]] + count[m->item[b]] && id < p->n; ++id)
                body_of_id[id] = b;
        real *body = p->f[a->body];
        for (size_t i = 0; i < p->n; ++i) {
            body[i] = (real)body_of_id[p->id[i]];
            for (int d = 0; d < sc->dim; ++d) {
                p->f[a->ref[d]][i] = p->f[PF_X + d][i];
                if (a->vec_ref[0] >= 0)
                    p->f[a->vec_ref[d]][i] = p->f[a->vec[d]][i];
            }
        }
        rc = body_extent(s, body, err);
    }
    if (rc == SL_OK) {
        /* the walls' velocities at t = 0 (their places are the reference ones: every law starts at
         * the identity), on the host: the backend takes the state later */
        motion_eval_host(s, 0.0);
        pass_ctx c = sim_host_ctx(s);
        c.a.motion.xf = m->xf;
        for (size_t i = 0; i < p->n; ++i)
            moving_place_body(&c, (int32_t)i);
    }
    free(first);
    free(count);
    free(body_of_id);
    return rc;
}

int moving_walls_place(sim *s, double t, sl_err *err)
{
    if (!s->motion)
        return SL_OK;
    SL_TRY(motion_eval(s, t, err));
    /* the particles inside the grid, as every pass: the domain holds every place a body goes */
    s->be->run_pass(s, &moving_place_pass, s->g.n_inside);
    return SL_OK;
}
