/* scene_check.c: the scene loader's cross-checks once keys are read: the groups' `after` callbacks
 * (simulation, viewer, probes, grid) and the geometry items against each other and the domain. */
#include "scene_keys.h"
#include "probe_points.h"

#include "geometry/scene_build.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define BOX_TOL 1e-9 /* box comparisons: tolerance relative to the box size */

/* ---- simulation and viewer ---------------------------------------------------------------- */

int sk_simulation_after(sk_ctx *c, const config_setting_t *g)
{
    scene *sc = c->sc;
    const config_setting_t *lo = g ? config_setting_get_member(g, "domain_min") : NULL;
    const config_setting_t *hi = g ? config_setting_get_member(g, "domain_max") : NULL;
    if (lo && !hi)
        return sk_fail(c, sk_line_of(lo), "simulation.domain_max",
                       "missing: domain_min is given, and the two go together (accepted: both or neither)");
    if (hi && !lo)
        return sk_fail(c, sk_line_of(hi), "simulation.domain_min",
                       "missing: domain_max is given, and the two go together (accepted: both or neither)");
    if (lo && hi) {
        char a[40], b[40];
        for (int d = 0; d < sc->dim; ++d)
            if (!(sc->domain_max[d] > sc->domain_min[d]))
                return sk_fail(c, sk_line_of(hi), "simulation.domain_max",
                               "component %s = %s is not above domain_min's %s (accepted: domain_max > domain_min in "
                               "every component)",
                               sk_axis_name(d), sk_fmt_num(sc->domain_max[d], a, sizeof a),
                               sk_fmt_num(sc->domain_min[d], b, sizeof b));
        sc->domain_set = 1;
    }
    const config_setting_t *per = g ? config_setting_get_member(g, "periodic") : NULL;
    if (sc->periodic && !sc->domain_set)
        return sk_fail(c, sk_line_of(per), "simulation.periodic",
                       "needs simulation.domain_min and domain_max: the period is the domain's extent (accepted: "
                       "periodic axes with the domain given)");
    sc->periodic_line = per ? sk_line_of(per) : 0;
    if (sc->dim == 2 && (sc->periodic & 4u))
        return sk_fail(c, sk_line_of(per), "simulation.periodic",
                       "\"z\" in a 2D scene (accepted: \"x\", \"y\")");
    if (sc->dim == 3) { /* gravity's default points down the last axis; fluid.gravity, read next, overrides it */
        sc->gravity[0] = 0.0;
        sc->gravity[1] = 0.0;
        sc->gravity[2] = -9.81;
    }
    return SL_OK;
}

int sk_viewer_after(sk_ctx *c, const config_setting_t *g)
{
    const scene_viewer *v = &c->sc->viewer;
    const config_setting_t *hi = g ? config_setting_get_member(g, "range_max") : NULL;
    const config_setting_t *lo = g ? config_setting_get_member(g, "range_min") : NULL;
    char a[40], b[40];
    if (v->range_max < v->range_min)
        return sk_fail(c, sk_line_of(hi ? hi : lo), hi ? "viewer.range_max" : "viewer.range_min",
                       "range_max = %s is below range_min = %s (accepted: range_max > range_min for a fixed colour "
                       "range, or both equal for an automatic one)",
                       sk_fmt_num(v->range_max, a, sizeof a), sk_fmt_num(v->range_min, b, sizeof b));
    return SL_OK;
}

/* ---- geometry cross-checks --------------------------------------------------------------- */

static double box_size(const double *lo, const double *hi, int dim)
{
    double s = 0.0;
    for (int d = 0; d < dim; ++d)
        if (hi[d] - lo[d] > s)
            s = hi[d] - lo[d];
    return s;
}

static double pair_tol(const double *alo, const double *ahi, const double *blo, const double *bhi, int dim)
{
    return BOX_TOL * fmax(box_size(alo, ahi, dim), box_size(blo, bhi, dim));
}

