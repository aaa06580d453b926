/* shapes.c: non-box geometry items: placement (scale, rotation, translation), bounding boxes, and
 * their lattice points from a signed distance (primitives) or the mesh sampler (STL meshes). */
#include "shapes.h"

#include "mesh_sample.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEG (3.14159265358979323846 / 180.0)

/* x' = R (s x) + t, R = Rz Ry Rx. */
typedef struct placement {
    double r[3][3], s, t[3];
} placement;

static void placement_of(const scene *sc, const scene_geom *g, placement *pl)
{
    double ax = sc->dim == 3 ? g->rotate[0] * DEG : 0.0, ay = sc->dim == 3 ? g->rotate[1] * DEG : 0.0;
    double az = g->rotate[2] * DEG;
    double cx = cos(ax), sx = sin(ax), cy = cos(ay), sy = sin(ay), cz = cos(az), sz = sin(az);
    double r[3][3] = {{cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx},
                      {sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx},
                      {-sy, cy * sx, cy * cx}};
    memcpy(pl->r, r, sizeof r);
    pl->s = g->scale > 0 ? g->scale : 1.0;
    for (int d = 0; d < 3; ++d)
        pl->t[d] = d < sc->dim ? g->translate[d] : 0.0;
}

static void to_world(const placement *pl, const double l[3], double w[3])
{
    for (int a = 0; a < 3; ++a)
        w[a] = pl->s * (pl->r[a][0] * l[0] + pl->r[a][1] * l[1] + pl->r[a][2] * l[2]) + pl->t[a];
}

static void to_local(const placement *pl, const double w[3], double l[3])
{
    double q[3] = {w[0] - pl->t[0], w[1] - pl->t[1], w[2] - pl->t[2]};
    for (int a = 0; a < 3; ++a)
        l[a] = (pl->r[0][a] * q[0] + pl->r[1][a] * q[1] + pl->r[2][a] * q[2]) / pl->s;
}

/* ---- meshes ------------------------------------------------------------------------------------ */

void shape_mesh_path(const scene *sc, const scene_geom *g, char *buf, size_t n)
{
    const char *slash = strrchr(sc->path, '/');
    if (g->mesh[0] == '/' || !slash)
        snprintf(buf, n, "%s", g->mesh);
    else
        snprintf(buf, n, "%.*s/%s", (int)(slash - sc->path), sc->path, g->mesh);
}

int shape_load_mesh(const scene *sc, const scene_geom *g, stl_mesh *m, sl_err *err)
{
    char path[SCENE_PATH_MAX + SCENE_MESH_PATH_MAX];
    shape_mesh_path(sc, g, path, sizeof path);
    SL_TRY(stl_read(path, m, err));
    placement pl;
    placement_of(sc, g, &pl);
    for (size_t i = 0; i < 3 * m->ntri; ++i) {
        double *v = m->xyz + 3 * i, w[3];
        to_world(&pl, v, w);
        memcpy(v, w, sizeof w);
    }
    return SL_OK;
}

/* ---- primitives: signed distance in the item's own frame (negative inside) ---------------------- */

static double sd_wedge(const scene *sc, const scene_geom *g, const double *p)
{
    int up = sc->dim - 1, a = g->slope >= SLOPE_PLUS_Y ? 1 : 0;
    int plus = g->slope == SLOPE_PLUS_X || g->slope == SLOPE_PLUS_Y;
    double w = g->wedge_max[a] - g->wedge_min[a], h = g->wedge_max[up] - g->wedge_min[up], len = sqrt(w * w + h * h);
    double sd = g->wedge_min[up] - p[up];                                  /* the floor */
    sd = fmax(sd, plus ? g->wedge_min[a] - p[a] : p[a] - g->wedge_max[a]); /* the high side */
    if (sc->dim == 3) {                                                    /* the ends of the prism */
        int e = 1 - a;
        sd = fmax(sd, fmax(g->wedge_min[e] - p[e], p[e] - g->wedge_max[e]));
    }
    double slope = plus ? (h * (p[a] - g->wedge_max[a]) + w * (p[up] - g->wedge_min[up])) / len
                        : (-h * (p[a] - g->wedge_min[a]) + w * (p[up] - g->wedge_min[up])) / len;
    return fmax(sd, slope);
}

