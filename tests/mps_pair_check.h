/* mps_pair_check.h: random MPS states, and a pass's outputs checked against an oracle's; shared by
 * test_mps_pairs (CPU: the grid's gather loop against an all-pairs loop over the same pair form)
 * and test_gpu_backend (every CUDA strategy against the all-pairs kernel). Include after cmocka.h.
 *
 * Tolerance. The all-pairs loops take candidates in index order. The grid's runs visit theirs in
 * increasing index order too (particles sorted by cell, runs in increasing cell order), so an
 * all-pairs loop compiled alike adds the same neighbours in the same order: on the CPU the results
 * are bit-identical. On the GPU the kernels are compiled apart (fused multiply-adds may differ), so
 * results agree to rounding: relative to the largest oracle value of the field, 1e-5 in float and
 * 1e-12 in double (as for the WCSPH forces). Discrete decisions taken on such sums may then go the
 * other way where a sum lies within rounding of its threshold: the free-surface class
 * (n* < beta n0), the LSMPS fit's pivot test and the support test of the LSMPS Laplacian. Those
 * particles show it in a discrete output (the class, the fallback count); they are left out of the
 * comparison and counted: at most 1% of the particles on the GPU, none on the CPU. */
#ifndef SLUICE_MPS_PAIR_CHECK_H
#define SLUICE_MPS_PAIR_CHECK_H

#include "schemes/registry.h"
#include "base/scene.h"
#include "core/sim.h"
#include "run/sim_create.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum layout { UNIFORM, CLUSTERED, MOSTLY_EMPTY };

static const char *const layout_name[] = {"uniform", "clustered", "mostly-empty"};

