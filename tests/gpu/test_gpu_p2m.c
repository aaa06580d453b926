/* test_gpu_p2m.c: particle-to-mesh spreading on the CUDA backend (src/gpu/p2m_cuda.cu) against the
 * CPU's (src/io/p2m_grid.c). Label gpu; exits 77 (skipped) without a CUDA device.
 *  - random fluid layouts (uniform, with walls, NaN and far-away particles and particles off the
 *    grid; clustered in four blobs), 2D and 3D, orders 1..4, a coarse and a fine grid: GPU
 *    particle-based and GPU mesh-based (automatic lanes and 4, 8, 16, 32 lanes per node) give the
 *    CPU's sums node by node, spread the same particles, conserve the mass, and their fields are
 *    those of their sums;
 *  - the GPU mesh-based spreading is bit-identical from call to call;
 *  - p2m_grid_update on a CUDA simulation spreads on the device, by the method asked for;
 *  - CUDA and CPU runs with a grid group (the 2D dam break, a 3D box) write the same /grid.
 * Every failure prints what differed, where, by how much, and the tolerance.
 * SLUICE_GPU_TEST_SMALL=1 (tools/gpu-check sanitize): fewer particles, a coarser sparse grid in 3D,
 * fewer steps. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/engine.h"
#include "gpu/backend_cuda.h"
#include "gpu_test.h"
#include "gpu/p2m_cuda.h"
#include "io/p2m_grid.h"
#include "base/scene.h"
#include "core/sim.h"
#include "run/sim_create.h"
#include "test_util.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source_dir;

static double uniform01(unsigned long long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- layouts ------------------------------------------------------------------------------------ */

enum layout { UNIFORM, CLUSTERED };

/* A CUDA simulation whose particles are then moved to a random layout over [0, 1]^dim (the grid's
 * domain below): UNIFORM spreads them over [-0.3, 1.3]^dim, so some fall off the grid, with a wall
 * every 7th particle, two fluid particles at NaN and one 1e12 m away (none of these is spread);
 * CLUSTERED puts them in four blobs 0.05 wide (thousands of contributions per node: contended
 * atomics, long candidate runs). Velocities and pressures are random. */
static void make_random_sim(int dim, enum layout lay, scene *sc, sim *s)
{
    char text[1024];
    double dp = dim == 2 ? 0.01 : 0.025; /* 10^4 and 6.4 10^4 particles */
    if (gpu_test_small())
        dp = dim == 2 ? 0.04 : 0.1; /* 625 and 1000 */
    snprintf(text, sizeof text,
             "simulation = { method = \"wcsph\"; dimension = %d; end_time = 1.0; };\n"
             "fluid = { gravity = %s; sound_speed = 20.0; };\n"
             "numerics = { spacing = %g; };\n"
             "geometry = ( { type = \"fluid\"; min = %s; max = %s; } );\n"
             "gpu = { sort = \"radix\"; };\n",
             dim, dim == 2 ? "[0.0, -9.81]" : "[0.0, 0.0, -9.81]", dp, dim == 2 ? "[0.0, 0.0]" : "[0.0, 0.0, 0.0]",
             dim == 2 ? "[1.0, 1.0]" : "[1.0, 1.0, 1.0]");
    sl_err err;
    if (scene_load_string(sc, text, "random layout", &err))
        fail_msg("%s", err.msg);
    if (sim_create(s, sc, &backend_cuda, &err))
        fail_msg("%s", err.msg);
    unsigned long long rng = 777u + (unsigned)(dim * 10 + lay);
    real **f = s->p.f;
    for (size_t i = 0; i < s->p.n; ++i) {
        for (int a = 0; a < 3; ++a) {
            double u = uniform01(&rng), x = 0;
            if (a < dim)
                x = lay == CLUSTERED ? 0.2 + 0.2 * (double)(i % 4) + 0.05 * (u - 0.5) : -0.3 + 1.6 * u;
            f[PF_X + a][i] = (real)x;
            f[PF_VX + a][i] = a < dim ? (real)(uniform01(&rng) - 0.5) : 0;
        }
        f[PF_P][i] = (real)(1000.0 * uniform01(&rng));
        s->p.type[i] = lay == UNIFORM && i % 7 == 3 ? PT_WALL : PT_FLUID;
    }
    if (lay == UNIFORM) {
        f[PF_X][5] = (real)NAN;
        f[PF_Y][11] = (real)NAN;
        f[PF_X][12] = (real)1e12;
    }
    if (sim_sync_device(s, &err))
        fail_msg("%s", err.msg);
}

