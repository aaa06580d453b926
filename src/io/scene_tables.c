/* scene_tables.c: the key tables of the scene file's groups, the name lists their keys accept, and
 * the public lookups by those names (scene_kernel_name(), scene_gpu_strategy_parse(), ...). The
 * `mps` group's table belongs to the MPS scheme: src/schemes/mps/mps_scene_keys.c.
 * docs/scene-files.md documents the same tables: keep them in step. */
#include "scene_keys.h"

#include "schemes/mps/mps_scene_keys.h"

#include <stdio.h>
#include <string.h>

/* Enum fields are written through an int. */
_Static_assert(sizeof(enum kernel_kind) == sizeof(int), "enum kernel_kind is stored as an int");
_Static_assert(sizeof(enum integrator_kind) == sizeof(int), "enum integrator_kind is stored as an int");
_Static_assert(sizeof(enum viscosity_kind) == sizeof(int), "enum viscosity_kind is stored as an int");
_Static_assert(sizeof(enum diffusion_kind) == sizeof(int), "enum diffusion_kind is stored as an int");
_Static_assert(sizeof(enum geom_kind) == sizeof(int), "enum geom_kind is stored as an int");
_Static_assert(sizeof(enum geom_shape) == sizeof(int), "enum geom_shape is stored as an int");
_Static_assert(sizeof(enum viz_field_kind) == sizeof(int), "enum viz_field_kind is stored as an int");
_Static_assert(sizeof(enum viz_colormap_kind) == sizeof(int), "enum viz_colormap_kind is stored as an int");
_Static_assert(sizeof(enum viz_walls_kind) == sizeof(int), "enum viz_walls_kind is stored as an int");
_Static_assert(sizeof(enum viz_projection_kind) == sizeof(int), "enum viz_projection_kind is stored as an int");
_Static_assert(sizeof(enum probe_front) == sizeof(int), "enum probe_front is stored as an int");
_Static_assert(sizeof(enum grid_method) == sizeof(int), "enum grid_method is stored as an int");
_Static_assert(sizeof(enum motion_law) == sizeof(int), "enum motion_law is stored as an int");

static const char *const kernel_names[] = {"wendland", "cubic", NULL};
static const char *const integrator_names[] = {"symplectic", "verlet", NULL};
static const char *const viscosity_names[] = {"artificial", "laminar", NULL};
static const char *const diffusion_names[] = {"fourtakas", "molteni", NULL};
const char *const sk_geom_names[] = {"fluid", "tank", "obstacle", NULL};
static const char *const shape_names[] = {"box", "mesh", "cylinder", "sphere", "wedge", "plane", NULL};
static const char *const slope_names[] = {"+x", "-x", "+y", "-y", NULL};
static const char *const gpu_sort_names[] = {"counting", "radix", NULL};
static const char *const gpu_strategy_names[] = {"auto", "par-part", "par-cell", "par-cell-sm", "x-pencil",
                                                    "par-part-compact", "par-part-sym", NULL};
static const char *const gpu_scan_names[] = {"auto", "blocked", "cub", NULL};
static const char *const viz_field_names[] = {"velocity", "pressure", "density", "type", NULL};
static const char *const viz_colormap_names[] = {"viridis", "magma", "plasma", NULL};
static const char *const viz_walls_names[] = {"translucent", "opaque", "hidden", NULL};
static const char *const viz_projection_names[] = {"auto", "perspective", "orthographic", NULL};
/* Index i is the bit 1u << i of the OUT_* constants. */
static const char *const field_names[] = {"position", "velocity", "pressure", "density", "type", "id", NULL};
const char *const sk_front_names[] = {"none", "+x", "-x", "+y", "-y", "+z", "-z", NULL}; /* enum probe_front */
/* Index i is the bit 1u << i of the GRID_* constants. */
static const char *const grid_field_names[] = {"density", "velocity", "pressure", NULL};
static const char *const grid_method_names[] = {"auto", "particle", "mesh", NULL};

/* Index i is bit 1u << i of scene.periodic. */
static const char *const periodic_axis_names[] = {"x", "y", "z", NULL};