/* Overlap of more than the tolerance in every dimension (touching faces are fine). */
static int boxes_overlap(const double *alo, const double *ahi, const double *blo, const double *bhi, int dim)
{
    double tol = pair_tol(alo, ahi, blo, bhi, dim);
    for (int d = 0; d < dim; ++d)
        if (fmin(ahi[d], bhi[d]) - fmax(alo[d], blo[d]) <= tol)
            return 0;
    return 1;
}

static int box_inside(const double *alo, const double *ahi, const double *blo, const double *bhi, int dim)
{
    double tol = pair_tol(alo, ahi, blo, bhi, dim);
    for (int d = 0; d < dim; ++d)
        if (alo[d] < blo[d] - tol || ahi[d] > bhi[d] + tol)
            return 0;
    return 1;
}

/* Where an item's particles may lie: the box; for a tank, the inner box grown by its walls
 * (layers * spacing on the sides and the floor, and on the roof when closed_top). */
static void item_extent(const scene *sc, const scene_geom *g, double *lo, double *hi)
{
    for (int d = 0; d < 3; ++d) {
        lo[d] = g->min[d];
        hi[d] = g->max[d];
    }
    if (g->kind != GEOM_TANK || g->shape == SHAPE_PLANE) /* a plane's box is the domain */
        return;
    double w = g->layers * sc->dp;
    for (int d = 0; d < sc->dim; ++d) {
        lo[d] -= w;
        if (d < sc->dim - 1 || g->closed_top)
            hi[d] += w;
    }
}

static const char *box_text(const double *lo, const double *hi, int dim, char *buf, size_t n)
{
    char v[40];
    buf[0] = '\0';
    for (int side = 0; side < 2; ++side) {
        const double *x = side ? hi : lo;
        sk_append(buf, n, side ? "..[" : "[");
        for (int d = 0; d < dim; ++d) {
            if (d)
                sk_append(buf, n, ", ");
            sk_append(buf, n, sk_fmt_num(x[d], v, sizeof v));
        }
        sk_append(buf, n, "]");
    }
    return buf;
}

/* Floating bodies: the scheme and wall model that carry them (WCSPH: symplectic with dbc walls; MPS
 * and explicit MPS: the MPS operators), no prescribed motion besides, inside
 * the domain (a tank's inner box when the domain is not given: the grid is cut round the particles),
 * apart from one another at the start. */
static int check_floating(sk_ctx *c)
{
    const scene *sc = c->sc;
    int dim = sc->dim;
    char key[48], box[160], other[160];
    for (int i = 0; i < sc->ngeom; ++i) {
        const scene_geom *a = &sc->geom[i];
        if (!a->floating.enabled)
            continue;
        snprintf(key, sizeof key, "geometry[%d].floating", i);
        int wcsph = strcmp(sc->method, "wcsph") == 0;
        int mps = strcmp(sc->method, "mps") == 0 || strcmp(sc->method, "emps") == 0;
        if (!wcsph && !mps)
            return sk_fail(c, a->floating.line, key, "not yet with simulation.method = \"%s\" (accepted: "
                           "floating bodies with method \"wcsph\", \"mps\" or \"emps\")", sc->method);
        /* the reaction pass (boundary/floating_mps.h) sums the MPS models' pair terms; an LSMPS pair
         * term holds the inverse of the fluid particle's moment matrix, which no field keeps */
        if (mps && sc->mps.operators == MPS_OPERATORS_LSMPS)
            return sk_fail(c, a->floating.line, key, "not yet with mps.operators = \"lsmps\" (accepted: "
                           "floating bodies with mps.operators = \"mps\")");
        if (wcsph && (sc->integrator != INTEGRATOR_SYMPLECTIC || sc->boundary != WALL_MODEL_DBC))
            return sk_fail(c, a->floating.line, key, "not yet with the %s integrator and %s walls (accepted: "
                           "floating bodies with numerics.integrator = \"symplectic\" and numerics.boundary = "
                           "\"dbc\")", sc->integrator == INTEGRATOR_SYMPLECTIC ? "symplectic" : "verlet",
                           sc->boundary == WALL_MODEL_DBC ? "dbc" : "mdbc");
        if (a->motion.law != MOTION_NONE)
            return sk_fail(c, a->motion.line, key, "given with a prescribed motion (accepted: a `floating` group "
                           "or a `motion` group, not both)");
        box_text(a->min, a->max, dim, box, sizeof box);
        int inside = sc->domain_set && box_inside(a->min, a->max, sc->domain_min, sc->domain_max, dim);
        for (int j = 0; j < sc->ngeom && !inside && !sc->domain_set; ++j)
            inside = sc->geom[j].kind == GEOM_TANK && sc->geom[j].shape != SHAPE_PLANE &&
                     box_inside(a->min, a->max, sc->geom[j].min, sc->geom[j].max, dim);
        if (!inside)
            return sk_fail(c, a->floating.line, key, "body outside the domain: the box %s is not inside %s "
                           "(accepted: a body inside simulation.domain_min..domain_max, or inside a tank's inner "
                           "box when no domain is given)", box,
                           sc->domain_set ? "simulation.domain_min..domain_max" : "the inner box of any tank");
        for (int j = 0; j < i; ++j) {
            const scene_geom *b = &sc->geom[j];
            if (b->floating.enabled && boxes_overlap(a->min, a->max, b->min, b->max, dim))
                return sk_fail(c, a->floating.line, key, "the body %s overlaps the floating body geometry[%d] "
                               "(line %d), %s, at the start (accepted: bodies whose boxes do not overlap)", box, j,
                               b->line, box_text(b->min, b->max, dim, other, sizeof other));
        }
    }
    return SL_OK;
}