static double uniform01(unsigned long long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

/* The scheme settings that select the passes' code paths. */
typedef struct mps_case {
    const char *name;
    const char *method;
    const char *mps; /* the scene's mps group */
} mps_case;

/* Particle i of a random layout in the unit box (four tight blobs when clustered) with a random
 * velocity in [-0.5, 0.5) per axis. */
static void random_position_velocity(real **f, size_t i, int dim, enum layout lay, unsigned long long *rng)
{
    double x[3] = {0, 0, 0};
    for (int a = 0; a < dim; ++a) {
        double u = uniform01(rng);
        if (lay == CLUSTERED) /* four blobs: distances of a fraction of dp */
            u = 0.2 + 0.2 * (double)(i % 4) + 0.05 * (u - 0.5);
        x[a] = 0.999 * u;
    }
    for (int a = 0; a < 3; ++a) {
        f[PF_X + a][i] = (real)x[a];
        f[PF_VX + a][i] = a < dim ? (real)(uniform01(rng) - 0.5) : 0;
    }
}

/* The scene keys that make a layout mostly empty: a domain 4 times as wide along each axis. */
static const char *layout_domain(enum layout lay, int dim)
{
    return lay != MOSTLY_EMPTY ? ""
           : dim == 2          ? "domain_min = [0.0, 0.0]; domain_max = [4.0, 4.0];"
                               : "domain_min = [0.0, 0.0, 0.0]; domain_max = [4.0, 4.0, 4.0];";
}

static const mps_case mps_cases[] = {
    /* stabilised MPS gradient (two sweeps), MPS viscous Laplacian, mixed source (divergence) */
    {"mps", "mps", "operators = \"mps\"; weight = \"quadratic\"; source = \"mixed\";"},
    /* KO weight, plain gradient, density source, dynamic stabilisation in place of the collisions */
    {"mps-ko", "mps", "operators = \"mps\"; weight = \"ko\"; gradient_stabilised = false; source = \"density\"; "
                      "collision_model = \"dynamic\"; collision_distance = 0.8;"},
    /* stabilised LSMPS gradient with its MPS fallback (up to four sweeps), LSMPS Laplacian */
    {"lsmps", "mps", "operators = \"lsmps\"; weight = \"quadratic\"; source = \"mixed\";"},
    /* explicit: symmetric gradient, equation of state, wall pressure */
    {"emps", "emps", "operators = \"mps\"; weight = \"quadratic\";"},
    /* explicit with plain LSMPS (stabilised MPS fallback), cubic domain */
    {"emps-lsmps-cubic", "emps", "operators = \"lsmps\"; domain = \"cubic\";"},
};
enum { MPS_NCASES = sizeof mps_cases / sizeof mps_cases[0] };

/* An MPS simulation of a 1 m box of particles at spacing dp on backend be, the particles then moved
 * to a random layout (uniform over the box; clustered in four tight blobs; mostly empty: uniform
 * over the box inside a domain 4 times as wide along each axis), with random velocities,
 * pressures, classes and solver fields. The grid is built; the host arrays hold the state in the
 * grid's order. */
static void mps_random_sim(int dim, double dp, int ndiv, enum layout lay, const mps_case *mc, const backend *be,
                           scene *sc, sim *s)
{
    char text[2048];
    snprintf(text, sizeof text,
             "simulation = { method = \"%s\"; dimension = %d; end_time = 1.0; %s };\n"
             "fluid = { gravity = %s; sound_speed = 20.0; viscosity = 1.0e-3; };\n"
             "numerics = { spacing = %g; ndiv = %d; };\n"
             "mps = { %s re_density = 2.1; re_laplacian = 3.1; lsmps_scale = 1.0; };\n"
             "geometry = ( { type = \"fluid\"; min = %s; max = %s; } );\n"
             "gpu = { strategy = \"par-part\"; };\n",
             mc->method, dim,
             layout_domain(lay, dim),
             dim == 2 ? "[0.0, -9.81]" : "[0.0, 0.0, -9.81]", dp, ndiv, mc->mps,
             dim == 2 ? "[0.0, 0.0]" : "[0.0, 0.0, 0.0]", dim == 2 ? "[1.0, 1.0]" : "[1.0, 1.0, 1.0]");
    sl_err err;
    if (scene_load_string(sc, text, "random MPS layout", &err))
        fail_msg("%s", err.msg);
    if (sim_create(s, sc, be, &err))
        fail_msg("%s", err.msg);
    sim_sync_host(s);
    unsigned long long rng = 777u + (unsigned)(dim * 100 + ndiv * 10 + lay);
    real **f = s->p.f;
    const int *slot = s->args.slot;
    int semi = strcmp(mc->method, "mps") == 0;
    double n0 = s->P.mps.n0_n;
    for (size_t i = 0; i < s->p.n; ++i) {
        random_position_velocity(f, i, dim, lay, &rng);
        f[PF_P][i] = (real)(1000.0 * uniform01(&rng) - 100.0);
        f[PF_RHO][i] = 1000;
        double c = uniform01(&rng);
        s->p.tag[i] = c < 0.7 ? MC_FLUID : c < 0.8 ? MC_FLUID_SURFACE : c < 0.9 ? MC_WALL : c < 0.95 ? MC_WALL_SURFACE
                                                                                                  : MC_DUMMY;
        f[slot[MS_N_START]][i] = (real)(n0 * (0.9 + 0.2 * uniform01(&rng)));
        f[slot[MS_N]][i] = (real)(n0 * (0.9 + 0.2 * uniform01(&rng)));
        f[slot[MS_FALLBACK]][i] = 0;
        if (semi) {
            uint8_t cls = s->p.tag[i];
            f[slot[MS_DIAG]][i] = cls == MC_FLUID || cls == MC_WALL ? (real)(1e6 * (1.0 + uniform01(&rng))) : 0;
            f[slot[MS_D]][i] = (real)(uniform01(&rng) - 0.3);
        }
    }
    s->args.dt = (real)1e-4;
    if (semi) {
        s->args.in = slot[MS_D];
        s->args.out = slot[MS_Q];
    }
    if (sim_sync_device(s, &err) || s->be->build_cells(s, &err))
        fail_msg("%s", err.msg);
    sim_sync_host(s);
    if (s->g.n_inside != s->p.n)
        fail_msg("random layout: %zu of %zu particles inside the grid", s->g.n_inside, s->p.n);
}

/* ---- the passes and what they write ---------------------------------------------------------- */

typedef struct mps_pass_spec {
    int id;
    const char *name;
    int semi_implicit_only; /* uses the Poisson system's fields */
} mps_pass_spec;

static const mps_pass_spec mps_pair_passes[] = {
    {PASS_MPS_ACCEL, "accel", 0},
    {PASS_MPS_COLLISION, "collision", 0},
    {PASS_MPS_DENSITY, "density", 0},
    {PASS_MPS_WALL_PRESSURE, "wall_pressure", 0},
    {PASS_MPS_PPE_SETUP, "ppe_setup", 1},
    {PASS_MPS_PPE_APPLY, "ppe_apply", 1},
    {PASS_MPS_GRADIENT, "gradient", 0},
    {PASS_MPS_OP_GRADIENT, "op_gradient", 0},
    {PASS_MPS_OP_LAPLACIAN, "op_laplacian", 0},
    {PASS_MPS_OP_LSMPS_GRADIENT, "op_lsmps_gradient", 0},
};
enum { MPS_NPASSES = sizeof mps_pair_passes / sizeof mps_pair_passes[0] };

enum { OUT_MAX = 5 };

/* The real fields pass `id` writes; *discrete: the field whose change marks a path taken the other
 * way (the fallback count), -1 for the class (density), -2 for none. */
static int mps_pass_outputs(const sim *s, int id, int fields[OUT_MAX], int *discrete)
{
    const int *slot = s->args.slot;
    int n = 0;
    *discrete = -2;
    switch (id) {
    case PASS_MPS_ACCEL:
        fields[n++] = slot[MS_N_START];
        fields[n++] = slot[MS_AX];
        fields[n++] = slot[MS_AY];
        fields[n++] = slot[MS_AZ];
        fields[n++] = *discrete = slot[MS_FALLBACK];
        break;
    case PASS_MPS_COLLISION:
    case PASS_MPS_OP_GRADIENT:
        fields[n++] = slot[MS_GX];
        fields[n++] = slot[MS_GY];
        fields[n++] = slot[MS_GZ];
        break;
    case PASS_MPS_DENSITY:
        fields[n++] = slot[MS_N];
        fields[n++] = PF_RHO;
        fields[n++] = PF_P;
        *discrete = -1;
        break;
    case PASS_MPS_WALL_PRESSURE:
        fields[n++] = PF_P;
        break;
    case PASS_MPS_PPE_SETUP:
        fields[n++] = slot[MS_DIAG];
        fields[n++] = slot[MS_B];
        fields[n++] = slot[MS_X];
        break;
    case PASS_MPS_PPE_APPLY:
        fields[n++] = s->args.out;
        break;
    case PASS_MPS_GRADIENT:
    case PASS_MPS_OP_LSMPS_GRADIENT:
        fields[n++] = slot[MS_GX];
        fields[n++] = slot[MS_GY];
        fields[n++] = slot[MS_GZ];
        fields[n++] = *discrete = slot[MS_FALLBACK];
        break;
    case PASS_MPS_OP_LAPLACIAN:
        fields[n++] = slot[MS_AX];
        break;
    default:
        fail_msg("no outputs known for pass %d", id);
    }
    return n;
}

/* ---- states: the inputs saved once, the outputs of a run ------------------------------------- */

typedef struct mps_state {
    size_t n;
    int nfields;
    real *f;      /* nfields x n */
    uint8_t *tag;
} mps_state;

static void mps_state_save(const sim *s, mps_state *st)
{
    st->n = s->p.n;
    st->nfields = s->p.nfields;
    st->f = malloc((size_t)st->nfields * st->n * sizeof(real));
    st->tag = malloc(st->n);
    assert_non_null(st->f);
    assert_non_null(st->tag);
    for (int k = 0; k < st->nfields; ++k)
        memcpy(st->f + (size_t)k * st->n, s->p.f[k], st->n * sizeof(real));
    memcpy(st->tag, s->p.tag, st->n);
}

/* Back into the host arrays (the caller copies them to the device where there is one). */
static void mps_state_restore(sim *s, const mps_state *st)
{
    for (int k = 0; k < st->nfields; ++k)
        memcpy(s->p.f[k], st->f + (size_t)k * st->n, st->n * sizeof(real));
    memcpy(s->p.tag, st->tag, st->n);
}

static void mps_state_free(mps_state *st)
{
    free(st->f);
    free(st->tag);
}

/* Compares the outputs of pass `id` in `got` with `oracle` (both saved after a run), within tol
 * relative to each field's largest oracle value, leaving out at most max_left_out particles whose
 * path differs; fails the test with a message that names the case. `left_out` gets the particles
 * left out; *worst_rel is raised to the largest relative difference seen. */
static void mps_compare(const sim *s, int id, const mps_state *oracle, const mps_state *got, const char *what,
                        double tol, size_t max_left_out, size_t *left_out, double *worst_rel)
{
    int fields[OUT_MAX], discrete;
    int nf = mps_pass_outputs(s, id, fields, &discrete);
    size_t n = oracle->n;
    unsigned char *skip = calloc(n, 1);
    assert_non_null(skip);
    size_t skipped = 0;
    for (size_t i = 0; i < n; ++i) {
        int differs = discrete == -1   ? oracle->tag[i] != got->tag[i]
                      : discrete >= 0 ? oracle->f[(size_t)discrete * n + i] != got->f[(size_t)discrete * n + i]
                                      : 0;
        if (differs) {
            skip[i] = 1;
            ++skipped;
        }
    }
    *left_out = skipped;
    if (skipped > max_left_out)
        fail_msg("%s: %zu of %zu particles took another path (class or LSMPS fallback) than the oracle (at most %zu "
                 "may, by rounding near a threshold)",
                 what, skipped, n, max_left_out);
    for (int k = 0; k < nf; ++k) {
        const real *o = oracle->f + (size_t)fields[k] * n, *g = got->f + (size_t)fields[k] * n;
        double scale = 0, worst = 0;
        size_t at = 0;
        for (size_t i = 0; i < n; ++i)
            if (!skip[i])
                scale = fmax(scale, fabs((double)o[i]));
        for (size_t i = 0; i < n; ++i) {
            if (skip[i])
                continue;
            double d = fabs((double)g[i] - (double)o[i]);
            if (!(d <= worst)) { /* NaN counts as the worst */
                worst = d;
                at = i;
            }
        }
        if (scale > 0 && worst / scale > *worst_rel)
            *worst_rel = worst / scale;
        if (!(worst <= tol * scale))
            fail_msg("%s: field %s: max difference %.3g at particle %zu (%.9g against the oracle's %.9g), %.3g of "
                     "the largest value %.3g (tolerance %.0e)",
                     what, s->p.fname[fields[k]], worst, at, (double)g[at], (double)o[at],
                     scale > 0 ? worst / scale : worst, scale, tol);
    }
    free(skip);
}

#endif