/* Read in table order: `dimension` comes before the vectors that depend on it. */
static const scene_key simulation_keys[] = {
    {.name = "method", .type = KT_SCHEME, .offset = S(method), .size = SCENE_NAME_MAX, .sdef = "wcsph",
     .units = "", .doc = "numerical scheme"},
    {.name = "dimension", .type = KT_INT, .offset = S(dim), .lo = 2, .hi = 3, .def = {2}, .units = "",
     .doc = "2 or 3; every vector of the file has this many numbers"},
    {.name = "end_time", .type = KT_REAL, .offset = S(end_time), .lo = 0, .hi = 1e6, .flags = KF_LO_OPEN,
     .def = {1.0}, .units = "s", .doc = "simulated time"},
    {.name = "domain_min", .type = KT_VEC, .offset = S(domain_min), .hi = NO_LIMIT, .units = "m",
     .doc = "lower corner of the domain (optional; with domain_max)"},
    {.name = "domain_max", .type = KT_VEC, .offset = S(domain_max), .hi = NO_LIMIT, .units = "m",
     .doc = "upper corner of the domain (optional; with domain_min)"},
    {.name = "periodic", .type = KT_FLAGS, .offset = S(periodic), .names = periodic_axis_names, .def = {0},
     .doc = "axes along which the domain wraps around (needs domain_min and domain_max: the period is "
            "the domain's extent, a whole number of spacings)"},
};

static const scene_key fluid_keys[] = {
    {.name = "density", .type = KT_REAL, .offset = S(rho0), .lo = 1, .hi = 1e5, .def = {1000.0},
     .units = "kg/m^3", .doc = "reference density"},
    {.name = "viscosity", .type = KT_REAL, .offset = S(nu), .lo = 0, .hi = 10, .def = {1.0e-6},
     .units = "m^2/s", .doc = "kinematic viscosity"},
    /* The 2D default; sk_simulation_after() points it down z in 3D. */
    {.name = "gravity", .type = KT_VEC, .offset = S(gravity), .hi = 1000, .flags = KF_ABS,
     .def = {0.0, -9.81, 0.0}, .units = "m/s^2", .doc = "gravity"},
    {.name = "sound_speed", .type = KT_REAL, .offset = S(sound_speed), .lo = 0.01, .hi = 1e5,
     .flags = KF_ZERO_OK, .def = {0.0}, .units = "m/s",
     .doc = "speed of sound c0; 0 = sound_speed_coef * sqrt(|g| H)"},
    {.name = "sound_speed_coef", .type = KT_REAL, .offset = S(sound_speed_coef), .lo = 1, .hi = 1000,
     .def = {10.0}, .units = "", .doc = "c0 = coef * sqrt(|g| H), H the highest fluid column"},
    {.name = "eos_gamma", .type = KT_REAL, .offset = S(eos_gamma), .lo = 1, .hi = 10, .def = {7.0},
     .units = "", .doc = "exponent of the Tait equation of state"},
};

