/* scene_load.c: reads a libconfig scene file into a validated struct scene.
 *
 * Table-driven: each group of the file has a table of key descriptors (name, type, where the value
 * lands in the struct, accepted range, default, units, one line of documentation). scene_defaults()
 * applies the defaults of the tables, and the loader checks every setting of the file against them.
 * A new key is a new table row (plus its struct field); a new group is a new table plus a row in
 * `groups`. docs/scene-files.md documents the same tables: keep them in step.
 *
 * Every error is one line: FILE:LINE: key 'group.key': what is wrong (accepted: ...).
 * libconfig sees the text only once scene_syntax.c has checked its syntax (that file says why).
 */
#include "base/scene.h"
#include "core/scheme.h"
#include "file_read.h"
#include "scene_syntax.h"

#include <libconfig.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENE_FILE_MAX ((size_t)64 << 20) /* bytes: larger files are refused */
#define SCENE_GEOM_MAX 10000               /* geometry items */
#define BOX_TOL 1e-9                        /* box comparisons: tolerance relative to the box size */
#define NO_LIMIT HUGE_VAL


/* Enum fields are written through an int. */
_Static_assert(sizeof(enum kernel_kind) == sizeof(int), "enum kernel_kind is stored as an int");
_Static_assert(sizeof(enum integrator_kind) == sizeof(int), "enum integrator_kind is stored as an int");
_Static_assert(sizeof(enum viscosity_kind) == sizeof(int), "enum viscosity_kind is stored as an int");
_Static_assert(sizeof(enum diffusion_kind) == sizeof(int), "enum diffusion_kind is stored as an int");
_Static_assert(sizeof(enum mps_operator_kind) == sizeof(int), "enum mps_operator_kind is stored as an int");
_Static_assert(sizeof(enum mps_weight_name) == sizeof(int), "enum mps_weight_name is stored as an int");
_Static_assert(sizeof(enum mps_domain_kind) == sizeof(int), "enum mps_domain_kind is stored as an int");
_Static_assert(sizeof(enum mps_source_kind) == sizeof(int), "enum mps_source_kind is stored as an int");
_Static_assert(sizeof(enum geom_kind) == sizeof(int), "enum geom_kind is stored as an int");
_Static_assert(sizeof(enum viz_field_kind) == sizeof(int), "enum viz_field_kind is stored as an int");
_Static_assert(sizeof(enum viz_colormap_kind) == sizeof(int), "enum viz_colormap_kind is stored as an int");
_Static_assert(sizeof(enum viz_walls_kind) == sizeof(int), "enum viz_walls_kind is stored as an int");
_Static_assert(sizeof(enum viz_projection_kind) == sizeof(int), "enum viz_projection_kind is stored as an int");
_Static_assert(sizeof(enum probe_front) == sizeof(int), "enum probe_front is stored as an int");
_Static_assert(sizeof(enum grid_method) == sizeof(int), "enum grid_method is stored as an int");

/* ---- key descriptors ------------------------------------------------------------------------ */

enum key_type {
    KT_REAL,   /* double; an integer literal is fine */
    KT_INT,    /* int; a real literal is an error */
    KT_BOOL,   /* int 0/1 from true/false */
    KT_ENUM,   /* a string from `names`, stored as its index (an enum) */
    KT_STRING, /* char[size] */
    KT_SCHEME, /* char[size]: a name known to scheme_find() */
    KT_VEC,    /* double[3]: `simulation.dimension` numbers, z = 0 in 2D */
    KT_FLAGS,  /* unsigned: an array of distinct strings from `names`, names[i] sets bit i */
    KT_POINTS  /* scene_probe_point[SCENE_PROBES_MAX] + an int count at count_offset: a list of
                * ( { name = "..."; at = [...]; }, ... ) */
};

enum {
    KF_REQUIRED = 1u << 0, /* no default: the key must be given */
    KF_LO_OPEN = 1u << 1,  /* value > lo (otherwise value >= lo) */
    KF_ZERO_OK = 1u << 2,  /* 0 is accepted besides lo..hi */
    KF_ABS = 1u << 3,      /* KT_VEC: every |component| <= hi */
    KF_NONEMPTY = 1u << 4, /* KT_STRING: "" is an error */
    KF_HORIZONTAL = 1u << 5 /* KT_POINTS: `at` has dimension - 1 numbers (the horizontal axes) */
};

#define GK(kind) (1u << (kind)) /* key_desc.kinds: the geometry item types that take the key */
#define GK_ALL (GK(GEOM_FLUID) | GK(GEOM_TANK) | GK(GEOM_OBSTACLE))

typedef struct key_desc {
    const char *name;
    enum key_type type;
    size_t offset;            /* in struct scene, or in struct scene_geom for geometry items */
    size_t size;              /* KT_STRING, KT_SCHEME: size of the buffer */
    double lo, hi;            /* accepted range (see KF_*); KT_VEC with KF_ABS: hi bounds |component| */
    unsigned flags;           /* KF_* */
    const char *const *names; /* KT_ENUM, KT_FLAGS: accepted strings, NULL-terminated */
    double def[3];            /* default: the number, enum index, bool, bit set, or vector */
    const char *sdef;         /* default of KT_STRING, KT_SCHEME */
    unsigned always;          /* KT_FLAGS: bits set whatever the file says */
    const char *units;        /* SI units, "" when dimensionless */
    const char *doc;          /* one line */
    unsigned kinds;           /* geometry items: GK() bits */
    size_t count_offset;      /* KT_POINTS: the int that counts the points */
} key_desc;

struct ctx;

typedef struct group_desc {
    const char *name;
    const key_desc *keys;
    int nkeys;
    int list;     /* 1: a list of items ( {...}, {...} ) read into sc->geom; 0: one group { ... } */
    int required; /* the group (list) must be present */
    const char *doc;
    /* Runs once the group's keys are read (g is NULL when the group is absent). */
    int (*after)(struct ctx *c, const config_setting_t *g);
    size_t enabled_at; /* > 0: an optional feature; its keys are visited only when this int is set */
} group_desc;

static const char *const kernel_names[] = {"wendland", "cubic", NULL};
static const char *const integrator_names[] = {"symplectic", "verlet", NULL};
static const char *const viscosity_names[] = {"artificial", "laminar", NULL};
static const char *const diffusion_names[] = {"fourtakas", "molteni", NULL};
static const char *const geom_names[] = {"fluid", "tank", "obstacle", NULL};
static const char *const gpu_sort_names[] = {"counting", "radix", NULL};
static const char *const gpu_strategy_names[] = {"auto", "par-part", "par-cell", "par-cell-sm", "x-pencil",
                                                    "par-part-compact", "par-part-sym", NULL};
static const char *const gpu_scan_names[] = {"auto", "blocked", "cub", NULL};
static const char *const mps_operator_names[] = {"mps", "lsmps", NULL};
static const char *const mps_weight_names[] = {"ko", "quadratic", NULL}; /* enum mps_weight_name order */
static const char *const mps_domain_names[] = {"spherical", "cubic", NULL};
static const char *const mps_source_names[] = {"density", "mixed", NULL};
static const char *const viz_field_names[] = {"velocity", "pressure", "density", "type", NULL};
static const char *const viz_colormap_names[] = {"viridis", "magma", "plasma", NULL};
static const char *const viz_walls_names[] = {"translucent", "opaque", "hidden", NULL};
static const char *const viz_projection_names[] = {"auto", "perspective", "orthographic", NULL};
static const char *const mps_wall_pressure_names[] = {"extrapolated", "number_density", NULL};
/* Index i is the bit 1u << i of the OUT_* constants. */
static const char *const field_names[] = {"position", "velocity", "pressure", "density", "type", "id", NULL};
static const char *const front_names[] = {"none", "+x", "-x", "+y", "-y", "+z", "-z", NULL}; /* enum probe_front */
/* Index i is the bit 1u << i of the GRID_* constants. */
static const char *const grid_field_names[] = {"density", "velocity", "pressure", NULL};
static const char *const grid_method_names[] = {"auto", "particle", "mesh", NULL};

#define S(field) offsetof(scene, field)
#define G(field) offsetof(scene_geom, field)
#define NKEYS(t) ((int)(sizeof(t) / sizeof((t)[0])))

/* Read in table order: `dimension` comes before the vectors that depend on it. */
static const key_desc simulation_keys[] = {
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
};

