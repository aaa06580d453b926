/* test_gpu_packing.c: particle packing on the CUDA backend against the CPU backend (run/packing.c).
 * Stable radix sort on the GPU, so both backends hold the particles in the same order and the
 * gather pass sums the same terms in the same order; what differs is the device's fused
 * multiply-adds.
 * - One packing.shift from the same start (a circle in a tank, 2D; a sphere in a tank, 3D; positions
 *   jittered): every displacement within 1e-5 dp of the CPU's (sums of at most ~300 terms of at
 *   most 0.05 dp each in float: 300 x 6e-8 x 0.05 dp = 1e-6 dp, ten times that).
 * - A whole packing of the free circle: the same iteration count within 10%, every particle inside,
 *   positions within 0.05 dp of the CPU's (the descent contracts towards one arrangement; a
 *   particle that crosses a threshold (coverage 1/2, an edge) on one backend only would show up).
 * Exits 77 (skipped) without a device. Not yet run: written on a machine without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "gpu/backend_cuda.h"
#include "gpu_test.h"
#include "test_util.h"
#include "packing_util.h"

#include <math.h>
#include <stdlib.h>

#define RADIX "gpu = { sort = \"radix\"; };"

/* Field k of every particle by id (n values, malloc'd), from the host arrays. */
static real *by_id(const sim *s, int field)
{
    real *out = malloc(s->p.n * sizeof *out);
    assert_non_null(out);
    for (size_t i = 0; i < s->p.n; ++i)
        out[s->p.id[i]] = s->p.f[field][i];
    return out;
}

/* The displacements of one packing.shift on backend be from the jittered start. */
static void one_shift(const backend *be, int dim, const char *items, real *d[3])
{
    scene sc;
    sim s;
    packing_load(&sc, dim, "", items, RADIX);
    sim_before_packing(&sc, &s, be);
    srand(7);
    for (size_t i = 0; i < s.p.n; ++i)
        if (s.p.type[i] == PT_FLUID)
            for (int a = 0; a < dim; ++a)
                s.p.f[PF_X + a][i] += (real)(0.3 * sc.dp * (rand() / (double)RAND_MAX - 0.5));
    packing_state st;
    sl_err err;
    if (packing_begin(&s, &st, (int64_t)1 << 26, &err))
        fail_msg("%s", err.msg);
    s.be->run_pass(&s, &packing_shift_pass, s.g.n_inside);
    if (sim_backend_error(&s, &err))
        fail_msg("%s", err.msg);
    sim_sync_host(&s);
    for (int a = 0; a < 3; ++a)
        d[a] = by_id(&s, s.args.slot[PK_DX + a]);
    assert_int_equal(packing_end(&s, &st, &err), SL_OK);
    sim_free(&s);
    scene_free(&sc);
}

static void shift_matches(int dim, const char *items)
{
    real *cpu[3], *gpu[3];
    one_shift(&backend_cpu, dim, items, cpu);
    one_shift(&backend_cuda, dim, items, gpu);
    scene sc;
    packing_load(&sc, dim, "", items, RADIX);
    scene_counts c;
    sl_err err;
    assert_int_equal(scene_count_particles(&sc, &c, &err), SL_OK);
    double worst = 0;
    for (size_t i = 0; i < c.total; ++i)
        for (int a = 0; a < 3; ++a)
            worst = fmax(worst, fabs((double)cpu[a][i] - gpu[a][i]) / sc.dp);
    printf("%dD: %zu particles, largest difference %.3g dp\n", dim, c.total, worst);
    assert_true(worst < 1e-5);
    for (int a = 0; a < 3; ++a)
        free(cpu[a]), free(gpu[a]);
    scene_free(&sc);
}

static void shift_2d(void **state)
{
    (void)state;
    shift_matches(2, "{ type = \"tank\"; min = [-0.12, -0.12]; max = [0.12, 0.12]; layers = 3; },\n"
                     "{ type = \"fluid\"; shape = \"cylinder\"; center = [0.0, -0.02]; radius = 0.1; }");
}

static void shift_3d(void **state)
{
    (void)state;
    shift_matches(3, "{ type = \"tank\"; min = [-0.06, -0.06, -0.06]; max = [0.06, 0.06, 0.06]; layers = 2; },\n"
                     "{ type = \"fluid\"; shape = \"sphere\"; center = [0.0, 0.0, -0.01]; radius = 0.05; }");
}

#define CIRCLE "{ type = \"fluid\"; shape = \"cylinder\"; center = [0.003, 0.0]; radius = 0.1; }"

static real *packed(const backend *be, packing_result *res, size_t *n)
{
    scene sc;
    sim s;
    packing_load(&sc, 2, "packing = true; packing_iterations = 400; packing_tolerance = 1e-4;", CIRCLE, RADIX);
    sim_before_packing(&sc, &s, be);
    sl_err err;
    if (packing_run(&s, (int64_t)1 << 26, NULL, res, &err))
        fail_msg("%s", err.msg);
    *n = s.p.n;
    real *x = malloc(3 * s.p.n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < s.p.n; ++i) /* id order: packing_end restored it */
        for (int a = 0; a < 3; ++a)
            x[3 * i + a] = s.p.f[PF_X + a][i];
    sim_free(&s);
    scene_free(&sc);
    return x;
}

static void whole_packing(void **state)
{
    (void)state;
    packing_result rc, rg;
    size_t nc, ng;
    real *xc = packed(&backend_cpu, &rc, &nc), *xg = packed(&backend_cuda, &rg, &ng);
    assert_int_equal(nc, ng);
    double worst = 0;
    for (size_t i = 0; i < 3 * nc; ++i)
        worst = fmax(worst, fabs((double)xc[i] - xg[i]) / 0.01);
    printf("circle: %d iterations on the CPU, %d on the GPU; positions within %.3g dp\n", rc.iterations,
           rg.iterations, worst);
    assert_true(abs(rc.iterations - rg.iterations) <= rc.iterations / 10 + 1);
    assert_true(worst < 0.05);
    scene sc;
    packing_load(&sc, 2, "", CIRCLE, "");
    packing_shape ps;
    sl_err err;
    assert_int_equal(packing_shape_open(&sc, &ps, &err), SL_OK);
    for (size_t i = 0; i < ng; ++i) {
        double x[3] = {xg[3 * i], xg[3 * i + 1], xg[3 * i + 2]};
        assert_true(packing_shape_distance(&ps, x, NULL) <= 0);
    }
    packing_shape_close(&ps);
    scene_free(&sc);
    free(xc), free(xg);
}

int main(void)
{
    GPU_TEST_SKIP_WITHOUT_DEVICE();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shift_2d),
        cmocka_unit_test(shift_3d),
        cmocka_unit_test(whole_packing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