static const scene_key numerics_keys[] = {
    {.name = "spacing", .type = KT_REAL, .offset = S(dp), .lo = 0, .hi = 10,
     .flags = KF_LO_OPEN | KF_REQUIRED, .units = "m", .doc = "particle spacing dp"},
    {.name = "kernel", .type = KT_ENUM, .offset = S(kernel), .names = kernel_names,
     .def = {KERNEL_WENDLAND_C2}, .units = "", .doc = "smoothing kernel"},
    {.name = "h_factor", .type = KT_REAL, .offset = S(h_factor), .lo = 0.5, .hi = 4, .def = {2.0},
     .units = "", .doc = "smoothing length h = h_factor * spacing"},
    {.name = "cfl", .type = KT_REAL, .offset = S(cfl), .lo = 0, .hi = 1, .flags = KF_LO_OPEN,
     .def = {0.2}, .units = "", .doc = "CFL number of the time step"},
    {.name = "ndiv", .type = KT_INT, .offset = S(ndiv), .lo = 1, .hi = 3, .def = {2}, .units = "",
     .doc = "neighbour-grid cells per interaction radius"},
    {.name = "cell_skin", .type = KT_REAL, .offset = S(cell_skin), .lo = 0, .hi = 0.5, .def = {0.0}, .units = "",
     .doc = "WCSPH, symplectic, on several MPI ranks: the neighbour cells' margin, a fraction of the interaction "
            "radius, that lets a step's corrector reuse its cells (0: rebuild them)"},
    {.name = "integrator", .type = KT_ENUM, .offset = S(integrator), .names = integrator_names,
     .def = {INTEGRATOR_SYMPLECTIC}, .units = "", .doc = "time integrator"},
    {.name = "verlet_steps", .type = KT_INT, .offset = S(verlet_steps), .lo = 1, .hi = 1000,
     .def = {40}, .units = "", .doc = "verlet: an Euler step every N steps"},
    {.name = "viscosity", .type = KT_ENUM, .offset = S(viscosity), .names = viscosity_names,
     .def = {VISCOSITY_ARTIFICIAL}, .units = "", .doc = "viscosity model"},
    {.name = "alpha", .type = KT_REAL, .offset = S(alpha), .lo = 0, .hi = 1, .def = {0.02}, .units = "",
     .doc = "artificial viscosity coefficient"},
    {.name = "delta", .type = KT_REAL, .offset = S(delta), .lo = 0, .hi = 1, .def = {0.1}, .units = "",
     .doc = "delta-SPH density diffusion coefficient (0 = off)"},
    {.name = "diffusion", .type = KT_ENUM, .offset = S(diffusion), .names = diffusion_names,
     .def = {DIFFUSION_FOURTAKAS}, .units = "",
     .doc = "density diffusion term: fourtakas (acts on the dynamic density only) or molteni"},
    {.name = "boundary", .type = KT_ENUM, .offset = S(boundary), .names = (const char *const[]){"dbc", "mdbc", NULL},
     .def = {WALL_MODEL_DBC}, .units = "",
     .doc = "WCSPH walls: dbc (dynamic boundary particles) or mdbc (modified DBC, English et al. 2022)"},
    {.name = "no_slip", .type = KT_BOOL, .offset = S(no_slip), .def = {0}, .units = "",
     .doc = "mdbc with laminar viscosity: the viscous term sees the wall velocity mirrored through the wall "
            "surface (2 v_wall - v_ghost), so the fluid sticks to the surface, not to the wall particles"},
    {.name = "packing", .type = KT_BOOL, .offset = S(packing), .def = {0}, .units = "",
     .doc = "relax the fluid particles evenly inside their shape, fitted to its surface, before the run"},
    {.name = "packing_iterations", .type = KT_INT, .offset = S(packing_iterations), .lo = 1, .hi = 100000,
     .def = {1000}, .units = "", .doc = "packing: at most this many relaxation steps"},
    {.name = "packing_tolerance", .type = KT_REAL, .offset = S(packing_tolerance), .lo = 0, .hi = 1,
     .flags = KF_LO_OPEN, .def = {1e-3}, .units = "",
     .doc = "packing: stop once no particle moves more than this many spacings in a step"},
};

/* The `motion` group of a tank or obstacle item: `law` first, which decides the other keys it takes
 * (scene_groups.c); the laws themselves are physics/rigid_motion.h. */
