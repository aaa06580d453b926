/* probe_points.h: where a pressure sensor of the scene samples (src/io/probe_points.c). */
#ifndef SLUICE_PROBE_POINTS_H
#define SLUICE_PROBE_POINTS_H

#include "base/scene.h"

#include <stddef.h>

/* The most points a sensor's face is sampled at. */
enum { PROBE_FACE_POINTS_MAX = 256 };

/* The default distance from a wall sensor to its sampled point: h = h_factor dp (WCSPH), or
 * re_density dp / 2 (the MPS schemes). */
double io_probe_default_offset(const scene *sc);

/* Where sensor pt samples: at + offset * normal, the normal given, else that of the nearest face of a
 * tank or obstacle box closer than 2 spacings, pointing to the fluid side (ties: the first item,
 * then the faces -x, +x, -y, +y, -z, +z), moved clear of the other walls of a corner; at itself when
 * no wall is near and no normal is given. */
void io_probe_sample_point(const scene *sc, const scene_probe_point *pt, double q[3]);

/* Where sensor pt samples over its face, a disc of its diameter on its wall: with diameter 0 the one
 * point of io_probe_sample_point; else the centres of equal parts, at most a quarter spacing wide, of
 * the face (in 3D the parts of a square grid whose centres lie in the disc; in 2D the parts of the
 * diameter along the wall, where the flow is the same across the tank's width), each moved off the
 * wall as the one point is. Writes them to q and their weights to w (each when not NULL; room for
 * PROBE_FACE_POINTS_MAX): 1 in 3D, in 2D the disc's chord through the point over its diameter, so
 * that a reading averages over the disc as the instrument does. Returns their count; 0 for a face
 * with no wall (no normal given or found: the scene loader refuses such a scene). */
int io_probe_face_points(const scene *sc, const scene_probe_point *pt, double (*q)[3], double *w);

/* Whether sensor pt's face has a wall to lie on and stays within that wall's box face (where the
 * wall is inferred): 0 when it does (or it is a point), else 1 with what is wrong and what is
 * accepted in msg. The scene loader refuses such a sensor (scene_check.c). */
int io_probe_face_problem(const scene *sc, const scene_probe_point *pt, char *msg, size_t len);

#endif
