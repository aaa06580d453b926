/* test_restart.c: a run continued from a checkpoint ends bit-identical to the uninterrupted run;
 * damaged, truncated and foreign checkpoints are refused with a clear message. */
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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs `steps` steps (continuing from `restart` when not NULL) into dir; returns every real field,
 * id-ordered, one after another (nfields * n values), and the final time. */
static real *run(const char *scene_path, const char *dir, long steps, const char *restart, size_t *count,
                 double *t_end, int *status, sl_err *err)
{
    scene sc;
    sim s;
    load_sim(scene_path, &sc, &s);
    run_options o = {.out_dir = dir, .until = -1.0, .max_steps = steps, .quiet = 1, .restart = restart};
    run_summary sum;
    *status = engine_run(&s, &o, &sum, err);
    real *out = NULL;
    if (*status == SL_OK) {
        out = fields_by_id(&s, count);
        *t_end = s.t;
    }
    sim_free(&s);
    scene_free(&sc);
    return out;
}

/* 2 x half steps through a checkpoint against 2 * half steps straight: every field of every particle,
 * every bit (the checkpoint keeps the particle order, which fixes the order of every sum). */
static void same_as_uninterrupted(const char *scene_path, long half)
{
    char a[] = "/tmp/sluice_restart_a_XXXXXX", b[] = "/tmp/sluice_restart_b_XXXXXX";
    make_temp_dir(a);
    make_temp_dir(b);
    sl_err err;
    size_t na, nb;
    double ta, tb;
    int st;
    real *straight = run(scene_path, a, 2 * half, NULL, &na, &ta, &st, &err);
    if (st)
        fail_msg("%s", err.msg);
    real *first = run(scene_path, b, half, NULL, &nb, &tb, &st, &err);
    if (st)
        fail_msg("%s", err.msg);
    free(first);
    char ck[256];
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", b);
    real *second = run(scene_path, b, half, ck, &nb, &tb, &st, &err);
    if (st)
        fail_msg("%s", err.msg);
    assert_int_equal(na, nb);
    assert_true(ta == tb);
    assert_memory_equal(straight, second, na * sizeof *straight);
    free(straight);
    free(second);
    remove_tree(a);
    remove_tree(b);
}

static void test_wcsph_restart_is_exact(void **state)
{
    (void)state;
    same_as_uninterrupted(SLUICE_SCENES "/dam_break_2d.cfg", test_steps(150, 50));
}

static void test_mps_restart_is_exact(void **state)
{
    (void)state;
    same_as_uninterrupted(SLUICE_SCENES "/dam_break_2d_mps.cfg", test_steps(30, 10));
}

/* A restart whose scene writes snapshots at another interval than the run that wrote the checkpoint
 * (a finer one, to look closer at an event) goes on from where it was: the checkpoint's next output
 * counts the old interval, and taken at the new one it lay 0.024 s back, so the first step was
 * negative and the run went back in time with its particles thrown out of the tank. */