static const key_desc fluid_keys[] = {
    {.name = "density", .type = KT_REAL, .offset = S(rho0), .lo = 1, .hi = 1e5, .def = {1000.0},
     .units = "kg/m^3", .doc = "reference density"},
    {.name = "viscosity", .type = KT_REAL, .offset = S(nu), .lo = 0, .hi = 10, .def = {1.0e-6},
     .units = "m^2/s", .doc = "kinematic viscosity"},
    /* The 2D default; simulation_after() points it down z in 3D. */
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

static const key_desc numerics_keys[] = {
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
};

static const key_desc mps_keys[] = {
    {.name = "operators", .type = KT_ENUM, .offset = S(mps.operators), .names = mps_operator_names,
     .def = {MPS_OPERATORS_MPS}, .units = "", .doc = "gradient and Laplacian: the MPS models or LSMPS"},
    {.name = "weight", .type = KT_ENUM, .offset = S(mps.weight), .names = mps_weight_names,
     .def = {MPS_WEIGHT_NAME_QUADRATIC}, .units = "",
     .doc = "weight in the spherical domain: quadratic = (1 - r/re)^2, ko = re/r - 1 (singular at r = 0)"},
    {.name = "domain", .type = KT_ENUM, .offset = S(mps.domain), .names = mps_domain_names,
     .def = {MPS_DOMAIN_SPHERICAL}, .units = "",
     .doc = "interaction domain: spherical, or cubic with the tensor-product weight"},
    {.name = "re_density", .type = KT_REAL, .offset = S(mps.re_density), .lo = 1.0, .hi = 6.0, .def = {2.1},
     .units = "spacings", .doc = "radius of the number density and the gradient"},
    {.name = "re_laplacian", .type = KT_REAL, .offset = S(mps.re_laplacian), .lo = 1.0, .hi = 6.0,
     .def = {4.0}, .units = "spacings", .doc = "radius of the Laplacian"},
    {.name = "lsmps_scale", .type = KT_REAL, .offset = S(mps.lsmps_scale), .lo = 0.1, .hi = 10.0,
     .def = {1.0}, .units = "spacings", .doc = "LSMPS scaling length rs"},
    {.name = "surface_beta", .type = KT_REAL, .offset = S(mps.surface_beta), .lo = 0.5, .hi = 1.0,
     .flags = KF_LO_OPEN, .def = {0.97}, .units = "", .doc = "free surface where n* < beta n0"},
    {.name = "collision_distance", .type = KT_REAL, .offset = S(mps.collision_distance), .lo = 0.0, .hi = 1.0,
     .def = {0.5}, .units = "spacings",
     .doc = "approaching pairs closer than this collide (Koshizuka et al. 2018); 0.8 keeps the dam breaks of "
            "tools/mps-stability-study stable; 0 turns collisions off"},
    {.name = "collision_restitution", .type = KT_REAL, .offset = S(mps.collision_restitution), .lo = 0.0,
     .hi = 1.0, .def = {0.2}, .units = "", .doc = "coefficient of restitution of those collisions"},
    {.name = "source", .type = KT_ENUM, .offset = S(mps.source), .names = mps_source_names,
     .def = {MPS_SOURCE_MIXED}, .units = "",
     .doc = "pressure Poisson source: mixed (velocity divergence + density, Tanaka & Masunaga 2010) or density (n* - n0)"},
    {.name = "mixed_gamma", .type = KT_REAL, .offset = S(mps.mixed_gamma), .lo = 0.0, .hi = 1.0,
     .def = {0.01}, .units = "", .doc = "weight of the density term in the mixed source"},
    {.name = "relaxation", .type = KT_REAL, .offset = S(mps.relaxation), .lo = 0.0, .hi = 1.0,
     .flags = KF_LO_OPEN, .def = {0.2}, .units = "",
     .doc = "source = density: factor on the source term (1 = Koshizuka & Oka 1996; 0.2 damps its oscillation)"},
    {.name = "compressibility", .type = KT_REAL, .offset = S(mps.compressibility), .lo = 0.0, .hi = 1e-3,
     .def = {0.45e-9}, .units = "1/Pa",
     .doc = "compressibility added to the Poisson equation (water: 0.45e-9)"},
    {.name = "cg_tolerance", .type = KT_REAL, .offset = S(mps.cg_tolerance), .lo = 1e-14, .hi = 0.1,
     .def = {1e-6}, .units = "", .doc = "conjugate gradients stop at ||b - A p|| <= tol ||b||"},
    {.name = "cg_max_iterations", .type = KT_INT, .offset = S(mps.cg_max_iterations), .lo = 1,
     .hi = 1000000, .def = {5000}, .units = "", .doc = "conjugate gradient iterations at most"},
    {.name = "clamp_negative_pressure", .type = KT_BOOL, .offset = S(mps.clamp_negative_pressure),
     .def = {1}, .units = "", .doc = "set negative pressures to 0 after the solve"},
    {.name = "gradient_stabilised", .type = KT_BOOL, .offset = S(mps.gradient_stabilised), .def = {1},
     .units = "", .doc = "MPS gradient relative to the smallest neighbour pressure"},
    {.name = "wall_pressure", .type = KT_ENUM, .offset = S(mps.wall_pressure), .names = mps_wall_pressure_names,
     .def = {MPS_WALL_PRESSURE_EXTRAPOLATED}, .units = "",
     .doc = "explicit MPS: wall pressure extrapolated from the fluid (Adami et al. 2012) or from the wall's own number density"},
};

/* `type` first: it decides which other keys an item takes. */
static const key_desc geometry_keys[] = {
    {.name = "type", .type = KT_ENUM, .offset = G(kind), .names = geom_names, .flags = KF_REQUIRED,
     .units = "", .doc = "what the box is", .kinds = GK_ALL},
    {.name = "min", .type = KT_VEC, .offset = G(min), .hi = NO_LIMIT, .flags = KF_REQUIRED, .units = "m",
     .doc = "lower corner (of the inner box, for a tank)", .kinds = GK_ALL},
    {.name = "max", .type = KT_VEC, .offset = G(max), .hi = NO_LIMIT, .flags = KF_REQUIRED, .units = "m",
     .doc = "upper corner (of the inner box, for a tank)", .kinds = GK_ALL},
    {.name = "layers", .type = KT_INT, .offset = G(layers), .lo = 1, .hi = 8, .def = {3}, .units = "",
     .doc = "layers of wall particles", .kinds = GK(GEOM_TANK) | GK(GEOM_OBSTACLE)},
    {.name = "closed_top", .type = KT_BOOL, .offset = G(closed_top), .def = {0}, .units = "",
     .doc = "walls on the roof too", .kinds = GK(GEOM_TANK)},
    {.name = "velocity", .type = KT_VEC, .offset = G(velocity), .hi = 1e4, .flags = KF_ABS, .units = "m/s",
     .doc = "initial velocity", .kinds = GK(GEOM_FLUID)},
};

static const key_desc output_keys[] = {
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

static const key_desc viewer_keys[] = {
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

static int simulation_after(struct ctx *c, const config_setting_t *g);
static int viewer_after(struct ctx *c, const config_setting_t *g);

static const key_desc gpu_keys[] = {
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
static const key_desc probes_keys[] = {
    {.name = "interval", .type = KT_REAL, .offset = S(probes.interval), .lo = 1e-9, .hi = 1e6,
     .flags = KF_ZERO_OK, .def = {0.0}, .units = "s",
     .doc = "simulated time between rows of probes.csv (0: output.interval)"},
    {.name = "pressure", .type = KT_POINTS, .offset = S(probes.pressure), .count_offset = S(probes.npressure),
     .units = "m", .doc = "pressure sensors: ( { name = \"P1\"; at = [x, y(, z)]; }, ... )"},
    {.name = "gauges", .type = KT_POINTS, .offset = S(probes.gauges), .count_offset = S(probes.ngauges),
     .flags = KF_HORIZONTAL, .units = "m",
     .doc = "water-level gauges: ( { name = \"H1\"; at = [x(, y)]; }, ... ), the horizontal position"},
    {.name = "front", .type = KT_ENUM, .offset = S(probes.front), .names = front_names, .def = {FRONT_NONE},
     .units = "", .doc = "surge front: the farthest fluid surface along this direction"},
    {.name = "energy", .type = KT_BOOL, .offset = S(probes.energy), .def = {1}, .units = "",
     .doc = "total mass, kinetic and potential energy of the fluid"},
};

static const key_desc grid_keys[] = {
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

static int simulation_after(struct ctx *c, const config_setting_t *g);
static int probes_after(struct ctx *c, const config_setting_t *g);
static int grid_after(struct ctx *c, const config_setting_t *g);

/* Read in this order (fluid.gravity's default depends on simulation.dimension; the
 * cross-checks of the geometry come after everything). */
static const group_desc groups[] = {
    {"simulation", simulation_keys, NKEYS(simulation_keys), 0, 0, "what is simulated", simulation_after, 0},
    {"fluid", fluid_keys, NKEYS(fluid_keys), 0, 0, "the fluid's properties", NULL, 0},
    {"numerics", numerics_keys, NKEYS(numerics_keys), 0, 0, "the discretisation", NULL, 0},
    {"mps", mps_keys, NKEYS(mps_keys), 0, 0, "MPS and explicit MPS (methods mps, emps)", NULL, 0},
    {"geometry", geometry_keys, NKEYS(geometry_keys), 1, 1, "boxes of fluid, tanks and obstacles", NULL, 0},
    {"output", output_keys, NKEYS(output_keys), 0, 0, "snapshots", NULL, 0},
    {"gpu", gpu_keys, NKEYS(gpu_keys), 0, 0, "the CUDA backend", NULL, 0},
    {"viewer", viewer_keys, NKEYS(viewer_keys), 0, 0, "the live viewer and offscreen frames", viewer_after, 0},
    {"probes", probes_keys, NKEYS(probes_keys), 0, 0, "probes written to probes.csv during the run", probes_after,
     S(probes.enabled)},
    {"grid", grid_keys, NKEYS(grid_keys), 0, 0, "gridded fields in every snapshot", grid_after, S(grid.enabled)},
};
#define NGROUPS ((int)(sizeof groups / sizeof groups[0]))

/* ---- loader state and messages -------------------------------------------------------------- */

typedef struct ctx {
    const char *name; /* file name in messages */
    const char *text;
    scene *sc;
    sl_err *err;
    /* Integer literals that libconfig 1.5 wraps to 32 bits without an error (found by
     * scene_syntax_check()), kept so that the key holding one is reported. */
    scene_int_overflows ovf;
} ctx;

#define MSG_MAX sizeof(((sl_err *)0)->msg)

static size_t clamp_len(int r, size_t have, size_t size)
{
    if (r < 0)
        return have;
    size_t n = have + (size_t)r;
    return n < size ? n : size - 1;
}

/* The one-line message: NAME[:LINE]: [key 'KEY': ]... ; control characters become '?'. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int fail(const ctx *c, int line, const char *key, const char *fmt, ...)
{
    char buf[MSG_MAX];
    size_t n;
    if (line > 0)
        n = clamp_len(snprintf(buf, sizeof buf, "%s:%d: ", c->name, line), 0, sizeof buf);
    else
        n = clamp_len(snprintf(buf, sizeof buf, "%s: ", c->name), 0, sizeof buf);
    if (key)
        n = clamp_len(snprintf(buf + n, sizeof buf - n, "key '%s': ", key), n, sizeof buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof buf - n, fmt, ap);
    va_end(ap);
    for (char *p = buf; *p; ++p)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return sl_fail(c->err, SL_ERR_INPUT, "%s", buf);
}

static int line_of(const config_setting_t *s)
{
    return s ? (int)config_setting_source_line(s) : 0;
}

/* "1e+06" -> "1e6", "1e-06" -> "1e-6". */
static void short_exponent(char *s)
{
    char *e = strchr(s, 'e');
    if (!e)
        return;
    char *q = e + 1, *w = e + 1;
    if (*q == '-')
        *w++ = *q;
    if (*q == '+' || *q == '-')
        ++q;
    while (*q == '0' && q[1])
        ++q;
    memmove(w, q, strlen(q) + 1);
}

/* A number for messages: the shortest text that reads back as v (at most 10 significant digits,
 * which hides rounding noise such as 0.30000000000000004), in plain notation unless the exponent
 * form is at least 2 characters shorter (1000, 0.001, 1e5, 2e-6). */
static const char *fmt_num(double v, char *buf, size_t n)
{
    if (isnan(v)) {
        snprintf(buf, n, "nan");
        return buf;
    }
    if (isinf(v)) {
        snprintf(buf, n, "%s", v > 0 ? "inf" : "-inf");
        return buf;
    }
    char sci[48], plain[48];
    int p = 1;
    for (; p < 10; ++p) {
        snprintf(sci, sizeof sci, "%.*g", p, v);
        if (strtod(sci, NULL) == v)
            break;
    }
    snprintf(sci, sizeof sci, "%.*g", p, v);
    short_exponent(sci);
    int e10 = v != 0 ? (int)floor(log10(fabs(v))) : 0;
    if (e10 >= 0 && e10 < 17 && e10 + 1 > p)
        snprintf(plain, sizeof plain, "%.*g", e10 + 1, v); /* enough digits for plain notation */
    else
        snprintf(plain, sizeof plain, "%s", sci);
    if (strchr(plain, 'e') || strlen(sci) + 2 <= strlen(plain))
        snprintf(buf, n, "%s", sci);
    else
        snprintf(buf, n, "%s", plain);
    return buf;
}

/* A real value as the file would show it: always with a '.' or an exponent (2.0, not 2). */
static const char *fmt_real(double v, char *buf, size_t n)
{
    fmt_num(v, buf, n);
    if (isfinite(v) && !strpbrk(buf, ".e") && strlen(buf) + 3 <= n)
        strcat(buf, ".0");
    return buf;
}

static void fmt_string(const char *s, char *buf, size_t n)
{
    if (!s)
        s = "";
    size_t len = strlen(s);
    if (len > 40)
        snprintf(buf, n, "\"%.40s...\"", s);
    else
        snprintf(buf, n, "\"%s\"", s);
}

/* The value of a scalar setting as written ("5", "2.5", "\"abc\"", "true"). */
static void value_text(const config_setting_t *s, char *buf, size_t n)
{
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
        snprintf(buf, n, "%d", config_setting_get_int(s));
        break;
    case CONFIG_TYPE_INT64:
        snprintf(buf, n, "%lldL", config_setting_get_int64(s));
        break;
    case CONFIG_TYPE_FLOAT:
        fmt_real(config_setting_get_float(s), buf, n);
        break;
    case CONFIG_TYPE_STRING:
        fmt_string(config_setting_get_string(s), buf, n);
        break;
    case CONFIG_TYPE_BOOL:
        snprintf(buf, n, "%s", config_setting_get_bool(s) ? "true" : "false");
        break;
    default:
        snprintf(buf, n, "?");
        break;
    }
}

/* What a setting is, for "expected X, got Y". */
static void describe_value(const config_setting_t *s, char *buf, size_t n)
{
    char v[96];
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
        value_text(s, v, sizeof v);
        snprintf(buf, n, "the integer %s", v);
        break;
    case CONFIG_TYPE_FLOAT:
        value_text(s, v, sizeof v);
        snprintf(buf, n, "the real number %s", v);
        break;
    case CONFIG_TYPE_STRING:
        value_text(s, v, sizeof v);
        snprintf(buf, n, "the string %s", v);
        break;
    case CONFIG_TYPE_BOOL:
        value_text(s, v, sizeof v);
        snprintf(buf, n, "the boolean %s", v);
        break;
    case CONFIG_TYPE_GROUP:
        snprintf(buf, n, "a group { ... }");
        break;
    case CONFIG_TYPE_ARRAY:
        snprintf(buf, n, "an array [ ... ] of %d element(s)", config_setting_length(s));
        break;
    case CONFIG_TYPE_LIST:
        snprintf(buf, n, "a list ( ... ) of %d item(s)", config_setting_length(s));
        break;
    default:
        snprintf(buf, n, "a value of unknown type");
        break;
    }
}

/* Appends `s` to buf (of size n, NUL-terminated), truncating. */
static void append(char *buf, size_t n, const char *s)
{
    size_t len = strlen(buf);
    if (len + 1 < n)
        snprintf(buf + len, n - len, "%s", s);
}

/* "\"a\", \"b\"" (quoted) or "a, b" from a NULL-terminated list or from `count` names. */
static void join_names(const char *const *names, int count, int quoted, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int i = 0; count < 0 ? names[i] != NULL : i < count; ++i) {
        if (i)
            append(buf, n, ", ");
        if (quoted)
            append(buf, n, "\"");
        append(buf, n, names[i]);
        if (quoted)
            append(buf, n, "\"");
    }
}

/* Splits scheme_names() ("wcsph|mps") into `out` (pointers into `store`); returns the count. */
static int scheme_list(char *store, size_t n, const char **out, int max)
{
    const char *all = scheme_names();
    snprintf(store, n, "%s", all ? all : "");
    int count = 0;
    char *p = store;
    while (*p && count < max) {
        out[count++] = p;
        char *bar = strchr(p, '|');
        if (!bar)
            break;
        *bar = '\0';
        p = bar + 1;
    }
    return count;
}

static const char *axis_name(int d)
{
    static const char *const axes[] = {"x", "y", "z"};
    return d >= 0 && d < 3 ? axes[d] : "?";
}

/* The "(accepted: ...)" text of a key. */
static void describe_accepted(const ctx *c, const key_desc *k, char *buf, size_t n)
{
    char lo[40], hi[40], list[256];
    const char *zero = (k->flags & KF_ZERO_OK) ? "0, or " : "";
    fmt_num(k->lo, lo, sizeof lo);
    fmt_num(k->hi, hi, sizeof hi);
    buf[0] = '\0';
    switch (k->type) {
    case KT_REAL:
        if (k->hi == NO_LIMIT)
            snprintf(buf, n, "%sa number %s %s", zero, (k->flags & KF_LO_OPEN) ? ">" : ">=", lo);
        else if (k->flags & KF_LO_OPEN)
            snprintf(buf, n, "%sa number > %s and <= %s", zero, lo, hi);
        else
            snprintf(buf, n, "%sa number %s..%s", zero, lo, hi);
        break;
    case KT_INT:
        snprintf(buf, n, "%san integer %s..%s", zero, lo, hi);
        break;
    case KT_BOOL:
        snprintf(buf, n, "true or false");
        break;
    case KT_ENUM:
        join_names(k->names, -1, 1, list, sizeof list);
        snprintf(buf, n, "one of %s", list);
        break;
    case KT_STRING:
        snprintf(buf, n, "a %sstring of at most %zu characters", (k->flags & KF_NONEMPTY) ? "non-empty " : "",
                 k->size - 1);
        break;
    case KT_SCHEME: {
        char store[256];
        const char *names[32];
        int count = scheme_list(store, sizeof store, names, 32);
        join_names(names, count, 1, list, sizeof list);
        snprintf(buf, n, "one of %s", list);
        break;
    }
    case KT_VEC: {
        const char *shape = c->sc->dim == 3 ? "[x, y, z]" : "[x, y]";
        if (k->flags & KF_ABS)
            snprintf(buf, n, "%s, each number -%s..%s", shape, hi, hi);
        else
            snprintf(buf, n, "%s of finite numbers", shape);
        break;
    }
    case KT_FLAGS:
        join_names(k->names, -1, 1, list, sizeof list);
        snprintf(buf, n, "an array of distinct names from %s", list);
        break;
    case KT_POINTS: {
        int nat = c->sc->dim - ((k->flags & KF_HORIZONTAL) ? 1 : 0);
        const char *shape = nat == 1 ? "[x]" : nat == 2 ? "[x, y]" : "[x, y, z]";
        snprintf(buf, n, "a list of at most %d items ( { name = \"...\"; at = %s; }, ... ), names of 1..%d "
                 "letters, digits, '_', '-' or '.'", SCENE_PROBES_MAX, shape, SCENE_PROBE_NAME_MAX - 1);
        break;
    }
    }
    if (k->units && k->units[0]) {
        append(buf, n, ", in ");
        append(buf, n, k->units);
    }
}

/* ---- typo suggestions ----------------------------------------------------------------------- */

static int same_char(char a, char b)
{
    if (a == '-')
        a = '_';
    if (b == '-')
        b = '_';
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

/* Levenshtein distance, ignoring case and '-' vs '_'; INT_MAX for long words. */
static int edit_distance(const char *a, const char *b)
{
    enum { W = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= W || lb >= W)
        return INT_MAX;
    int prev[W], cur[W];
    for (size_t j = 0; j <= lb; ++j)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; ++i) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; ++j) {
            int best = prev[j - 1] + (same_char(a[i - 1], b[j - 1]) ? 0 : 1);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            cur[j] = best;
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

/* The candidate closest to `word` when it is close enough to be a typo, else NULL. */
static const char *closest(const char *word, const char *const *cands, int count)
{
    const char *best = NULL;
    int bestd = INT_MAX;
    if (!word)
        return NULL;
    for (int i = 0; count < 0 ? cands[i] != NULL : i < count; ++i) {
        int d = edit_distance(word, cands[i]);
        if (d < bestd) {
            bestd = d;
            best = cands[i];
        }
    }
    if (best && bestd <= 2 && 2 * bestd <= (int)strlen(best))
        return best;
    return NULL;
}

/* "; did you mean 'x'?" or "". */
static void suggestion(const char *word, const char *const *cands, int count, char *buf, size_t n)
{
    const char *s = closest(word, cands, count);
    if (s)
        snprintf(buf, n, "; did you mean '%s'?", s);
    else
        buf[0] = '\0';
}

static int key_names(const group_desc *gd, const char **out, int max)
{
    int n = 0;
    for (int i = 0; i < gd->nkeys && n < max; ++i)
        out[n++] = gd->keys[i].name;
    return n;
}

static const key_desc *find_key(const group_desc *gd, const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < gd->nkeys; ++i)
        if (strcmp(gd->keys[i].name, name) == 0)
            return &gd->keys[i];
    return NULL;
}

static const group_desc *find_group(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < NGROUPS; ++i)
        if (strcmp(groups[i].name, name) == 0)
            return &groups[i];
    return NULL;
}

/* The group other than `except` that has a key `name`, or NULL. */
static const group_desc *group_with_key(const char *name, const group_desc *except)
{
    for (int i = 0; i < NGROUPS; ++i)
        if (&groups[i] != except && find_key(&groups[i], name))
            return &groups[i];
    return NULL;
}

/* ---- integer literals libconfig 1.5 would wrap ------------------------------------------------ */

/* When s is an int setting that holds a wrapped literal: the error. */
static int check_overflow(ctx *c, const config_setting_t *s, const key_desc *k, const char *key)
{
    if (c->ovf.count == 0 || config_setting_type(s) != CONFIG_TYPE_INT)
        return SL_OK;
    long long v = config_setting_get_int(s);
    int line = line_of(s), best = -1;
    for (int i = 0; i < c->ovf.count; ++i) {
        const scene_int_overflow *r = &c->ovf.items[i];
        if (!r->claimed && r->stored == v && r->line >= line && (best < 0 || r->line < c->ovf.items[best].line))
            best = i;
    }
    if (best < 0)
        return SL_OK;
    scene_int_overflow *r = &c->ovf.items[best];
    r->claimed = 1;
    char acc[512];
    describe_accepted(c, k, acc, sizeof acc);
    return fail(c, r->line, key, "%s does not fit in a 32-bit integer%s (accepted: %s)", r->tok,
                k->type == KT_INT ? "" : "; write it as a real number, e.g. 1.0e10", acc);
}

/* ---- reading keys ------------------------------------------------------------------------- */

static int in_range(const key_desc *k, double v)
{
    if ((k->flags & KF_ZERO_OK) && v == 0)
        return 1;
    if ((k->flags & KF_LO_OPEN) ? !(v > k->lo) : !(v >= k->lo))
        return 0;
    return v <= k->hi;
}

/* A number setting (int, int64 or float) as a double; `what` prefixes the message. */
static int get_number(ctx *c, const config_setting_t *s, const key_desc *k, const char *key, const char *what,
                      double *out)
{
    char acc[512], val[160];
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
        SL_TRY(check_overflow(c, s, k, key));
        *out = config_setting_get_int(s);
        return SL_OK;
    case CONFIG_TYPE_INT64:
        *out = (double)config_setting_get_int64(s);
        return SL_OK;
    case CONFIG_TYPE_FLOAT:
        *out = config_setting_get_float(s);
        if (isfinite(*out))
            return SL_OK;
        describe_accepted(c, k, acc, sizeof acc);
        value_text(s, val, sizeof val);
        return fail(c, line_of(s), key, "%s%s is not a finite number (accepted: %s)", what, val, acc);
    default:
        describe_accepted(c, k, acc, sizeof acc);
        describe_value(s, val, sizeof val);
        return fail(c, line_of(s), key, "%sexpected a number, got %s (accepted: %s)", what, val, acc);
    }
}