/* ---- comparisons ---------------------------------------------------------------------------------- */

static double max_abs(const double *a, size_t n)
{
    double m = 0;
    for (size_t c = 0; c < n; ++c)
        m = fmax(m, fabs(a[c]));
    return m;
}

/* The sums of got against ref node by node: each of the five sums within rel times the largest
 * |value| of that sum over the grid (the scale of the node sums; 0 when the sum is 0 everywhere,
 * as m vz in 2D, which then must be exactly 0). Same particles spread. */
static void sums_agree(const char *what, const p2m_grid *ref, const p2m_grid *got, double rel)
{
    if (got->spread != ref->spread)
        fail_msg("%s: %zu particles spread on the GPU, %zu on the CPU", what, got->spread, ref->spread);
    const char *names[5] = {"m", "m vx", "m vy", "m vz", "m p"};
    const double *r[5] = {ref->mass, ref->mom[0], ref->mom[1], ref->mom[2], ref->pmass};
    const double *g[5] = {got->mass, got->mom[0], got->mom[1], got->mom[2], got->pmass};
    for (int k = 0; k < 5; ++k) {
        double scale = max_abs(r[k], ref->nnodes), worst = 0;
        size_t at = 0;
        for (size_t c = 0; c < ref->nnodes; ++c) {
            double d = fabs(g[k][c] - r[k][c]);
            if (!(d <= worst)) { /* NaN counts as worst */
                worst = d;
                at = c;
            }
        }
        if (!(worst <= rel * scale) && scale > 0)
            fail_msg("%s: sum %s differs at node %zu (of %zu): GPU %.17g, CPU %.17g: %.3g of the largest |%s| "
                     "%.6g (tolerance %.0e)",
                     what, names[k], at, ref->nnodes, g[k][at], r[k][at], worst / scale, names[k], scale, rel);
        if (!(worst <= rel * scale))
            fail_msg("%s: sum %s differs at node %zu (of %zu): GPU %.17g where the CPU's is 0 at every node", what,
                     names[k], at, ref->nnodes, g[k][at]);
    }
}

/* The fields the GPU wrote are p2m_node_fields of the sums it wrote, bit for bit: the same IEEE
 * divisions and roundings to `real` on both sides. */
static void fields_of_sums(const char *what, const p2m_grid *g)
{
    double vol = pow(g->L.spacing, g->L.dim);
    for (size_t c = 0; c < g->nnodes; ++c) {
        double mom[3] = {g->mom[0][c], g->mom[1][c], g->mom[2][c]};
        real rho, v[3], p;
        p2m_node_fields(g->mass[c], mom, g->pmass[c], vol, &rho, v, &p);
        if (memcmp(&rho, &g->density[c], sizeof rho) || memcmp(v, &g->velocity[3 * c], sizeof v) ||
            memcmp(&p, &g->pressure[c], sizeof p))
            fail_msg("%s: node %zu: GPU fields density %.9g velocity (%.9g %.9g %.9g) pressure %.9g, from its sums "
                     "density %.9g velocity (%.9g %.9g %.9g) pressure %.9g",
                     what, c, (double)g->density[c], (double)g->velocity[3 * c], (double)g->velocity[3 * c + 1],
                     (double)g->velocity[3 * c + 2], (double)g->pressure[c], (double)rho, (double)v[0], (double)v[1],
                     (double)v[2], (double)p);
    }
}

/* The mass on the grid is the mass of the particles spread: every particle's weights sum to 1
 * within 1e-15, the node sums add ~10^3 terms in double, and the grid total is summed here with
 * compensation, so 1e-12 relative is round-off with a wide margin. */
static void mass_conserved(const char *what, const p2m_grid *g, real mass)
{
    double sum = 0, carry = 0;
    for (size_t c = 0; c < g->nnodes; ++c) {
        double y = g->mass[c] - carry, t = sum + y;
        carry = (t - sum) - y;
        sum = t;
    }
    double want = (double)g->spread * (double)mass;
    if (!(fabs(sum - want) <= 1e-12 * want))
        fail_msg("%s: mass on the grid %.17g, of the particles spread %.17g: %.3g relative (tolerance 1e-12)", what,
                 sum, want, want > 0 ? fabs(sum - want) / want : fabs(sum - want));
    if (g->fluid_mass != want)
        fail_msg("%s: fluid_mass %.17g, expected %.17g", what, g->fluid_mass, want);
}

