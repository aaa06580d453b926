/* probe_points.c: where a pressure sensor samples (docs/output.md, "Pressure sensors: where they
 * sample"): off its wall along the wall's normal, clear of the other walls of a corner, at one point
 * or over the sensor's face. Geometry of the scene alone: no particle is read here. */
#include "probe_points.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A box face nearer than this to a sensor is the wall it sits on (the fluid stands up to ~1.5
 * spacings off a wall; within 2 spacings the kernel at the point itself can starve). */
#define WALL_NEAR_SPACINGS 2.0

/* A face of a tank or obstacle box. */
typedef struct box_face {
    const scene_geom *gm;
    int axis;
    double plane;    /* the face's coordinate along axis */
    double to_fluid; /* +1 or -1: along axis from the face to the fluid (into a tank, out of an obstacle) */
} box_face;

/* The faces of the tanks and obstacle boxes one per call, from *cursor = 0 on: in file order, each
 * box's in the order -x, +x, -y, +y, -z, +z; an open tank has no roof face. 0 after the last. */
static int next_box_face(const scene *sc, int *cursor, box_face *f)
{
    int dim = sc->dim, up = dim - 1;
    for (; *cursor < 6 * sc->ngeom; ++*cursor) {
        int k = *cursor / 6, a = *cursor % 6 / 2, side = *cursor % 2;
        const scene_geom *gm = &sc->geom[k];
        if (a >= dim || (gm->kind != GEOM_TANK && gm->kind != GEOM_OBSTACLE) ||
            (gm->kind == GEOM_TANK && a == up && side == 1 && !gm->closed_top))
            continue;
        double outward = side ? 1.0 : -1.0; /* the face's normal out of the box */
        *f = (box_face){gm, a, side ? gm->max[a] : gm->min[a], gm->kind == GEOM_TANK ? -outward : outward};
        ++*cursor;
        return 1;
    }
    return 0;
}

/* The face of a tank or obstacle box nearest to `at` within WALL_NEAR_SPACINGS spacings into *out;
 * 0 when no face is that near. Ties go to the first face in next_box_face's order: the answer
 * depends on the scene alone. */
static int nearest_face(const scene *sc, const double at[3], box_face *out)
{
    int found = 0, cursor = 0;
    double best = WALL_NEAR_SPACINGS * sc->dp;
    best *= best;
    box_face f;
    while (next_box_face(sc, &cursor, &f)) {
        double d2 = (at[f.axis] - f.plane) * (at[f.axis] - f.plane);
        for (int b = 0; b < sc->dim; ++b) { /* distance to the face's rectangle, not its plane */
            double out_of = b == f.axis ? 0.0 : fmax(fmax(f.gm->min[b] - at[b], at[b] - f.gm->max[b]), 0.0);
            d2 += out_of * out_of;
        }
        if (d2 <= best && !(found && d2 == best)) {
            best = d2;
            found = 1;
            *out = f;
        }
    }
    return found;
}

/* The offset along the wall normal: half the scheme's interaction radius, i.e. the smoothing length
 * h = h_factor dp of WCSPH (support 2h; DualSPHysics' gauges sit h off the wall) and its MPS
 * counterpart re_density dp / 2 (MPS particles interact within re). At that distance the probe's
 * kernel reaches past the repelled first layer into the bulk of the water. */
double io_probe_default_offset(const scene *sc)
{
    return strcmp(sc->method, "wcsph") == 0 ? sc->h_factor * sc->dp : 0.5 * sc->mps.re_density * sc->dp;
}

/* A corner: q, already d off its own wall (normal n), is pushed to d off every other box face it lies
 * over closer than d, along that face's normal (twice over, for a corner of three faces). Near a
 * corner the wall particles hold the water off both walls (dynamic boundaries by about 2 spacings),
 * so a point d off one wall only can sit in the other's gap, dry while water covers the sensor
 * (SPHERIC Test 2's P1, 21 mm above the floor on the box's face, at 27.5 mm spacing). A face counts
 * where q lies over it: on its fluid side, within its rectangle along the other axes. */
static void clear_other_walls(const scene *sc, const double n[3], double d, double q[3])
{
    for (int pass = 0; pass < 2; ++pass) {
        int cursor = 0;
        box_face f;
        while (next_box_face(sc, &cursor, &f)) {
            if (f.to_fluid == n[f.axis])
                continue; /* the sensor's own wall, or one facing the same way */
            double off = (q[f.axis] - f.plane) * f.to_fluid;
            int over = off >= 0.0 && off < d;
            for (int b = 0; b < sc->dim && over; ++b)
                over = b == f.axis || (q[b] >= f.gm->min[b] && q[b] <= f.gm->max[b]);
            if (over)
                q[f.axis] = f.plane + f.to_fluid * d;
        }
    }
}

/* c moved `d` along n into the water, and clear of the other walls when n was inferred. */
static void place(const scene *sc, const double n[3], int given, double d, const double c[3], double q[3])
{
    for (int a = 0; a < 3; ++a)
        q[a] = c[a] + d * n[a];
    if (!given) /* a given normal places the point as the user says */
        clear_other_walls(sc, n, d, q);
    if (sc->dim == 2)
        q[2] = 0.0;
}

/* A sensor's wall: its normal (given, else that of the nearest face, *face filled), the offset. */
typedef struct sensor_wall {
    double n[3], d;
    int given, found;
    box_face face;
} sensor_wall;