static int find_name(const char *const *names, const char *s)
{
    for (int i = 0; names[i]; ++i)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

static int read_vec(ctx *c, const key_desc *k, const config_setting_t *s, double *dst, const char *key)
{
    char acc[512], val[160], what[32], num[40];
    int dim = c->sc->dim;
    int t = config_setting_type(s);
    describe_accepted(c, k, acc, sizeof acc);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
        describe_value(s, val, sizeof val);
        return fail(c, line_of(s), key, "expected %d numbers %s, got %s (accepted: %s)", dim,
                    dim == 3 ? "[x, y, z]" : "[x, y]", val, acc);
    }
    int n = config_setting_length(s);
    if (n != dim)
        return fail(c, line_of(s), key, "has %d number%s, but simulation.dimension = %d needs %d (accepted: %s)", n,
                    n == 1 ? "" : "s", dim, dim, acc);
    double v[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < n; ++i) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        snprintf(what, sizeof what, "component %s: ", axis_name(i));
        SL_TRY(get_number(c, e, k, key, what, &v[i]));
        if ((k->flags & KF_ABS) && !(fabs(v[i]) <= k->hi))
            return fail(c, line_of(e), key, "component %s = %s is out of range (accepted: %s)", axis_name(i),
                        fmt_num(v[i], num, sizeof num), acc);
    }
    memcpy(dst, v, sizeof v);
    return SL_OK;
}