/* Copies of g's host sums and fields, for comparing two calls bit for bit. */
typedef struct grid_copy {
    double *sum;
    real *field;
} grid_copy;

static grid_copy copy_of(const p2m_grid *g)
{
    size_t n = g->nnodes;
    grid_copy k = {malloc(5 * n * sizeof(double)), malloc(5 * n * sizeof(real))};
    assert_non_null(k.sum);
    assert_non_null(k.field);
    const double *s[5] = {g->mass, g->mom[0], g->mom[1], g->mom[2], g->pmass};
    for (int a = 0; a < 5; ++a)
        memcpy(k.sum + (size_t)a * n, s[a], n * sizeof(double));
    memcpy(k.field, g->density, n * sizeof(real));
    memcpy(k.field + n, g->velocity, 3 * n * sizeof(real));
    memcpy(k.field + 4 * n, g->pressure, n * sizeof(real));
    return k;
}

static int same_bits(const grid_copy *a, const grid_copy *b, size_t n)
{
    return memcmp(a->sum, b->sum, 5 * n * sizeof(double)) == 0 && memcmp(a->field, b->field, 5 * n * sizeof(real)) == 0;
}

static void copy_free(grid_copy *k)
{
    free(k->sum);
    free(k->field);
}

/* One GPU spreading through the backend's hook, as p2m_grid_update makes it. */
static void gpu_spread(sim *s, p2m_grid *g, int method, int lanes, const char *what)
{
    sl_err err;
    g->gpu_lanes = lanes;
    if (s->be->p2m_spread(s, g, method, &err))
        fail_msg("%s: %s", what, err.msg);
    assert_int_equal(g->on_device, 1);
    assert_int_equal(g->method_used, method);
    if (method == P2M_MESH && lanes > 0)
        assert_int_equal(g->gpu_lanes_used, lanes);
}

/* ---- GPU against CPU on random layouts ----------------------------------------------------------- */

/* Tolerances, relative to the largest |node sum| (see sums_agree): the inputs are floats, the
 * weights and sums doubles, so the two sides differ only by the order of the additions (and FMA
 * contraction in the device's weights): ~n eps for n terms in a node, n up to ~10^4 in the
 * clustered layout, typically sqrt(n) eps. Mesh-based: a fixed order (lane shares + shuffle tree
 * against the CPU's sequential sum), 1e-12. Particle-based: the atomics add in the order the warps
 * reach them, 1e-10 (the bound; expect ~1e-14). */
#define TOL_MESH 1e-12
#define TOL_ATOMIC 1e-10

