/* mesh_sample.h: the lattice points inside a closed triangle mesh, or in a band along its surface. */
#ifndef SLUICE_MESH_SAMPLE_H
#define SLUICE_MESH_SAMPLE_H

#include "base/status.h"
#include "lattice.h"
#include "stl.h"

/* Visits the lattice points of spacing dp that `mode` keeps (lattice.h), plane by plane. Inside:
 * the parity of the crossings of a ray from the point towards +x, with the ray moved by a symbolic
 * perturbation (y + e, z + e^2) so that a ray through an edge or a vertex is counted once, exactly
 * as for a ray in a fixed direction off every axis; a point on a face counts as just past it in +x.
 * Distance: to the nearest triangle, over the triangles whose box grown by the band reaches the
 * plane. Fails only when a plane of the lattice would not fit in memory. */
int mesh_sample(const stl_mesh *m, double dp, enum sample_mode mode, int layers, lattice_visit fn, void *ctx,
                const char *name, sl_err *err);

/* The mesh's bounding box. */
void mesh_bounds(const stl_mesh *m, double lo[3], double hi[3]);

/* The distance from p to the nearest triangle, negative inside (the sampler's inside test); every
 * triangle is visited: for a few points, not for a lattice. */
double mesh_signed_distance(const stl_mesh *m, const double p[3]);

#endif
