/* scene.h: a scene as read from its libconfig file, validated, in SI units, before any particle exists. */
#ifndef SLUICE_SCENE_H
#define SLUICE_SCENE_H

#include "status.h"

#include <stddef.h>

#define SCENE_PATH_MAX 4096
#define SCENE_NAME_MAX 32

enum geom_kind {
    GEOM_FLUID,    /* a box filled with fluid particles on a lattice of spacing dp */
    GEOM_TANK,     /* a hollow tank: `layers` wall layers outside the inner box; roof open unless closed */
    GEOM_OBSTACLE  /* a solid box: `layers` wall layers inside the box surface (the core is left empty) */
};

/* The shape of a geometry item (key `shape`; `mesh` alone implies SHAPE_MESH). */
enum geom_shape { SHAPE_BOX, SHAPE_MESH, SHAPE_CYLINDER, SHAPE_SPHERE, SHAPE_WEDGE, SHAPE_PLANE };
/* The side a wedge's sloped face looks to (it falls towards that side). */
enum geom_slope { SLOPE_PLUS_X, SLOPE_MINUS_X, SLOPE_PLUS_Y, SLOPE_MINUS_Y };

#define SCENE_MESH_PATH_MAX 1024

/* A prescribed motion of a tank or obstacle (the item's `motion` group): the item as written is its
 * place at t <= start; the law gives the rigid displacement from there (physics/rigid_motion.h). */
enum motion_law { MOTION_NONE, MOTION_SINE, MOTION_ROTATION, MOTION_GATE };

typedef struct scene_motion {
    enum motion_law law;
    double amplitude[3];    /* sine: translation amplitude, m */
    double frequency;       /* sine, rotation: Hz (0 when `period` was given) */
    double period;          /* sine, rotation: s (0 when `frequency` was given) */
    double phase;           /* sine, rotation: degrees */
    double angle;           /* rotation: angular amplitude, degrees */
    double axis[3];         /* rotation: unit axis (3D; z in 2D) */
    double pivot[3];        /* rotation: a point on the axis, m */
    double velocity[3];     /* gate: velocity between the ramps, m/s */
    double start, stop;     /* s: the law runs in [start, stop]; the item rests before and after */
    double ramp;            /* gate: s of smooth acceleration after start and deceleration before stop */
    int line;               /* of the group, for errors found later */
} scene_motion;

/* A floating body (an obstacle item's `floating` group): a rigid body moved by the fluid's force and
 * torque, gravity and its constraints (core/floating.h). Unset mass properties come from the item's
 * filled lattice. */
enum { FLOAT_AXIS_X = 1u << 0, FLOAT_AXIS_Y = 1u << 1, FLOAT_AXIS_Z = 1u << 2 };

typedef struct scene_floating {
    int enabled;            /* the item has a `floating` group */
    double density;         /* kg/m^3 (0: `mass` given) */
    double mass;            /* kg (kg/m in 2D; 0: from density) */
    double center[3];       /* centre of mass, m (used when center_set) */
    double inertia[3];      /* principal moments about x, y, z through the centre of mass (2D: z
                             * only), kg m^2 (kg m in 2D; used when inertia_set) */
    int center_set, inertia_set;
    double velocity[3];     /* initial velocity of the centre of mass, m/s */
    double omega[3];        /* initial angular velocity, rad/s (2D: z only) */
    unsigned fix_translation, fix_rotation; /* FLOAT_AXIS_* bits: world axes held fixed */
    int line;               /* of the group, for errors found later */
} scene_floating;

typedef struct scene_geom {
    enum geom_kind kind;
    enum geom_shape shape;
    double min[3], max[3];  /* box and wedge: as given (inner box for box tanks); other shapes: their
                             * bounding box, computed by the loader; z unused in 2D */
    int layers;             /* tank and obstacle wall layers (>= 1) */
    int closed_top;         /* tank only: 1 = walls on the roof too */
    double velocity[3];     /* fluid only: initial velocity (m/s) */
    int line;               /* line of the item in the scene file, for errors found later */
    char mesh[SCENE_MESH_PATH_MAX]; /* mesh: STL file, relative to the scene file's folder */
    double center[3];       /* cylinder, sphere */
    double axis[3];         /* cylinder (3D): unit vector along its axis */
    double radius, length;  /* cylinder, sphere; length: cylinder (3D) */
    int slope;              /* wedge: enum geom_slope */
    double wedge_min[3], wedge_max[3]; /* wedge: its box as given (min, max), before placement */
    double point[3], normal[3]; /* plane: a point on it, the unit normal towards the fluid */
    double scale;           /* non-box shapes: x' = R(scale x) + translate */
    double rotate[3];       /* degrees about x, then y, then z (2D: rotate[2] only) */
    double translate[3];
    scene_motion motion;    /* tank, obstacle: prescribed motion (law MOTION_NONE: fixed) */
    scene_floating floating; /* obstacle: a floating body (enabled 0: none) */
} scene_geom;

