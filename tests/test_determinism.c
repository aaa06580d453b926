/* test_determinism.c: a run gives bit-identical particles (every field) whatever the number of OpenMP threads. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/engine.h"
#include "base/scene.h"
#include "core/sim.h"
#include "test_util.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs `steps` steps of a scene with `threads` threads and returns every field in id order. */
static real *run(const char *path, int threads, long steps, size_t *count)
{
    scene sc;
    sim s;
    sl_err err;
    load_sim(path, &sc, &s);
    omp_set_num_threads(threads);
    char dir[] = "/tmp/sluice_determinism_XXXXXX";
    make_temp_dir(dir);
    run_options o = {.out_dir = dir, .until = -1.0, .max_steps = steps, .quiet = 1};
    run_summary sum;
    if (engine_run(&s, &o, &sum, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(sum.steps, steps);
    real *out = fields_by_id(&s, count);
    sim_free(&s);
    scene_free(&sc);
    remove_tree(dir);
    return out;
}

/* Passes write only their own particle and sums are added in fixed blocks, so the thread count
 * must not change a single bit. */
static void same_bits(const char *path, long steps)
{
    size_t n1, n2;
    real *a = run(path, 1, steps, &n1);
    real *b = run(path, 2, steps, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1 * sizeof *a);
    free(a);
    free(b);
}

static void test_wcsph_thread_count_independent(void **state)
{
    (void)state;
    same_bits(SLUICE_SCENES "/dam_break_2d.cfg", test_steps(200, 50));
}

static void test_mps_thread_count_independent(void **state)
{
    (void)state;
    same_bits(SLUICE_SCENES "/dam_break_2d_mps.cfg", test_steps(40, 10));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wcsph_thread_count_independent),
        cmocka_unit_test(test_mps_thread_count_independent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
