/* test_hydrostatic.c: still water in a tank settles to hydrostatic pressure; nothing leaks. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine.h"
#include "scene.h"
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_hydrostatic_tank(void **state)
{
    (void)state;
    scene sc;
    sl_err err;
    int rc = scene_load(&sc, SLUICE_SCENES "/hydrostatic_2d.cfg", &err);
    if (rc)
        fail_msg("%s", err.msg);
    sim s;
    rc = sim_create(&s, &sc, &backend_cpu, &err);
    if (rc)
        fail_msg("%s", err.msg);
    const double H = 0.2, W = 0.2, g = 9.81, rho0 = sc.rho0, dp = sc.dp;
    size_t n_fluid = particles_count_type(&s.p, PT_FLUID);
    assert_int_equal(n_fluid, (size_t)(round(H / dp) * round(W / dp)));

    char dir[] = "/tmp/sluice_hydrostatic_XXXXXX";
    assert_non_null(mkdtemp(dir));
    run_options o = {dir, -1.0, -1, 1};
    run_summary sum;
    rc = engine_run(&s, &o, &sum, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_true(fabs(sum.sim_time - sc.end_time) < 1e-12);

    /* No particle leaves the tank: every particle still in the domain, every fluid particle inside
     * the tank's inner box (within half a spacing, where the first fluid layer sits). */
    assert_int_equal(s.g.n_inside, s.p.n);
    size_t inside = 0;
    double mass = 0;
    double p_sum = 0, z_sum = 0;
    int bottom = 0;
    for (size_t i = 0; i < s.p.n; ++i) {
        if (s.p.type[i] != PT_FLUID)
            continue;
        double x = s.p.f[PF_X][i], y = s.p.f[PF_Y][i];
        if (x > 0 && x < W && y > 0 && y < 0.3)
            inside++;
        mass += s.P.mass;
        /* the lowest fluid layer in the middle half of the tank, away from the corners */
        if (y < dp && x > 0.25 * W && x < 0.75 * W) {
            p_sum += s.p.f[PF_P][i];
            z_sum += y;
            bottom++;
        }
    }
    assert_int_equal(inside, n_fluid);
    /* Mass: a fixed mass per particle and no particle lost, so the total is exactly the initial one. */
    assert_true(mass == (double)n_fluid * (double)s.P.mass);

    assert_true(bottom > 0);
    double p_bottom = p_sum / bottom, z_bottom = z_sum / bottom;
    double p_exact = rho0 * g * (H - z_bottom);
    double rel = fabs(p_bottom - p_exact) / (rho0 * g * H);
    printf("hydrostatic: bottom layer z = %.4f m, p = %.1f Pa, rho g (H - z) = %.1f Pa, error %.2f%% of rho g H\n",
           z_bottom, p_bottom, p_exact, 100 * rel);
    /* 2%: the acceptance bound of the issue; a settled delta-SPH column with dynamic boundaries is
     * known to sit within about 1% (Fourtakas et al. 2019, Comput. Fluids 190:346). */
    assert_true(rel <= 0.02);

    /* The fluid is at rest: the largest speed is a small fraction of sqrt(g H). */
    double vmax = 0;
    for (size_t i = 0; i < s.p.n; ++i)
        if (s.p.type[i] == PT_FLUID)
            vmax = fmax(vmax, hypot(s.p.f[PF_VX][i], s.p.f[PF_VY][i]));
    printf("hydrostatic: max speed %.4f m/s (sqrt(g H) = %.3f m/s)\n", vmax, sqrt(g * H));
    assert_true(vmax < 0.05 * sqrt(g * H));

    sim_free(&s);
    scene_free(&sc);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_hydrostatic_tank)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