static int read_flags(ctx *c, const key_desc *k, const config_setting_t *s, unsigned *dst, const char *key)
{
    char acc[512], val[160], sug[96];
    int t = config_setting_type(s);
    describe_accepted(c, k, acc, sizeof acc);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
        describe_value(s, val, sizeof val);
        return fail(c, line_of(s), key, "expected an array of strings, got %s (accepted: %s)", val, acc);
    }
    unsigned bits = 0;
    int n = config_setting_length(s);
    for (int i = 0; i < n; ++i) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        if (config_setting_type(e) != CONFIG_TYPE_STRING) {
            describe_value(e, val, sizeof val);
            return fail(c, line_of(e), key, "element %d: expected a string, got %s (accepted: %s)", i, val, acc);
        }
        const char *str = config_setting_get_string(e);
        int idx = find_name(k->names, str);
        fmt_string(str, val, sizeof val);
        if (idx < 0) {
            suggestion(str, k->names, -1, sug, sizeof sug);
            return fail(c, line_of(e), key, "%s is not a field name%s (accepted: %s)", val, sug, acc);
        }
        if (bits & (1u << idx))
            return fail(c, line_of(e), key, "%s is listed twice (accepted: %s)", val, acc);
        bits |= 1u << idx;
    }
    bits |= k->always;
    memcpy(dst, &bits, sizeof bits);
    return SL_OK;
}

static int probe_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= SCENE_PROBE_NAME_MAX)
        return 0;
    for (; *s; ++s)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
            return 0;
    return 1;
}

/* KT_POINTS: ( { name = "P1"; at = [x, y, z]; }, ... ) into base + k->offset, the count into
 * base + k->count_offset. `at` has dimension numbers, or dimension - 1 with KF_HORIZONTAL (a bare
 * number is fine when that is one). Names are checked for their characters here and for being
 * unique in probes_after(). */
