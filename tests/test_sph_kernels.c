/* test_sph_kernels.c: SPH kernels, equation of state and pair forces, checked against their defining properties. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "physics/sph_eos.h"
#include "physics/sph_forces.h"
#include "physics/sph_integrate.h"
#include "physics/sph_kernel.h"

#include <math.h>
#include <stdio.h>

static sim_params params(int dim, int kernel)
{
    sim_params P = {0};
    P.dim = dim;
    P.kernel = kernel;
    P.dp = (real)0.01;
    P.h = (real)0.02;
    P.inv_h = 1 / P.h;
    P.r_max = 2 * P.h;
    P.r2_max = P.r_max * P.r_max;
    P.kernel_norm = (real)sph_kernel_norm(kernel, dim, P.h);
    P.rho0 = 1000;
    P.inv_rho0 = (real)1e-3;
    P.c0 = 20;
    P.eos_gamma = 7;
    P.eos_b = P.rho0 * P.c0 * P.c0 / P.eos_gamma;
    P.mass = (real)(1000 * pow(0.01, dim));
    P.alpha = (real)0.1;
    P.delta = (real)0.1;
    P.eta2 = (real)(0.01 * 0.02 * 0.02);
    P.g[dim - 1] = (real)-9.81;
    return P;
}

/* Integral of W over the plane/space by a midpoint sum on a grid of spacing h/40: the kernels are
 * C2, so the sum converges as (spacing)^2 and 1e-4 is a safe bound for both precisions. */
static void test_kernels_are_normalised(void **state)
{
    (void)state;
    for (int dim = 2; dim <= 3; ++dim)
        for (int k = KERNEL_WENDLAND_C2; k <= KERNEL_CUBIC_SPLINE; ++k) {
            double h = 0.02, norm = sph_kernel_norm(k, dim, h), step = h / 40, sum = 0;
            int m = (int)(2 * h / step) + 1;
            for (int i = -m; i <= m; ++i)
                for (int j = -m; j <= m; ++j)
                    for (int l = (dim == 3 ? -m : 0); l <= (dim == 3 ? m : 0); ++l) {
                        double r = step * sqrt((double)(i * i + j * j + l * l));
                        sum += sph_w(k, (real)norm, (real)r, (real)(1 / h));
                    }
            sum *= pow(step, dim);
            assert_true(fabs(sum - 1.0) < 1e-4);
        }
}

/* The gradient factor against a central difference of W: relative error 1e-3 (float rounding in
 * the difference quotient dominates; the truncation error is ~1e-6). */
static void test_gradient_matches_finite_difference(void **state)
{
    (void)state;
    for (int dim = 2; dim <= 3; ++dim)
        for (int k = KERNEL_WENDLAND_C2; k <= KERNEL_CUBIC_SPLINE; ++k) {
            double h = 0.02, norm = sph_kernel_norm(k, dim, h);
            for (double q = 0.05; q < 1.99; q += 0.0625) {
                double r = q * h, e = 1e-3 * h;
                double fd = (sph_w(k, (real)norm, (real)(r + e), (real)(1 / h)) - sph_w(k, (real)norm, (real)(r - e), (real)(1 / h))) /
                            (2 * e);
                double f = sph_grad_factor(k, (real)norm, (real)r, (real)(1 / h)) * r;
                assert_true(fabs(f - fd) <= 1e-3 * fabs(norm / h) + 1e-3 * fabs(fd));
            }
            assert_true(sph_w(k, (real)norm, (real)(2 * h), (real)(1 / h)) == 0);
            assert_true(sph_grad_factor(k, (real)norm, (real)(2.5 * h), (real)(1 / h)) == 0);
            assert_true(sph_grad_factor(k, (real)norm, (real)(0.5 * h), (real)(1 / h)) < 0);
        }
}

static void test_eos_round_trip(void **state)
{
    (void)state;
    sim_params P = params(2, KERNEL_WENDLAND_C2);
    assert_true(fabs(sph_eos_pressure(&P, P.rho0)) < 1e-3);
    for (double p = 0; p < 2e4; p += 1000) {
        double rho = sph_eos_density(&P, p);
        /* float pow near rho0 loses ~1e-7 relative of B = 5.7e5 Pa: 0.5 Pa is the bound */
        assert_true(fabs(sph_eos_pressure(&P, (real)rho) - p) < 0.5 + 1e-5 * p);
    }
    assert_true(fabs(sph_eos_sound_speed(&P, P.rho0) - P.c0) < 1e-4);
}