static void check_layout(int dim, enum layout lay)
{
    scene sc;
    sim s;
    sl_err err;
    make_random_sim(dim, lay, &sc, &s);
    const real mass = R(0.37);
    const double dmin[3] = {0, 0, 0}, dmax[3] = {1, 1, 1};
    const double spacings[2] = {0.05, dim == 2 ? 0.01 : gpu_test_small() ? 0.04 : 0.02}; /* dense and sparse */
    static const int lanes[5] = {0, 4, 8, 16, 32};
    for (int order = 1; order <= P2M_MAX_ORDER; ++order)
        for (int sp = 0; sp < 2; ++sp) {
            char what[160];
            p2m_grid cpu, gpu;
            if (p2m_grid_init(&cpu, dim, order, spacings[sp], dmin, dmax, GRID_ALL, P2M_MAX_NODES, &err) ||
                p2m_grid_init(&gpu, dim, order, spacings[sp], dmin, dmax, GRID_ALL, P2M_MAX_NODES, &err))
                fail_msg("%s", err.msg);
            /* the CPU's deterministic gather is the reference; test_p2m checks it against its atomics */
            if (p2m_spread(&cpu, &s.p, mass, P2M_MESH, &err))
                fail_msg("%s", err.msg);
            s.P.mass = mass;
            snprintf(what, sizeof what, "%dD %s order %d spacing %g (%.3g contributions per node)", dim,
                     lay == UNIFORM ? "uniform" : "clustered", order, spacings[sp],
                     p2m_contributions_per_node(&cpu, cpu.spread));
            assert_true(cpu.spread > 0);
            if (lay == UNIFORM)
                assert_true(cpu.spread < particles_count_type(&s.p, PT_FLUID)); /* some are off the grid */

            char m[320];
            snprintf(m, sizeof m, "%s, GPU particle-based", what);
            gpu_spread(&s, &gpu, P2M_PARTICLE, 0, m);
            sums_agree(m, &cpu, &gpu, TOL_ATOMIC);
            fields_of_sums(m, &gpu);
            mass_conserved(m, &gpu, mass);

            for (int l = 0; l < 5; ++l) {
                snprintf(m, sizeof m, "%s, GPU mesh-based, %d lanes per node%s", what, lanes[l],
                         lanes[l] ? "" : " (automatic)");
                gpu_spread(&s, &gpu, P2M_MESH, lanes[l], m);
                sums_agree(m, &cpu, &gpu, TOL_MESH);
                fields_of_sums(m, &gpu);
                mass_conserved(m, &gpu, mass);
                /* again, after the particle-based call has used the sums: every bit the same */
                grid_copy first = copy_of(&gpu);
                gpu_spread(&s, &gpu, P2M_PARTICLE, 0, m);
                gpu_spread(&s, &gpu, P2M_MESH, lanes[l], m);
                grid_copy second = copy_of(&gpu);
                if (!same_bits(&first, &second, gpu.nnodes))
                    fail_msg("%s: two calls differ", m);
                copy_free(&first);
                copy_free(&second);
            }
            p2m_grid_free(&cpu);
            p2m_grid_free(&gpu);
        }
    sim_free(&s);
    scene_free(&sc);
}

static void gpu_matches_cpu_2d(void **state)
{
    (void)state;
    check_layout(2, UNIFORM);
    check_layout(2, CLUSTERED);
}

static void gpu_matches_cpu_3d(void **state)
{
    (void)state;
    check_layout(3, UNIFORM);
    check_layout(3, CLUSTERED);
}

/* ---- p2m_grid_update on a CUDA simulation -------------------------------------------------------- */

/* The scene's grid through p2m_grid_update: the device spreads it (on_device), by the method the
 * scene asks for, or for auto by the GPU's threshold; the result is the CPU's. */
static void update_spreads_on_device(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/dam_break_2d.cfg", source_dir);
    scene sc;
    sim s;
    sl_err err;
    if (scene_load(&sc, path, &err))
        fail_msg("%s", err.msg);
    assert_true(sc.grid.enabled);
    if (sim_create(&s, &sc, &backend_cuda, &err))
        fail_msg("%s", err.msg);
    p2m_grid g, ref;
    if (p2m_grid_for_sim(&g, &s, &err) || p2m_grid_for_sim(&ref, &s, &err))
        fail_msg("%s", err.msg);
    sim_sync_host(&s);
    size_t nfluid = particles_count_type(&s.p, PT_FLUID);
    const int methods[3] = {GRID_METHOD_AUTO, GRID_METHOD_PARTICLE, GRID_METHOD_MESH};
    for (int k = 0; k < 3; ++k) {
        sc.grid.method = (enum grid_method)methods[k];
        if (p2m_grid_update(&g, &s, &err))
            fail_msg("%s", err.msg);
        int want = p2m_pick(&g, methods[k], nfluid, 1);
        if (!g.on_device || g.method_used != want)
            fail_msg("grid.method %d: on_device %d, method %d (expected 1, %d)", methods[k], g.on_device,
                     g.method_used, want);
        if (p2m_spread(&ref, &s.p, s.P.mass, P2M_MESH, &err))
            fail_msg("%s", err.msg);
        sums_agree("p2m_grid_update on the CUDA backend", &ref, &g, want == P2M_MESH ? TOL_MESH : TOL_ATOMIC);
        mass_conserved("p2m_grid_update on the CUDA backend", &g, s.P.mass);
    }
    p2m_grid_free(&g);
    p2m_grid_free(&ref);
    sim_free(&s);
    scene_free(&sc);
}

/* ---- whole runs: /grid of the CUDA run against the CPU run's -------------------------------------- */

