/* test_gpu_motion.c: moving walls on the CUDA backend against the CPU backend: a tank shaken or
 * rolled and a gate lifted, WCSPH (dynamic boundaries, mDBC with a rotating tank) and semi-implicit
 * MPS. The walls' transforms are evaluated on the host for both backends and read by the pass from
 * device memory (backend.upload), so the moving walls must agree within the rounding of one
 * transform (fused multiply-adds: 4 float ulp of the coordinate), and the fluid as in
 * test_gpu_backend.c (positions within 1e-3 dp). Exits 77 (skipped) without a device. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/scene.h"
#include "core/motion.h"
#include "core/sim.h"
#include "gpu/backend_cuda.h"
#include "gpu_test.h"
#include "run/engine.h"
#include "run/sim_create.h"
#include "test_util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENE                                                                                       \
    "simulation = { method = \"%s\"; dimension = 2; end_time = 1.0; };\n"                          \
    "fluid = { density = 1000.0; viscosity = 1.0e-6; gravity = [0.0, -9.81]; };\n"                 \
    "numerics = { spacing = 0.01; boundary = \"%s\"; };\n"                                          \
    "mps = { collision_distance = 0.8; };\n"                                                       \
    "gpu = { sort = \"radix\"; };\n"                                                               \
    "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.6, 0.5]; layers = 3;\n"            \
    "               motion = { %s }; },\n"                                                         \
    "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.24, 0.3]; },\n"                   \
    "             { type = \"obstacle\"; min = [0.24, 0.0]; max = [0.36, 0.1]; layers = 3;\n"      \
    "               motion = { law = \"gate\"; velocity = [0.0, 0.4]; start = 0.002; ramp = 0.005; }; } );\n"

static real *run(const backend *be, const char *method, const char *boundary, const char *law, long steps,
                 size_t *count, double *dp, double *t)
{
    char text[2048], dir[] = "/tmp/sluice_gpu_motion_XXXXXX";
    snprintf(text, sizeof text, SCENE, method, boundary, law);
    scene sc;
    sim s;
    sl_err err;
    if (scene_load_string(&sc, text, "test_gpu_motion", &err) || sim_create(&s, &sc, be, &err))
        fail_msg("%s", err.msg);
    make_temp_dir(dir);
    run_options o = {.out_dir = dir, .until = -1.0, .max_steps = steps, .quiet = 1};
    run_summary sum;
    if (engine_run(&s, &o, &sum, &err))
        fail_msg("%s on %s: %s", method, be->name, err.msg);
    sim_sync_host(&s);
    real *out = fields_by_id(&s, count);
    *dp = sc.dp;
    *t = s.t;
    sim_free(&s);
    scene_free(&sc);
    remove_tree(dir);
    return out;
}

static void agree(const char *method, const char *boundary, const char *law)
{
    long steps = gpu_test_small() ? 5 : 200;
    size_t nc, ng;
    double dp, tc, tg;
    real *c = run(&backend_cpu, method, boundary, law, steps, &nc, &dp, &tc);
    real *g = run(&backend_cuda, method, boundary, law, steps, &ng, &dp, &tg);
    assert_int_equal(nc, ng);
    /* the step sizes come from reductions summed in other orders on the two backends, so the two
     * runs end a few float roundings apart in time; the walls then differ by at most the laws'
     * speed (under 5 m/s in these scenes) times that, on top of their own rounding */
    printf("%s, %s: t = %.9g s on the CPU, %.9g s on the GPU\n", method, law, tc, tg);
    assert_true(fabs(tc - tg) <= 1e-5 * tc);
    const double wall_slack = 5.0 * fabs(tc - tg);
    /* the rows of fields_by_id: field k of the particle of id i at k n + i; types from a CPU sim */
    char text[2048];
    snprintf(text, sizeof text, SCENE, method, boundary, law);
    scene sc;
    sim s;
    sl_err err;
    if (scene_load_string(&sc, text, "test_gpu_motion", &err) || sim_create(&s, &sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
    size_t n = s.p.n, nf = 0;
    double *apart = malloc(n * sizeof *apart), wall = 0; /* each fluid particle's distance, dp */
    assert_non_null(apart);
    for (size_t i = 0; i < n; ++i) {
        int is_fluid = s.p.type[i] == PT_FLUID; /* before any rebuild: index = id */
        double d2 = 0;
        for (int a = 0; a < 2; ++a) {
            size_t k = (size_t)(PF_X + a) * n + (size_t)s.p.id[i];
            double d = fabs((double)c[k] - (double)g[k]);
            d2 += d * d;
            if (!is_fluid)
                wall = fmax(wall, fmax(d - wall_slack, 0.0) / (FLT_EPSILON * (1.0 + fabs((double)c[k]))));
        }
        if (is_fluid)
            apart[nf++] = sqrt(d2) / dp;
    }
    qsort(apart, nf, sizeof *apart, gpu_test_by_value);
    const double fluid = apart[nf - 1], median = apart[nf / 2], p99 = apart[nf - 1 - nf / 100];
    printf("%s, %s, %s: after %ld steps the walls differ by at most %.3g float ulp, the fluid by %.3g dp (median "
           "%.3g, 99th percentile %.3g, %zu fluid particles)\n",
           method, boundary, law, steps, wall, fluid, median, p99, nf);
    free(apart);
    assert_true(wall <= (sizeof(real) == sizeof(float) ? 4.0 : 1e-8 / FLT_EPSILON));
    /* WCSPH within 1e-3 dp (measured on the H200 after 200 steps: 1.0e-4 sine, 4.8e-5 rotation).
     * Semi-implicit MPS in the rolled tank: within 1e-3 dp after 5 steps (1.5e-6 measured: rounding).
     * After 200 its trajectories part: the collision model switches on at a distance threshold, so
     * a pair that rounding (and the solves' tolerance) puts on the other side takes another path,
     * and its neighbours follow; the largest distance measured on the H200 was 0.047 dp at the
     * multigrid's Jacobi weight 0.9 and 0.184 at 1. So the bulk is checked instead: the median
     * within 1e-2 dp and no particle a spacing apart. A misplaced wall moves the whole fluid near
     * it (and the 5-step run and the walls' own ulp check catch it first). */
    if (strcmp(method, "mps") == 0 && steps > 5) {
        assert_true(median <= 1e-2);
        assert_true(fluid <= 1.0);
    } else {
        assert_true(fluid <= 1e-3);
    }
    sim_free(&s);
    scene_free(&sc);
    free(c);
    free(g);
}

static void wcsph_sine(void **state)
{
    (void)state;
    agree("wcsph", "dbc", "law = \"sine\"; amplitude = [0.03, 0.01]; period = 0.05;");
}

static void mdbc_rotation(void **state)
{
    (void)state;
    agree("wcsph", "mdbc", "law = \"rotation\"; angle = 10.0; period = 0.05; pivot = [0.3, 0.1];");
}

static void mps_rotation(void **state)
{
    (void)state;
    agree("mps", "dbc", "law = \"rotation\"; angle = 10.0; period = 0.05; pivot = [0.3, 0.1];");
}

int main(void)
{
    GPU_TEST_SKIP_WITHOUT_DEVICE();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wcsph_sine),
        cmocka_unit_test(mdbc_rotation),
        cmocka_unit_test(mps_rotation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
