/* test_bench_floors.c: the work `sluice bench` counts for its floors (bench_floors.h) against a
 * count over all pairs, and the floors' models: the symmetric form's share of the pairs, the phases
 * with and without a model, the step's bytes. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/bench_floors.h"
#include "base/scene.h"
#include "core/sim.h"
#include "run/sim_create.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A 12^3 block of water and nothing else, at rest. 2h = 3.4 dp and re = 2.1 and 3.3 dp: no lattice
 * distance lies near a radius, so no pair's test depends on rounding. `numerics`: further keys of
 * the numerics group. */
static void make_sim(const char *method, const char *numerics, scene *sc, sim *s)
{
    char text[1024];
    snprintf(text, sizeof text,
             "simulation = { method = \"%s\"; dimension = 3; end_time = 1.0; };\n"
             "fluid = { gravity = [0.0, 0.0, 0.0]; sound_speed = 10.0; };\n"
             "numerics = { spacing = 0.1; ndiv = 2; %s };\n"
             "mps = { re_density = 2.1; re_laplacian = 3.3; };\n"
             "geometry = ( { type = \"fluid\"; min = [0.0, 0.0, 0.0]; max = [1.2, 1.2, 1.2]; } );\n",
             method, numerics);
    sl_err err;
    if (scene_load_string(sc, text, "test_bench_floors", &err))
        fail_msg("%s", err.msg);
    if (sim_create(s, sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
}

/* make_sim, and the work counted on it. */
static bench_work counted_sim(const char *method, const char *numerics, scene *sc, sim *s)
{
    make_sim(method, numerics, sc, s);
    bench_work w;
    bench_count_work(s, &w);
    return w;
}

/* Neighbours per particle within `radius` over all pairs j != i: the oracle. */
static double all_pairs_within(const sim *s, real radius)
{
    const real *x = s->p.f[PF_X], *y = s->p.f[PF_Y], *z = s->p.f[PF_Z];
    size_t n = s->p.n;
    double count = 0;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) {
            real dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
            count += i != j && dx * dx + dy * dy + dz * dz < radius * radius;
        }
    return count / (double)n;
}

static void wcsph_work_matches_all_pairs(void **state)
{
    (void)state;
    scene sc;
    sim s;
    bench_work w = counted_sim("wcsph", "h_factor = 1.7;", &sc, &s);
    assert_int_equal(s.p.n, 1728);
    assert_int_equal(w.nradii, 1);
    assert_float_equal(w.radius[0], s.P.r_max, 0);
    double oracle = all_pairs_within(&s, s.P.r_max);
    /* integer counts averaged over 1728 particles: equal up to the last bits of the division */
    assert_float_equal(w.neighbours[0], oracle, 1e-12 * oracle);
    assert_true(oracle > 100); /* deep inside, 4/3 pi 3.4^3 = 165 lattice points; fewer at the faces */
    /* every particle is fluid */
    assert_float_equal(w.neighbours_fluid[0], w.neighbours[0], 0);
    assert_float_equal(w.candidates_fluid, w.candidates, 0);
    /* the pairs j > i are half of all pairs, every pair of two fluid particles; each particle is its
     * own candidate once, and the rest of the candidates come in pairs too */
    assert_float_equal(2 * w.neighbours_after, w.neighbours[0], 1e-12 * oracle);
    assert_float_equal(w.fluid_pairs_after, w.neighbours_after, 0);
    assert_float_equal(2 * w.candidates_after + 1, w.candidates, 1e-12 * w.candidates);
    /* the forward star holds the sphere and more: 5^3 cells of 1.7 dp against the sphere of 3.4 dp */
    assert_true(w.candidates > w.neighbours[0] + 1);
    sim_free(&s);
    scene_free(&sc);
}

static void mps_work_matches_all_pairs(void **state)
{
    (void)state;
    scene sc;
    sim s;
    bench_work w = counted_sim("mps", "", &sc, &s);
    assert_int_equal(w.nradii, 2);
    for (int k = 0; k < 2; ++k) {
        real re = k == 0 ? s.P.mps.re_n : s.P.mps.re_lap;
        assert_float_equal(w.radius[k], re, 0);
        double oracle = all_pairs_within(&s, re);
        assert_float_equal(w.neighbours[k], oracle, 1e-12 * oracle);
    }
    assert_true(w.neighbours[1] > 3 * w.neighbours[0]); /* (3.3 / 2.1)^3 = 3.9 inside, fewer at the faces */
    sim_free(&s);
    scene_free(&sc);
}

/* The force pass's flops grow with the pair's options; phases without a model have none. */
static void wcsph_flop_model(void **state)
{
    (void)state;
    const char *options[] = {"h_factor = 1.7; delta = 0.0;", "h_factor = 1.7; delta = 0.1; diffusion = \"molteni\";",
                             "h_factor = 1.7; delta = 0.1; diffusion = \"fourtakas\";"};
    double last = 0;
    for (int k = 0; k < 3; ++k) {
        scene sc;
        sim s;
        bench_work w = counted_sim("wcsph", options[k], &sc, &s);
        double flop = bench_phase_flop(&s, &w, "wcsph.forces");
        /* at least the candidate test of half the star and 45 flop for each pair j > i */
        assert_true(flop >= 8 * w.candidates_after + 45 * w.neighbours_after);
        assert_true(flop > last);
        last = flop;
        assert_float_equal(bench_phase_flop(&s, &w, "wcsph.verlet"), 0, 0);
        assert_float_equal(bench_phase_flop(&s, &w, "build.sort"), 0, 0);
        assert_float_equal(bench_phase_flop(&s, &w, "mps.density"), 0, 0);
        sim_free(&s);
        scene_free(&sc);
    }
}

/* The MPS passes: the Poisson product over the Laplacian's radius, the stabilised gradient's two
 * sweeps; the step's bytes: the state twice, and each CG iteration's vectors. */
static void mps_flop_and_bytes(void **state)
{
    (void)state;
    scene sc;
    sim s;
    bench_work w = counted_sim("mps", "", &sc, &s);
    double apply = bench_phase_flop(&s, &w, "mps.ppe_apply");
    assert_float_equal(apply, 9 * w.candidates_fluid + 7 * w.neighbours_fluid[1], 1e-9 * apply);
    double gradient = bench_phase_flop(&s, &w, "mps.gradient");
    assert_true(s.P.mps.stabilised);
    assert_true(gradient >= 2 * 9 * w.candidates_fluid);
    assert_float_equal(bench_phase_flop(&s, &w, "wcsph.forces"), 0, 0);
    assert_float_equal(bench_phase_flop(&s, &w, "mps.predict"), 0, 0);
    double state_bytes = 2.0 * ((double)s.p.nfields * sizeof(real) + sizeof(int32_t) + 2);
    assert_float_equal(bench_step_bytes(&s, 0), state_bytes, 0);
    assert_float_equal(bench_step_bytes(&s, 10) - bench_step_bytes(&s, 0), 10 * 14.0 * sizeof(real), 1e-9);
    sim_free(&s);
    scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wcsph_work_matches_all_pairs),
        cmocka_unit_test(mps_work_matches_all_pairs),
        cmocka_unit_test(wcsph_flop_model),
        cmocka_unit_test(mps_flop_and_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