static const char *const motion_law_names[] = {"none", "sine", "rotation", "gate", NULL}; /* enum motion_law */
static const scene_key motion_keys[] = {
    {.name = "law", .type = KT_ENUM, .offset = M(law), .names = motion_law_names, .flags = KF_REQUIRED, .units = "",
     .doc = "sine (translation), rotation (sinusoidal, about an axis), gate (constant velocity), none"},
    {.name = "amplitude", .type = KT_VEC, .offset = M(amplitude), .hi = 1e3, .flags = KF_ABS, .units = "m",
     .doc = "sine (required): displacement amplitude"},
    {.name = "frequency", .type = KT_REAL, .offset = M(frequency), .lo = 0, .hi = 1e4, .flags = KF_LO_OPEN,
     .units = "Hz", .doc = "sine, rotation: frequency (or `period`)"},
    {.name = "period", .type = KT_REAL, .offset = M(period), .lo = 0, .hi = 1e6, .flags = KF_LO_OPEN, .units = "s",
     .doc = "sine, rotation: period (or `frequency`)"},
    {.name = "phase", .type = KT_REAL, .offset = M(phase), .lo = -360, .hi = 360, .def = {0.0}, .units = "degrees",
     .doc = "sine, rotation: phase of the sine at `start`"},
    {.name = "angle", .type = KT_REAL, .offset = M(angle), .lo = 0, .hi = 180, .flags = KF_LO_OPEN,
     .units = "degrees", .doc = "rotation (required): angular amplitude"},
    {.name = "axis", .type = KT_VEC, .offset = M(axis), .hi = NO_LIMIT, .def = {0.0, 0.0, 1.0}, .units = "",
     .doc = "rotation (3D): the axis, not all 0 (2D: z)"},
    {.name = "pivot", .type = KT_VEC, .offset = M(pivot), .hi = NO_LIMIT, .units = "m",
     .doc = "rotation (required): a point on the axis"},
    {.name = "velocity", .type = KT_VEC, .offset = M(velocity), .hi = 1e4, .flags = KF_ABS, .units = "m/s",
     .doc = "gate (required): velocity between the ramps"},
    {.name = "start", .type = KT_REAL, .offset = M(start), .lo = 0, .hi = 1e6, .def = {0.0}, .units = "s",
     .doc = "when the law starts (the item rests where the file puts it until then)"},
    {.name = "stop", .type = KT_REAL, .offset = M(stop), .lo = 0, .hi = 1e6, .flags = KF_LO_OPEN,
     .def = {NO_LIMIT}, .units = "s", .doc = "when the law stops (the item rests where it is from then on); "
     "default: never"},
    {.name = "ramp", .type = KT_REAL, .offset = M(ramp), .lo = 0, .hi = 1e6, .def = {0.0}, .units = "s",
     .doc = "gate: smooth (1 - cos) acceleration over this time after start, deceleration before stop"},
};

/* The `floating` group of an obstacle item: a rigid body the fluid moves (core/floating.h); one of
 * density and mass, and the positive-definite inertia, are checked in scene_groups.c. */
static const char *const float_axis_names[] = {"x", "y", "z", NULL}; /* FLOAT_AXIS_* bits */
static const scene_key floating_keys[] = {
    {.name = "density", .type = KT_REAL, .offset = FL(density), .lo = 0, .hi = 1e6, .def = {0.0}, .units = "kg/m^3",
     .doc = "the body's density (or `mass`); mass = density x the volume of its filled lattice"},
    {.name = "mass", .type = KT_REAL, .offset = FL(mass), .lo = -1e30, .hi = 1e30, .def = {0.0}, .units = "kg",
     .doc = "the body's mass, > 0 (kg per metre of depth in 2D; or `density`)"},
    {.name = "center", .type = KT_VEC, .offset = FL(center), .hi = NO_LIMIT, .units = "m",
     .doc = "centre of mass (default: the centroid of its filled lattice)"},
    {.name = "inertia", .type = KT_VEC, .offset = FL(inertia), .hi = NO_LIMIT, .units = "kg m^2",
     .doc = "principal moments [Ixx, Iyy, Izz] about the centre of mass (2D: one number, Izz); default: from "
            "the filled lattice and the mass"},
    {.name = "velocity", .type = KT_VEC, .offset = FL(velocity), .hi = 1e4, .flags = KF_ABS, .units = "m/s",
     .doc = "initial velocity of the centre of mass"},
    {.name = "omega", .type = KT_VEC, .offset = FL(omega), .hi = 1e4, .flags = KF_ABS, .units = "rad/s",
     .doc = "initial angular velocity (2D: one number, about z)"},
    {.name = "fixed_translation", .type = KT_FLAGS, .offset = FL(fix_translation), .names = float_axis_names,
     .def = {0}, .units = "", .doc = "world axes along which the body does not move, e.g. [\"x\"] (heave only: [\"x\", \"y\"] in 3D)"},
    {.name = "fixed_rotation", .type = KT_FLAGS, .offset = FL(fix_rotation), .names = float_axis_names,
     .def = {0}, .units = "", .doc = "world axes about which the body does not turn (2D: it turns about z only)"},
};

/* `type` first, then `shape`: they decide which other keys an item takes (the shapes' keys and the
 * ones each shape requires: scene_groups.c). */