/* A pair seen from both sides: momentum is conserved (m a_i = -m a_j) and both get the same
 * continuity term, as Newton's third law and the symmetric SPH forms require. */
/* A pair's particle as sph_load makes it (1/rho filled in). */
static sph_particle pair_particle(real x, real y, real z, real vx, real vy, real vz, real rho, real p, int fluid)
{
    sph_particle a = {x, y, z, vx, vy, vz, rho, p, vx, vy, vz, fluid, 1.0f / rho};
    return a;
}

static void test_pair_is_antisymmetric(void **state)
{
    (void)state;
    for (int dim = 2; dim <= 3; ++dim)
        for (int visc = VISCOSITY_ARTIFICIAL; visc <= VISCOSITY_LAMINAR; ++visc) {
            sim_params P = params(dim, KERNEL_WENDLAND_C2);
            P.viscosity = visc;
            P.nu = (real)1e-3;
            P.delta = 0; /* delta-SPH is a diffusion of density, not antisymmetric in the same sense */
            sph_particle a = pair_particle(0.0f, 0.0f, 0.0f, 0.3f, -0.1f, 0.05f, 1001.0f, 300.0f, 1);
            sph_particle b = pair_particle(0.012f, 0.007f, dim == 3 ? 0.004f : 0.0f, -0.2f, 0.1f, 0.0f, 999.0f, -50.0f, 1);
            if (dim == 2)
                a.vz = 0;
            real dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z, r2 = dx * dx + dy * dy + dz * dz;
            sph_force_acc ai = {0, 0, 0, 0, 0}, bj = {0, 0, 0, 0, 0};
            sph_force_pair(&P, &a, &b, dx, dy, dz, r2, &ai, NULL);
            sph_force_pair(&P, &b, &a, -dx, -dy, -dz, r2, &bj, NULL);
            double scale = fabs(ai.ax) + fabs(ai.ay) + fabs(ai.az);
            assert_true(scale > 0);
            assert_true(fabs(ai.ax + bj.ax) <= 1e-5 * scale);
            assert_true(fabs(ai.ay + bj.ay) <= 1e-5 * scale);
            assert_true(fabs(ai.az + bj.az) <= 1e-5 * scale);
            assert_true(fabs(ai.drho - bj.drho) <= 1e-5 * fabs(ai.drho));
            assert_true(fabs(ai.visc_max - bj.visc_max) <= 1e-5 * ai.visc_max);
        }
}

/* The pair evaluated once for both particles (acc_b, as the GPU's par-part-sym does) gives j what
 * j's own gather evaluation gets, for every option: artificial and laminar viscosity, both
 * diffusion terms, fluid and wall on either side. The two differ only in the rounding of a
 * handful of operations (the sign of dx, the order of a product): 1e-5 of the term's size in
 * float (~100 ulp), 1e-12 in double. */
