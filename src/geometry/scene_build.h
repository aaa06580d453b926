/* scene_build.h: turning a scene's geometry into particles on a lattice of spacing dp. */
#ifndef SLUICE_SCENE_BUILD_H
#define SLUICE_SCENE_BUILD_H

#include "base/particles.h"
#include "base/scene.h"
#include "base/status.h"
#include "lattice.h"

#include <stdint.h>

/* Particle counts by type, without building anything (for checks and memory estimates). */
typedef struct scene_counts {
    size_t fluid, wall, obstacle, total;
} scene_counts;

int scene_count_particles(const scene *sc, scene_counts *out, sl_err *err);

/* Particles one run can hold (32-bit ids). */
#define SCENE_PARTICLES_MAX (INT32_MAX - 1)

/* Particles one geometry item would have, in floating point so that absurd sizes are caught before
 * any loop (inf when its extent overflows): the lattice points of the box (for other shapes, of
 * their bounding box g->min..max, set by the loader), grown by the walls for a tank. An upper bound
 * of what scene_count_particles counts exactly. */
double scene_item_particles_estimate(const scene *sc, const scene_geom *g);

/* Allocates and fills p: fluid items first, then tank walls, then obstacles, in scene order (a mesh
 * that cannot be read any more fails here with the mesh's message). */
int scene_build_particles(const scene *sc, particles *p, sl_err *err);

/* Whether item gm spans the whole period of periodic axis a: its faces there lie on the seam and
 * are no surface (wall layers, mDBC faces). */
int scene_spans_period(const scene *sc, const scene_geom *gm, int a);

/* Grows lo..hi, the box of an item as the file puts it, to a box holding every place its motion
 * (physics/rigid_motion.h) takes it until t_end. */
void scene_motion_sweep(const scene_motion *m, int dim, double t_end, double lo[3], double hi[3]);

/* Visits the lattice points of item g filled to its core (an obstacle's points at every depth):
 * what a floating body's mass properties are summed over (core/floating.c). */
int scene_item_fill(const scene *sc, const scene_geom *g, lattice_visit fn, void *ctx, sl_err *err);

/* Where each geometry item's particles are in the array scene_build_particles fills (ids at the
 * start): item k's are [first[k], first[k] + count[k]). Arrays of sc->ngeom. */
int scene_item_ranges(const scene *sc, size_t *first, size_t *count, sl_err *err);

/* The box the simulation lives in (moving items: everywhere their motion takes them): simulation.domain_min/max when given, otherwise every particle
 * plus one interaction radius, and above an open tank as much headroom again as its height. */
void scene_domain(const scene *sc, double r_max, double dmin[3], double dmax[3]);

/* Highest fluid column (top of the highest fluid box minus the lowest fluid bottom). */
double scene_fluid_height(const scene *sc);

/* Depth of fluid above a position that lies under (or in) a fluid box, along the last axis: the
 * initial hydrostatic pressure there is rho0 |g| depth. 0 elsewhere. */
double scene_fluid_depth_above(const scene *sc, const double pos[3]);

#endif