static const scene_key geometry_keys[] = {
    {.name = "type", .type = KT_ENUM, .offset = G(kind), .names = sk_geom_names, .flags = KF_REQUIRED,
     .units = "", .doc = "what the item is", .kinds = GK_ALL},
    {.name = "shape", .type = KT_ENUM, .offset = G(shape), .names = shape_names, .def = {SHAPE_BOX}, .units = "",
     .doc = "the item's shape (\"mesh\" when only `mesh` is given)", .kinds = GK_ALL},
    {.name = "min", .type = KT_VEC, .offset = G(min), .hi = NO_LIMIT, .units = "m",
     .doc = "box, wedge (required): lower corner (of the inner box, for a tank)", .kinds = GK_ALL},
    {.name = "max", .type = KT_VEC, .offset = G(max), .hi = NO_LIMIT, .units = "m",
     .doc = "box, wedge (required): upper corner (of the inner box, for a tank)", .kinds = GK_ALL},
    {.name = "mesh", .type = KT_STRING, .offset = G(mesh), .size = SCENE_MESH_PATH_MAX, .flags = KF_NONEMPTY,
     .units = "", .doc = "mesh (3D): binary or ASCII STL file, relative to the scene file's folder", .kinds = GK_ALL},
    {.name = "center", .type = KT_VEC, .offset = G(center), .hi = NO_LIMIT, .units = "m",
     .doc = "cylinder, sphere (required): the centre", .kinds = GK_ALL},
    {.name = "radius", .type = KT_REAL, .offset = G(radius), .lo = 0, .hi = 1e6, .flags = KF_LO_OPEN, .units = "m",
     .doc = "cylinder, sphere (required): the radius", .kinds = GK_ALL},
    {.name = "axis", .type = KT_VEC, .offset = G(axis), .hi = NO_LIMIT, .def = {0.0, 0.0, 1.0}, .units = "",
     .doc = "cylinder (3D): \"x\", \"y\", \"z\" or a vector, not all 0", .kinds = GK_ALL},
    {.name = "length", .type = KT_REAL, .offset = G(length), .lo = 0, .hi = 1e6, .flags = KF_LO_OPEN, .units = "m",
     .doc = "cylinder (3D, required): the length along its axis", .kinds = GK_ALL},
    {.name = "slope", .type = KT_ENUM, .offset = G(slope), .names = slope_names, .def = {SLOPE_PLUS_X}, .units = "",
     .doc = "wedge: the side its sloped face falls towards (+y, -y in 3D only)", .kinds = GK_ALL},
    {.name = "point", .type = KT_VEC, .offset = G(point), .hi = NO_LIMIT, .units = "m",
     .doc = "plane (required): a point on it", .kinds = GK(GEOM_TANK) | GK(GEOM_OBSTACLE)},
    {.name = "normal", .type = KT_VEC, .offset = G(normal), .hi = NO_LIMIT, .units = "",
     .doc = "plane (required): its normal, pointing to the fluid side, not all 0",
     .kinds = GK(GEOM_TANK) | GK(GEOM_OBSTACLE)},
    {.name = "scale", .type = KT_REAL, .offset = G(scale), .lo = 0, .hi = 1e6, .flags = KF_LO_OPEN, .def = {1.0},
     .units = "", .doc = "all but box: uniform scale, applied first", .kinds = GK_ALL},
    {.name = "rotate", .type = KT_VEC, .offset = G(rotate), .hi = 360, .flags = KF_ABS, .units = "degrees",
     .doc = "all but box: rotation about x, then y, then z (2D: one number, about z), applied second",
     .kinds = GK_ALL},
    {.name = "translate", .type = KT_VEC, .offset = G(translate), .hi = NO_LIMIT, .units = "m",
     .doc = "all but box: translation, applied last", .kinds = GK_ALL},
    {.name = "layers", .type = KT_INT, .offset = G(layers), .lo = 1, .hi = 8, .def = {3}, .units = "",
     .doc = "layers of wall particles", .kinds = GK(GEOM_TANK) | GK(GEOM_OBSTACLE)},
    {.name = "closed_top", .type = KT_BOOL, .offset = G(closed_top), .def = {0}, .units = "",
     .doc = "walls on the roof too", .kinds = GK(GEOM_TANK)},
    {.name = "velocity", .type = KT_VEC, .offset = G(velocity), .hi = 1e4, .flags = KF_ABS, .units = "m/s",
     .doc = "initial velocity", .kinds = GK(GEOM_FLUID)},
    {.name = "motion", .type = KT_GROUP, .offset = G(motion), .sub = motion_keys, .nsub = NKEYS(motion_keys),
     .units = "", .doc = "prescribed motion: { law = \"sine\" | \"rotation\" | \"gate\"; ... }",
     .kinds = GK(GEOM_TANK) | GK(GEOM_OBSTACLE)},
    {.name = "floating", .type = KT_GROUP, .offset = G(floating), .sub = floating_keys,
     .nsub = NKEYS(floating_keys), .units = "",
     .doc = "a floating body moved by the fluid: { density = ... or mass = ...; ... }", .kinds = GK(GEOM_OBSTACLE)},
};

