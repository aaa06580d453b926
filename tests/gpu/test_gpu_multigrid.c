/* test_gpu_multigrid.c: the multigrid preconditioner's cycle on the CUDA backend, one application at
 * a time, in the tanks of test_multigrid.c at resolutions whose cycle stops above the coarsest level
 * (multigrid.h, coarsest_listed).
 * - The cell levels' products summed in lanes (mg_lane_sum, folded by shuffles) give the same z = B r
 *   as one lane a cell: within 1e-5 relative (L2), float sums of the same terms in another order
 *   (test_multigrid's tolerance for the same kind of difference; a wrong lane or fold moves z by far
 *   more).
 * - B is symmetric, (B u, v) = (u, B v) within 1e-5 relative, as PCG needs.
 * - The cycle stops above the coarsest level, so both checks cover the shortened cycle.
 * - The preconditioner's graph follows its arrays: with z moved to another particle field the next
 *   application writes there, the same bits, and leaves the old field alone (a graph replayed on the
 *   arrays it was captured for would not).
 * Exits 77 (skipped) without a device. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "gpu/backend_cuda.h"
#include "gpu_test.h"
#include "run/sim_create.h"
#include "schemes/mps/mps_common.h"
#include "solver/multigrid.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* test_multigrid.c's tank half full of water at rest, on the CUDA backend */
static void make_sim(int dim, double dp, scene *sc, sim *s)
{
    char text[2048];
    snprintf(text, sizeof text,
             "simulation = { method = \"mps\"; dimension = %d; end_time = 1.0; };\n"
             "fluid = { gravity = [0.0, %s-9.81]; viscosity = 1.0e-6; sound_speed_coef = 10.0; };\n"
             "numerics = { spacing = %g; cfl = 0.2; };\n"
             "mps = { weight = \"quadratic\"; preconditioner = \"multigrid\"; };\n"
             "gpu = { sort = \"radix\"; };\n"
             "geometry = ( { type = \"tank\"; min = [0.0, 0.0%s]; max = [0.2, 0.3%s]; layers = 3; },\n"
             "             { type = \"fluid\"; min = [0.0, 0.0%s]; max = [0.2, 0.2%s]; } );\n",
             dim, dim == 3 ? "0.0, " : "", dp, dim == 3 ? ", 0.0" : "", dim == 3 ? ", 0.2" : "",
             dim == 3 ? ", 0.0" : "", dim == 3 ? ", 0.2" : "");
    sl_err err;
    double dt;
    if (scene_load_string(sc, text, "test_gpu_multigrid", &err) || sim_create(s, sc, &backend_cuda, &err) ||
        sim_time_step(s, &dt, &err) || sim_step(s, dt, &err) || mps_poisson_system(s, s->g.n_inside, &err))
        fail_msg("%s", err.msg);
}

/* A rough vector on the unknowns (0 elsewhere); `which` picks one of two unlike ones. */
static void rough_vector(const sim *s, const real *diag, real *out, int which)
{
    for (size_t i = 0; i < s->g.n_inside; ++i) {
        double v = which ? cos(1.3 * (double)i) + 0.5 * s->p.f[PF_Y][i] : sin(0.37 * (double)i) + s->p.f[PF_X][i];
        out[i] = diag[i] != 0 ? (real)v : 0;
    }
}