static void test_pair_both_sides_match_gather(void **state)
{
    (void)state;
    double tol = REAL_IS_DOUBLE ? 1e-12 : 1e-5;
    int checked = 0;
    for (int dim = 2; dim <= 3; ++dim)
        for (int visc = VISCOSITY_ARTIFICIAL; visc <= VISCOSITY_LAMINAR; ++visc)
            for (int diff = DIFFUSION_FOURTAKAS; diff <= DIFFUSION_MOLTENI; ++diff)
                for (int types = 0; types < 4; ++types) {
                    sim_params P = params(dim, KERNEL_WENDLAND_C2);
                    P.viscosity = visc;
                    P.nu = (real)1e-3;
                    P.diffusion = diff;
                    P.hydro_drho[dim - 1] = (real)-0.02;
                    sph_particle a = pair_particle(0.0f, 0.0f, 0.0f, 0.3f, -0.1f, dim == 3 ? 0.05f : 0.0f, 1001.0f,
                                                   300.0f, types & 1);
                    sph_particle b = pair_particle(0.012f, 0.007f, dim == 3 ? 0.004f : 0.0f, -0.2f, 0.1f, 0.0f,
                                                   999.0f, -50.0f, (types >> 1) & 1);
                    real dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z, r2 = dx * dx + dy * dy + dz * dz;
                    sph_force_acc ai = {0, 0, 0, 0, 0}, bj = {0, 0, 0, 0, 0};
                    sph_force_acc gather_i = {0, 0, 0, 0, 0}, gather_j = {0, 0, 0, 0, 0};
                    sph_force_pair(&P, &a, &b, dx, dy, dz, r2, &ai, &bj);
                    sph_force_pair(&P, &a, &b, dx, dy, dz, r2, &gather_i, NULL);
                    sph_force_pair(&P, &b, &a, -dx, -dy, -dz, r2, &gather_j, NULL);
                    /* i's side is the gather form itself, bit for bit */
                    assert_true(ai.ax == gather_i.ax && ai.ay == gather_i.ay && ai.az == gather_i.az);
                    assert_true(ai.drho == gather_i.drho && ai.visc_max == gather_i.visc_max);
                    double scale = fabs(gather_j.ax) + fabs(gather_j.ay) + fabs(gather_j.az);
                    assert_true((scale > 0) == (b.fluid != 0));
                    assert_true(fabs(bj.ax - gather_j.ax) <= tol * scale);
                    assert_true(fabs(bj.ay - gather_j.ay) <= tol * scale);
                    assert_true(fabs(bj.az - gather_j.az) <= tol * scale);
                    assert_true(fabs(bj.drho - gather_j.drho) <= tol * fabs(gather_j.drho));
                    assert_true(bj.visc_max == gather_j.visc_max);
                    ++checked;
                }
    assert_int_equal(checked, 32);
}

/* Density diffusion moves density from the denser particle to the lighter one and conserves it. */
static void test_delta_sph_diffuses(void **state)
{
    (void)state;
    sim_params P = params(2, KERNEL_WENDLAND_C2);
    sph_particle a = pair_particle(0, 0, 0, 0, 0, 0, 1010.0f, 0, 1), b = pair_particle(0.01f, 0, 0, 0, 0, 0, 1000.0f, 0, 1);
    sph_force_acc ai = {0, 0, 0, 0, 0}, bj = {0, 0, 0, 0, 0};
    sph_force_pair(&P, &a, &b, -0.01f, 0, 0, 1e-4f, &ai, NULL);
    sph_force_pair(&P, &b, &a, 0.01f, 0, 0, 1e-4f, &bj, NULL);
    assert_true(ai.drho < 0);
    assert_true(bj.drho > 0);
    /* mass-weighted: m/rho_j factors differ by rho ratio, so compare volumes times rates */
    assert_true(fabs(ai.drho / a.rho + bj.drho / b.rho) < 0.02 * fabs(ai.drho / a.rho));
}

/* Boundary particles get no acceleration, only a density rate. */
static void test_boundary_pair_moves_nothing(void **state)
{
    (void)state;
    sim_params P = params(2, KERNEL_WENDLAND_C2);
    sph_particle wall = pair_particle(0, 0, 0, 0, 0, 0, 1000.0f, 0, 0), f = pair_particle(0.01f, 0.0f, 0, -0.5f, 0, 0, 1000.0f, 100.0f, 1);
    sph_force_acc acc = {0, 0, 0, 0, 0};
    sph_force_pair(&P, &wall, &f, -0.01f, 0, 0, 1e-4f, &acc, NULL);
    assert_true(acc.ax == 0 && acc.ay == 0);
    assert_true(acc.drho > 0); /* fluid approaching: the wall compresses */
}

/* Under a constant acceleration both integrators are exact (they are second order, and the
 * trajectory is quadratic in t): after 50 steps position and velocity match x0 + v0 t + a t^2/2
 * to float round-off (1e-5 relative of the distance travelled). */