static const scene_key output_keys[] = {
    /* scene_defaults() sets "output/scene"; the loader uses output/<file base name>. */
    {.name = "directory", .type = KT_STRING, .offset = S(out_dir), .size = SCENE_PATH_MAX,
     .flags = KF_NONEMPTY, .sdef = "output/scene", .units = "",
     .doc = "where snapshots go (default output/<scene file name without extension>)"},
    {.name = "interval", .type = KT_REAL, .offset = S(out_interval), .lo = 0, .hi = NO_LIMIT,
     .flags = KF_LO_OPEN, .def = {0.01}, .units = "s", .doc = "simulated time between snapshots"},
    {.name = "fields", .type = KT_FLAGS, .offset = S(out_fields), .names = field_names, .def = {OUT_ALL},
     .always = OUT_POSITION | OUT_ID, .units = "", .doc = "particle fields written (position and id always are)"},
    {.name = "checkpoint_every", .type = KT_INT, .offset = S(checkpoint_every), .lo = 0, .hi = 1000000,
     .def = {10}, .units = "snapshots",
     .doc = "write checkpoint.bin every N snapshots (0: only at the end and on SIGINT/SIGTERM)"},
};

static const scene_key viewer_keys[] = {
    {.name = "field", .type = KT_ENUM, .offset = S(viewer.field), .names = viz_field_names,
     .def = {VIZ_FIELD_VELOCITY}, .units = "", .doc = "colour the fluid by velocity magnitude, pressure, density or particle type"},
    {.name = "colormap", .type = KT_ENUM, .offset = S(viewer.colormap), .names = viz_colormap_names,
     .def = {VIZ_CMAP_VIRIDIS}, .units = "", .doc = "perceptual colour map"},
    {.name = "range_min", .type = KT_REAL, .offset = S(viewer.range_min), .lo = -1e30, .hi = 1e30,
     .def = {0.0}, .units = "field units", .doc = "fixed colour range of `field` (with range_max); automatic when both are equal"},
    {.name = "range_max", .type = KT_REAL, .offset = S(viewer.range_max), .lo = -1e30, .hi = 1e30,
     .def = {0.0}, .units = "field units", .doc = "upper end of the fixed colour range"},
    {.name = "walls", .type = KT_ENUM, .offset = S(viewer.walls), .names = viz_walls_names,
     .def = {VIZ_WALLS_TRANSLUCENT}, .units = "", .doc = "how tank walls and obstacles are drawn"},
    {.name = "width", .type = KT_INT, .offset = S(viewer.width), .lo = 64, .hi = 8192, .def = {1280},
     .units = "pixels", .doc = "window and frame width"},
    {.name = "height", .type = KT_INT, .offset = S(viewer.height), .lo = 64, .hi = 8192, .def = {720},
     .units = "pixels", .doc = "window and frame height"},
    {.name = "particle_size", .type = KT_REAL, .offset = S(viewer.particle_size), .lo = 0.05, .hi = 20,
     .def = {1.0}, .units = "spacings", .doc = "diameter of the drawn spheres"},
    {.name = "frame_every", .type = KT_REAL, .offset = S(viewer.frame_every), .lo = 0, .hi = NO_LIMIT,
     .def = {0.0}, .units = "s", .doc = "simulated time between --frames images; 0 = output.interval"},
    {.name = "projection", .type = KT_ENUM, .offset = S(viewer.projection), .names = viz_projection_names,
     .def = {VIZ_PROJ_AUTO}, .units = "", .doc = "auto: orthographic in 2D, perspective in 3D"},
    {.name = "yaw", .type = KT_REAL, .offset = S(viewer.yaw), .lo = -360, .hi = 360, .def = {-30.0},
     .units = "degrees", .doc = "3D: camera direction about the vertical axis (0 = looking along +y)"},
    {.name = "pitch", .type = KT_REAL, .offset = S(viewer.pitch), .lo = -89, .hi = 89, .def = {25.0},
     .units = "degrees", .doc = "3D: camera elevation above the horizontal"},
    {.name = "overlay", .type = KT_BOOL, .offset = S(viewer.overlay), .def = {1}, .units = "",
     .doc = "text overlay with time, step, particles and rates"},
    {.name = "colorbar", .type = KT_BOOL, .offset = S(viewer.colorbar), .def = {1}, .units = "",
     .doc = "colour bar with its range"},
};