enum kernel_kind { KERNEL_WENDLAND_C2, KERNEL_CUBIC_SPLINE };
enum integrator_kind { INTEGRATOR_SYMPLECTIC, INTEGRATOR_VERLET };
/* GPU binning: counting sort (atomics, fastest, order inside a cell varies from run to run) or a
 * stable radix sort (bit-reproducible runs). */
enum gpu_sort_kind_name { GPU_SORT_NAME_COUNTING, GPU_SORT_NAME_RADIX };
/* GPU interaction strategy for every neighbour pass; auto times them on the live layout. */
enum gpu_strategy_name { GPU_STRATEGY_AUTO, GPU_STRATEGY_PAR_PART, GPU_STRATEGY_PAR_CELL,
                         GPU_STRATEGY_PAR_CELL_SM, GPU_STRATEGY_X_PENCIL, GPU_STRATEGY_PAR_PART_COMPACT,
                         GPU_STRATEGY_PAR_PART_SYM };
enum gpu_scan_name { GPU_SCAN_NAME_AUTO, GPU_SCAN_NAME_BLOCKED, GPU_SCAN_NAME_CUB };
enum viscosity_kind { VISCOSITY_ARTIFICIAL, VISCOSITY_LAMINAR };
/* Density diffusion: Molteni & Colagrossi (2009), or Fourtakas et al. (2019), which subtracts the
 * hydrostatic density difference so a still column is not diffused towards uniform density. */
enum diffusion_kind { DIFFUSION_FOURTAKAS, DIFFUSION_MOLTENI };

/* MPS and explicit MPS (group `mps`). */
enum mps_operator_kind { MPS_OPERATORS_MPS, MPS_OPERATORS_LSMPS };
enum mps_weight_name { MPS_WEIGHT_NAME_KO, MPS_WEIGHT_NAME_QUADRATIC };
enum mps_domain_kind { MPS_DOMAIN_SPHERICAL, MPS_DOMAIN_CUBIC };
enum mps_source_kind { MPS_SOURCE_DENSITY, MPS_SOURCE_MIXED, MPS_SOURCE_ECS };
/* What a pair closer than mps.collision_distance does (physics/mps_collision.h). */
enum mps_collision_kind { MPS_COLLISION_KOSHIZUKA, MPS_COLLISION_DYNAMIC };
enum mps_wall_pressure_kind { MPS_WALL_PRESSURE_EXTRAPOLATED, MPS_WALL_PRESSURE_NUMBER_DENSITY };
enum mps_preconditioner_kind { MPS_PRECONDITIONER_JACOBI, MPS_PRECONDITIONER_MULTIGRID };

typedef struct scene_mps {
    enum mps_operator_kind operators; /* gradient and Laplacian: MPS models or LSMPS */
    enum mps_weight_name weight;      /* spherical-domain weight */
    enum mps_domain_kind domain;      /* cubic: the tensor-product weight */
    double re_density;                /* number density and gradient radius, in spacings */
    double re_laplacian;              /* Laplacian radius, in spacings */
    double lsmps_scale;               /* LSMPS scaling length rs, in spacings */
    double surface_beta;              /* free surface where n* < beta n0 */
    double collision_distance;        /* pairs closer than this, in spacings, collide */
    double collision_restitution;     /* coefficient of restitution of those collisions */
    enum mps_collision_kind collision_model; /* inelastic collision, or dynamic stabilisation */
    enum mps_source_kind source;      /* pressure Poisson source term */
    double mixed_gamma;               /* weight of the density term in the mixed source */
    double relaxation;                /* factor on the density source (Koshizuka et al. 2018: 0.2) */
    double compressibility;           /* 1/Pa, added to the Poisson matrix's diagonal as rho0 k / dt^2 */
    double cg_tolerance;              /* relative residual */
    enum mps_preconditioner_kind preconditioner; /* of the conjugate gradients */
    int stop_unconverged;             /* a solve that misses the tolerance ends the run (else a warning) */
    int cg_max_iterations;
    int clamp_negative_pressure;      /* p < 0 set to 0 after the solve */
    int gradient_stabilised;          /* MPS gradient with the minimum neighbour pressure */
    enum mps_wall_pressure_kind wall_pressure; /* explicit MPS: wall pressure from the fluid or from n */
} scene_mps;