/* A whole dataset of a snapshot as doubles (count values), or fails the test. */
static double *read_dataset(const char *file, const char *name, size_t *count)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        fail_msg("%s: cannot open", file);
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        fail_msg("%s: no %s", file, name);
    hid_t sp = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(sp);
    double *buf = malloc((size_t)(n > 0 ? n : 1) * sizeof *buf);
    assert_non_null(buf);
    if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        fail_msg("%s: cannot read %s", file, name);
    H5Sclose(sp);
    H5Dclose(d);
    H5Fclose(f);
    *count = (size_t)n;
    return buf;
}

/* Runs `steps` steps of the scene on a backend into a fresh directory (returned, to be removed). */
static void run_scene(scene *sc, const backend *be, long steps, char *dir, int *snapshots)
{
    sim s;
    sl_err err;
    if (sim_create(&s, sc, be, &err))
        fail_msg("%s", err.msg);
    run_options o = {.out_dir = dir, .until = -1.0, .max_steps = steps, .quiet = 1};
    run_summary sum;
    if (engine_run(&s, &o, &sum, &err))
        fail_msg("run on %s: %s", be->name, err.msg);
    *snapshots = sum.snapshots;
    sim_free(&s);
}

/* Compares /grid of one snapshot of the two runs: density by its largest difference against the
 * largest density, velocity and pressure in RMS over the nodes that hold at least 1% of the
 * largest node density (elsewhere a mass-weighted mean of a few far particles swings with their
 * last bits). */
static void grids_agree(const char *what, const char *cpu_file, const char *gpu_file, double tol_rho, double tol_v,
                        double tol_p)
{
    size_t nr, nr2, nv, nv2, np, np2;
    double *rc = read_dataset(cpu_file, "/grid/density", &nr), *rg = read_dataset(gpu_file, "/grid/density", &nr2);
    double *vc = read_dataset(cpu_file, "/grid/velocity", &nv), *vg = read_dataset(gpu_file, "/grid/velocity", &nv2);
    double *pc = read_dataset(cpu_file, "/grid/pressure", &np), *pg = read_dataset(gpu_file, "/grid/pressure", &np2);
    if (nr != nr2 || nv != nv2 || np != np2 || nv != 3 * nr || np != nr)
        fail_msg("%s: /grid shapes differ: density %zu / %zu, velocity %zu / %zu, pressure %zu / %zu", what, nr, nr2,
                 nv, nv2, np, np2);
    double rmax = max_abs(rc, nr), drho = 0, dv2 = 0, v2 = 0, dp2 = 0, p2 = 0;
    size_t at = 0, wet = 0;
    for (size_t c = 0; c < nr; ++c) {
        double d = fabs(rc[c] - rg[c]);
        if (!(d <= drho)) {
            drho = d;
            at = c;
        }
        if (!(rc[c] >= 0.01 * rmax))
            continue;
        ++wet;
        for (int a = 0; a < 3; ++a) {
            double x = vc[3 * c + (size_t)a], y = vg[3 * c + (size_t)a];
            dv2 += (x - y) * (x - y);
            v2 += x * x;
        }
        dp2 += (pc[c] - pg[c]) * (pc[c] - pg[c]);
        p2 += pc[c] * pc[c];
    }
    double vrel = v2 > 0 ? sqrt(dv2 / v2) : sqrt(dv2), prel = p2 > 0 ? sqrt(dp2 / p2) : sqrt(dp2);
    printf("%s: /grid CPU vs CUDA: density differs by at most %.3g of the largest (node %zu), velocity by %.3g "
           "and pressure by %.3g in RMS over %zu wet nodes\n",
           what, rmax > 0 ? drho / rmax : drho, at, vrel, prel, wet);
    if (!(wet > 0))
        fail_msg("%s: no node with fluid on the grid", what);
    if (!(drho <= tol_rho * rmax))
        fail_msg("%s: density differs at node %zu: CPU %.9g, CUDA %.9g (%.3g of the largest %.6g; tolerance %.0e)", what,
                 at, rc[at], rg[at], drho / rmax, rmax, tol_rho);
    if (!(vrel <= tol_v))
        fail_msg("%s: velocity differs by %.3g of the RMS (tolerance %.0e)", what, vrel, tol_v);
    if (!(prel <= tol_p))
        fail_msg("%s: pressure differs by %.3g of the RMS (tolerance %.0e)", what, prel, tol_p);
    free(rc);
    free(rg);
    free(vc);
    free(vg);
    free(pc);
    free(pg);
}