static const scene_key gpu_keys[] = {
    {.name = "sort", .type = KT_ENUM, .offset = S(gpu_sort), .names = gpu_sort_names,
     .def = {GPU_SORT_NAME_COUNTING}, .units = "",
     .doc = "binning into cells: counting (fastest; the order inside a cell varies from run to run) or "
            "radix (stable: bit-reproducible runs)"},
    {.name = "strategy", .type = KT_ENUM, .offset = S(gpu_strategy), .names = gpu_strategy_names,
     .def = {GPU_STRATEGY_AUTO}, .units = "",
     .doc = "interaction strategy of the neighbour passes; auto times each on the live layout"},
    {.name = "scan", .type = KT_ENUM, .offset = S(gpu_scan), .names = gpu_scan_names,
     .def = {GPU_SCAN_NAME_AUTO}, .units = "",
     .doc = "prefix sum of the counting sort: blocked (ours), cub, or auto (the faster, measured)"},
};
static const scene_key probes_keys[] = {
    {.name = "interval", .type = KT_REAL, .offset = S(probes.interval), .lo = 1e-9, .hi = 1e6,
     .flags = KF_ZERO_OK, .def = {0.0}, .units = "s",
     .doc = "simulated time between rows of probes.csv (0: output.interval)"},
    {.name = "pressure", .type = KT_POINTS, .offset = S(probes.pressure), .count_offset = S(probes.npressure),
     .units = "m",
     .doc = "pressure sensors: ( { name = \"P1\"; at = [x, y(, z)]; normal = [nx, ny(, nz)]; offset = d; }, ... ); "
            "normal and offset optional: sampled at at + offset * normal (wall normal into the fluid)"},
    {.name = "gauges", .type = KT_POINTS, .offset = S(probes.gauges), .count_offset = S(probes.ngauges),
     .flags = KF_HORIZONTAL, .units = "m",
     .doc = "water-level gauges: ( { name = \"H1\"; at = [x(, y)]; }, ... ), the horizontal position"},
    {.name = "front", .type = KT_ENUM, .offset = S(probes.front), .names = sk_front_names, .def = {FRONT_NONE},
     .units = "", .doc = "surge front: the farthest fluid surface along this direction"},
    {.name = "energy", .type = KT_BOOL, .offset = S(probes.energy), .def = {1}, .units = "",
     .doc = "total mass, kinetic and potential energy of the fluid"},
};

static const scene_key grid_keys[] = {
    {.name = "spacing", .type = KT_REAL, .offset = S(grid.spacing), .lo = 0, .hi = 10,
     .flags = KF_LO_OPEN | KF_ZERO_OK, .def = {0.0}, .units = "m",
     .doc = "distance between grid nodes (0: twice numerics.spacing)"},
    {.name = "order", .type = KT_INT, .offset = S(grid.order), .lo = 1, .hi = 4, .def = {4}, .units = "",
     .doc = "B-spline order p: 1 nearest node, 2 linear, 3 quadratic, 4 cubic"},
    {.name = "fields", .type = KT_FLAGS, .offset = S(grid.fields), .names = grid_field_names, .def = {GRID_ALL},
     .units = "", .doc = "gridded fields written"},
    {.name = "method", .type = KT_ENUM, .offset = S(grid.method), .names = grid_method_names,
     .def = {GRID_METHOD_AUTO}, .units = "",
     .doc = "spreading algorithm: particle (atomic adds), mesh (gather per node), auto (by contributions per node)"},
};