/* The viewer (group `viewer`): what `sluice run --view` and `--frames` draw. */
enum viz_field_kind { VIZ_FIELD_VELOCITY, VIZ_FIELD_PRESSURE, VIZ_FIELD_DENSITY, VIZ_FIELD_TYPE, VIZ_NFIELDS };
enum viz_colormap_kind { VIZ_CMAP_VIRIDIS, VIZ_CMAP_MAGMA, VIZ_CMAP_PLASMA, VIZ_NCMAPS };
enum viz_walls_kind { VIZ_WALLS_TRANSLUCENT, VIZ_WALLS_OPAQUE, VIZ_WALLS_HIDDEN };
enum viz_projection_kind { VIZ_PROJ_AUTO, VIZ_PROJ_PERSPECTIVE, VIZ_PROJ_ORTHOGRAPHIC };

typedef struct scene_viewer {
    enum viz_field_kind field;       /* colour by */
    enum viz_colormap_kind colormap;
    double range_min, range_max;     /* fixed colour range of `field`; automatic when equal */
    enum viz_walls_kind walls;       /* tank walls and obstacles */
    int width, height;               /* window and frame size, pixels */
    double particle_size;            /* sphere diameter in particle spacings */
    double frame_every;              /* s between --frames images; 0 = output.interval */
    enum viz_projection_kind projection; /* auto: orthographic in 2D, perspective in 3D */
    double yaw, pitch;               /* degrees: 3D camera direction */
    int overlay;                     /* text overlay (time, step, rates) */
    int colorbar;
} scene_viewer;

/* Output field bits (output.fields). position and id are always written: ParaView needs the
 * geometry and the id gives the row order. */
enum {
    OUT_POSITION = 1u << 0,
    OUT_VELOCITY = 1u << 1,
    OUT_PRESSURE = 1u << 2,
    OUT_DENSITY = 1u << 3,
    OUT_TYPE = 1u << 4,
    OUT_ID = 1u << 5,
    OUT_ALL = (1u << 6) - 1
};

/* Probes (group `probes`): sampled during the run into DIR/probes.csv (src/io/probes.c). */
#define SCENE_PROBES_MAX 64      /* points per list */
#define SCENE_PROBE_NAME_MAX 32  /* bytes of a probe name, NUL included */

typedef struct scene_probe_point {
    char name[SCENE_PROBE_NAME_MAX]; /* CSV column name: letters, digits, '_', '-', '.' */
    double at[3];                    /* pressure: the point; gauge: the horizontal position (dim - 1 numbers) */
    double normal[3];                /* pressure: unit wall normal into the fluid; all 0: inferred from the boxes */
    double offset;                   /* pressure: m along the normal to the sampled point, when offset_set */
    int offset_set;                  /* 0: the scheme's default offset (io/probes.c) */
    double diameter;                 /* pressure: m across the sensor's face on its wall; 0: a point */
    int line;                        /* of the item in the scene file */
} scene_probe_point;

/* Direction in which the surge front is tracked (probes.front). */
enum probe_front { FRONT_NONE, FRONT_PLUS_X, FRONT_MINUS_X, FRONT_PLUS_Y, FRONT_MINUS_Y, FRONT_PLUS_Z, FRONT_MINUS_Z };

typedef struct scene_probes {
    int enabled;        /* the group is in the file */
    double interval;    /* s; 0: output.interval */
    int npressure, ngauges;
    scene_probe_point pressure[SCENE_PROBES_MAX]; /* kernel-interpolated pressure at points */
    scene_probe_point gauges[SCENE_PROBES_MAX];   /* water level on the vertical through a point */
    enum probe_front front;
    int energy;         /* total mass, kinetic and potential energy of the fluid */
} scene_probes;

/* Gridded fields (group `grid`): particle-to-mesh spreading into every snapshot (src/io/p2m_grid.c). */
enum {
    GRID_DENSITY = 1u << 0,
    GRID_VELOCITY = 1u << 1,
    GRID_PRESSURE = 1u << 2,
    GRID_ALL = (1u << 3) - 1
};
enum grid_method { GRID_METHOD_AUTO, GRID_METHOD_PARTICLE, GRID_METHOD_MESH };

typedef struct scene_grid {
    int enabled;        /* the group is in the file */
    double spacing;     /* m; 0: 2 numerics.spacing */
    int order;          /* B-spline order p (1 nearest node .. 4 cubic) */
    unsigned fields;    /* GRID_* bits */
    enum grid_method method;
} scene_grid;

