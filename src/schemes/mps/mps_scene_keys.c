/* mps_scene_keys.c: the key table of the scene file's `mps = { ... }` group (MPS and explicit MPS),
 * with the name lists only it uses. The loader (src/io/scene_*.c) reads, checks and defaults the
 * group from these rows; docs/scene-files.md documents the same keys: keep them in step. */
#include "mps_scene_keys.h"

#include "base/scene.h"

#include <stddef.h>

/* Enum fields are written through an int. */
_Static_assert(sizeof(enum mps_operator_kind) == sizeof(int), "enum mps_operator_kind is stored as an int");
_Static_assert(sizeof(enum mps_weight_name) == sizeof(int), "enum mps_weight_name is stored as an int");
_Static_assert(sizeof(enum mps_domain_kind) == sizeof(int), "enum mps_domain_kind is stored as an int");
_Static_assert(sizeof(enum mps_source_kind) == sizeof(int), "enum mps_source_kind is stored as an int");
_Static_assert(sizeof(enum mps_collision_kind) == sizeof(int), "enum mps_collision_kind is stored as an int");
_Static_assert(sizeof(enum mps_preconditioner_kind) == sizeof(int), "enum mps_preconditioner_kind is stored as an int");

static const char *const mps_operator_names[] = {"mps", "lsmps", NULL};
static const char *const mps_weight_names[] = {"ko", "quadratic", NULL}; /* enum mps_weight_name order */
static const char *const mps_domain_names[] = {"spherical", "cubic", NULL};
static const char *const mps_source_names[] = {"density", "mixed", "ecs", NULL};
static const char *const mps_collision_names[] = {"koshizuka", "dynamic", NULL};
static const char *const mps_wall_pressure_names[] = {"extrapolated", "number_density", NULL};
static const char *const mps_preconditioner_names[] = {"jacobi", "multigrid", NULL};

#define S(field) offsetof(scene, field)

const scene_key mps_scene_keys[] = {
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
     .doc = "approaching pairs closer than this collide (Koshizuka et al. 2018), or with collision_model = "
            "dynamic every pair is pushed back to it; 0.8 (collisions) and 0.9 (dynamic) keep the dam breaks of "
            "tools/mps-stability-study stable; 0 turns collisions off"},
    {.name = "collision_restitution", .type = KT_REAL, .offset = S(mps.collision_restitution), .lo = 0.0,
     .hi = 1.0, .def = {0.2}, .units = "", .doc = "coefficient of restitution of those collisions"},
    {.name = "collision_model", .type = KT_ENUM, .offset = S(mps.collision_model), .names = mps_collision_names,
     .def = {MPS_COLLISION_KOSHIZUKA}, .units = "",
     .doc = "what a pair closer than collision_distance does: koshizuka (an approaching pair collides "
            "inelastically, Koshizuka et al. 2018) or dynamic (every such pair is pushed back to the distance "
            "within the step with the momentum that takes, dynamic stabilisation after Tsuruta, Khayyer & "
            "Gotoh 2013; collision_restitution unused)"},
    {.name = "source", .type = KT_ENUM, .offset = S(mps.source), .names = mps_source_names,
     .def = {MPS_SOURCE_MIXED}, .units = "",
     .doc = "pressure Poisson source: mixed (velocity divergence + density, Tanaka & Masunaga 2010), density "
            "(n* - n0), or ecs (the divergence with the error-compensating parts of Khayyer & Gotoh 2011)"},
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
    {.name = "preconditioner", .type = KT_ENUM, .offset = S(mps.preconditioner), .names = mps_preconditioner_names,
     .def = {MPS_PRECONDITIONER_MULTIGRID}, .units = "",
     .doc = "of the conjugate gradients: jacobi (matrix-free) or multigrid (the assembled matrix, aggregation on "
            "the neighbour cells, a V-cycle per iteration)"},
    {.name = "stop_unconverged", .type = KT_BOOL, .offset = S(mps.stop_unconverged), .def = {0}, .units = "",
     .doc = "a pressure solve that misses cg_tolerance within cg_max_iterations ends the run with its "
            "iterations and residual (false: the run goes on, with a warning line at the first such step and "
            "the count in the summary)"},
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
_Static_assert(sizeof mps_scene_keys / sizeof mps_scene_keys[0] == MPS_SCENE_KEY_COUNT,
               "MPS_SCENE_KEY_COUNT (mps_scene_keys.h) is not the number of rows of mps_scene_keys");