static sensor_wall wall_of(const scene *sc, const scene_probe_point *pt)
{
    sensor_wall w = {{pt->normal[0], pt->normal[1], pt->normal[2]}, 0, 0, 0, {0}};
    w.given = w.n[0] != 0 || w.n[1] != 0 || w.n[2] != 0;
    if (!w.given && nearest_face(sc, pt->at, &w.face)) {
        w.found = 1;
        w.n[w.face.axis] = w.face.to_fluid;
    }
    w.d = pt->offset_set ? pt->offset : io_probe_default_offset(sc);
    return w;
}

void io_probe_sample_point(const scene *sc, const scene_probe_point *pt, double q[3])
{
    sensor_wall w = wall_of(sc, pt);
    if (w.given || w.found) {
        place(sc, w.n, w.given, w.d, pt->at, q);
    } else {
        memcpy(q, pt->at, 3 * sizeof *q);
        if (sc->dim == 2)
            q[2] = 0.0;
    }
}

/* Two unit vectors u, v along the wall (v = 0 in 2D), orthogonal to n and to each other. */
static void face_axes(int dim, const double n[3], double u[3], double v[3])
{
    memset(v, 0, 3 * sizeof *v);
    if (dim == 2) {
        u[0] = -n[1], u[1] = n[0], u[2] = 0.0;
        return;
    }
    int a = 0; /* u = n x e_a with the axis n leans on least */
    for (int b = 1; b < 3; ++b)
        if (fabs(n[b]) < fabs(n[a]))
            a = b;
    double e[3] = {0, 0, 0};
    e[a] = 1.0;
    u[0] = n[1] * e[2] - n[2] * e[1], u[1] = n[2] * e[0] - n[0] * e[2], u[2] = n[0] * e[1] - n[1] * e[0];
    double len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int b = 0; b < 3; ++b)
        u[b] /= len;
    v[0] = n[1] * u[2] - n[2] * u[1], v[1] = n[2] * u[0] - n[0] * u[2], v[2] = n[0] * u[1] - n[1] * u[0];
}

/* The face's divisions along each of its axes: parts at most a quarter spacing wide (the kernel is 4
 * spacings wide, so the points resolve it), as many as PROBE_FACE_POINTS_MAX allows. */
static int face_divisions(const scene *sc, double diameter)
{
    double want = ceil(4.0 * diameter / sc->dp);
    double most = sc->dim == 2 ? PROBE_FACE_POINTS_MAX : floor(sqrt((double)PROBE_FACE_POINTS_MAX));
    return want < 1 ? 1 : want > most ? (int)most : (int)want;
}

int io_probe_face_points(const scene *sc, const scene_probe_point *pt, double (*q)[3], double *w)
{
    if (!(pt->diameter > 0)) {
        if (q)
            io_probe_sample_point(sc, pt, q[0]);
        if (w)
            w[0] = 1.0;
        return 1;
    }
    sensor_wall wall = wall_of(sc, pt);
    if (!wall.given && !wall.found)
        return 0;
    double u[3], v[3];
    face_axes(sc->dim, wall.n, u, v);
    const int m = face_divisions(sc, pt->diameter), mj = sc->dim == 2 ? 1 : m;
    const double r = 0.5 * pt->diameter, part = pt->diameter / m;
    int count = 0;
    for (int j = 0; j < mj; ++j) {
        double b = sc->dim == 2 ? 0.0 : -r + (j + 0.5) * part;
        for (int i = 0; i < m; ++i) {
            double a = -r + (i + 0.5) * part;
            if (a * a + b * b > r * r)
                continue; /* the disc's parts: the centres of the square's parts inside it */
            if (w) /* 3D: equal parts of the disc; 2D: the disc's chord along the field's own z */
                w[count] = sc->dim == 2 ? sqrt(fmax(1.0 - a * a / (r * r), 0.0)) : 1.0;
            if (q) {
                double c[3];
                for (int k = 0; k < 3; ++k)
                    c[k] = pt->at[k] + a * u[k] + b * v[k];
                place(sc, wall.n, wall.given, wall.d, c, q[count]);
            }
            ++count;
        }
    }
    return count;
}

int io_probe_face_problem(const scene *sc, const scene_probe_point *pt, char *msg, size_t len)
{
    if (!(pt->diameter > 0))
        return 0;
    sensor_wall w = wall_of(sc, pt);
    if (!w.given && !w.found) {
        snprintf(msg, len,
                 "sensor '%s' has a face %g m across but no wall to lie on: no tank or obstacle face within %g "
                 "spacings and no normal (accepted: 0, a point, or a face on a wall)",
                 pt->name, pt->diameter, WALL_NEAR_SPACINGS);
        return 1;
    }
    if (w.given)
        return 0; /* the user's wall: no box face to hold the face to */
    /* the face must lie on its wall: inside the wall face's rectangle along the other axes */
    double half = 0.5 * pt->diameter, slack = 1e-9 * sc->dp;
    for (int b = 0; b < sc->dim; ++b) {
        if (b == w.face.axis)
            continue;
        double lo = w.face.gm->min[b], hi = w.face.gm->max[b];
        if (pt->at[b] - half < lo - slack || pt->at[b] + half > hi + slack) {
            snprintf(msg, len,
                     "sensor '%s''s face, %g m across, reaches past the edge of its wall, which runs from %g to %g m "
                     "along %c (accepted: a face within the wall, at most %g m across here)",
                     pt->name, pt->diameter, lo, hi, "xyz"[b], fmax(2.0 * fmin(pt->at[b] - lo, hi - pt->at[b]), 0.0));
            return 1;
        }
    }
    return 0;
}