static int read_points(ctx *c, const key_desc *k, const config_setting_t *s, void *base, const char *key)
{
    char acc[512], val[160], ikey[200], what[32];
    scene_probe_point *pts = (scene_probe_point *)(void *)((char *)base + k->offset);
    int *count = (int *)(void *)((char *)base + k->count_offset);
    int nat = c->sc->dim - ((k->flags & KF_HORIZONTAL) ? 1 : 0);
    describe_accepted(c, k, acc, sizeof acc);
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_LIST) {
        describe_value(s, val, sizeof val);
        return fail(c, line_of(s), key, "expected a list ( {...}, ... ), got %s (accepted: %s)", val, acc);
    }
    int n = config_setting_length(s);
    if (n > SCENE_PROBES_MAX)
        return fail(c, line_of(s), key, "%d items (accepted: %s)", n, acc);
    static const char *const item_keys[] = {"name", "at", NULL};
    for (int i = 0; i < n; ++i) {
        const config_setting_t *item = config_setting_get_elem(s, (unsigned)i);
        scene_probe_point *pt = &pts[i];
        memset(pt, 0, sizeof *pt);
        pt->line = line_of(item);
        snprintf(ikey, sizeof ikey, "%s[%d]", key, i);
        if (config_setting_type(item) != CONFIG_TYPE_GROUP) {
            describe_value(item, val, sizeof val);
            return fail(c, pt->line, ikey, "expected a group { name = ...; at = [...]; }, got %s (accepted: %s)",
                        val, acc);
        }
        for (int m = 0; m < config_setting_length(item); ++m) {
            const config_setting_t *e = config_setting_get_elem(item, (unsigned)m);
            const char *name = config_setting_name(e);
            if (find_name(item_keys, name ? name : "") < 0) {
                char sug[96];
                suggestion(name, item_keys, -1, sug, sizeof sug);
                snprintf(ikey, sizeof ikey, "%s[%d].%.60s", key, i, name ? name : "?");
                return fail(c, line_of(e), ikey, "unknown key%s (accepted: name, at)", sug);
            }
        }
        const config_setting_t *ns = config_setting_get_member(item, "name");
        const config_setting_t *as = config_setting_get_member(item, "at");
        snprintf(ikey, sizeof ikey, "%s[%d].name", key, i);
        if (!ns)
            return fail(c, pt->line, ikey, "required key is missing (accepted: %s)", acc);
        if (config_setting_type(ns) != CONFIG_TYPE_STRING) {
            describe_value(ns, val, sizeof val);
            return fail(c, line_of(ns), ikey, "expected a string, got %s (accepted: %s)", val, acc);
        }
        const char *str = config_setting_get_string(ns);
        if (!str || !probe_name_ok(str)) {
            fmt_string(str, val, sizeof val);
            return fail(c, line_of(ns), ikey, "%s is not a usable name (accepted: %s)", val, acc);
        }
        snprintf(pt->name, sizeof pt->name, "%s", str);
        snprintf(ikey, sizeof ikey, "%s[%d].at", key, i);
        if (!as)
            return fail(c, pt->line, ikey, "required key is missing (accepted: %s)", acc);
        int at = config_setting_type(as);
        if (nat == 1 && (at == CONFIG_TYPE_INT || at == CONFIG_TYPE_INT64 || at == CONFIG_TYPE_FLOAT)) {
            SL_TRY(get_number(c, as, k, ikey, "", &pt->at[0]));
            continue;
        }
        if (at != CONFIG_TYPE_ARRAY && at != CONFIG_TYPE_LIST) {
            describe_value(as, val, sizeof val);
            return fail(c, line_of(as), ikey, "expected %d number%s, got %s (accepted: %s)", nat,
                        nat == 1 ? "" : "s", val, acc);
        }
        int len = config_setting_length(as);
        if (len != nat)
            return fail(c, line_of(as), ikey, "has %d number%s, but simulation.dimension = %d needs %d here "
                        "(accepted: %s)", len, len == 1 ? "" : "s", c->sc->dim, nat, acc);
        for (int d = 0; d < nat; ++d) {
            snprintf(what, sizeof what, "component %s: ", axis_name(d));
            SL_TRY(get_number(c, config_setting_get_elem(as, (unsigned)d), k, ikey, what, &pt->at[d]));
        }
    }
    *count = n;
    return SL_OK;
}

/* A string setting, or the error. */
static int get_string(ctx *c, const key_desc *k, const config_setting_t *s, const char *key, const char **out)
{
    if (config_setting_type(s) == CONFIG_TYPE_STRING) {
        *out = config_setting_get_string(s);
        if (!*out)
            *out = "";
        return SL_OK;
    }
    char acc[512], val[160];
    describe_accepted(c, k, acc, sizeof acc);
    describe_value(s, val, sizeof val);
    return fail(c, line_of(s), key, "expected a string, got %s (accepted: %s)", val, acc);
}

/* Reads setting s of key k into base + k->offset; `key` names it in messages. */
static int read_key(ctx *c, const key_desc *k, const config_setting_t *s, void *base, const char *key)
{
    char *dst = (char *)base + k->offset;
    char acc[512], val[160], sug[96];
    int line = line_of(s), t = config_setting_type(s);
    const char *str = "";
    switch (k->type) {
    case KT_REAL: {
        double v;
        SL_TRY(get_number(c, s, k, key, "", &v));
        if (!in_range(k, v)) {
            describe_accepted(c, k, acc, sizeof acc);
            return fail(c, line, key, "%s is out of range (accepted: %s)", fmt_num(v, val, sizeof val), acc);
        }
        memcpy(dst, &v, sizeof v);
        return SL_OK;
    }
    case KT_INT: {
        long long v;
        describe_accepted(c, k, acc, sizeof acc);
        if (t == CONFIG_TYPE_INT) {
            SL_TRY(check_overflow(c, s, k, key));
            v = config_setting_get_int(s);
        } else if (t == CONFIG_TYPE_INT64) {
            v = config_setting_get_int64(s);
        } else if (t == CONFIG_TYPE_FLOAT) {
            value_text(s, val, sizeof val);
            return fail(c, line, key, "%s is a real number, an integer is expected (accepted: %s)", val, acc);
        } else {
            describe_value(s, val, sizeof val);
            return fail(c, line, key, "expected an integer, got %s (accepted: %s)", val, acc);
        }
        if ((double)v < k->lo || (double)v > k->hi)
            return fail(c, line, key, "%lld is out of range (accepted: %s)", v, acc);
        int iv = (int)v;
        memcpy(dst, &iv, sizeof iv);
        return SL_OK;
    }
    case KT_BOOL: {
        if (t != CONFIG_TYPE_BOOL) {
            describe_accepted(c, k, acc, sizeof acc);
            describe_value(s, val, sizeof val);
            return fail(c, line, key, "expected true or false, got %s (accepted: %s)", val, acc);
        }
        int b = config_setting_get_bool(s) ? 1 : 0;
        memcpy(dst, &b, sizeof b);
        return SL_OK;
    }
    case KT_ENUM: {
        SL_TRY(get_string(c, k, s, key, &str));
        int idx = find_name(k->names, str);
        if (idx < 0) {
            describe_accepted(c, k, acc, sizeof acc);
            fmt_string(str, val, sizeof val);
            suggestion(str, k->names, -1, sug, sizeof sug);
            return fail(c, line, key, "%s is not accepted%s (accepted: %s)", val, sug, acc);
        }
        memcpy(dst, &idx, sizeof idx);
        return SL_OK;
    }
    case KT_STRING:
        SL_TRY(get_string(c, k, s, key, &str));
        if ((k->flags & KF_NONEMPTY) && str[0] == '\0') {
            describe_accepted(c, k, acc, sizeof acc);
            return fail(c, line, key, "the string is empty (accepted: %s)", acc);
        }
        if (strlen(str) >= k->size) {
            describe_accepted(c, k, acc, sizeof acc);
            return fail(c, line, key, "the string has %zu characters (accepted: %s)", strlen(str), acc);
        }
        memcpy(dst, str, strlen(str) + 1);
        return SL_OK;
    case KT_SCHEME: {
        SL_TRY(get_string(c, k, s, key, &str));
        if (!scheme_find(str) || strlen(str) >= k->size) {
            char store[256];
            const char *names[32];
            int count = scheme_list(store, sizeof store, names, 32);
            describe_accepted(c, k, acc, sizeof acc);
            fmt_string(str, val, sizeof val);
            suggestion(str, names, count, sug, sizeof sug);
            return fail(c, line, key, "%s is not a known method%s (accepted: %s)", val, sug, acc);
        }
        memcpy(dst, str, strlen(str) + 1);
        return SL_OK;
    }
    case KT_VEC:
        return read_vec(c, k, s, (double *)(void *)dst, key);
    case KT_FLAGS:
        return read_flags(c, k, s, (unsigned *)(void *)dst, key);
    case KT_POINTS:
        return read_points(c, k, s, base, key);
    }
    return SL_OK;
}

static void apply_defaults(const key_desc *keys, int nkeys, void *base)
{
    for (int i = 0; i < nkeys; ++i) {
        const key_desc *k = &keys[i];
        char *dst = (char *)base + k->offset;
        switch (k->type) {
        case KT_REAL:
            memcpy(dst, &k->def[0], sizeof(double));
            break;
        case KT_INT:
        case KT_BOOL:
        case KT_ENUM: {
            int v = (int)k->def[0];
            memcpy(dst, &v, sizeof v);
            break;
        }
        case KT_STRING:
        case KT_SCHEME:
            snprintf(dst, k->size, "%s", k->sdef ? k->sdef : "");
            break;
        case KT_VEC:
            memcpy(dst, k->def, 3 * sizeof(double));
            break;
        case KT_FLAGS: {
            unsigned v = (unsigned)k->def[0] | k->always;
            memcpy(dst, &v, sizeof v);
            break;
        }
        case KT_POINTS: {
            int zero = 0;
            memcpy((char *)base + k->count_offset, &zero, sizeof zero);
            break;
        }
        }
    }
}