typedef struct scene {
    char path[SCENE_PATH_MAX]; /* file it was read from */
    char *text;                /* whole file, stored with every snapshot (owned) */

    /* simulation */
    char method[SCENE_NAME_MAX]; /* scheme name, resolved by scheme_find() */
    int dim;                     /* 2 or 3 */
    double end_time;             /* s */
    int domain_set;              /* 1 when domain_min/max were given */
    double domain_min[3], domain_max[3];
    unsigned periodic;           /* bit a: the domain wraps around along axis a (needs domain_min/max) */
    int periodic_line;           /* of simulation.periodic in the file, for checks made later */

    /* fluid */
    double rho0;          /* kg/m^3 */
    double nu;            /* kinematic viscosity, m^2/s */
    double gravity[3];    /* m/s^2 */
    double sound_speed;   /* m/s; 0 = derived from sound_speed_coef */
    double sound_speed_coef; /* c0 = coef * sqrt(|g| * H), H = highest fluid column */
    double eos_gamma;     /* Tait exponent */

    /* numerics */
    double dp;            /* particle spacing, m */
    enum kernel_kind kernel;
    double h_factor;      /* h = h_factor * dp */
    double cfl;
    int ndiv;             /* neighbour cells per interaction radius, 1..3 */
    double cell_skin;     /* WCSPH on MPI ranks: the cells' margin, a fraction of the interaction radius */
    enum integrator_kind integrator;
    int verlet_steps;     /* Verlet: an Euler step every N steps */
    enum viscosity_kind viscosity;
    double alpha;         /* artificial viscosity coefficient */
    double delta;         /* delta-SPH density diffusion coefficient (0 = off) */
    enum diffusion_kind diffusion;
    enum wall_model_kind { WALL_MODEL_DBC, WALL_MODEL_MDBC } boundary; /* WCSPH walls: numerics.boundary */
    int no_slip;          /* mdbc with laminar viscosity: zero velocity on the wall surface (numerics.no_slip) */
    int packing;          /* relax the fluid particles inside their shape before the run (run/packing.c) */
    int packing_iterations; /* at most this many relaxation steps */
    double packing_tolerance; /* stop once no particle moves more than this many spacings in a step */

    scene_mps mps;

    /* gpu (the CUDA backend only) */
    enum gpu_sort_kind_name gpu_sort;
    enum gpu_strategy_name gpu_strategy;
    enum gpu_scan_name gpu_scan;

    /* geometry */
    int ngeom;
    scene_geom *geom;     /* owned */

    /* output */
    char out_dir[SCENE_PATH_MAX];
    double out_interval;  /* s */
    unsigned out_fields;  /* OUT_* bits */
    int checkpoint_every; /* a checkpoint every N snapshots; 0: only at the end and on signals */

    scene_viewer viewer;
    scene_probes probes;
    scene_grid grid;
} scene;

/* Sets every default (the values documented in docs/scene-files.md). */
void scene_defaults(scene *sc);

/* Reads and validates `path`. On failure returns SL_ERR_INPUT with a one-line message
 * `FILE:LINE: key 'group.key': what is wrong (accepted: ...)` and leaves nothing allocated. */
int scene_load(scene *sc, const char *path, sl_err *err);

/* The same from a string (tests); `name` is used in messages. */
int scene_load_string(scene *sc, const char *text, const char *name, sl_err *err);

void scene_free(scene *sc);

/* One scene key with its value, as handed out by scene_visit_keys(). */
typedef struct scene_value {
    const char *group, *key;   /* "numerics", "spacing" */
    enum { SV_REAL, SV_INT, SV_STRING } kind;
    int count;                 /* SV_REAL: numbers in `real` (vectors have `dimension`) */
    const double *real;
    int integer;               /* SV_INT (booleans are 0/1) */
    const char *string;        /* SV_STRING: strings, enum names, flag lists "a,b,c" */
} scene_value;

/* Calls fn for every key of every group except the geometry list, with the scene's value, in the
 * order of docs/scene-files.md. Output (snapshot attributes) uses it, so new keys appear there
 * without further code. */
void scene_visit_keys(const scene *sc, void (*fn)(const scene_value *v, void *ctx), void *ctx);

/* Name tables shared by the loader, `sluice check` and the snapshot attributes. */
const char *scene_kernel_name(enum kernel_kind k);
const char *scene_integrator_name(enum integrator_kind k);

/* The gpu.strategy / gpu.sort value of a name as written in scene files, or -1 (the command line's
 * --strategy and --sort use them). */
int scene_gpu_strategy_parse(const char *name);
int scene_gpu_sort_parse(const char *name);
/* The gpu.strategy name of a value. */
const char *scene_gpu_strategy_name(enum gpu_strategy_name k);
/* The accepted gpu.strategy / gpu.sort names, "a, b, c", for the command line's error messages. */
const char *scene_gpu_strategy_accepted(void);
const char *scene_gpu_sort_accepted(void);
const char *scene_viscosity_name(enum viscosity_kind k);
const char *scene_motion_law_name(enum motion_law k);
const char *scene_viz_field_name(enum viz_field_kind k);
/* Index of a viewer field name ("velocity", "pressure", "density", "type"), or -1. */
int scene_viz_field_find(const char *name);

#endif