/* z = B r on the device for r given on the host, copied back into z. */
static void precondition(sim *s, const cg_problem *cg, const real *r, real *z)
{
    size_t n = cg->n;
    memcpy(s->p.f[cg->r], r, n * sizeof *r);
    sl_err err;
    if (sim_sync_device(s, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(multigrid_precondition(s, cg, &err), SL_OK);
    assert_int_equal(sim_backend_error(s, &err), SL_OK);
    sim_sync_host(s);
    memcpy(z, s->p.f[cg->z], n * sizeof *z);
}

static double dot(const real *a, const real *b, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; ++i)
        sum += (double)a[i] * b[i];
    return sum;
}

static void lanes_and_symmetry(void **state)
{
    (void)state;
    for (int dim = 2; dim <= 3; ++dim) {
        scene sc;
        sim s;
        make_sim(dim, dim == 2 ? 0.0025 : 0.01, &sc, &s);
        sim_sync_host(&s);
        multigrid *mg = &mps_data_of(&s)->mg;
        cg_problem cg = mps_data_of(&s)->cg;
        size_t n = s.g.n_inside;
        cg.n = n;
        const real *diag = s.p.f[cg.diag];
        real *u = calloc(n, sizeof *u), *v = calloc(n, sizeof *v), *bu = calloc(n, sizeof *bu),
             *bv = calloc(n, sizeof *bv), *bu_one = calloc(n, sizeof *bu_one);
        assert_true(u && v && bu && bv && bu_one);
        rough_vector(&s, diag, u, 0);
        rough_vector(&s, diag, v, 1);
        int most = 1;
        for (int l = 0; l < mg->used; ++l)
            most = mg->level[l].lanes > most ? mg->level[l].lanes : most;
        precondition(&s, &cg, u, bu);
        precondition(&s, &cg, v, bv);
        double uv = dot(bu, v, n), vu = dot(u, bv, n), sym = fabs(uv - vu) / fmax(fabs(uv), fabs(vu));
        for (int l = 0; l < mg->nlevels; ++l)
            mg->level[l].lanes = 1;
        mg->setups++; /* the shapes change at a set-up alone: the loops listed again */
        precondition(&s, &cg, u, bu_one);
        double d2 = 0, b2 = 0;
        for (size_t i = 0; i < n; ++i) {
            d2 += ((double)bu[i] - bu_one[i]) * ((double)bu[i] - bu_one[i]);
            b2 += (double)bu_one[i] * bu_one[i];
        }
        double rel = sqrt(d2 / b2);
        printf("%dD, %zu particles, %d of %d levels, up to %d lanes: (Bu, v) - (u, Bv) relative %.3g; lanes against "
               "one lane: %.3g\n", dim, n, mg->used, mg->nlevels, most, sym, rel);
        assert_true(mg->used < mg->nlevels);
        assert_true(most > 1);
        if (!(sym <= 1e-5))
            fail_msg("%dD: B is not symmetric: %.3g", dim, sym);
        if (!(rel <= 1e-5))
            fail_msg("%dD: the lanes change B r by %.3g (tolerance 1e-5)", dim, rel);
        free(u), free(v), free(bu), free(bv), free(bu_one);
        sim_free(&s);
        scene_free(&sc);
    }
}

static void graph_follows_the_fields(void **state)
{
    (void)state;
    scene sc;
    sim s;
    make_sim(3, 0.01, &sc, &s);
    sim_sync_host(&s);
    cg_problem cg = mps_data_of(&s)->cg;
    size_t n = s.g.n_inside;
    cg.n = n;
    real *u = calloc(n, sizeof *u), *bu = calloc(n, sizeof *bu), *moved = calloc(n, sizeof *moved);
    assert_true(u && bu && moved);
    rough_vector(&s, s.p.f[cg.diag], u, 0);
    precondition(&s, &cg, u, bu); /* captured with z in its own field */
    precondition(&s, &cg, u, bu); /* replayed */
    for (size_t i = 0; i < n; ++i)
        s.p.f[cg.z][i] = R(7.0); /* marks the old field */
    cg_problem other = cg;
    other.z = cg.d; /* a field the preconditioner does not otherwise touch */
    precondition(&s, &other, u, moved);
    int unchanged = 1;
    for (size_t i = 0; i < n; ++i)
        unchanged = unchanged && s.p.f[cg.z][i] == R(7.0);
    assert_true(unchanged);
    assert_memory_equal(moved, bu, n * sizeof *bu);
    free(u), free(bu), free(moved);
    sim_free(&s);
    scene_free(&sc);
}

int main(void)
{
    GPU_TEST_SKIP_WITHOUT_DEVICE();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lanes_and_symmetry),
        cmocka_unit_test(graph_follows_the_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
