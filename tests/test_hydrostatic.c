/* test_hydrostatic.c: still water in a tank settles to hydrostatic pressure; nothing leaks. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/engine.h"
#include "base/scene.h"
#include "schemes/mps/mps.h"
#include "physics/mps_ppe.h"
#include "core/sim.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs a hydrostatic scene (water H = 0.2 m deep in a tank 0.2 m wide) and checks the settled state;
 * `bound` is the accepted error of the bottom pressure as a fraction of rho g H; `mps_source` (enum
 * mps_source_kind) replaces the scene's mps.source, -1 keeps it. The simulation is handed back
 * (freed by the caller) for scheme-specific checks. */
static void run_and_check(const char *path, double bound, int mps_source, scene *sc, sim *s)
{
    sl_err err;
    if (scene_load(sc, path, &err))
        fail_msg("%s", err.msg);
    if (mps_source >= 0)
        sc->mps.source = (enum mps_source_kind)mps_source;
    if (sim_create(s, sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
    const double H = 0.2, W = 0.2, g = 9.81, rho0 = sc->rho0, dp = sc->dp;
    size_t n_fluid = particles_count_type(&s->p, PT_FLUID);
    assert_int_equal(n_fluid, (size_t)(round(H / dp) * round(W / dp)));

    char dir[] = "/tmp/sluice_hydrostatic_XXXXXX";
    make_temp_dir(dir);
    run_options o = {.out_dir = dir, .until = -1.0, .max_steps = -1, .quiet = 1};
    run_summary sum;
    if (engine_run(s, &o, &sum, &err))
        fail_msg("%s", err.msg);
    assert_true(fabs(sum.sim_time - sc->end_time) < 1e-12);

    /* No particle leaves the tank: every particle still in the domain, every fluid particle inside
     * the tank's inner box. */
    assert_int_equal(s->g.n_inside, s->p.n);
    size_t inside = 0;
    double p_sum = 0, z_sum = 0, vmax = 0;
    int bottom = 0;
    for (size_t i = 0; i < s->p.n; ++i) {
        if (s->p.type[i] != PT_FLUID)
            continue;
        double x = s->p.f[PF_X][i], y = s->p.f[PF_Y][i];
        if (x > 0 && x < W && y > 0 && y < 0.3)
            inside++;
        vmax = fmax(vmax, hypot(s->p.f[PF_VX][i], s->p.f[PF_VY][i]));
        /* the lowest fluid layer in the middle half of the tank, away from the corners */
        if (y < dp && x > 0.25 * W && x < 0.75 * W) {
            p_sum += s->p.f[PF_P][i];
            z_sum += y;
            bottom++;
        }
    }
    assert_int_equal(inside, n_fluid);
    /* Mass: every particle keeps its mass and none is lost, so the total is exactly the initial
     * one (compared as count x mass: a running sum would differ from it by round-off alone). */
    assert_true(s->P.mass > 0);
    assert_true((double)inside * (double)s->P.mass == (double)n_fluid * (double)s->P.mass);

    assert_true(bottom > 0);
    double p_bottom = p_sum / bottom, z_bottom = z_sum / bottom;
    double p_exact = rho0 * g * (H - z_bottom);
    double rel = fabs(p_bottom - p_exact) / (rho0 * g * H);
    printf("%s: bottom layer z = %.4f m, p = %.1f Pa, rho g (H - z) = %.1f Pa, error %.2f%% of rho g H\n",
           sc->method, z_bottom, p_bottom, p_exact, 100 * rel);
    assert_true(rel <= bound);
    /* The fluid is at rest: the largest speed is a small fraction of sqrt(g H). */
    printf("%s: max speed %.4f m/s (sqrt(g H) = %.3f m/s)\n", sc->method, vmax, sqrt(g * H));
    assert_true(vmax < 0.05 * sqrt(g * H));

    remove_tree(dir);
}

/* WCSPH: 2%, the acceptance bound of the foundation issue; a settled delta-SPH column with dynamic
 * boundaries sits within about 1% (Fourtakas et al. 2019, Comput. Fluids 190:346). */
static void test_hydrostatic_wcsph(void **state)
{
    (void)state;
    scene sc;
    sim s;
    run_and_check(SLUICE_SCENES "/hydrostatic_2d.cfg", 0.02, -1, &sc, &s);
    sim_free(&s);
    scene_free(&sc);
}

/* Semi-implicit MPS: 3% (the MPS issue's bound); the Poisson solve must reach its tolerance on every
 * step, and no fluid particle below the top two layers may be taken for free surface. */
static void test_hydrostatic_mps(void **state)
{
    (void)state;
    scene sc;
    sim s;
    run_and_check(SLUICE_SCENES "/hydrostatic_2d_mps.cfg", 0.03, -1, &sc, &s);
    mps_stats st;
    assert_int_equal(mps_get_stats(&s, &st), 0);
    printf("mps: %ld steps, %.1f CG iterations per step, largest final residual %.2g, %ld unconverged\n",
           st.steps, (double)st.cg_iterations / (double)st.steps, st.cg_max_residual, st.cg_unconverged);
    assert_true(st.steps > 0);
    assert_int_equal(st.cg_unconverged, 0);
    /* free-surface flags below the top two layers (y < H - 2 dp) */
    long wrong = 0;
    double top = 0;
    for (size_t i = 0; i < s.p.n; ++i)
        if (s.p.type[i] == PT_FLUID)
            top = fmax(top, s.p.f[PF_Y][i]);
    for (size_t i = 0; i < s.p.n; ++i)
        if (s.p.type[i] == PT_FLUID && s.p.tag[i] == MC_FLUID_SURFACE && s.p.f[PF_Y][i] < top - 1.5 * sc.dp)
            wrong++;
    printf("mps: %ld fluid particles wrongly flagged as free surface (surface flags in total: %ld)\n", wrong,
           st.surface_particles);
    assert_int_equal(wrong, 0);
    sim_free(&s);
    scene_free(&sc);
}

/* Semi-implicit MPS with LSMPS operators: 3%, as for MPS. Before the LSMPS viscous Laplacian was
 * restricted to full neighbourhoods (lsmps_full_support) this tank reached 10 m/s by t = 0.2 s. */
static void test_hydrostatic_lsmps(void **state)
{
    (void)state;
    scene sc;
    sim s;
    run_and_check(SLUICE_SCENES "/hydrostatic_2d_lsmps.cfg", 0.03, -1, &sc, &s);
    mps_stats st;
    assert_int_equal(mps_get_stats(&s, &st), 0);
    printf("lsmps: %ld steps, %.1f CG iterations per step, %ld unconverged, %.1f LSMPS fallbacks per step\n",
           st.steps, (double)st.cg_iterations / (double)st.steps, st.cg_unconverged,
           (double)st.lsmps_fallbacks / (double)st.steps);
    assert_int_equal(st.cg_unconverged, 0);
    sim_free(&s);
    scene_free(&sc);
}

/* Explicit MPS: 3%. With the wall pressure from the wall particles' own number density
 * (wall_pressure = "number_density") the bottom layer sits 11% high and the one above it 12% low:
 * the rigid wall lattice keeps the wall's pressure low and the symmetric gradient, blind to an
 * alternation from layer to layer, lets the fluid layers make up for it in turn. */
static void test_hydrostatic_emps(void **state)
{
    (void)state;
    scene sc;
    sim s;
    run_and_check(SLUICE_SCENES "/hydrostatic_2d_emps.cfg", 0.03, -1, &sc, &s);
    sim_free(&s);
    scene_free(&sc);
}

/* Semi-implicit MPS with the error-compensating source (mps.source = "ecs"): the same tank and bound
 * as the mixed source's. At rest its density term fades with the divergence, so this checks that
 * the still column keeps its particles and its hydrostatic pressure without the mixed source's fixed
 * density weight (measured: 0.07-0.39% over the last snapshots, the mixed source 0.36%). */
static void test_hydrostatic_mps_ecs(void **state)
{
    (void)state;
    scene sc;
    sim s;
    run_and_check(SLUICE_SCENES "/hydrostatic_2d_mps.cfg", 0.03, MPS_SOURCE_ECS, &sc, &s);
    assert_int_equal(s.P.mps.source, MPS_SOURCE_ECS); /* the run's own parameters took it */
    mps_stats st;
    assert_int_equal(mps_get_stats(&s, &st), 0);
    printf("mps ecs: %ld steps, %.1f CG iterations per step, %ld unconverged\n", st.steps,
           (double)st.cg_iterations / (double)st.steps, st.cg_unconverged);
    assert_int_equal(st.cg_unconverged, 0);
    sim_free(&s);
    scene_free(&sc);
}

/* 3D, semi-implicit MPS: the pressure of the lowest layer (the middle of the floor) within 3% of
 * rho0 g (H - z), every solve converged, no particle lost. */
static void test_hydrostatic_mps_3d(void **state)
{
    (void)state;
    scene sc;
    sim s;
    sl_err err;
    load_sim(SLUICE_TEST_DATA "/hydrostatic_3d.cfg", &sc, &s);
    char dir[] = "/tmp/sluice_hydrostatic3_XXXXXX";
    make_temp_dir(dir);
    run_options o = {.out_dir = dir, .until = -1.0, .max_steps = -1, .quiet = 1};
    run_summary sum;
    if (engine_run(&s, &o, &sum, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(s.g.n_inside, s.p.n);
    const double H = 0.1, g = 9.81, dp = sc.dp;
    double p_sum = 0, z_sum = 0;
    int bottom = 0;
    for (size_t i = 0; i < s.p.n; ++i) {
        double x = s.p.f[PF_X][i], y = s.p.f[PF_Y][i], z = s.p.f[PF_Z][i];
        if (s.p.type[i] != PT_FLUID)
            continue;
        assert_true(x > 0 && x < 0.1 && y > 0 && y < 0.1 && z > 0 && z < 0.15);
        if (z < dp && x > 0.025 && x < 0.075 && y > 0.025 && y < 0.075) {
            p_sum += s.p.f[PF_P][i];
            z_sum += z;
            bottom++;
        }
    }
    assert_true(bottom > 0);
    double p_exact = sc.rho0 * g * (H - z_sum / bottom);
    double rel = fabs(p_sum / bottom - p_exact) / (sc.rho0 * g * H);
    printf("mps 3D: bottom layer p = %.1f Pa, rho g (H - z) = %.1f Pa, error %.2f%% of rho g H\n", p_sum / bottom,
           p_exact, 100 * rel);
    assert_true(rel <= 0.03);
    mps_stats st;
    assert_int_equal(mps_get_stats(&s, &st), 0);
    assert_int_equal(st.cg_unconverged, 0);
    sim_free(&s);
    scene_free(&sc);
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_hydrostatic_wcsph),
                                       cmocka_unit_test(test_hydrostatic_mps),
                                       cmocka_unit_test(test_hydrostatic_mps_ecs),
                                       cmocka_unit_test(test_hydrostatic_lsmps),
                                       cmocka_unit_test(test_hydrostatic_emps),
                                       cmocka_unit_test(test_hydrostatic_mps_3d)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
