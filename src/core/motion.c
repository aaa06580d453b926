/* motion.c: the moving walls' bodies: their laws, their transforms at a time, and the copy the
 * passes read (through backend.upload, so a GPU pass reads device memory). The particles' side (which
 * body a particle follows, its reference position, the pass that places it) is boundary/moving.c. */
#include "motion.h"

#include "floating.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int motion_create(sim *s, sl_err *err)
{
    const scene *sc = s->sc;
    int n = 0;
    for (int k = 0; k < sc->ngeom; ++k)
        n += sc->geom[k].kind != GEOM_FLUID && (sc->geom[k].motion.law != MOTION_NONE || sc->geom[k].floating.enabled);
    if (n == 0)
        return SL_OK;
    motion *m = calloc(1, sizeof *m);
    if (!m)
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the moving walls");
    s->motion = m;
    m->law = calloc((size_t)n, sizeof *m->law);
    m->item = calloc((size_t)n, sizeof *m->item);
    m->xf = calloc((size_t)n, sizeof *m->xf);
    m->centre = calloc((size_t)n, sizeof *m->centre);
    m->radius = calloc((size_t)n, sizeof *m->radius);
    if (!m->law || !m->item || !m->xf || !m->centre || !m->radius)
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the moving walls");
    /* floating bodies first, in item order, as core/floating.c numbers them */
    for (int pass = 0; pass < 2; ++pass)
        for (int k = 0; k < sc->ngeom; ++k)
            if (sc->geom[k].kind != GEOM_FLUID &&
                (pass == 0 ? sc->geom[k].floating.enabled
                           : !sc->geom[k].floating.enabled && sc->geom[k].motion.law != MOTION_NONE)) {
                m->law[m->nbodies] = &sc->geom[k].motion;
                m->item[m->nbodies] = k;
                rigid_xform_identity(&m->xf[m->nbodies]);
                m->nbodies++;
            }
    return floating_create(s, err);
}

void motion_eval_host(sim *s, double t)
{
    motion *m = s->motion;
    int nfloat = s->floating ? s->floating->n : 0;
    for (int b = 0; m && b < m->nbodies; ++b) {
        if (b < nfloat) /* its state, which the scheme has brought to t */
            floating_xform(s, b, &m->xf[b]);
        else
            rigid_law_eval(m->law[b], s->sc->dim, t, &m->xf[b]);
    }
}

int motion_eval(sim *s, double t, sl_err *err)
{
    motion *m = s->motion;
    if (!m)
        return SL_OK;
    motion_eval_host(s, t);
    size_t bytes = (size_t)m->nbodies * sizeof *m->xf;
    if (!s->be->upload) {
        s->args.motion.xf = m->xf;
        return SL_OK;
    }
    const void *dev = s->be->upload(s, &m->dev, m->xf, bytes);
    if (!dev) {
        int rc = sim_backend_error(s, err);
        return rc ? rc : sl_fail(err, SL_ERR_RUNTIME, "the moving walls' transforms could not be copied");
    }
    s->args.motion.xf = (const rigid_xform *)dev;
    return SL_OK;
}

double motion_max_speed(const sim *s)
{
    const motion *m = s->motion;
    double vmax = 0;
    for (int b = 0; m && b < m->nbodies; ++b) {
        /* at s->t from the law, not the last placement's transform: a restart, which has placed
         * nothing yet, takes the same time step as the run it continues */
        rigid_xform T;
        if (s->floating && b < s->floating->n) /* its state at s->t (a restart reads it back) */
            floating_xform(s, b, &T);
        else
            rigid_law_eval(m->law[b], s->sc->dim, s->t, &T);
        double x[3], v[3];
        rigid_xform_point(&T, m->centre[b], x, v);
        double w = sqrt(T.w[0] * T.w[0] + T.w[1] * T.w[1] + T.w[2] * T.w[2]);
        vmax = fmax(vmax, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + w * m->radius[b]);
    }
    return vmax;
}

void motion_free(sim *s)
{
    motion *m = s->motion;
    if (!m)
        return;
    if (s->be && s->be->buffer_free)
        s->be->buffer_free(s, &m->dev);
    free(m->law);
    free(m->item);
    free(m->xf);
    free(m->centre);
    free(m->radius);
    free(m);
    s->motion = NULL;
}