int sk_check_geometry(sk_ctx *c)
{
    const scene *sc = c->sc;
    int dim = sc->dim, ntank = 0, first_tank = -1;
    char key[32], box[160], other[160], num[40], num2[40];
    double total = 0; /* particles of the items so far */
    for (int i = 0; i < sc->ngeom; ++i)
        if (sc->geom[i].kind == GEOM_TANK) {
            if (ntank++ == 0)
                first_tank = i;
        }
    /* the lattice (points at (i + 1/2) dp) must continue across a periodic seam with its spacing */
    for (int d = 0; d < dim; ++d) {
        if (!((sc->periodic >> d) & 1u))
            continue;
        double lo = sc->domain_min[d] / sc->dp, ext = (sc->domain_max[d] - sc->domain_min[d]) / sc->dp;
        if (fabs(lo - round(lo)) > 1e-6 * fmax(1.0, fabs(lo)) || fabs(ext - round(ext)) > 1e-6 * ext)
            return sk_fail(c, sc->periodic_line, "simulation.periodic",
                           "along %s the domain %s..%s m is not a whole number of numerics.spacing = %s m from a "
                           "multiple of it, so the particle lattice would not continue across the seam (accepted: "
                           "domain_min and domain_max multiples of the spacing along periodic axes)",
                           sk_axis_name(d), sk_fmt_num(sc->domain_min[d], num, sizeof num),
                           sk_fmt_num(sc->domain_max[d], box, sizeof box), sk_fmt_num(sc->dp, num2, sizeof num2));
    }
    for (int i = 0; i < sc->ngeom; ++i) {
        const scene_geom *a = &sc->geom[i];
        const char *kname = sk_geom_names[a->kind];
        double alo[3], ahi[3];
        item_extent(sc, a, alo, ahi);
        snprintf(key, sizeof key, "geometry[%d]", i);
        box_text(alo, ahi, dim, box, sizeof box);

        if (a->kind == GEOM_TANK && sc->periodic)
            return sk_fail(c, a->line, key,
                           "a tank has walls on every side, across the periodic %s axis too (accepted: obstacles, "
                           "e.g. plates, as walls in a periodic domain)",
                           sk_axis_name(__builtin_ctz(sc->periodic)));

        /* mDBC mirrors the fluid through box faces (boundary/mdbc.c) */
        if (sc->boundary == WALL_MODEL_MDBC && a->kind != GEOM_FLUID && a->shape != SHAPE_BOX)
            return sk_fail(c, a->line, key,
                           "numerics.boundary = \"mdbc\" mirrors the fluid through box faces only, and this %s is "
                           "not a box (accepted: box tanks and obstacles with mdbc, or numerics.boundary = \"dbc\")",
                           kname);

        if (a->kind == GEOM_FLUID)
            for (int d = 0; d < dim; ++d)
                if (a->max[d] - a->min[d] < sc->dp * (1.0 - BOX_TOL))
                    return sk_fail(c, a->line, key,
                                   "empty geometry: the fluid box is %s m thick in %s, less than numerics.spacing = %s "
                                   "m, so it holds no particle (accepted: fluid boxes at least one spacing thick)",
                                   sk_fmt_num(a->max[d] - a->min[d], num, sizeof num), sk_axis_name(d),
                                   sk_fmt_num(sc->dp, num2, sizeof num2));

        /* the builder's estimate, summed item by item, so an absurd box is refused at its line
         * instead of as a spacing that is too fine */
        total += scene_item_particles_estimate(sc, a);
        if (!(total <= SCENE_PARTICLES_MAX)) {
            char many[64] = "more particles than a double can count"; /* an extent that overflows */
            if (isfinite(total))
                snprintf(many, sizeof many, "about %s particles", sk_fmt_num(total, num, sizeof num));
            return sk_fail(c, a->line, key,
                           "the %s box %s at numerics.spacing = %s m makes %s in all, more than the %d one run "
                           "can hold (accepted: boxes and a spacing that give at most %d particles)",
                           kname, box, sk_fmt_num(sc->dp, num2, sizeof num2), many, SCENE_PARTICLES_MAX,
                           SCENE_PARTICLES_MAX);
        }

        if (sc->domain_set && !box_inside(alo, ahi, sc->domain_min, sc->domain_max, dim))
            return sk_fail(c, a->line, key,
                           "%s outside the domain: %s%s%s is not inside simulation.domain_min..domain_max %s "
                           "(accepted: items inside the domain)",
                           kname, a->kind == GEOM_TANK ? "the tank with its walls, " : "the box ", box,
                           a->kind == GEOM_TANK ? "," : "",
                           box_text(sc->domain_min, sc->domain_max, dim, other, sizeof other));
        if (sc->domain_set && a->motion.law != MOTION_NONE) { /* everywhere its motion takes it */
            double mlo[3], mhi[3];
            memcpy(mlo, alo, sizeof mlo);
            memcpy(mhi, ahi, sizeof mhi);
            scene_motion_sweep(&a->motion, dim, sc->end_time, mlo, mhi);
            if (!box_inside(mlo, mhi, sc->domain_min, sc->domain_max, dim))
                return sk_fail(c, a->motion.line, key,
                               "the %s's motion takes it outside the domain: it sweeps %s, not inside "
                               "simulation.domain_min..domain_max %s (accepted: a motion that stays in the domain "
                               "until simulation.end_time, walls included)",
                               kname, box_text(mlo, mhi, dim, box, sizeof box),
                               box_text(sc->domain_min, sc->domain_max, dim, other, sizeof other));
        }

        if (a->kind == GEOM_FLUID && ntank > 0) {
            int inside = 0;
            for (int j = 0; j < sc->ngeom && !inside; ++j)
                if (sc->geom[j].kind == GEOM_TANK)
                    inside = box_inside(a->min, a->max, sc->geom[j].min, sc->geom[j].max, dim);
            if (!inside) {
                const scene_geom *t = &sc->geom[first_tank];
                if (ntank == 1)
                    return sk_fail(c, a->line, key,
                                   "fluid outside the domain: the box %s is not inside the inner box %s of the tank "
                                   "geometry[%d] (line %d) (accepted: fluid boxes inside a tank's inner box)",
                                   box, box_text(t->min, t->max, dim, other, sizeof other), first_tank, t->line);
                return sk_fail(c, a->line, key,
                               "fluid outside the domain: the box %s is not inside the inner box of any of the %d "
                               "tanks (accepted: fluid boxes inside a tank's inner box)",
                               box, ntank);
            }
        }

        for (int j = 0; j < i; ++j) {
            const scene_geom *b = &sc->geom[j];
            if (a->shape == SHAPE_PLANE || b->shape == SHAPE_PLANE) /* its box is the whole domain */
                continue;
            int fluid_pair = (a->kind == GEOM_FLUID && b->kind != GEOM_TANK) ||
                             (a->kind == GEOM_OBSTACLE && b->kind == GEOM_FLUID);
            int tank_pair = a->kind == GEOM_TANK && b->kind == GEOM_TANK;
            if (!fluid_pair && !tank_pair)
                continue;
            double blo[3], bhi[3];
            item_extent(sc, b, blo, bhi);
            if (!boxes_overlap(alo, ahi, blo, bhi, dim))
                continue;
            if (tank_pair)
                return sk_fail(c, a->line, key,
                               "the walls of this tank, %s, overlap those of the tank geometry[%d] (line %d), %s "
                               "(accepted: tanks whose walls, layers x spacing outside the inner box, do not overlap)",
                               box, j, b->line, box_text(blo, bhi, dim, other, sizeof other));
            return sk_fail(c, a->line, key,
                           "the %s box %s overlaps the %s geometry[%d] (line %d), %s (accepted: fluid boxes that "
                           "overlap neither each other nor an obstacle; touching faces are fine)",
                           kname, box, sk_geom_names[b->kind], j, b->line,
                           box_text(blo, bhi, dim, other, sizeof other));
        }
    }
    return check_floating(c);
}

