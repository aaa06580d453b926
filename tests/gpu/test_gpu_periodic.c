/* test_gpu_periodic.c: periodic boundaries on the CUDA backend against the CPU's (label gpu; exits
 * 77, skipped, without a device): the seam in the binning kernel (positions folded, cells taken
 * modulo the period) and in the neighbour passes (runs that wrap, nearest images), for WCSPH and
 * semi-implicit MPS with the multigrid. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/engine.h"
#include "gpu/backend_cuda.h"
#include "gpu_test.h"
#include "gpu/pass_kernels.h"
#include "schemes/mps/mps.h"
#include "schemes/registry.h"
#include "base/scene.h"
#include "core/sim.h"
#include "run/sim_create.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source_dir;

/* Runs `steps` steps of a scene on a backend (radix sort: reproducible sums); the simulation is
 * handed back with its state on the host. */
static void run(const backend *be, const char *rel_path, long steps, scene *sc, sim *s)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", source_dir, rel_path);
    sl_err err;
    if (scene_load(sc, path, &err))
        fail_msg("%s", err.msg);
    sc->gpu_sort = GPU_SORT_NAME_RADIX;
    if (sim_create(s, sc, be, &err))
        fail_msg("%s", err.msg);
    char dir[] = "/tmp/sluice_gpu_periodic_XXXXXX";
    make_temp_dir(dir);
    run_options o = {.out_dir = dir, .until = -1.0, .max_steps = steps, .quiet = 1};
    run_summary sum;
    if (engine_run(s, &o, &sum, &err))
        fail_msg("%s on %s: %s", rel_path, be->name, err.msg);
    assert_int_equal(sum.steps, steps);
    sim_sync_host(s);
    remove_tree(dir);
}

/* Largest position difference (in dp) and RMS velocity difference relative to the RMS speed, by id. */
static void compare(const sim *a, const sim *b, double *dx_dp, double *dv_rel)
{
    size_t n = a->p.n, na, nb;
    assert_int_equal(n, b->p.n);
    real *fa = fields_by_id(a, &na), *fb = fields_by_id(b, &nb);
    double worst = 0, dv2 = 0, v2 = 0;
    for (int k = 0; k < a->P.dim; ++k)
        for (size_t i = 0; i < n; ++i) {
            size_t kx = (size_t)(PF_X + k) * n + i, kv = (size_t)(PF_VX + k) * n + i;
            worst = fmax(worst, fabs((double)fa[kx] - (double)fb[kx]));
            double d = (double)fa[kv] - (double)fb[kv];
            dv2 += d * d;
            v2 += (double)fa[kv] * (double)fa[kv];
        }
    *dx_dp = worst / a->P.dp;
    *dv_rel = v2 > 0 ? sqrt(dv2 / v2) : 0;
    free(fa);
    free(fb);
}

/* Poiseuille flow, 1000 steps (t = 0.35 s, the particles at the seam have crossed it): the GPU keeps
 * the seam invisible (every layer at one speed within 1e-4 u_max, as the CPU test asserts) and
 * agrees with the CPU within float rounding: positions within 1e-3 dp, velocities within 1e-3 of the
 * RMS speed (a laminar flow at Re = 10 does not amplify rounding as the dam break's acoustic noise
 * does). The periodic grid refuses the strategies that walk cells without the seam. */
static void poiseuille_cpu_gpu(void **state)
{
    (void)state;
    long steps = gpu_test_small() ? 20 : 1000;
    scene sc_c, sc_g;
    sim c, g;
    run(&backend_cpu, "scenes/poiseuille_2d.cfg", steps, &sc_c, &c);
    run(&backend_cuda, "scenes/poiseuille_2d.cfg", steps, &sc_g, &g);
    for (int k = 0; k < GS_COUNT; ++k)
        assert_int_equal(cuda_strategy_valid(&g, PASS_WCSPH_FORCES, k), k == GS_PAR_PART || k == GS_PAR_CELL);
    double dx, dv;
    compare(&c, &g, &dx, &dv);
    const double umax = sc_g.gravity[0] * 0.1 * 0.1 / (8.0 * sc_g.nu), dp = sc_g.dp;
    double lo[64], hi[64];
    for (int k = 0; k < 64; ++k) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (size_t i = 0; i < g.p.n; ++i) {
        if (g.p.type[i] != PT_FLUID)
            continue;
        int k = (int)floor(g.p.f[PF_Y][i] / dp);
        assert_true(k >= 0 && k < 64);
        lo[k] = fmin(lo[k], g.p.f[PF_VX][i]);
        hi[k] = fmax(hi[k], g.p.f[PF_VX][i]);
    }
    double spread = 0;
    for (int k = 0; k < 64; ++k)
        if (hi[k] >= lo[k])
            spread = fmax(spread, hi[k] - lo[k]);
    printf("poiseuille, %ld steps: CPU vs GPU positions %.3g dp, velocities %.3g of the RMS speed; GPU layer spread "
           "%.2g u_max\n",
           steps, dx, dv, spread / umax);
    assert_int_equal(g.g.n_inside, g.p.n);
    assert_true(dx <= 1e-3);
    assert_true(dv <= 1e-3);
    assert_true(spread <= 1e-4 * umax);
    sim_free(&c);
    sim_free(&g);
    scene_free(&sc_c);
    scene_free(&sc_g);
}

/* Semi-implicit MPS in the periodic strip, 200 steps with the multigrid: positions within 1e-3 dp,
 * velocities within 1e-2 of the RMS speed (the water is nearly still: its RMS speed is mm/s, so the
 * solver's rounding weighs more than in the dam break), iterations per step within 1. */
static void mps_strip_cpu_gpu(void **state)
{
    (void)state;
    long steps = gpu_test_small() ? 5 : 200;
    scene sc_c, sc_g;
    sim c, g;
    run(&backend_cpu, "tests/data/periodic_strip_mps.cfg", steps, &sc_c, &c);
    run(&backend_cuda, "tests/data/periodic_strip_mps.cfg", steps, &sc_g, &g);
    double dx, dv;
    compare(&c, &g, &dx, &dv);
    mps_stats st_c, st_g;
    assert_int_equal(mps_get_stats(&c, &st_c), 0);
    assert_int_equal(mps_get_stats(&g, &st_g), 0);
    double it_c = (double)st_c.cg_iterations / (double)st_c.steps, it_g = (double)st_g.cg_iterations / (double)st_g.steps;
    printf("mps strip, %ld steps: CPU vs GPU positions %.3g dp, velocities %.3g of the RMS speed; iterations per "
           "step CPU %.2f, GPU %.2f\n",
           steps, dx, dv, it_c, it_g);
    assert_int_equal(g.g.n_inside, g.p.n);
    assert_int_equal(st_g.cg_unconverged, 0);
    assert_true(dx <= 1e-3);
    assert_true(dv <= 1e-2);
    assert_true(fabs(it_c - it_g) <= 1.0);
    sim_free(&c);
    sim_free(&g);
    scene_free(&sc_c);
    scene_free(&sc_g);
}

int main(int argc, char **argv)
{
    GPU_TEST_SKIP_WITHOUT_DEVICE();
    source_dir = argc > 1 ? argv[1] : ".";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(poiseuille_cpu_gpu),
        cmocka_unit_test(mps_strip_cpu_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
