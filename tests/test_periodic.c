/* test_periodic.c: periodic boundaries through whole runs: plane Poiseuille flow in a periodic
 * channel against its analytic solution, semi-implicit MPS still water in a periodic strip, and the
 * scene errors of simulation.periodic. (The neighbour grid's seams: tests/test_nbr_grid.c.) */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* M_PI */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/engine.h"
#include "base/scene.h"
#include "schemes/mps/mps.h"
#include "core/sim.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Morris, Fox & Zhu (1997), J. Comput. Phys. 136:214, eq. 22: the start-up of plane Poiseuille flow
 * between plates at y = 0 and y = L under a body force F (shared/validation/README.md). */
static double poiseuille_u(double F, double nu, double L, double y, double t)
{
    double u = F / (2.0 * nu) * y * (L - y);
    for (int n = 0; n < 200; ++n) {
        double k = 2 * n + 1;
        u -= 4.0 * F * L * L / (nu * M_PI * M_PI * M_PI * k * k * k) * sin(k * M_PI * y / L) *
             exp(-k * k * M_PI * M_PI * nu * t / (L * L));
    }
    return u;
}

static void run_to_end(scene *sc, sim *s)
{
    sl_err err;
    char dir[] = "/tmp/sluice_periodic_XXXXXX";
    make_temp_dir(dir);
    run_options o = {.out_dir = dir, .until = -1.0, .max_steps = -1, .quiet = 1};
    run_summary sum;
    if (engine_run(s, &o, &sum, &err))
        fail_msg("%s", err.msg);
    assert_true(fabs(sum.sim_time - sc->end_time) < 1e-12);
    remove_tree(dir);
}

/* scenes/poiseuille_2d.cfg to t = 1 s (dp = L/40) with its walls (mDBC, no-slip) and with dynamic
 * boundaries. What is asserted and why:
 * - the seam is invisible: every layer of particles (same y) moves at one speed, to 1e-4 u_max
 *   (measured 2e-6: round-off; a seam that lost or doubled neighbours makes the columns beside it
 *   differ by percents);
 * - the profile against the analytic one, as a fraction of the steady u_max = F L^2/(8 nu): within
 *   the 1% with mDBC no-slip (measured 0.32%; 0.84% in the steady state, docs/validation.md);
 *   within 5% with dynamic boundaries (measured 4.0%), whose no-slip plane sits about 0.7 dp outside
 *   the fluid (that error falls as dp);
 * - nothing leaves the domain and the flow stays parallel (|v| < 2% u_max). */