/* ---- probes and grid --------------------------------------------------------------------- */

#define SENSOR_OFFSET_MAX_SPACINGS 10.0 /* an offset beyond a few smoothing lengths no longer samples the wall */
#define SENSOR_DIAMETER_MAX_SPACINGS 100.0 /* a face wider than this is a wall, not a sensor */

/* A number setting into *v, or the error naming key. */
static int sensor_number(sk_ctx *c, const config_setting_t *s, const char *key, const char *acc, double *v)
{
    int t = config_setting_type(s);
    if (t == CONFIG_TYPE_FLOAT)
        *v = config_setting_get_float(s);
    else if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
        *v = (double)config_setting_get_int64(s);
    else {
        char val[160];
        sk_describe_value(s, val, sizeof val);
        return sk_fail(c, sk_line_of(s), key, "expected a number, got %s (accepted: %s)", val, acc);
    }
    if (!isfinite(*v))
        return sk_fail(c, sk_line_of(s), key, "is not a finite number (accepted: %s)", acc);
    return SL_OK;
}

/* The optional `normal`, `offset` and `diameter` of pressure sensor i (read_points lets them through):
 * the normal has dimension numbers, not all zero, and is stored normalised; the offset is 0..10
 * spacings; the diameter 0..100 spacings (whether the face fits its wall: io_probe_face_problem, asked below). */