static void kinds_text(unsigned kinds, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int i = 0; geom_names[i]; ++i) {
        if (!(kinds & (1u << i)))
            continue;
        if (buf[0])
            append(buf, n, ", ");
        append(buf, n, geom_names[i]);
    }
}

static int unknown_key(ctx *c, const group_desc *gd, const config_setting_t *m, const char *key, const char *name)
{
    const char *names[64];
    char acc[512], sug[96];
    int n = key_names(gd, names, 64);
    join_names(names, n, 0, acc, sizeof acc);
    const group_desc *other = group_with_key(name, gd);
    if (other && other->list)
        return fail(c, line_of(m), key, "unknown key; '%s' is a key of %s items (accepted: %s)", name, other->name,
                    acc);
    if (other)
        return fail(c, line_of(m), key, "unknown key; '%s' belongs in group '%s' (accepted: %s)", name, other->name,
                    acc);
    suggestion(name, names, n, sug, sizeof sug);
    return fail(c, line_of(m), key, "unknown key%s (accepted: %s)", sug, acc);
}

/* Every member of group g must be a key of gd (and, for a geometry item of `kind` >= 0, one that
 * items of that kind take). */
static int check_names(ctx *c, const group_desc *gd, const config_setting_t *g, const char *prefix, int kind)
{
    char key[160], kinds[64];
    int n = g ? config_setting_length(g) : 0;
    for (int i = 0; i < n; ++i) {
        const config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(m);
        snprintf(key, sizeof key, "%s.%.60s", prefix, name ? name : "?");
        const key_desc *k = find_key(gd, name);
        if (!k)
            return unknown_key(c, gd, m, key, name ? name : "?");
        if (kind >= 0 && !(k->kinds & GK(kind))) {
            kinds_text(k->kinds, kinds, sizeof kinds);
            return fail(c, line_of(m), key, "not used by %s %s item (accepted: only in %s items)",
                        strchr("aeiou", geom_names[kind][0]) ? "an" : "a", geom_names[kind], kinds);
        }
    }
    return SL_OK;
}

/* Reads the keys of group g (NULL: absent, only the required keys matter) into base, in table
 * order. kind >= 0: a geometry item of that kind. */
static int read_group(ctx *c, const group_desc *gd, const config_setting_t *g, void *base, const char *prefix,
                      int kind)
{
    char key[160], acc[512];
    SL_TRY(check_names(c, gd, g, prefix, kind));
    for (int j = 0; j < gd->nkeys; ++j) {
        const key_desc *k = &gd->keys[j];
        if (kind >= 0 && !(k->kinds & GK(kind)))
            continue;
        snprintf(key, sizeof key, "%s.%s", prefix, k->name);
        const config_setting_t *s = g ? config_setting_get_member(g, k->name) : NULL;
        if (s) {
            SL_TRY(read_key(c, k, s, base, key));
        } else if (k->flags & KF_REQUIRED) {
            describe_accepted(c, k, acc, sizeof acc);
            return fail(c, line_of(g), key, "required key is missing (accepted: %s)", acc);
        }
    }
    return SL_OK;
}

static int simulation_after(ctx *c, const config_setting_t *g)
{
    scene *sc = c->sc;
    const config_setting_t *lo = g ? config_setting_get_member(g, "domain_min") : NULL;
    const config_setting_t *hi = g ? config_setting_get_member(g, "domain_max") : NULL;
    if (lo && !hi)
        return fail(c, line_of(lo), "simulation.domain_max",
                    "missing: domain_min is given, and the two go together (accepted: both or neither)");
    if (hi && !lo)
        return fail(c, line_of(hi), "simulation.domain_min",
                    "missing: domain_max is given, and the two go together (accepted: both or neither)");
    if (lo && hi) {
        char a[40], b[40];
        for (int d = 0; d < sc->dim; ++d)
            if (!(sc->domain_max[d] > sc->domain_min[d]))
                return fail(c, line_of(hi), "simulation.domain_max",
                            "component %s = %s is not above domain_min's %s (accepted: domain_max > domain_min in "
                            "every component)",
                            axis_name(d), fmt_num(sc->domain_max[d], a, sizeof a),
                            fmt_num(sc->domain_min[d], b, sizeof b));
        sc->domain_set = 1;
    }
    if (sc->dim == 3) { /* gravity's default points down the last axis; fluid.gravity, read next, overrides it */
        sc->gravity[0] = 0.0;
        sc->gravity[1] = 0.0;
        sc->gravity[2] = -9.81;
    }
    return SL_OK;
}

static int viewer_after(ctx *c, const config_setting_t *g)
{
    const scene_viewer *v = &c->sc->viewer;
    const config_setting_t *hi = g ? config_setting_get_member(g, "range_max") : NULL;
    const config_setting_t *lo = g ? config_setting_get_member(g, "range_min") : NULL;
    char a[40], b[40];
    if (v->range_max < v->range_min)
        return fail(c, line_of(hi ? hi : lo), hi ? "viewer.range_max" : "viewer.range_min",
                    "range_max = %s is below range_min = %s (accepted: range_max > range_min for a fixed colour "
                    "range, or both equal for an automatic one)",
                    fmt_num(v->range_max, a, sizeof a), fmt_num(v->range_min, b, sizeof b));
    return SL_OK;
}

/* The geometry list into sc->geom (freed by the caller on failure). */
static int read_items(ctx *c, const group_desc *gd, const config_setting_t *list)
{
    scene *sc = c->sc;
    char prefix[32], key[64], val[160], a[40], b[40];
    if (!list && !gd->required)
        return SL_OK;
    if (!list)
        return fail(c, 0, gd->name,
                    "required list is missing (accepted: %s = ( { type = \"fluid\"; min = [...]; max = [...]; }, "
                    "... ))",
                    gd->name);
    int n = config_setting_length(list);
    if (n == 0)
        return fail(c, line_of(list), gd->name,
                    "the list is empty (accepted: 1..%d items, at least one of type \"fluid\")", SCENE_GEOM_MAX);
    if (n > SCENE_GEOM_MAX)
        return fail(c, line_of(config_setting_get_elem(list, SCENE_GEOM_MAX)), gd->name,
                    "%d items (accepted: at most %d items)", n, SCENE_GEOM_MAX);
    sc->geom = calloc((size_t)n, sizeof *sc->geom);
    if (!sc->geom)
        return sl_fail(c->err, SL_ERR_RUNTIME, "%s: out of memory", c->name);
    sc->ngeom = n;
    int nfluid = 0;
    const key_desc *type_key = find_key(gd, "type");
    for (int i = 0; i < n; ++i) {
        const config_setting_t *item = config_setting_get_elem(list, (unsigned)i);
        scene_geom *g = &sc->geom[i];
        snprintf(prefix, sizeof prefix, "%s[%d]", gd->name, i);
        apply_defaults(gd->keys, gd->nkeys, g);
        g->line = line_of(item);
        if (config_setting_type(item) != CONFIG_TYPE_GROUP) {
            describe_value(item, val, sizeof val);
            return fail(c, g->line, prefix,
                        "expected a group { type = ...; min = [...]; max = [...]; }, got %s (accepted: a group "
                        "per item)",
                        val);
        }
        SL_TRY(check_names(c, gd, item, prefix, -1));
        const config_setting_t *ts = config_setting_get_member(item, "type");
        snprintf(key, sizeof key, "%s.type", prefix);
        if (!ts) {
            char acc[256];
            describe_accepted(c, type_key, acc, sizeof acc);
            return fail(c, g->line, key, "required key is missing (accepted: %s)", acc);
        }
        SL_TRY(read_key(c, type_key, ts, g, key));
        SL_TRY(read_group(c, gd, item, g, prefix, (int)g->kind));
        for (int d = 0; d < sc->dim; ++d)
            if (!(g->max[d] > g->min[d])) {
                snprintf(key, sizeof key, "%s.max", prefix);
                return fail(c, line_of(config_setting_get_member(item, "max")), key,
                            "empty box: max %s = %s is not above min %s = %s (accepted: max > min in every "
                            "component)",
                            axis_name(d), fmt_num(g->max[d], a, sizeof a), axis_name(d),
                            fmt_num(g->min[d], b, sizeof b));
            }
        nfluid += g->kind == GEOM_FLUID;
    }
    if (nfluid == 0)
        return fail(c, line_of(list), gd->name,
                    "no item of type \"fluid\" (accepted: at least one fluid item)");
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
    if (g->kind != GEOM_TANK)
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
        append(buf, n, side ? "..[" : "[");
        for (int d = 0; d < dim; ++d) {
            if (d)
                append(buf, n, ", ");
            append(buf, n, fmt_num(x[d], v, sizeof v));
        }
        append(buf, n, "]");
    }
    return buf;
}