static void check_poiseuille(int dbc, double bound)
{
    scene sc;
    sim s;
    sl_err err;
    if (scene_load(&sc, SLUICE_SCENES "/poiseuille_2d.cfg", &err))
        fail_msg("%s", err.msg);
    assert_int_equal(sc.periodic, 1u);
    if (dbc) {
        sc.boundary = WALL_MODEL_DBC;
        sc.no_slip = 0;
    }
    if (sim_create(&s, &sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
    size_t n_fluid = particles_count_type(&s.p, PT_FLUID);
    run_to_end(&sc, &s);
    assert_int_equal(s.g.n_inside, s.p.n);
    assert_int_equal(particles_count_type(&s.p, PT_FLUID), n_fluid);

    const double F = sc.gravity[0], nu = sc.nu, L = 0.1, dp = sc.dp, t = sc.end_time;
    const double umax = F * L * L / (8.0 * nu);
    const int layers = (int)lround(L / dp);
    double *lo = malloc((size_t)layers * sizeof *lo), *hi = malloc((size_t)layers * sizeof *hi);
    for (int k = 0; k < layers; ++k) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    double error = 0, vmax = 0;
    for (size_t i = 0; i < s.p.n; ++i) {
        if (s.p.type[i] != PT_FLUID)
            continue;
        double y = s.p.f[PF_Y][i], u = s.p.f[PF_VX][i];
        error = fmax(error, fabs(u - poiseuille_u(F, nu, L, y, t)));
        vmax = fmax(vmax, fabs(s.p.f[PF_VY][i]));
        int k = (int)floor(y / dp); /* the layers stay put: the flow is parallel */
        assert_true(k >= 0 && k < layers);
        lo[k] = fmin(lo[k], u);
        hi[k] = fmax(hi[k], u);
    }
    double spread = 0;
    for (int k = 0; k < layers; ++k) {
        assert_true(hi[k] >= lo[k]); /* every layer holds particles */
        spread = fmax(spread, hi[k] - lo[k]);
    }
    printf("poiseuille (%s): t = %g s, dp = L/%d: max |u - u_exact| = %.2f%% of u_max (bound %.0f%%), layer spread "
           "%.1e u_max, max |v| %.1e u_max\n",
           dbc ? "dynamic boundaries" : "mDBC no-slip", t, layers, 100 * error / umax, 100 * bound, spread / umax,
           vmax / umax);
    assert_true(spread < 1e-4 * umax);
    assert_true(error < bound * umax);
    assert_true(vmax < 0.02 * umax);
    free(lo);
    free(hi);
    sim_free(&s);
    scene_free(&sc);
}

static void test_poiseuille_no_slip(void **state)
{
    (void)state;
    check_poiseuille(0, 0.01);
}

static void test_poiseuille_dbc(void **state)
{
    (void)state;
    check_poiseuille(1, 0.05);
}

/* tests/data/periodic_strip_mps.cfg: semi-implicit MPS still water on a plate, periodic along x (no
 * side walls at all): the pressure
 * settles to rho g (H - y) within 3% of rho g H (the bound of tests/test_hydrostatic.c), every
 * Poisson solve converges with the multigrid, whose cell levels leave the couplings across the
 * seam out, and the layer stays uniform along x. */
static void test_mps_periodic_strip(void **state)
{
    (void)state;
    scene sc;
    sim s;
    load_sim(SLUICE_TEST_DATA "/periodic_strip_mps.cfg", &sc, &s);
    size_t n_fluid = particles_count_type(&s.p, PT_FLUID);
    run_to_end(&sc, &s);
    assert_int_equal(s.g.n_inside, s.p.n);
    mps_stats st;
    assert_int_equal(mps_get_stats(&s, &st), 0);
    const double H = 0.2, g = 9.81, dp = sc.dp;
    double p_sum = 0, y_sum = 0, plo = INFINITY, phi = -INFINITY;
    int bottom = 0;
    for (size_t i = 0; i < s.p.n; ++i) {
        if (s.p.type[i] != PT_FLUID)
            continue;
        double y = s.p.f[PF_Y][i];
        if (y < dp) { /* the whole bottom layer, seam columns included */
            double p = s.p.f[PF_P][i];
            p_sum += p;
            y_sum += y;
            plo = fmin(plo, p);
            phi = fmax(phi, p);
            bottom++;
        }
    }
    assert_true(bottom > 0);
    double p_bottom = p_sum / bottom, p_exact = sc.rho0 * g * (H - y_sum / bottom);
    double rel = fabs(p_bottom - p_exact) / (sc.rho0 * g * H), spread = (phi - plo) / (sc.rho0 * g * H);
    printf("mps periodic strip: %zu fluid, %ld steps, %.1f iterations per step, %ld unconverged; bottom p %.1f Pa "
           "against %.1f (%.2f%% of rho g H), spread along x %.2f%%\n",
           n_fluid, st.steps, (double)st.cg_iterations / (double)st.steps, st.cg_unconverged, p_bottom, p_exact,
           100 * rel, 100 * spread);
    assert_int_equal(st.cg_unconverged, 0);
    assert_true(rel <= 0.03);
    assert_true(spread <= 0.05); /* the bottom layer reads one pressure along x, seam included */
    sim_free(&s);
    scene_free(&sc);
}

/* Each bad use of simulation.periodic gets one line naming the key and what is accepted. */
static void test_periodic_scene_errors(void **state)
{
    (void)state;
    static const struct {
        const char *simulation, *geometry, *want;
    } cases[] = {
        {"periodic = [\"x\"];", "{ type = \"fluid\"; min = [0.0, 0.0]; max = [0.1, 0.1]; }",
         "needs simulation.domain_min"},
        {"domain_min = [0.0, 0.0]; domain_max = [0.1, 0.2]; periodic = [\"z\"];",
         "{ type = \"fluid\"; min = [0.0, 0.0]; max = [0.1, 0.1]; }", "in a 2D scene"},
        {"domain_min = [0.0, 0.0]; domain_max = [0.1013, 0.2]; periodic = [\"x\"];",
         "{ type = \"fluid\"; min = [0.0, 0.0]; max = [0.1, 0.1]; }", "whole number of numerics.spacing"},
        {"domain_min = [-0.02, -0.02]; domain_max = [0.12, 0.2]; periodic = [\"x\"];",
         "{ type = \"tank\"; min = [0.0, 0.0]; max = [0.1, 0.15]; layers = 3; },"
         "{ type = \"fluid\"; min = [0.0, 0.0]; max = [0.1, 0.1]; }",
         "a tank has walls"},
        {"domain_min = [0.0, 0.0]; domain_max = [0.02, 0.2]; periodic = [\"x\"];",
         "{ type = \"fluid\"; min = [0.0, 0.0]; max = [0.02, 0.1]; }", "periodic"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char text[1024];
        snprintf(text, sizeof text,
                 "simulation = { dimension = 2; %s };\nnumerics = { spacing = 0.005; };\ngeometry = ( %s );\n",
                 cases[k].simulation, cases[k].geometry);
        scene sc;
        sim s;
        sl_err err;
        int rc = scene_load_string(&sc, text, "bad.cfg", &err);
        if (rc == SL_OK) { /* the short period is the grid's finding, at sim_create */
            rc = sim_create(&s, &sc, &backend_cpu, &err);
            scene_free(&sc);
        }
        printf("case %zu: %s\n", k, err.msg);
        assert_int_equal(rc, SL_ERR_INPUT);
        assert_non_null(strstr(err.msg, k == 3 ? "geometry[0]" : "simulation.periodic"));
        assert_non_null(strstr(err.msg, cases[k].want));
        assert_non_null(strstr(err.msg, "accepted"));
    }
}

/* numerics.no_slip works through mDBC's ghost nodes on the laminar term: elsewhere it is refused. */
static void test_no_slip_needs_mdbc_and_laminar(void **state)
{
    (void)state;
    static const char *const numerics[] = {"boundary = \"dbc\"; viscosity = \"laminar\";",
                                           "boundary = \"mdbc\"; viscosity = \"artificial\";"};
    for (int k = 0; k < 2; ++k) {
        char text[512];
        snprintf(text, sizeof text,
                 "numerics = { spacing = 0.01; no_slip = true; %s };\n"
                 "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.2, 0.2]; layers = 3; },\n"
                 "  { type = \"fluid\"; min = [0.0, 0.0]; max = [0.2, 0.1]; } );\n",
                 numerics[k]);
        scene sc;
        sl_err err;
        assert_int_equal(scene_load_string(&sc, text, "ns.cfg", &err), SL_ERR_INPUT);
        printf("%s\n", err.msg);
        assert_non_null(strstr(err.msg, "ns.cfg:1: key 'numerics.no_slip'"));
        assert_non_null(strstr(err.msg, "accepted"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_periodic_scene_errors),
        cmocka_unit_test(test_no_slip_needs_mdbc_and_laminar),
        cmocka_unit_test(test_poiseuille_no_slip),
        cmocka_unit_test(test_poiseuille_dbc),
        cmocka_unit_test(test_mps_periodic_strip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