/* The initial snapshot (t = 0: the same particles on both backends) must agree to float rounding:
 * 1e-6 of the largest density (a few ulps), 1e-5 in RMS for pressure (the scheme's output
 * preparation ran on each backend) and velocity (0 at rest: compared absolutely then). The last
 * one, after `steps` steps, compares two runs whose particles differ by float rounding amplified
 * over the steps (test_gpu_backend measured 2e-5 dp in position after 200 WCSPH steps, 2e-4 of
 * the RMS speed): 1e-3 of the largest density and 5e-2 in RMS for velocity and pressure (acoustic
 * noise). A wrong spreading shows as differences of order 1. */
static void run_compare(scene *sc, long steps, const char *what)
{
    char dc[] = "/tmp/sluice_gpu_p2m_cpu_XXXXXX", dg[] = "/tmp/sluice_gpu_p2m_gpu_XXXXXX";
    make_temp_dir(dc);
    make_temp_dir(dg);
    int nc, ng;
    run_scene(sc, &backend_cpu, steps, dc, &nc);
    run_scene(sc, &backend_cuda, steps, dg, &ng);
    assert_int_equal(nc, ng);
    assert_true(nc >= 2);
    char fc[512], fg[512], label[256];
    snprintf(fc, sizeof fc, "%s/snap_000000.h5", dc);
    snprintf(fg, sizeof fg, "%s/snap_000000.h5", dg);
    snprintf(label, sizeof label, "%s, t = 0", what);
    grids_agree(label, fc, fg, 1e-6, 1e-5, 1e-5);
    snprintf(fc, sizeof fc, "%s/snap_%06d.h5", dc, nc - 1);
    snprintf(fg, sizeof fg, "%s/snap_%06d.h5", dg, ng - 1);
    snprintf(label, sizeof label, "%s, after %ld steps", what, steps);
    grids_agree(label, fc, fg, 1e-3, 5e-2, 5e-2);
    for (int k = 0; k < 2; ++k) {
        char x[512];
        snprintf(x, sizeof x, "%s/grid.xmf", k ? dg : dc);
        FILE *f = fopen(x, "r");
        if (!f)
            fail_msg("%s: no %s", what, x);
        fclose(f);
    }
    remove_tree(dc);
    remove_tree(dg);
}

static void runs_write_same_grid(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/dam_break_2d.cfg", source_dir);
    scene sc;
    sl_err err;
    if (scene_load(&sc, path, &err))
        fail_msg("%s", err.msg);
    sc.gpu_sort = GPU_SORT_NAME_RADIX; /* the CPU's particle order (test_gpu_backend) */
    sc.grid.method = GRID_METHOD_MESH;
    long steps = gpu_test_small() ? 10 : 50;
    run_compare(&sc, steps, "2D dam break, mesh-based");
    sc.grid.method = GRID_METHOD_PARTICLE;
    run_compare(&sc, steps, "2D dam break, particle-based");
    scene_free(&sc);

    /* small: dp 0.02 (4 10^3 particles instead of 3 10^4) */
    char text[1024];
    snprintf(text, sizeof text,
             "simulation = { method = \"wcsph\"; dimension = 3; end_time = 1.0; };\n"
             "fluid = { gravity = [0.0, 0.0, -9.81]; };\n"
             "numerics = { spacing = %g; };\n"
             "geometry = ( { type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [0.2, 0.1, 0.15]; },\n"
             "             { type = \"fluid\"; min = [0.0, 0.0, 0.0]; max = [0.08, 0.1, 0.1]; } );\n"
             "output = { directory = \"unused\"; interval = 1.0; };\n"
             "gpu = { sort = \"radix\"; };\n"
             "grid = { spacing = 0.02; order = 3; };\n",
             gpu_test_small() ? 0.02 : 0.01);
    if (scene_load_string(&sc, text, "3D box", &err))
        fail_msg("%s", err.msg);
    run_compare(&sc, gpu_test_small() ? 5 : 20, "3D box, auto");
    scene_free(&sc);
}

int main(int argc, char **argv)
{
    GPU_TEST_SKIP_WITHOUT_DEVICE();
    source_dir = argc > 1 ? argv[1] : ".";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpu_matches_cpu_2d),
        cmocka_unit_test(gpu_matches_cpu_3d),
        cmocka_unit_test(update_spreads_on_device),
        cmocka_unit_test(runs_write_same_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