static int check_geometry(ctx *c)
{
    const scene *sc = c->sc;
    int dim = sc->dim, ntank = 0, first_tank = -1;
    char key[32], box[160], other[160], num[40], num2[40];
    for (int i = 0; i < sc->ngeom; ++i)
        if (sc->geom[i].kind == GEOM_TANK) {
            if (ntank++ == 0)
                first_tank = i;
        }
    for (int i = 0; i < sc->ngeom; ++i) {
        const scene_geom *a = &sc->geom[i];
        const char *kname = geom_names[a->kind];
        double alo[3], ahi[3];
        item_extent(sc, a, alo, ahi);
        snprintf(key, sizeof key, "geometry[%d]", i);
        box_text(alo, ahi, dim, box, sizeof box);

        if (a->kind == GEOM_FLUID)
            for (int d = 0; d < dim; ++d)
                if (a->max[d] - a->min[d] < sc->dp * (1.0 - BOX_TOL))
                    return fail(c, a->line, key,
                                "empty geometry: the fluid box is %s m thick in %s, less than numerics.spacing = %s "
                                "m, so it holds no particle (accepted: fluid boxes at least one spacing thick)",
                                fmt_num(a->max[d] - a->min[d], num, sizeof num), axis_name(d),
                                fmt_num(sc->dp, num2, sizeof num2));

        if (sc->domain_set && !box_inside(alo, ahi, sc->domain_min, sc->domain_max, dim))
            return fail(c, a->line, key,
                        "%s outside the domain: %s%s%s is not inside simulation.domain_min..domain_max %s "
                        "(accepted: items inside the domain)",
                        kname, a->kind == GEOM_TANK ? "the tank with its walls, " : "the box ", box,
                        a->kind == GEOM_TANK ? "," : "",
                        box_text(sc->domain_min, sc->domain_max, dim, other, sizeof other));

        if (a->kind == GEOM_FLUID && ntank > 0) {
            int inside = 0;
            for (int j = 0; j < sc->ngeom && !inside; ++j)
                if (sc->geom[j].kind == GEOM_TANK)
                    inside = box_inside(a->min, a->max, sc->geom[j].min, sc->geom[j].max, dim);
            if (!inside) {
                const scene_geom *t = &sc->geom[first_tank];
                if (ntank == 1)
                    return fail(c, a->line, key,
                                "fluid outside the domain: the box %s is not inside the inner box %s of the tank "
                                "geometry[%d] (line %d) (accepted: fluid boxes inside a tank's inner box)",
                                box, box_text(t->min, t->max, dim, other, sizeof other), first_tank, t->line);
                return fail(c, a->line, key,
                            "fluid outside the domain: the box %s is not inside the inner box of any of the %d "
                            "tanks (accepted: fluid boxes inside a tank's inner box)",
                            box, ntank);
            }
        }

        for (int j = 0; j < i; ++j) {
            const scene_geom *b = &sc->geom[j];
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
                return fail(c, a->line, key,
                            "the walls of this tank, %s, overlap those of the tank geometry[%d] (line %d), %s "
                            "(accepted: tanks whose walls, layers x spacing outside the inner box, do not overlap)",
                            box, j, b->line, box_text(blo, bhi, dim, other, sizeof other));
            return fail(c, a->line, key,
                        "the %s box %s overlaps the %s geometry[%d] (line %d), %s (accepted: fluid boxes that "
                        "overlap neither each other nor an obstacle; touching faces are fine)",
                        kname, box, geom_names[b->kind], j, b->line, box_text(blo, bhi, dim, other, sizeof other));
        }
    }
    return SL_OK;
}

/* ---- probes and grid --------------------------------------------------------------------- */

/* Probes must measure something, in this dimension, under distinct names, inside the scene: the
 * domain when given, else the box spanned by the items (tanks with their walls). */
static int probes_after(ctx *c, const config_setting_t *g)
{
    scene *sc = c->sc;
    scene_probes *pr = &sc->probes;
    pr->enabled = g != NULL;
    if (!g)
        return SL_OK;
    char acc[256], num[48];
    int is_mps = strcmp(sc->method, "mps") == 0;
    if (pr->npressure == 0 && pr->ngauges == 0 && pr->front == FRONT_NONE && !pr->energy && !is_mps)
        return fail(c, line_of(g), "probes",
                    "the group measures nothing (accepted: at least one of pressure = ( ... ), gauges = ( ... ), "
                    "front = \"+x\" (or another direction), energy = true)");
    if (sc->dim == 2 && (pr->front == FRONT_PLUS_Z || pr->front == FRONT_MINUS_Z))
        return fail(c, line_of(config_setting_get_member(g, "front")), "probes.front",
                    "\"%s\" needs simulation.dimension = 3 (accepted: \"none\", \"+x\", \"-x\", \"+y\", \"-y\" in 2D)",
                    front_names[pr->front]);
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
                    return fail(c, pts[i].line, key,
                                "component %s = %s lies outside the scene %s (accepted: points inside the %s)",
                                axis_name(d), fmt_num(pts[i].at[d], num, sizeof num), acc,
                                sc->domain_set ? "domain" : "box spanned by the geometry items");
            /* every name once: they become CSV columns */
            for (int l2 = 0; l2 <= list; ++l2) {
                const scene_probe_point *q = l2 ? pr->gauges : pr->pressure;
                int m = l2 == list ? i : (l2 ? pr->ngauges : pr->npressure);
                for (int j = 0; j < m; ++j)
                    if (strcmp(q[j].name, pts[i].name) == 0) {
                        snprintf(key, sizeof key, "probes.%s[%d].name", lname, i);
                        return fail(c, pts[i].line, key,
                                    "\"%s\" is already the name of probes.%s[%d] (line %d) (accepted: names "
                                    "used once across pressure and gauges)",
                                    pts[i].name, l2 ? "gauges" : "pressure", j, q[j].line);
                    }
            }
        }
    }
    return SL_OK;
}

static int grid_after(ctx *c, const config_setting_t *g)
{
    c->sc->grid.enabled = g != NULL;
    if (g && c->sc->grid.fields == 0)
        return fail(c, line_of(config_setting_get_member(g, "fields")), "grid.fields",
                    "no field listed (accepted: an array of distinct names from \"density\", \"velocity\", "
                    "\"pressure\", at least one)");
    return SL_OK;
}

/* ---- the loader ------------------------------------------------------------------------ */

static int check_root(ctx *c, const config_setting_t *root)
{
    const char *gnames[NGROUPS];
    char acc[256], val[160], sug[96];
    for (int i = 0; i < NGROUPS; ++i)
        gnames[i] = groups[i].name;
    join_names(gnames, NGROUPS, 0, acc, sizeof acc);
    int n = config_setting_length(root);
    for (int i = 0; i < n; ++i) {
        const config_setting_t *m = config_setting_get_elem(root, (unsigned)i);
        const char *name = config_setting_name(m);
        char key[80];
        snprintf(key, sizeof key, "%.60s", name ? name : "?");
        const group_desc *gd = find_group(name);
        if (!gd) {
            const group_desc *owner = group_with_key(name, NULL);
            if (owner && owner->list)
                return fail(c, line_of(m), key,
                            "unknown group; '%s' is a key of %s items, which go inside %s = ( {...}, ... ) "
                            "(accepted: %s)",
                            key, owner->name, owner->name, acc);
            if (owner)
                return fail(c, line_of(m), key,
                            "unknown group; keys go inside their group: did you mean '%s.%s'? (accepted: %s)",
                            owner->name, key, acc);
            suggestion(name, gnames, NGROUPS, sug, sizeof sug);
            return fail(c, line_of(m), key, "unknown group%s (accepted: %s)", sug, acc);
        }
        int t = config_setting_type(m);
        if (gd->list && t != CONFIG_TYPE_LIST) {
            describe_value(m, val, sizeof val);
            return fail(c, line_of(m), key, "expected a list ( {...}, {...} ) of items, got %s (accepted: %s = ( "
                        "{ type = ...; min = [...]; max = [...]; }, ... ))", val, key);
        }
        if (!gd->list && t != CONFIG_TYPE_GROUP) {
            describe_value(m, val, sizeof val);
            return fail(c, line_of(m), key, "expected a group { ... }, got %s (accepted: %s = { key = value; ... })",
                        val, key);
        }
    }
    return SL_OK;
}

static int is_blank(const char *s)
{
    for (; *s; ++s)
        if (!isspace((unsigned char)*s))
            return 0;
    return 1;
}

/* The start of line `line` (1-based) of text, or its end. */
static const char *line_start(const char *text, int line)
{
    for (int l = 1; l < line && *text; ++text)
        if (*text == '\n')
            ++l;
    return text;
}

/* Only white space and # or // comments from s on (what a truncated file leaves after the error). */
static int is_blank_or_comment(const char *s)
{
    while (*s) {
        if (*s == '#' || (s[0] == '/' && s[1] == '/')) {
            while (*s && *s != '\n')
                ++s;
        } else if (isspace((unsigned char)*s)) {
            ++s;
        } else {
            return 0;
        }
    }
    return 1;
}