static void run_integrator(int verlet)
{
    sim_params P = params(2, KERNEL_WENDLAND_C2);
    enum { N = 1 };
    real x[N] = {0.1f}, y[N] = {0.2f}, z[N] = {0}, vx[N] = {0.5f}, vy[N] = {-0.25f}, vz[N] = {0};
    real rho[N] = {1000}, p[N] = {0}, ax[N] = {0.3f}, ay[N] = {-9.81f}, az[N] = {0}, drho[N] = {0};
    real x0[N], y0[N], z0[N], vx0[N] = {0.5f}, vy0[N] = {-0.25f}, vz0[N] = {0}, rho0[N] = {1000};
    real moved[N] = {-1};
    uint8_t type[N] = {PT_FLUID};
    sph_state_view v = {x, y, z, vx, vy, vz, rho, p, type, ax, ay, az, drho, x0, y0, z0, vx0, vy0, vz0, rho0,
                        verlet ? NULL : moved};
    double dt = 1e-3;
    for (int k = 0; k < 50; ++k) {
        if (verlet) {
            sph_verlet_step(&P, &v, 0, (real)dt, k % 40 == 0);
        } else {
            sph_symplectic_predict(&P, &v, 0, (real)dt);
            /* the predictor's displacement (what decides whether the corrector may reuse the cells) */
            double moved_exact = hypot((double)x[0] - x0[0], (double)y[0] - y0[0]);
            assert_true(fabs(moved[0] - moved_exact) <= 1e-3 * moved_exact + 1e-7);
            sph_symplectic_correct(&P, &v, 0, (real)dt);
        }
    }
    double t = 50 * dt;
    double xe = 0.1 + 0.5 * t + 0.5 * 0.3 * t * t, ye = 0.2 - 0.25 * t - 0.5 * 9.81 * t * t;
    assert_true(fabs(x[0] - xe) < 1e-5 * 0.05 + 1e-7);
    assert_true(fabs(y[0] - ye) < 1e-5 * 0.05 + 1e-7);
    assert_true(fabs(vx[0] - (0.5 + 0.3 * t)) < 1e-5);
    assert_true(fabs(vy[0] - (-0.25 - 9.81 * t)) < 1e-5);
    assert_true(fabs(rho[0] - 1000) < 1e-3); /* no density rate: density unchanged */
}

/* Two boundary particles (at rest, as every boundary is) add exactly nothing to each other, for every
 * option and whatever their densities and pressures: this is why every pass may skip such pairs
 * (sph_pair_matters) without changing a bit of the result. */
static void test_boundary_pairs_add_nothing(void **state)
{
    (void)state;
    for (int dim = 2; dim <= 3; ++dim)
        for (int visc = VISCOSITY_ARTIFICIAL; visc <= VISCOSITY_LAMINAR; ++visc)
            for (int diff = DIFFUSION_FOURTAKAS; diff <= DIFFUSION_MOLTENI; ++diff) {
                sim_params P = params(dim, KERNEL_WENDLAND_C2);
                P.viscosity = visc;
                P.nu = (real)1e-3;
                P.diffusion = diff;
                P.hydro_drho[dim - 1] = (real)-0.02;
                sph_particle a = pair_particle(0, 0, 0, 0, 0, 0, 1003.0f, 400.0f, 0);
                sph_particle b = pair_particle(0.012f, 0.007f, dim == 3 ? 0.004f : 0.0f, 0, 0, 0, 1000.0f, 20.0f, 0);
                real dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z, r2 = dx * dx + dy * dy + dz * dz;
                sph_force_acc ai = {0, 0, 0, 0, 0}, bj = {0, 0, 0, 0, 0};
                sph_force_pair(&P, &a, &b, dx, dy, dz, r2, &ai, &bj);
                assert_true(ai.ax == 0 && ai.ay == 0 && ai.az == 0 && ai.drho == 0 && ai.visc_max == 0);
                assert_true(bj.ax == 0 && bj.ay == 0 && bj.az == 0 && bj.drho == 0 && bj.visc_max == 0);
            }
    assert_false(sph_pair_matters(0, 0));
    assert_true(sph_pair_matters(1, 0) && sph_pair_matters(0, 1) && sph_pair_matters(1, 1));
}

static void test_symplectic_exact_for_constant_acceleration(void **state)
{
    (void)state;
    run_integrator(0);
}

static void test_verlet_exact_for_constant_acceleration(void **state)
{
    (void)state;
    run_integrator(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels_are_normalised),
        cmocka_unit_test(test_gradient_matches_finite_difference),
        cmocka_unit_test(test_eos_round_trip),
        cmocka_unit_test(test_pair_is_antisymmetric),
        cmocka_unit_test(test_pair_both_sides_match_gather),
        cmocka_unit_test(test_delta_sph_diffuses),
        cmocka_unit_test(test_boundary_pair_moves_nothing),
        cmocka_unit_test(test_boundary_pairs_add_nothing),
        cmocka_unit_test(test_symplectic_exact_for_constant_acceleration),
        cmocka_unit_test(test_verlet_exact_for_constant_acceleration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
