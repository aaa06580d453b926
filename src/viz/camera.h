/* camera.h: orbit/pan/zoom camera around the scene's box; orthographic or perspective. */
#ifndef SLUICE_VIZ_CAMERA_H
#define SLUICE_VIZ_CAMERA_H

typedef struct viz_camera {
    int dim;                 /* 2: the x-y plane seen from +z, no orbit */
    int ortho;               /* orthographic projection */
    double box_min[3], box_max[3];
    double yaw0, pitch0;     /* initial direction, degrees (reset) */
    double yaw, pitch;       /* degrees; yaw 0, pitch 0 looks along +y with z up */
    double target[3];        /* the point looked at */
    double zoom;             /* 1: the box fits the view */
    double fovy;             /* perspective: vertical field of view, degrees */
} viz_camera;

void viz_camera_init(viz_camera *c, int dim, int ortho, const double box_min[3], const double box_max[3],
                     double yaw, double pitch);

/* Back to the initial view: the whole box in sight. */
void viz_camera_reset(viz_camera *c);

/* Column-major view and projection matrices for a viewport of this aspect (width / height). */
void viz_camera_matrices(const viz_camera *c, double aspect, float view[16], float proj[16]);

/* World units per pixel at the target, for a viewport of this size. */
double viz_camera_pixel_size(const viz_camera *c, int width, int height);

void viz_camera_orbit(viz_camera *c, double dx_pixels, double dy_pixels);
void viz_camera_pan(viz_camera *c, double dx_pixels, double dy_pixels, int width, int height);
void viz_camera_zoom(viz_camera *c, double factor);

#endif