static void test_restart_with_another_output_interval(void **state)
{
    (void)state;
    char d[] = "/tmp/sluice_restart_i_XXXXXX";
    make_temp_dir(d);
    sl_err err;
    scene sc;
    sim s;
    load_sim(SLUICE_SCENES "/dam_break_2d.cfg", &sc, &s); /* output every 2.5 ms */
    run_options first = {.out_dir = d, .until = 0.006, .max_steps = -1, .quiet = 1};
    run_summary sum;
    if (engine_run(&s, &first, &sum, &err))
        fail_msg("%s", err.msg);
    const double t1 = s.t;
    sim_free(&s);
    scene_free(&sc);
    /* the same scene with output every 0.25 ms */
    char finer[512];
    snprintf(finer, sizeof finer, "%s/finer.cfg", d);
    FILE *in = fopen(SLUICE_SCENES "/dam_break_2d.cfg", "r"), *out = fopen(finer, "w");
    assert_non_null(in);
    assert_non_null(out);
    char line[1024];
    int replaced = 0;
    while (fgets(line, sizeof line, in)) {
        if (!replaced && strstr(line, "interval = 0.0025;")) { /* the output group's, the first */
            fputs("  interval = 0.00025;\n", out);
            replaced = 1;
        } else {
            fputs(line, out);
        }
    }
    fclose(in);
    fclose(out);
    assert_true(replaced);
    load_sim(finer, &sc, &s);
    char ck[512];
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", d);
    run_options second = {.out_dir = d, .until = -1.0, .max_steps = 40, .quiet = 1, .restart = ck};
    if (engine_run(&s, &second, &sum, &err))
        fail_msg("%s", err.msg);
    printf("restarted at t = %.6g s with output every 0.25 ms: %ld steps to t = %.6g s, %d snapshots in all\n", t1,
           sum.steps, s.t, sum.snapshots);
    if (!(sum.steps == 40 && s.t > t1 && s.t < t1 + 0.005))
        fail_msg("the restart ran %ld steps from t = %.6g to %.6g s: it should go forward, 40 steps", sum.steps, t1, s.t);
    for (size_t i = 0; i < s.p.n; ++i)
        for (int a = 0; a < 2; ++a)
            if (!(s.p.f[PF_X + a][i] >= s.domain_min[a] && s.p.f[PF_X + a][i] <= s.domain_max[a]))
                fail_msg("particle %zu is at %.4g m along axis %d, outside the domain [%.4g, %.4g]", i,
                         (double)s.p.f[PF_X + a][i], a, s.domain_min[a], s.domain_max[a]);
    sim_free(&s);
    scene_free(&sc);
    /* and on from there with output every 5 ms: the first output after t is at 10 ms (the last index,
     * 27 at 0.25 ms, would have put it at 135 ms), then the last state at 10.1 ms */
    const int before = sum.snapshots;
    char coarser[512];
    snprintf(coarser, sizeof coarser, "%s/coarser.cfg", d);
    in = fopen(finer, "r");
    out = fopen(coarser, "w");
    assert_non_null(in);
    assert_non_null(out);
    while (fgets(line, sizeof line, in))
        fputs(strstr(line, "interval = 0.00025;") ? "  interval = 0.005;\n" : line, out);
    fclose(in);
    fclose(out);
    load_sim(coarser, &sc, &s);
    run_options third = {.out_dir = d, .until = 0.0101, .max_steps = -1, .quiet = 1, .restart = ck};
    if (engine_run(&s, &third, &sum, &err))
        fail_msg("%s", err.msg);
    printf("then with output every 5 ms to t = %.6g s: %d snapshots in all (%d before)\n", s.t, sum.snapshots, before);
    if (sum.snapshots != before + 2)
        fail_msg("with output every 5 ms from t = 6.5 ms to 10.1 ms: %d snapshots added, not 2 (10 ms and the last)",
                 sum.snapshots - before);
    sim_free(&s);
    scene_free(&sc);
    remove_tree(d);
}

static void expect_refused(const char *scene_path, const char *ck, const char *what)
{
    char d[] = "/tmp/sluice_restart_c_XXXXXX";
    make_temp_dir(d);
    sl_err err;
    size_t n;
    double t;
    int st;
    real *r = run(scene_path, d, 5, ck, &n, &t, &st, &err);
    assert_null(r);
    assert_int_equal(st, SL_ERR_INPUT);
    assert_non_null(strstr(err.msg, ck));
    assert_non_null(strstr(err.msg, what));
    remove_tree(d);
}

static void test_bad_checkpoints_are_refused(void **state)
{
    (void)state;
    char d[] = "/tmp/sluice_restart_d_XXXXXX";
    make_temp_dir(d);
    sl_err err;
    size_t n;
    double t;
    int st;
    free(run(SLUICE_SCENES "/hydrostatic_2d.cfg", d, 3, NULL, &n, &t, &st, &err));
    assert_int_equal(st, SL_OK);
    char ck[256], cut[300], flip[300], text[300];
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", d);
    snprintf(cut, sizeof cut, "%s/cut.bin", d);
    snprintf(flip, sizeof flip, "%s/flip.bin", d);
    snprintf(text, sizeof text, "%s/text.bin", d);

    FILE *f = fopen(ck, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc((size_t)len);
    assert_int_equal(fread(bytes, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    f = fopen(cut, "wb");
    fwrite(bytes, 1, (size_t)len / 2, f); /* truncated */
    fclose(f);
    bytes[len / 3] ^= 0x10; /* one bit flipped */
    f = fopen(flip, "wb");
    fwrite(bytes, 1, (size_t)len, f);
    fclose(f);
    f = fopen(text, "wb");
    fputs("not a checkpoint\n", f);
    fclose(f);
    free(bytes);

    expect_refused(SLUICE_SCENES "/hydrostatic_2d.cfg", cut, "checksum");
    expect_refused(SLUICE_SCENES "/hydrostatic_2d.cfg", flip, "checksum");
    expect_refused(SLUICE_SCENES "/hydrostatic_2d.cfg", text, "does not start like");
    expect_refused(SLUICE_SCENES "/dam_break_2d.cfg", ck, "particles"); /* another scene */
    char missing[300];
    snprintf(missing, sizeof missing, "%s/none.bin", d);
    expect_refused(SLUICE_SCENES "/hydrostatic_2d.cfg", missing, "cannot read");
    remove_tree(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wcsph_restart_is_exact),
        cmocka_unit_test(test_mps_restart_is_exact),
        cmocka_unit_test(test_bad_checkpoints_are_refused),
        cmocka_unit_test(test_restart_with_another_output_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
