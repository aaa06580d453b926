/* scene_build.c: lattice generation for fluid boxes, hollow tanks and obstacle boxes; the other
 * shapes through shapes.c. */
#include "scene_build.h"

#include "shapes.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Lattice points of a box along one axis: min + (i + 1/2) dp for i in [0, cells). A box whose
 * extent is within 1e-6 dp of a whole number of spacings gets that number. Fluid boxes and tanks take
 * the whole spacings that fit (the fluid stays inside its tank's walls, a lattice spacing from them);
 * an obstacle takes the nearest whole number (at least one), so its particles' surface lies within
 * dp/2 of each max face instead of up to dp short of it: SPHERIC Test 2's box (0.161 m) at dp = 27.5
 * mm was 5 spacings, its impact face and top 23.5 mm short, where the pressure sensors sit. */
static int64_t cells_along(double extent, double dp, enum geom_kind kind)
{
    if (kind == GEOM_OBSTACLE) {
        int64_t n = (int64_t)floor(extent / dp + 0.5);
        return n > 0 ? n : 1;
    }
    return (int64_t)floor(extent / dp + 1e-6);
}

/* Receives the lattice points of the geometry items; with p == NULL it only counts them. */
typedef struct emitter {
    particles *p;   /* NULL: count only */
    size_t next;
    int dim;
    lattice_visit fn; /* with p NULL: every point handed to fn too (scene_item_fill) */
    void *ctx;
} emitter;

static void emit(emitter *em, const double pos[3], const double vel[3], enum particle_type t, int64_t layer)
{
    if (em->p && em->next < em->p->n) { /* the count and the build visit the same points */
        particles *p = em->p;
        size_t i = em->next;
        p->f[PF_X][i] = (real)pos[0];
        p->f[PF_Y][i] = (real)pos[1];
        p->f[PF_Z][i] = em->dim == 3 ? (real)pos[2] : (real)0;
        p->f[PF_VX][i] = (real)vel[0];
        p->f[PF_VY][i] = (real)vel[1];
        p->f[PF_VZ][i] = em->dim == 3 ? (real)vel[2] : (real)0;
        p->type[i] = (uint8_t)t;
        p->tag[i] = (uint8_t)(layer < 255 ? layer : 255);
    } else if (em->fn) {
        em->fn(em->ctx, pos, (int)(layer < 255 ? layer : 255));
    }
    em->next++;
}

/* Whether item gm spans the whole period of periodic axis a (its faces lie on the seam). */
int scene_spans_period(const scene *sc, const scene_geom *gm, int a)
{
    if (!((sc->periodic >> a) & 1u))
        return 0;
    double tol = 1e-6 * sc->dp;
    return fabs(gm->min[a] - sc->domain_min[a]) < tol && fabs(gm->max[a] - sc->domain_max[a]) < tol;
}

/* Visits the lattice points of one item: tanks add `layers` layers outside their inner box,
 * obstacles keep only their outer `layers` layers. */
static void walk_item(const scene *sc, const scene_geom *gm, emitter *em)
{
    double dp = sc->dp;
    int dim = sc->dim;
    int64_t n[3] = {1, 1, 1}, lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    int L = gm->layers;
    for (int a = 0; a < dim; ++a) {
        n[a] = cells_along(gm->max[a] - gm->min[a], dp, gm->kind);
        lo[a] = gm->kind == GEOM_TANK ? -L : 0;
        hi[a] = gm->kind == GEOM_TANK ? n[a] + L - 1 : n[a] - 1;
    }
    int up = dim - 1;
    if (gm->kind == GEOM_TANK && !gm->closed_top)
        hi[up] = n[up] - 1;
    /* an obstacle that spans a whole period continues across the seam: its faces there are no
     * surface (a channel's plate would otherwise be walls through its thickness at the seam, where
     * MPS solves for their pressure and mDBC mirrors the fluid) */
    unsigned endless = 0;
    for (int a = 0; a < dim; ++a)
        if (gm->kind == GEOM_OBSTACLE && scene_spans_period(sc, gm, a))
            endless |= 1u << a;
    static const double zero[3] = {0, 0, 0};
    for (int64_t k = lo[2]; k <= hi[2]; ++k)
        for (int64_t j = lo[1]; j <= hi[1]; ++j)
            for (int64_t i = lo[0]; i <= hi[0]; ++i) {
                int64_t idx[3] = {i, j, k};
                int inside = 1;     /* strictly inside the inner box (tank) */
                int64_t out = 0;    /* tank: layers outside the inner box (0 = touching it) */
                int64_t depth = INT64_MAX; /* obstacle: layers below its surface (0 = on it) */
                for (int a = 0; a < dim; ++a) {
                    inside &= idx[a] >= 0 && idx[a] < n[a];
                    int64_t o = idx[a] < 0 ? -idx[a] - 1 : idx[a] >= n[a] ? idx[a] - n[a] : 0;
                    out = o > out ? o : out;
                    int64_t d = idx[a] < n[a] - 1 - idx[a] ? idx[a] : n[a] - 1 - idx[a];
                    if (!((endless >> a) & 1u))
                        depth = d < depth ? d : depth;
                }
                double pos[3] = {0, 0, 0};
                for (int a = 0; a < dim; ++a)
                    pos[a] = gm->min[a] + ((double)idx[a] + 0.5) * dp;
                switch (gm->kind) {
                case GEOM_FLUID:
                    emit(em, pos, gm->velocity, PT_FLUID, 0);
                    break;
                case GEOM_TANK:
                    if (!inside)
                        emit(em, pos, zero, PT_WALL, out);
                    break;
                case GEOM_OBSTACLE:
                    if (depth < L)
                        emit(em, pos, zero, PT_OBSTACLE, depth);
                    break;
                }
            }
}

/* A point of a non-box shape into the emitter (the shape sampler's visitor). */
typedef struct shape_emit {
    emitter *em;
    const scene_geom *g;
} shape_emit;

static void emit_shape_point(void *ctx, const double pos[3], int layer)
{
    const shape_emit *se = ctx;
    static const double zero[3] = {0, 0, 0};
    switch (se->g->kind) {
    case GEOM_FLUID:
        emit(se->em, pos, se->g->velocity, PT_FLUID, 0);
        break;
    case GEOM_TANK:
        emit(se->em, pos, zero, PT_WALL, layer);
        break;
    case GEOM_OBSTACLE:
        emit(se->em, pos, zero, PT_OBSTACLE, layer);
        break;
    }
}

/* One item: boxes by walk_item, the other shapes by their sampler (which may fail: a mesh file). */
static int visit_item(const scene *sc, const scene_geom *gm, emitter *em, sl_err *err)
{
    if (gm->shape == SHAPE_BOX) {
        walk_item(sc, gm, em);
        return SL_OK;
    }
    shape_emit se = {em, gm};
    return shape_sample(sc, gm, emit_shape_point, &se, err);
}

int scene_item_fill(const scene *sc, const scene_geom *g, lattice_visit fn, void *ctx, sl_err *err)
{
    scene_geom solid = *g; /* the same shape as fluid: every lattice point inside */
    solid.kind = GEOM_FLUID;
    emitter em = {NULL, 0, sc->dim, fn, ctx};
    return visit_item(sc, &solid, &em, err);
}

static int count_kind(const scene *sc, enum geom_kind kind, size_t *count, sl_err *err)
{
    emitter em = {NULL, 0, sc->dim, NULL, NULL};
    for (int k = 0; k < sc->ngeom; ++k)
        if (sc->geom[k].kind == kind)
            SL_TRY(visit_item(sc, &sc->geom[k], &em, err));
    *count = em.next;
    return SL_OK;
}

double scene_item_particles_estimate(const scene *sc, const scene_geom *g)
{
    if (g->shape != SHAPE_BOX)
        return shape_particles_estimate(sc, g);
    double pad = g->kind == GEOM_TANK ? 2.0 * g->layers : 0.0, c = 1;
    for (int a = 0; a < sc->dim; ++a)
        c *= floor((g->max[a] - g->min[a]) / sc->dp + 1e-6) + pad;
    return c;
}

static double estimate(const scene *sc)
{
    double total = 0;
    for (int k = 0; k < sc->ngeom; ++k)
        total += scene_item_particles_estimate(sc, &sc->geom[k]);
    return total;
}

int scene_count_particles(const scene *sc, scene_counts *out, sl_err *err)
{
    memset(out, 0, sizeof *out);
    double est = estimate(sc);
    if (est > (double)SCENE_PARTICLES_MAX)
        return sl_fail(err, SL_ERR_INPUT,
                       "%s: key 'numerics.spacing': %g m gives about %.3g particles, more than the "
                       "%d one run can hold (accepted: a coarser spacing)",
                       sc->path, sc->dp, est, SCENE_PARTICLES_MAX);
    SL_TRY(count_kind(sc, GEOM_FLUID, &out->fluid, err));
    SL_TRY(count_kind(sc, GEOM_TANK, &out->wall, err));
    SL_TRY(count_kind(sc, GEOM_OBSTACLE, &out->obstacle, err));
    out->total = out->fluid + out->wall + out->obstacle;
    if (out->fluid == 0)
        return sl_fail(err, SL_ERR_INPUT, "%s: key 'geometry': no fluid particle fits the fluid boxes at "
                       "spacing %g m (accepted: boxes at least one spacing thick)", sc->path, sc->dp);
    return SL_OK;
}

int scene_build_particles(const scene *sc, particles *p, sl_err *err)
{
    scene_counts c;
    int rc = scene_count_particles(sc, &c, err);
    if (rc)
        return rc;
    rc = particles_alloc(p, c.total, err);
    if (rc)
        return rc;
    emitter em = {p, 0, sc->dim, NULL, NULL};
    static const enum geom_kind order[3] = {GEOM_FLUID, GEOM_TANK, GEOM_OBSTACLE};
    for (int o = 0; o < 3; ++o)
        for (int k = 0; k < sc->ngeom; ++k)
            if (sc->geom[k].kind == order[o] && (rc = visit_item(sc, &sc->geom[k], &em, err)) != SL_OK) {
                particles_free(p);
                return rc;
            }
    return SL_OK;
}

void scene_motion_sweep(const scene_motion *m, int dim, double t_end, double lo[3], double hi[3])
{
    if (m->law == MOTION_SINE) {
        for (int a = 0; a < dim; ++a) { /* d = A (sin(...) - sin phi) lies in [-2|A|, 2|A|] */
            lo[a] -= 2.0 * fabs(m->amplitude[a]);
            hi[a] += 2.0 * fabs(m->amplitude[a]);
        }
    } else if (m->law == MOTION_GATE) {
        double run = fmax(0.0, fmin(m->stop, t_end) - m->start); /* the ramps only shorten the way */
        for (int a = 0; a < dim; ++a) {
            double d = m->velocity[a] * run;
            lo[a] += d < 0 ? d : 0.0;
            hi[a] += d > 0 ? d : 0.0;
        }
    } else if (m->law == MOTION_ROTATION) { /* the ball about the pivot through the farthest corner */
        double r2 = 0;
        for (int a = 0; a < dim; ++a) {
            double e = fmax(fabs(lo[a] - m->pivot[a]), fabs(hi[a] - m->pivot[a]));
            r2 += e * e;
        }
        double r = sqrt(r2);
        for (int a = 0; a < dim; ++a) {
            lo[a] = fmin(lo[a], m->pivot[a] - r);
            hi[a] = fmax(hi[a], m->pivot[a] + r);
        }
    }
}

int scene_item_ranges(const scene *sc, size_t *first, size_t *count, sl_err *err)
{
    emitter em = {NULL, 0, sc->dim, NULL, NULL};
    static const enum geom_kind order[3] = {GEOM_FLUID, GEOM_TANK, GEOM_OBSTACLE};
    for (int o = 0; o < 3; ++o)
        for (int k = 0; k < sc->ngeom; ++k)
            if (sc->geom[k].kind == order[o]) {
                first[k] = em.next;
                SL_TRY(visit_item(sc, &sc->geom[k], &em, err));
                count[k] = em.next - first[k];
            }
    return SL_OK;
}

void scene_domain(const scene *sc, double r_max, double dmin[3], double dmax[3])
{
    if (sc->domain_set) {
        memcpy(dmin, sc->domain_min, sizeof sc->domain_min);
        memcpy(dmax, sc->domain_max, sizeof sc->domain_max);
        return;
    }
    int up = sc->dim - 1;
    double headroom = 0;
    for (int a = 0; a < 3; ++a) {
        dmin[a] = INFINITY;
        dmax[a] = -INFINITY;
    }
    for (int k = 0; k < sc->ngeom; ++k) {
        const scene_geom *gm = &sc->geom[k];
        double pad = gm->kind == GEOM_TANK ? gm->layers * sc->dp : 0.0;
        double lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
            lo[a] = gm->min[a] - pad;
            hi[a] = gm->max[a] + pad;
        }
        scene_motion_sweep(&gm->motion, sc->dim, sc->end_time, lo, hi); /* a moving wall stays inside */
        for (int a = 0; a < sc->dim; ++a) {
            dmin[a] = fmin(dmin[a], lo[a]);
            dmax[a] = fmax(dmax[a], hi[a]);
        }
        if (gm->kind == GEOM_TANK && !gm->closed_top)
            headroom = fmax(headroom, gm->max[up] - gm->min[up]);
    }
    for (int a = 0; a < sc->dim; ++a) {
        dmin[a] -= r_max;
        dmax[a] += r_max;
    }
    dmax[up] += headroom;
    for (int a = sc->dim; a < 3; ++a)
        dmin[a] = dmax[a] = 0;
}

double scene_fluid_height(const scene *sc)
{
    int up = sc->dim - 1;
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < sc->ngeom; ++k) {
        const scene_geom *gm = &sc->geom[k];
        if (gm->kind != GEOM_FLUID)
            continue;
        lo = fmin(lo, gm->min[up]);
        hi = fmax(hi, gm->max[up]);
    }
    return hi > lo ? hi - lo : 0.0;
}

double scene_fluid_depth_above(const scene *sc, const double pos[3])
{
    int up = sc->dim - 1;
    double depth = 0.0;
    for (int k = 0; k < sc->ngeom; ++k) {
        const scene_geom *gm = &sc->geom[k];
        if (gm->kind != GEOM_FLUID)
            continue;
        int inside = 1;
        for (int a = 0; a < up; ++a)
            inside &= pos[a] >= gm->min[a] && pos[a] <= gm->max[a];
        if (inside && pos[up] <= gm->max[up] && gm->max[up] - pos[up] > depth)
            depth = gm->max[up] - pos[up];
    }
    return depth;
}
