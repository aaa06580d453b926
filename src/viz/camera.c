/* camera.c: the viewer's camera. 2D scenes: the x-y plane, orthographic. 3D: z up, orbit about the
 * target. The initial view fits the scene's box with a 5% margin (tests rely on this mapping:
 * orthographic, the box's centre at the image centre, the larger of width/aspect and height filling
 * 1/1.05 of the image). */
#include "camera.h"

#include <math.h>
#include <string.h>

#define DEG (3.14159265358979323846 / 180.0)
#define MARGIN 1.05

void viz_camera_init(viz_camera *c, int dim, int ortho, const double box_min[3], const double box_max[3],
                     double yaw, double pitch)
{
    memset(c, 0, sizeof *c);
    c->dim = dim;
    c->ortho = ortho || dim == 2;
    for (int a = 0; a < 3; ++a) {
        c->box_min[a] = box_min[a];
        c->box_max[a] = a < dim ? box_max[a] : box_min[a];
    }
    c->yaw0 = dim == 2 ? 0 : yaw;
    c->pitch0 = dim == 2 ? 0 : pitch;
    c->fovy = 35;
    viz_camera_reset(c);
}

void viz_camera_reset(viz_camera *c)
{
    c->yaw = c->yaw0;
    c->pitch = c->pitch0;
    c->zoom = 1;
    for (int a = 0; a < 3; ++a)
        c->target[a] = 0.5 * (c->box_min[a] + c->box_max[a]);
}

/* Camera axes in world coordinates: right, up, and fwd (the viewing direction). */
static void axes(const viz_camera *c, double r[3], double u[3], double f[3])
{
    if (c->dim == 2) {
        r[0] = 1, r[1] = 0, r[2] = 0;
        u[0] = 0, u[1] = 1, u[2] = 0;
        f[0] = 0, f[1] = 0, f[2] = -1;
        return;
    }
    double cy = cos(c->yaw * DEG), sy = sin(c->yaw * DEG), cp = cos(c->pitch * DEG), sp = sin(c->pitch * DEG);
    f[0] = sy * cp, f[1] = cy * cp, f[2] = -sp;
    r[0] = cy, r[1] = -sy, r[2] = 0;
    u[0] = r[1] * f[2] - r[2] * f[1];
    u[1] = r[2] * f[0] - r[0] * f[2];
    u[2] = r[0] * f[1] - r[1] * f[0];
}

static double radius(const viz_camera *c)
{
    double s = 0;
    for (int a = 0; a < 3; ++a)
        s += 0.25 * (c->box_max[a] - c->box_min[a]) * (c->box_max[a] - c->box_min[a]);
    return sqrt(s) > 0 ? sqrt(s) : 1;
}

/* Orthographic: half the visible height that fits the box's projection at zoom 1. */
static double ortho_half_height(const viz_camera *c, double aspect)
{
    double r[3], u[3], f[3];
    axes(c, r, u, f);
    double hw = 0, hh = 0;
    for (int a = 0; a < 3; ++a) {
        double e = 0.5 * (c->box_max[a] - c->box_min[a]);
        hw += fabs(r[a]) * e;
        hh += fabs(u[a]) * e;
    }
    double h = fmax(hh, hw / aspect) * MARGIN;
    return (h > 0 ? h : 1) / c->zoom;
}

/* Perspective: the eye's distance that fits the box's bounding sphere at zoom 1. */
static double eye_distance(const viz_camera *c, double aspect)
{
    double half = 0.5 * c->fovy * DEG;
    double half_x = atan(aspect * tan(half));
    return radius(c) * MARGIN / sin(fmin(half, half_x)) / c->zoom;
}

void viz_camera_matrices(const viz_camera *c, double aspect, float view[16], float proj[16])
{
    double r[3], u[3], f[3];
    axes(c, r, u, f);
    double R = radius(c);
    double d = c->ortho ? 4 * R : eye_distance(c, aspect);
    double eye[3];
    for (int a = 0; a < 3; ++a)
        eye[a] = c->target[a] - d * f[a];
    double rows[3][3] = {{r[0], r[1], r[2]}, {u[0], u[1], u[2]}, {-f[0], -f[1], -f[2]}};
    memset(view, 0, 16 * sizeof(float));
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j)
            view[j * 4 + i] = (float)rows[i][j];
        view[12 + i] = (float)-(rows[i][0] * eye[0] + rows[i][1] * eye[1] + rows[i][2] * eye[2]);
    }
    view[15] = 1;
    memset(proj, 0, 16 * sizeof(float));
    if (c->ortho) {
        double h = ortho_half_height(c, aspect), w = h * aspect;
        double n = d - 2 * R, fa = d + 2 * R;
        proj[0] = (float)(1 / w);
        proj[5] = (float)(1 / h);
        proj[10] = (float)(-2 / (fa - n));
        proj[14] = (float)(-(fa + n) / (fa - n));
        proj[15] = 1;
    } else {
        double t = 1 / tan(0.5 * c->fovy * DEG);
        double n = fmax(d - 2 * R, 0.01 * d), fa = d + 2 * R;
        proj[0] = (float)(t / aspect);
        proj[5] = (float)t;
        proj[10] = (float)(-(fa + n) / (fa - n));
        proj[11] = -1;
        proj[14] = (float)(-2 * fa * n / (fa - n));
    }
}

double viz_camera_pixel_size(const viz_camera *c, int width, int height)
{
    double aspect = height > 0 ? (double)width / height : 1;
    double half = c->ortho ? ortho_half_height(c, aspect) : eye_distance(c, aspect) * tan(0.5 * c->fovy * DEG);
    return 2 * half / (height > 0 ? height : 1);
}

void viz_camera_orbit(viz_camera *c, double dx, double dy)
{
    if (c->dim == 2)
        return;
    c->yaw += 0.3 * dx;
    c->yaw = fmod(c->yaw, 360.0);
    c->pitch = fmax(-89.0, fmin(89.0, c->pitch + 0.3 * dy));
}

void viz_camera_pan(viz_camera *c, double dx, double dy, int width, int height)
{
    double r[3], u[3], f[3];
    axes(c, r, u, f);
    double s = viz_camera_pixel_size(c, width, height);
    for (int a = 0; a < 3; ++a)
        c->target[a] += s * (-dx * r[a] + dy * u[a]);
}

void viz_camera_zoom(viz_camera *c, double factor)
{
    c->zoom = fmax(0.05, fmin(200.0, c->zoom * factor));
}