static double sd_local(const scene *sc, const scene_geom *g, const double *p)
{
    int dim = sc->dim;
    double q[3] = {0, 0, 0};
    for (int d = 0; d < dim; ++d)
        q[d] = p[d] - g->center[d];
    switch (g->shape) {
    case SHAPE_SPHERE:
        return sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]) - g->radius;
    case SHAPE_CYLINDER: {
        if (dim == 2)
            return sqrt(q[0] * q[0] + q[1] * q[1]) - g->radius;
        double h = q[0] * g->axis[0] + q[1] * g->axis[1] + q[2] * g->axis[2], r2 = 0;
        for (int d = 0; d < 3; ++d) {
            double o = q[d] - h * g->axis[d];
            r2 += o * o;
        }
        double dr = sqrt(r2) - g->radius, dh = fabs(h) - 0.5 * g->length;
        double out = sqrt(fmax(dr, 0) * fmax(dr, 0) + fmax(dh, 0) * fmax(dh, 0));
        return fmin(fmax(dr, dh), 0.0) + out;
    }
    case SHAPE_WEDGE:
        return sd_wedge(sc, g, p);
    case SHAPE_PLANE: /* the solid is behind the normal */
        return (p[0] - g->point[0]) * g->normal[0] + (p[1] - g->point[1]) * g->normal[1] +
               (dim == 3 ? (p[2] - g->point[2]) * g->normal[2] : 0.0);
    default:
        return INFINITY;
    }
}

/* ---- bounds and estimates ------------------------------------------------------------------------ */

int shape_bounds(const scene *sc, const scene_geom *g, double lo[3], double hi[3], sl_err *err)
{
    int dim = sc->dim;
    placement pl;
    placement_of(sc, g, &pl);
    for (int d = 0; d < 3; ++d)
        lo[d] = hi[d] = 0.0;
    switch (g->shape) {
    case SHAPE_BOX:
        memcpy(lo, g->min, 3 * sizeof *lo);
        memcpy(hi, g->max, 3 * sizeof *hi);
        return SL_OK;
    case SHAPE_MESH: {
        stl_mesh m;
        SL_TRY(shape_load_mesh(sc, g, &m, err));
        mesh_bounds(&m, lo, hi);
        stl_free(&m);
        return SL_OK;
    }
    case SHAPE_SPHERE:
    case SHAPE_CYLINDER: {
        double c[3] = {g->center[0], g->center[1], dim == 3 ? g->center[2] : 0.0}, cw[3], aw[3] = {0, 0, 0};
        to_world(&pl, c, cw);
        for (int a = 0; a < 3; ++a)
            aw[a] = pl.r[a][0] * g->axis[0] + pl.r[a][1] * g->axis[1] + pl.r[a][2] * g->axis[2];
        for (int d = 0; d < dim; ++d) {
            double ext = pl.s * g->radius;
            if (g->shape == SHAPE_CYLINDER && dim == 3)
                ext = fabs(aw[d]) * 0.5 * pl.s * g->length + pl.s * g->radius * sqrt(fmax(0.0, 1.0 - aw[d] * aw[d]));
            lo[d] = cw[d] - ext;
            hi[d] = cw[d] + ext;
        }
        return SL_OK;
    }
    case SHAPE_WEDGE:
        for (int d = 0; d < dim; ++d) {
            lo[d] = INFINITY;
            hi[d] = -INFINITY;
        }
        for (int corner = 0; corner < (1 << dim); ++corner) {
            double l[3] = {0, 0, 0}, w[3];
            for (int d = 0; d < dim; ++d)
                l[d] = (corner >> d) & 1 ? g->wedge_max[d] : g->wedge_min[d];
            to_world(&pl, l, w);
            for (int d = 0; d < dim; ++d) {
                lo[d] = fmin(lo[d], w[d]);
                hi[d] = fmax(hi[d], w[d]);
            }
        }
        return SL_OK;
    case SHAPE_PLANE:
        if (!sc->domain_set)
            return sl_fail(err, SL_ERR_INPUT, "a plane is bounded by the domain: it needs simulation.domain_min "
                           "and domain_max");
        memcpy(lo, sc->domain_min, 3 * sizeof *lo);
        memcpy(hi, sc->domain_max, 3 * sizeof *hi);
        return SL_OK;
    }
    return SL_OK;
}

double shape_particles_estimate(const scene *sc, const scene_geom *g)
{
    double pad = g->kind == GEOM_TANK && g->shape != SHAPE_PLANE ? 2.0 * g->layers : 0.0, c = 1, face = 0;
    for (int a = 0; a < sc->dim; ++a) {
        double cells = fmax(floor((g->max[a] - g->min[a]) / sc->dp) + 1.0 + pad, 1.0);
        c *= cells;
    }
    if (g->shape != SHAPE_PLANE)
        return c;
    /* a plane cuts the domain in at most sqrt(dim) times its largest face; layers + 1 thick */
    for (int a = 0; a < sc->dim; ++a)
        face = fmax(face, c / fmax(floor((g->max[a] - g->min[a]) / sc->dp) + 1.0, 1.0));
    return 2.0 * face * (g->layers + 1);
}

/* ---- sampling ------------------------------------------------------------------------------------ */