/* Read in this order (fluid.gravity's default depends on simulation.dimension; the
 * cross-checks of the geometry come after everything). */
const group_desc sk_groups[] = {
    {"simulation", simulation_keys, NKEYS(simulation_keys), 0, 0, "what is simulated", sk_simulation_after, 0},
    {"fluid", fluid_keys, NKEYS(fluid_keys), 0, 0, "the fluid's properties", NULL, 0},
    {"numerics", numerics_keys, NKEYS(numerics_keys), 0, 0, "the discretisation", sk_numerics_after, 0},
    {"mps", mps_scene_keys, MPS_SCENE_KEY_COUNT, 0, 0, "MPS and explicit MPS (methods mps, emps)", NULL, 0},
    {"geometry", geometry_keys, NKEYS(geometry_keys), 1, 1, "fluid, tanks and obstacles: boxes, meshes, other shapes",
     NULL, 0},
    {"output", output_keys, NKEYS(output_keys), 0, 0, "snapshots", NULL, 0},
    {"gpu", gpu_keys, NKEYS(gpu_keys), 0, 0, "the CUDA backend", NULL, 0},
    {"viewer", viewer_keys, NKEYS(viewer_keys), 0, 0, "the live viewer and offscreen frames", sk_viewer_after, 0},
    {"probes", probes_keys, NKEYS(probes_keys), 0, 0, "probes written to probes.csv during the run",
     sk_probes_after, S(probes.enabled)},
    {"grid", grid_keys, NKEYS(grid_keys), 0, 0, "gridded fields in every snapshot", sk_grid_after, S(grid.enabled)},
};
_Static_assert(NKEYS(sk_groups) == SK_NGROUPS, "SK_NGROUPS (scene_keys.h) is not the number of rows of sk_groups");

/* ---- names ------------------------------------------------------------------------------- */

const char *scene_kernel_name(enum kernel_kind k)
{
    return (unsigned)k < sizeof kernel_names / sizeof kernel_names[0] - 1 ? kernel_names[k] : "unknown";
}

const char *scene_integrator_name(enum integrator_kind k)
{
    return (unsigned)k < sizeof integrator_names / sizeof integrator_names[0] - 1 ? integrator_names[k]
                                                                                 : "unknown";
}

const char *scene_motion_law_name(enum motion_law k)
{
    return (unsigned)k < sizeof motion_law_names / sizeof motion_law_names[0] - 1 ? motion_law_names[k] : "unknown";
}

const char *scene_viz_field_name(enum viz_field_kind k)
{
    return (unsigned)k < sizeof viz_field_names / sizeof viz_field_names[0] - 1 ? viz_field_names[k] : "unknown";
}

int scene_viz_field_find(const char *name)
{
    for (int i = 0; viz_field_names[i]; ++i)
        if (strcmp(viz_field_names[i], name) == 0)
            return i;
    return -1;
}

const char *scene_viscosity_name(enum viscosity_kind k)
{
    return (unsigned)k < sizeof viscosity_names / sizeof viscosity_names[0] - 1 ? viscosity_names[k] : "unknown";
}

static int name_index(const char *const *names, const char *name)
{
    for (int k = 0; names[k]; ++k)
        if (strcmp(names[k], name) == 0)
            return k;
    return -1;
}

int scene_gpu_strategy_parse(const char *name)
{
    return name_index(gpu_strategy_names, name);
}

int scene_gpu_sort_parse(const char *name)
{
    return name_index(gpu_sort_names, name);
}

const char *scene_gpu_strategy_name(enum gpu_strategy_name k)
{
    return (unsigned)k < sizeof gpu_strategy_names / sizeof gpu_strategy_names[0] - 1 ? gpu_strategy_names[k]
                                                                                       : "unknown";
}

const char *scene_gpu_strategy_accepted(void)
{
    static char list[256];
    sk_join_names(gpu_strategy_names, -1, 0, list, sizeof list);
    return list;
}

const char *scene_gpu_sort_accepted(void)
{
    static char list[64];
    sk_join_names(gpu_sort_names, -1, 0, list, sizeof list);
    return list;
}