static int parse_and_read(ctx *c, config_t *cfg)
{
    char msg[MSG_MAX];
    int syntax_line = 0;
    int rc = scene_syntax_check(c->text, &c->ovf, &syntax_line, msg, sizeof msg);
    if (rc == SL_ERR_RUNTIME)
        return sl_fail(c->err, SL_ERR_RUNTIME, "%s: out of memory", c->name);
    if (rc != SL_OK)
        return fail(c, syntax_line, NULL, "%s", msg);
    /* The syntax is fine, so libconfig should fail only in its parser actions (a duplicate name, an
     * array of mixed types); the generic cases stay in case the two grammars ever differ. */
    if (!config_read_string(cfg, c->text)) {
        const char *what = config_error_text(cfg);
        int line = config_error_line(cfg);
        if (!what || strcmp(what, "syntax error") == 0) {
            if (line > 0 && is_blank_or_comment(line_start(c->text, line)))
                return fail(c, line, NULL,
                            "syntax error at the end of the file (an unclosed group, list, array, string or "
                            "comment?)");
            return fail(c, line, NULL,
                        "syntax error (look for a missing ';', '=', quote or bracket here or just before)");
        }
        if (strstr(what, "mismatched element type"))
            return fail(c, line, NULL,
                        "syntax error: %s (the numbers of an array must all be written alike: [0.0, -9.81], not "
                        "[0, -9.81])",
                        what);
        return fail(c, line, NULL, "syntax error: %s", what);
    }
    const config_setting_t *root = config_root_setting(cfg);
    if (config_setting_length(root) == 0)
        return fail(c, 0, NULL,
                    "%s (accepted: a scene with at least numerics.spacing and a geometry list; see "
                    "docs/scene-files.md)",
                    is_blank(c->text) ? "the file is empty" : "the file has no settings");
    SL_TRY(check_root(c, root));
    for (int i = 0; i < NGROUPS; ++i) {
        const group_desc *gd = &groups[i];
        const config_setting_t *g = config_setting_get_member(root, gd->name);
        if (gd->list)
            SL_TRY(read_items(c, gd, g));
        else
            SL_TRY(read_group(c, gd, g, c->sc, gd->name, -1));
        if (gd->after)
            SL_TRY(gd->after(c, g));
    }
    SL_TRY(check_geometry(c));
    for (int i = 0; i < c->ovf.count; ++i) /* a wrapped literal no key claimed: still an error */
        if (!c->ovf.items[i].claimed)
            return fail(c, c->ovf.items[i].line, NULL, "integer %s does not fit in 32 bits (accepted: -2147483648.."
                        "2147483647, or a real number)", c->ovf.items[i].tok);
    return SL_OK;
}

/* The default output directory: output/<base name of `name` without its extension>. */
static void default_out_dir(scene *sc, const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t len = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        len = (size_t)(dot - base);
    if (len == 0 || (len == 1 && base[0] == '.') || (len == 2 && strncmp(base, "..", 2) == 0))
        snprintf(sc->out_dir, sizeof sc->out_dir, "output/scene");
    else
        snprintf(sc->out_dir, sizeof sc->out_dir, "output/%.*s", (int)(len < 4000 ? len : 4000), base);
}

/* Loads `text` (owned: kept as sc->text on success, freed on failure). */
static int load_owned(scene *sc, char *text, const char *name, sl_err *err)
{
    scene_defaults(sc);
    snprintf(sc->path, sizeof sc->path, "%s", name);
    default_out_dir(sc, name);
    ctx c = {.name = name, .text = text, .sc = sc, .err = err};
    config_t cfg;
    config_init(&cfg);
    int rc = parse_and_read(&c, &cfg);
    config_destroy(&cfg);
    free(c.ovf.items);
    if (rc != SL_OK) {
        free(text);
        free(sc->geom);
        sc->geom = NULL;
        sc->ngeom = 0;
        sc->text = NULL;
        return rc;
    }
    sc->text = text;
    return SL_OK;
}

/* ---- public API ------------------------------------------------------------------------ */

void scene_defaults(scene *sc)
{
    memset(sc, 0, sizeof *sc);
    for (int i = 0; i < NGROUPS; ++i)
        if (!groups[i].list)
            apply_defaults(groups[i].keys, groups[i].nkeys, sc);
}

int scene_load_string(scene *sc, const char *text, const char *name, sl_err *err)
{
    if (!name)
        name = "(string)";
    if (!sc)
        return sl_fail(err, SL_ERR_INPUT, "%s: no scene to fill", name);
    if (!text) {
        scene_defaults(sc);
        return sl_fail(err, SL_ERR_INPUT, "%s: no scene text", name);
    }
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (!copy) {
        scene_defaults(sc);
        return sl_fail(err, SL_ERR_RUNTIME, "%s: out of memory", name);
    }
    memcpy(copy, text, len + 1);
    return load_owned(sc, copy, name, err);
}

int scene_load(scene *sc, const char *path, sl_err *err)
{
    if (!path)
        return sl_fail(err, SL_ERR_INPUT, "scene: no file name given");
    if (!sc)
        return sl_fail(err, SL_ERR_INPUT, "%s: no scene to fill", path);
    scene_defaults(sc);
    if (strlen(path) >= SCENE_PATH_MAX)
        return sl_fail(err, SL_ERR_INPUT, "%.200s...: path too long (accepted: fewer than %d characters)", path,
                       SCENE_PATH_MAX);
    char *buf;
    size_t len;
    int read_errno = io_read_whole_file(path, SCENE_FILE_MAX, &buf, &len);
    if (read_errno == ENOMEM)
        return sl_fail(err, SL_ERR_RUNTIME, "%s: out of memory", path);
    if (read_errno == EFBIG)
        return sl_fail(err, SL_ERR_INPUT, "%s: file too large (accepted: at most %zu MiB)", path,
                       SCENE_FILE_MAX >> 20);
    if (read_errno)
        return sl_fail(err, SL_ERR_INPUT, "%s: cannot read: %s", path, strerror(read_errno));
    const char *nul = memchr(buf, '\0', len);
    if (nul) {
        int line = 1;
        size_t at = (size_t)(nul - buf);
        for (const char *p = buf; p < nul; ++p)
            line += *p == '\n';
        free(buf);
        return sl_fail(err, SL_ERR_INPUT, "%s:%d: not a text file (NUL byte at offset %zu) (accepted: a libconfig "
                       "text file)", path, line, at);
    }
    return load_owned(sc, buf, path, err);
}

void scene_free(scene *sc)
{
    if (!sc)
        return;
    free(sc->text);
    free(sc->geom);
    sc->text = NULL;
    sc->geom = NULL;
    sc->ngeom = 0;
}

void scene_visit_keys(const scene *sc, void (*fn)(const scene_value *v, void *ctx), void *ctx)
{
    char points[SCENE_PROBES_MAX * 96];
    for (int g = 0; g < NGROUPS; ++g) {
        if (groups[g].list)
            continue;
        if (groups[g].enabled_at && !*(const int *)(const void *)((const char *)sc + groups[g].enabled_at))
            continue;
        for (int k = 0; k < groups[g].nkeys; ++k) {
            const key_desc *d = &groups[g].keys[k];
            const char *at = (const char *)sc + d->offset;
            scene_value v = {groups[g].name, d->name, SV_INT, 0, NULL, 0, NULL};
            char flags[256] = "";
            switch (d->type) {
            case KT_REAL:
                v.kind = SV_REAL;
                v.count = 1;
                v.real = (const double *)at;
                break;
            case KT_VEC:
                v.kind = SV_REAL;
                v.count = sc->dim == 3 ? 3 : 2;
                v.real = (const double *)at;
                break;
            case KT_INT:
            case KT_BOOL:
                v.integer = *(const int *)at;
                break;
            case KT_ENUM:
                v.kind = SV_STRING;
                v.string = d->names[*(const int *)at];
                break;
            case KT_STRING:
            case KT_SCHEME:
                v.kind = SV_STRING;
                v.string = at;
                break;
            case KT_FLAGS:
                v.kind = SV_STRING;
                for (int b = 0; d->names[b]; ++b)
                    if (*(const unsigned *)at & (1u << b)) {
                        if (flags[0])
                            strcat(flags, ",");
                        strcat(flags, d->names[b]);
                    }
                v.string = flags;
                break;
            case KT_POINTS: {
                /* "P1 [0.8, 0.5, 0.02]; P2 [...]" */
                const scene_probe_point *pts = (const void *)at;
                int n = *(const int *)(const void *)((const char *)sc + d->count_offset);
                int nat = sc->dim - ((d->flags & KF_HORIZONTAL) ? 1 : 0);
                char num[48];
                points[0] = '\0';
                for (int i = 0; i < n; ++i) {
                    if (i)
                        append(points, sizeof points, "; ");
                    append(points, sizeof points, pts[i].name);
                    append(points, sizeof points, " [");
                    for (int a = 0; a < nat; ++a) {
                        if (a)
                            append(points, sizeof points, ", ");
                        append(points, sizeof points, fmt_num(pts[i].at[a], num, sizeof num));
                    }
                    append(points, sizeof points, "]");
                }
                v.kind = SV_STRING;
                v.string = points;
                break;
            }
            }
            /* domain_min/max mean nothing unless given */
            if (d->type == KT_VEC && groups[g].name[0] == 's' && !sc->domain_set)
                continue;
            fn(&v, ctx);
        }
    }
}

const char *scene_kernel_name(enum kernel_kind k)
{
    return (unsigned)k < sizeof kernel_names / sizeof kernel_names[0] - 1 ? kernel_names[k] : "unknown";
}

const char *scene_integrator_name(enum integrator_kind k)
{
    return (unsigned)k < sizeof integrator_names / sizeof integrator_names[0] - 1 ? integrator_names[k]
                                                                                 : "unknown";
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
    join_names(gpu_strategy_names, -1, 0, list, sizeof list);
    return list;
}

const char *scene_gpu_sort_accepted(void)
{
    static char list[64];
    join_names(gpu_sort_names, -1, 0, list, sizeof list);
    return list;
}