static int read_sensor_extras(sk_ctx *c, const config_setting_t *item, scene_probe_point *pt, int i)
{
    scene *sc = c->sc;
    char key[96], acc[160], num[48];
    const config_setting_t *ns = config_setting_get_member(item, "normal");
    const config_setting_t *os = config_setting_get_member(item, "offset");
    const config_setting_t *ds = config_setting_get_member(item, "diameter");
    if (ds) {
        double hi = SENSOR_DIAMETER_MAX_SPACINGS * sc->dp;
        snprintf(key, sizeof key, "probes.pressure[%d].diameter", i);
        snprintf(acc, sizeof acc, "0..%s (%g numerics.spacing), in m: the sensor's face across; 0 a point",
                 sk_fmt_num(hi, num, sizeof num), SENSOR_DIAMETER_MAX_SPACINGS);
        SL_TRY(sensor_number(c, ds, key, acc, &pt->diameter));
        if (!(pt->diameter >= 0 && pt->diameter <= hi))
            return sk_fail(c, sk_line_of(ds), key, "%s is out of range (accepted: %s)",
                           sk_fmt_num(pt->diameter, num, sizeof num), acc);
    }
    if (ns) {
        snprintf(key, sizeof key, "probes.pressure[%d].normal", i);
        snprintf(acc, sizeof acc, "%s, finite numbers not all 0: the wall normal pointing into the fluid",
                 sc->dim == 3 ? "[nx, ny, nz]" : "[nx, ny]");
        int t = config_setting_type(ns);
        if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
            char val[160];
            sk_describe_value(ns, val, sizeof val);
            return sk_fail(c, sk_line_of(ns), key, "expected %d numbers, got %s (accepted: %s)", sc->dim, val, acc);
        }
        int len = config_setting_length(ns);
        if (len != sc->dim)
            return sk_fail(c, sk_line_of(ns), key,
                           "has %d number%s, but simulation.dimension = %d needs %d (accepted: %s)", len,
                           len == 1 ? "" : "s", sc->dim, sc->dim, acc);
        double n[3] = {0, 0, 0}, norm2 = 0;
        for (int d = 0; d < sc->dim; ++d) {
            SL_TRY(sensor_number(c, config_setting_get_elem(ns, (unsigned)d), key, acc, &n[d]));
            norm2 += n[d] * n[d];
        }
        if (!(norm2 > 0) || !isfinite(norm2))
            return sk_fail(c, sk_line_of(ns), key, "has no direction (accepted: %s)", acc);
        for (int d = 0; d < 3; ++d)
            pt->normal[d] = n[d] / sqrt(norm2);
    }
    if (os) {
        double hi = SENSOR_OFFSET_MAX_SPACINGS * sc->dp;
        snprintf(key, sizeof key, "probes.pressure[%d].offset", i);
        snprintf(acc, sizeof acc, "0..%s (%g numerics.spacing), in m", sk_fmt_num(hi, num, sizeof num),
                 SENSOR_OFFSET_MAX_SPACINGS);
        SL_TRY(sensor_number(c, os, key, acc, &pt->offset));
        if (!(pt->offset >= 0 && pt->offset <= hi))
            return sk_fail(c, sk_line_of(os), key, "%s is out of range (accepted: %s)",
                           sk_fmt_num(pt->offset, num, sizeof num), acc);
        pt->offset_set = 1;
    }
    return SL_OK;
}

