/* test_engine.c: the engine reports a backend's failure with the backend's own message, whichever
 * part of a step meets it (the time step's cell rebuild for WCSPH, the step's for MPS, a pass that
 * returns no error and leaves it to backend.take_error), and does not take it for an instability of
 * the run; and the summary counts the output's share of the wall time. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/backend.h"
#include "run/engine.h"
#include "base/scene.h"
#include "core/sim.h"
#include "run/sim_create.h"
#include "test_util.h"

#include <stdio.h>
#include <string.h>

enum { REBUILDS_BEFORE_FAILURE = 4, CHECKS_BEFORE_FAILURE = 5 };
static const char injected[] = "injected: out of device memory for the cell sort";
static const char injected_pass[] = "injected: a kernel of the forces pass failed to launch";
static int rebuilds, checks;

/* The CPU backend's rebuild, failing from the fifth call on as a device out of memory would. */
static int failing_build_cells(sim *s, sl_err *err)
{
    if (++rebuilds > REBUILDS_BEFORE_FAILURE)
        return sl_fail(err, SL_ERR_RUNTIME, "%s", injected);
    return backend_cpu.build_cells(s, err);
}

/* A backend whose passes fail silently from some point on, as a kernel launch does, and say so
 * when asked. */
static int failing_take_error(sim *s, sl_err *err)
{
    (void)s;
    if (++checks > CHECKS_BEFORE_FAILURE)
        return sl_fail(err, SL_ERR_RUNTIME, "%s", injected_pass);
    return SL_OK;
}

static void failure_is_reported(const char *method, int silent_pass)
{
    backend failing = backend_cpu;
    if (silent_pass)
        failing.take_error = failing_take_error;
    else
        failing.build_cells = failing_build_cells;
    rebuilds = checks = 0;
    scene sc;
    sim s;
    sl_err err;
    if (scene_load(&sc, SLUICE_SCENES "/dam_break_2d.cfg", &err))
        fail_msg("%s", err.msg);
    snprintf(sc.method, sizeof sc.method, "%s", method);
    if (sim_create(&s, &sc, &failing, &err))
        fail_msg("%s", err.msg);
    char dir[] = "/tmp/sluice_engine_XXXXXX";
    make_temp_dir(dir);
    run_options o = {.out_dir = dir, .until = -1.0, .max_steps = 20, .quiet = 1};
    run_summary sum;
    memset(&err, 0, sizeof err);
    int rc = engine_run(&s, &o, &sum, &err);
    printf("%s: engine_run returned %d after %d rebuilds and %d checks: %s\n", method, rc, rebuilds, checks,
           err.msg);
    assert_int_equal(rc, SL_ERR_RUNTIME);
    if (silent_pass) {
        assert_int_equal(checks, CHECKS_BEFORE_FAILURE + 1); /* stopped at once */
        assert_non_null(strstr(err.msg, injected_pass));
    } else {
        assert_true(rebuilds > REBUILDS_BEFORE_FAILURE);
        assert_non_null(strstr(err.msg, injected));
    }
    assert_null(strstr(err.msg, "unstable"));
    sim_free(&s);
    scene_free(&sc);
    remove_tree(dir);
}

static void wcsph_failure_is_reported(void **state)
{
    (void)state;
    failure_is_reported("wcsph", 0);
}

static void mps_failure_is_reported(void **state)
{
    (void)state;
    failure_is_reported("mps", 0);
}

static void silent_pass_failure_is_reported(void **state)
{
    (void)state;
    failure_is_reported("wcsph", 1);
    failure_is_reported("mps", 1);
}

/* The summary counts the time spent writing snapshots and checkpoints (the first snapshot, the last,
 * the final checkpoint) as part of the run's wall time, so the rate without output is the
 * stepping's; and the steps after the first apart (the steady rate scaling figures compare). */
static void output_time_is_counted(void **state)
{
    (void)state;
    scene sc;
    sim s;
    sl_err err;
    if (scene_load(&sc, SLUICE_SCENES "/dam_break_2d.cfg", &err) || sim_create(&s, &sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
    char dir[] = "/tmp/sluice_engine_XXXXXX";
    make_temp_dir(dir);
    run_options o = {.out_dir = dir, .until = -1.0, .max_steps = 20, .quiet = 1};
    run_summary sum;
    assert_int_equal(engine_run(&s, &o, &sum, &err), SL_OK);
    printf("20 steps in %.3f s, %.3f s of it output (%d snapshots)\n", sum.wall_seconds, sum.output_seconds,
           sum.snapshots);
    assert_int_equal(sum.snapshots, 2);
    assert_true(sum.output_seconds > 0);
    assert_true(sum.output_seconds < sum.wall_seconds);
    /* the steady figure: the 19 steps after the first, their time within what is left without output
     * (the first step's is not in it) */
    assert_int_equal(sum.steady_steps, 19);
    assert_true(sum.steady_seconds > 0);
    assert_true(sum.steady_seconds < sum.wall_seconds - sum.output_seconds);
    assert_true(sum.particles == (double)s.p.n);
    sim_free(&s);
    scene_free(&sc);
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wcsph_failure_is_reported),
        cmocka_unit_test(mps_failure_is_reported),
        cmocka_unit_test(silent_pass_failure_is_reported),
        cmocka_unit_test(output_time_is_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
