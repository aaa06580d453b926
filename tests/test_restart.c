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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