/* Probes must measure something, in this dimension, under distinct names, inside the scene: the
 * domain when given, else the box spanned by the items (tanks with their walls). */
int sk_probes_after(sk_ctx *c, const config_setting_t *g)
{
    scene *sc = c->sc;
    scene_probes *pr = &sc->probes;
    pr->enabled = g != NULL;
    if (!g)
        return SL_OK;
    char acc[256], num[48];
    int is_mps = strcmp(sc->method, "mps") == 0;
    if (pr->npressure == 0 && pr->ngauges == 0 && pr->front == FRONT_NONE && !pr->energy && !is_mps)
        return sk_fail(c, sk_line_of(g), "probes",
                       "the group measures nothing (accepted: at least one of pressure = ( ... ), gauges = ( ... ), "
                       "front = \"+x\" (or another direction), energy = true)");
    if (sc->dim == 2 && (pr->front == FRONT_PLUS_Z || pr->front == FRONT_MINUS_Z))
        return sk_fail(c, sk_line_of(config_setting_get_member(g, "front")), "probes.front",
                       "\"%s\" needs simulation.dimension = 3 (accepted: \"none\", \"+x\", \"-x\", \"+y\", "
                       "\"-y\" in 2D)",
                       sk_front_names[pr->front]);
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    if (sc->domain_set) {
        memcpy(lo, sc->domain_min, sizeof lo);
        memcpy(hi, sc->domain_max, sizeof hi);
    } else {
        for (int i = 0; i < sc->ngeom; ++i) {
            double a[3], b[3];
            item_extent(sc, &sc->geom[i], a, b);
            for (int d = 0; d < 3; ++d) {
                lo[d] = fmin(lo[d], a[d]);
                hi[d] = fmax(hi[d], b[d]);
            }
        }
    }
    box_text(lo, hi, sc->dim, acc, sizeof acc);
    const config_setting_t *sensors = config_setting_get_member(g, "pressure");
    for (int i = 0; sensors && i < pr->npressure; ++i) {
        SL_TRY(read_sensor_extras(c, config_setting_get_elem(sensors, (unsigned)i), &pr->pressure[i], i));
        char what[320], key[96];
        if (io_probe_face_problem(sc, &pr->pressure[i], what, sizeof what)) {
            snprintf(key, sizeof key, "probes.pressure[%d].diameter", i);
            return sk_fail(c, pr->pressure[i].line, key, "%s", what);
        }
    }
    for (int list = 0; list < 2; ++list) {
        const scene_probe_point *pts = list ? pr->gauges : pr->pressure;
        int n = list ? pr->ngauges : pr->npressure;
        const char *lname = list ? "gauges" : "pressure";
        int nat = sc->dim - list;
        for (int i = 0; i < n; ++i) {
            char key[96];
            snprintf(key, sizeof key, "probes.%s[%d].at", lname, i);
            for (int d = 0; d < nat; ++d)
                if (!(pts[i].at[d] >= lo[d] - BOX_TOL * (hi[d] - lo[d]) &&
                      pts[i].at[d] <= hi[d] + BOX_TOL * (hi[d] - lo[d])))
                    return sk_fail(c, pts[i].line, key,
                                   "component %s = %s lies outside the scene %s (accepted: points inside the %s)",
                                   sk_axis_name(d), sk_fmt_num(pts[i].at[d], num, sizeof num), acc,
                                   sc->domain_set ? "domain" : "box spanned by the geometry items");
            /* every name once: they become CSV columns */
            for (int l2 = 0; l2 <= list; ++l2) {
                const scene_probe_point *q = l2 ? pr->gauges : pr->pressure;
                int m = l2 == list ? i : (l2 ? pr->ngauges : pr->npressure);
                for (int j = 0; j < m; ++j)
                    if (strcmp(q[j].name, pts[i].name) == 0) {
                        snprintf(key, sizeof key, "probes.%s[%d].name", lname, i);
                        return sk_fail(c, pts[i].line, key,
                                       "\"%s\" is already the name of probes.%s[%d] (line %d) (accepted: names "
                                       "used once across pressure and gauges)",
                                       pts[i].name, l2 ? "gauges" : "pressure", j, q[j].line);
                    }
            }
        }
    }
    return SL_OK;
}

/* numerics.no_slip acts through mDBC's ghost nodes on the laminar viscous term: anything else
 * would silently do nothing. */
int sk_numerics_after(sk_ctx *c, const config_setting_t *g)
{
    const scene *sc = c->sc;
    if (!sc->no_slip)
        return SL_OK;
    const config_setting_t *k = config_setting_get_member(g, "no_slip");
    if (sc->boundary != WALL_MODEL_MDBC || sc->viscosity != VISCOSITY_LAMINAR)
        return sk_fail(c, sk_line_of(k), "numerics.no_slip",
                       "needs numerics.boundary = \"mdbc\" (its ghost nodes give the velocity beyond the wall) "
                       "and numerics.viscosity = \"laminar\" (the term it acts on) (accepted: true with both, or "
                       "false)");
    return SL_OK;
}

int sk_grid_after(sk_ctx *c, const config_setting_t *g)
{
    c->sc->grid.enabled = g != NULL;
    if (g && c->sc->grid.fields == 0)
        return sk_fail(c, sk_line_of(config_setting_get_member(g, "fields")), "grid.fields",
                       "no field listed (accepted: an array of distinct names from \"density\", \"velocity\", "
                       "\"pressure\", at least one)");
    return SL_OK;
}
