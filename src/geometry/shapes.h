/* shapes.h: geometry items other than boxes (STL meshes, cylinders, spheres, wedges, planes): their
 * placement, bounding box, particle estimate and lattice points. */
#ifndef SLUICE_SHAPES_H
#define SLUICE_SHAPES_H

#include "base/scene.h"
#include "base/status.h"
#include "lattice.h"
#include "stl.h"

#include <stddef.h>

/* The STL file of a mesh item: its `mesh` path, relative to the folder of the scene file. */
void shape_mesh_path(const scene *sc, const scene_geom *g, char *buf, size_t n);

/* Reads and checks the item's mesh (stl_read) and places it: x' = R(scale x) + translate. */
int shape_load_mesh(const scene *sc, const scene_geom *g, stl_mesh *m, sl_err *err);

/* The bounding box of the shape as placed (for a plane: the domain, which it needs). Reads the
 * mesh of a mesh item; its errors name the mesh file. */
int shape_bounds(const scene *sc, const scene_geom *g, double lo[3], double hi[3], sl_err *err);

/* An upper bound of the item's particles from its bounding box g->min..max (set by the loader). */
double shape_particles_estimate(const scene *sc, const scene_geom *g);

/* Visits the item's lattice points: fluid fills the shape; an obstacle's walls are the points inside
 * within layers x dp of its surface; a tank's, the points outside its cavity within layers x dp (none
 * above the cavity's top unless closed_top); a plane's, the points behind it within layers x dp, in
 * the domain. The layer is floor(distance / dp). */
int shape_sample(const scene *sc, const scene_geom *g, lattice_visit fn, void *ctx, sl_err *err);

/* The signed distance from p to the item's surface as placed, negative inside (the solid of an
 * obstacle, the cavity of a tank, the fluid; behind a plane): what the sampler decides by. m: the
 * placed mesh of a mesh item (shape_load_mesh), NULL for the other shapes. */
double shape_signed_distance(const scene *sc, const scene_geom *g, const stl_mesh *m, const double p[3]);

#endif
