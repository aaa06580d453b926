/* test_gpu_floating.c: floating bodies on the CUDA backend against the CPU backend: the force passes
 * (floating.force of WCSPH, floating.mps_force of both MPS schemes) and the per-body sums
 * (backend.body_sums, cuda_bodies.cu) on the device, the body integrated on the host. A 2D box of
 * density 500 dropped 2 cm into water. WCSPH, 200 steps: the body's centre within 1e-3 dp and its
 * velocity within 1% of its largest speed of the CPU's (the fluid's positions differ by rounding, as
 * in test_gpu_backend.c, and the body sums those), and the device's sums of one state against the
 * CPU's within 1e-4 of the body's weight (float accelerations, sums in double in another order).
 * Semi-implicit and explicit MPS, 100 steps: the first step's force within 1e-3 of the weight (the
 * pressure solve stops at a relative residual of 1e-6 and its iterations round differently), the
 * centre within 1e-2 dp and the velocity within 2% of its largest speed (the MPS pressure's
 * rounding differences grow faster than WCSPH's: test_gpu_motion's MPS bound is 0.1 dp after 200
 * steps). Exits 77 (skipped) without a device. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/scene.h"
#include "core/floating.h"
#include "core/sim.h"
#include "gpu/backend_cuda.h"
#include "gpu_test.h"
#include "run/sim_create.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* %s: the method and its groups */
#define SCENE_TEXT                                                                                      \
    "simulation = { method = \"%s\"; dimension = 2; end_time = 1.0; };\n"                               \
    "fluid = { density = 1000.0; gravity = [0.0, -9.81]; sound_speed_coef = 10.0; };\n"                  \
    "numerics = { spacing = 0.01; alpha = 0.1; };\n"                                                     \
    "gpu = { sort = \"radix\"; };\n"                                                                    \
    "%s"                                                                                                 \
    "geometry = (\n"                                                                                     \
    "  { type = \"tank\"; min = [0.0, 0.0]; max = [0.6, 0.4]; layers = 3; },\n"                          \
    "  { type = \"fluid\"; min = [0.0, 0.0]; max = [0.25, 0.2]; },\n"                                    \
    "  { type = \"fluid\"; min = [0.35, 0.0]; max = [0.6, 0.2]; },\n"                                    \
    "  { type = \"fluid\"; min = [0.25, 0.0]; max = [0.35, 0.17]; },\n"                                  \
    "  { type = \"obstacle\"; min = [0.25, 0.17]; max = [0.35, 0.27]; layers = 3;\n"                     \
    "    floating = { density = 500.0; omega = 0.3; }; } );\n"

static void run(const char *method, const backend *be, long steps, rigid_body_state *out, double force[6])
{
    char text[2048];
    snprintf(text, sizeof text, SCENE_TEXT, method,
             strcmp(method, "wcsph") == 0 ? "" : "mps = { collision_distance = 0.8; };\n");
    scene sc;
    sim s;
    sl_err err;
    if (scene_load_string(&sc, text, "test_gpu_floating", &err) || sim_create(&s, &sc, be, &err))
        fail_msg("%s", err.msg);
    for (long k = 0; k < steps; ++k) {
        double dt;
        if (sim_time_step(&s, &dt, &err) || sim_step(&s, dt, &err))
            fail_msg("%s: %s", be->name, err.msg);
        s.t += dt;
        s.step++;
        if (k == 0)
            for (int a = 0; a < 3; ++a) {
                force[a] = s.floating->force[0][a];
                force[3 + a] = s.floating->torque[0][a];
            }
    }
    *out = s.floating->state[0];
    sim_free(&s);
    scene_free(&sc);
}

/* The CPU's and the device's runs of `method`: the first step's force and torque within f_tol of
 * the body's weight, the centre within x_tol dp, the velocities within v_tol of the largest speed,
 * the angular velocity within w_tol rad/s. */
static void agree(const char *method, long steps, double f_tol, double x_tol, double v_tol, double w_tol)
{
    rigid_body_state c, g;
    double fc[6], fg[6];
    run(method, &backend_cpu, steps, &c, fc);
    run(method, &backend_cuda, steps, &g, fg);
    double weight = 500.0 * 0.01 * 9.81, dp = 0.01;
    print_message("%s, %ld steps: cpu: y %.9f vy %.6g w %.6g; gpu: y %.9f vy %.6g w %.6g; first force %.9g / %.9g\n",
                  method, steps, c.x[1], c.v[1], c.w[2], g.x[1], g.v[1], g.w[2], fc[1], fg[1]);
    for (int a = 0; a < 6; ++a)
        assert_true(fabs(fc[a] - fg[a]) < f_tol * weight);
    for (int a = 0; a < 2; ++a) {
        assert_true(fabs(c.x[a] - g.x[a]) < x_tol * dp);
        assert_true(fabs(c.v[a] - g.v[a]) < v_tol * fmax(fabs(c.v[1]), 1e-3));
    }
    if (!(fabs(c.w[2] - g.w[2]) < w_tol))
        fail_msg("%s: angular velocities %.6g and %.6g (tolerance %.3g rad/s)", method, c.w[2], g.w[2], w_tol);
}

static void test_cpu_gpu_agree(void **state)
{
    (void)state;
    agree("wcsph", gpu_test_small() ? 20 : 200, 1e-4, 1e-3, 0.01, 0.01 * 0.3);
}

/* The body's spin is the noisiest of its figures: the pressure on its faces jumps when a particle
 * next to it changes class (free surface) or collides, and rounding decides such events near their
 * thresholds. On an H100 (2026-11-28) one such event near t = 0.043 s, tipped by the multigrid's
 * summation order, left two outcomes after 100 steps whatever the backend: w -0.0208 or -0.0017 to
 * -0.0059 rad/s in the same scene run by `sluice run`, and 0.064 against 0.101 here, while y stayed
 * within 0.01-0.02 dp and vy within 2%. So w within 0.06 rad/s, a fifth of the spin the body reaches
 * (0.3): a fault in the torque's sums still shows in the first step's torque, held to 1e-3 of the
 * weight. */
static void test_cpu_gpu_agree_mps(void **state)
{
    (void)state;
    agree("mps", gpu_test_small() ? 10 : 100, 1e-3, 1e-2, 0.02, 0.06);
}

static void test_cpu_gpu_agree_emps(void **state)
{
    (void)state;
    agree("emps", gpu_test_small() ? 20 : 100, 1e-3, 1e-2, 0.02, 0.02 * 0.3);
}

int main(void)
{
    GPU_TEST_SKIP_WITHOUT_DEVICE();
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu_gpu_agree), cmocka_unit_test(test_cpu_gpu_agree_mps),
                                       cmocka_unit_test(test_cpu_gpu_agree_emps)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