typedef struct top_filter {
    lattice_visit fn;
    void *ctx;
    double top;
    int up;
} top_filter;

static void below_top(void *ctx, const double pos[3], int layer)
{
    top_filter *f = ctx;
    if (pos[f->up] <= f->top)
        f->fn(f->ctx, pos, layer);
}

static enum sample_mode mode_of(const scene_geom *g)
{
    if (g->shape == SHAPE_PLANE)
        return SAMPLE_BAND_IN;
    return g->kind == GEOM_FLUID ? SAMPLE_FILL : g->kind == GEOM_OBSTACLE ? SAMPLE_BAND_IN : SAMPLE_BAND_OUT;
}

static int sample_primitive(const scene *sc, const scene_geom *g, enum sample_mode mode, const double lo[3],
                            const double hi[3], lattice_visit fn, void *ctx, sl_err *err)
{
    int dim = sc->dim;
    double dp = sc->dp, band = g->layers * dp, grow = mode == SAMPLE_BAND_OUT ? band : 0.0;
    placement pl;
    placement_of(sc, g, &pl);
    int64_t first[3] = {0, 0, 0}, last[3] = {0, 0, 0};
    for (int d = 0; d < dim; ++d) {
        if (!lattice_fits(lo[d] - grow, hi[d] + grow, dp))
            return sl_fail(err, SL_ERR_INPUT, "%s: line %d: the shape reaches beyond %g spacings from the origin",
                           sc->path, g->line, LATTICE_INDEX_MAX);
        lattice_range(lo[d] - grow, hi[d] + grow, dp, &first[d], &last[d]);
    }
    for (int64_t k = first[2]; k <= last[2]; ++k)
        for (int64_t j = first[1]; j <= last[1]; ++j)
            for (int64_t i = first[0]; i <= last[0]; ++i) {
                double p[3] = {lattice_at(i, dp), lattice_at(j, dp), dim == 3 ? lattice_at(k, dp) : 0.0}, l[3];
                to_local(&pl, p, l);
                if (dim == 2)
                    l[2] = 0.0;
                double sd = pl.s * sd_local(sc, g, l);
                if (mode == SAMPLE_FILL) {
                    if (sd <= 0)
                        fn(ctx, p, 0);
                    continue;
                }
                double d = fabs(sd);
                if ((mode == SAMPLE_BAND_IN ? sd <= 0 : sd > 0) && d < band) {
                    int layer = (int)floor(d / dp);
                    fn(ctx, p, layer < g->layers ? layer : g->layers - 1);
                }
            }
    return SL_OK;
}

int shape_sample(const scene *sc, const scene_geom *g, lattice_visit fn, void *ctx, sl_err *err)
{
    double lo[3], hi[3];
    enum sample_mode mode = mode_of(g);
    stl_mesh m = {0, NULL};
    if (g->shape == SHAPE_MESH) {
        SL_TRY(shape_load_mesh(sc, g, &m, err));
        mesh_bounds(&m, lo, hi);
    } else {
        SL_TRY(shape_bounds(sc, g, lo, hi, err));
    }
    top_filter f = {fn, ctx, hi[sc->dim - 1], sc->dim - 1};
    if (g->kind == GEOM_TANK && !g->closed_top && g->shape != SHAPE_PLANE) {
        fn = below_top;
        ctx = &f;
    }
    int rc = SL_OK;
    if (g->shape == SHAPE_MESH) {
        char path[SCENE_PATH_MAX + SCENE_MESH_PATH_MAX];
        shape_mesh_path(sc, g, path, sizeof path);
        rc = mesh_sample(&m, sc->dp, mode, g->layers, fn, ctx, path, err);
        stl_free(&m);
    } else {
        rc = sample_primitive(sc, g, mode, lo, hi, fn, ctx, err);
    }
    return rc;
}

/* ---- one point ---------------------------------------------------------------------------------- */

double shape_signed_distance(const scene *sc, const scene_geom *g, const stl_mesh *m, const double p[3])
{
    int dim = sc->dim;
    if (g->shape == SHAPE_BOX) { /* as given: no placement */
        double out = 0, in = -INFINITY;
        for (int a = 0; a < dim; ++a) {
            double d = fmax(g->min[a] - p[a], p[a] - g->max[a]);
            out += fmax(d, 0) * fmax(d, 0);
            in = fmax(in, d);
        }
        return in > 0 ? sqrt(out) : in;
    }
    if (g->shape == SHAPE_MESH)
        return m ? mesh_signed_distance(m, p) : INFINITY;
    placement pl;
    placement_of(sc, g, &pl);
    double l[3];
    to_local(&pl, p, l);
    if (dim == 2)
        l[2] = 0.0;
    return pl.s * sd_local(sc, g, l);
}
