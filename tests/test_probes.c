/* test_probes.c: probes against a still water column whose answers are known; probes.csv through a
 * restart (continued, not duplicated) and refused when its columns do not match. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/engine.h"
#include "io/probes.h"
#include "test_util.h"

#include <math.h>
#include <string.h>

/* Still water 0.1 m deep (dp = 5 mm, 400 fluid particles) against the left wall of a tank. */
static const char column[] =
    "numerics = { spacing = 0.005; };\n"
    "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.2, 0.2]; },\n"
    "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.1, 0.1]; } );\n"
    "probes = {\n"
    "  pressure = ( { name = \"mid\"; at = [0.05, 0.05]; }, { name = \"wall\"; at = [0.0, 0.02]; },\n"
    "               { name = \"air\"; at = [0.05, 0.15]; } );\n"
    "  gauges = ( { name = \"wet\"; at = [0.05]; }, { name = \"dry\"; at = 0.15; } );\n"
    "  front = \"+x\";\n"
    "};\n";

static void open_sim(const char *text, scene *sc, sim *s)
{
    sl_err err;
    if (scene_load_string(sc, text, "probes.cfg", &err) || sim_create(s, sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
}

/* At t = 0 (hydrostatic start): pressure in the water and on the wall within 1% of rho g depth (the
 * Shepard interpolant of a linear field on a lattice is exact up to the particles' own deviation
 * from rho g depth and the one-sided sum at the wall); NaN in the air; the level of the wet gauge
 * is the water's surface, 0.1 m, to float round-off (1e-6 m); the dry gauge NaN; the front at the
 * column's face, 0.1 m; mass 400 rho dp^2; no kinetic energy; potential energy M g H / 2 (the
 * centre of a full lattice is at H/2) to 1e-6 relative. */
static void test_still_column(void **state)
{
    (void)state;
    scene sc;
    sim s;
    open_sim(column, &sc, &s);
    double v[32];
    io_probes_sample(&s, v);
    char header[512];
    assert_int_equal(io_probes_header(&sc, header, sizeof header), 11);
    assert_string_equal(header, "time[s],step,mid[Pa],wall[Pa],air[Pa],wet[m],dry[m],front[m],mass[kg/m],"
                                "kinetic_energy[J/m],potential_energy[J/m]");
    double rg = 1000.0 * 9.81;
    assert_true(v[0] == 0.0 && v[1] == 0.0);
    if (fabs(v[2] - rg * 0.05) > 0.01 * rg * 0.05)
        fail_msg("pressure at 0.05 m depth %g Pa, expected %g", v[2], rg * 0.05);
    if (fabs(v[3] - rg * 0.08) > 0.01 * rg * 0.08)
        fail_msg("pressure on the wall at 0.08 m depth %g Pa, expected %g", v[3], rg * 0.08);
    assert_true(isnan(v[4]));
    assert_true(fabs(v[5] - 0.1) <= 1e-6);
    assert_true(isnan(v[6]));
    assert_true(fabs(v[7] - 0.1) <= 1e-6);
    double mass = 400 * 1000.0 * 0.005 * 0.005;
    assert_true(fabs(v[8] - mass) <= 1e-6 * mass);
    assert_true(v[9] == 0.0);
    assert_true(fabs(v[10] - mass * 9.81 * 0.05) <= 1e-6 * mass * 9.81 * 0.05);
    sim_free(&s);
    scene_free(&sc);
}

/* A point leaves the fluid where the Shepard sum falls below 0.1: just above the surface the
 * pressure is finite, 2 spacings above it NaN. */
static void test_surface_threshold(void **state)
{
    (void)state;
    char text[1024];
    snprintf(text, sizeof text, "%s", column);
    char *at = strstr(text, "[0.05, 0.15]");
    memcpy(at, "[0.05, 0.10]", 12); /* on the surface: half the kernel is in the water */
    scene sc;
    sim s;
    open_sim(text, &sc, &s);
    double v[32];
    io_probes_sample(&s, v);
    assert_true(isfinite(v[4]) && v[4] < 0.05 * 1000 * 9.81 * 0.1);
    sim_free(&s);
    scene_free(&sc);
    memcpy(at, "[0.05, 0.11]", 12); /* 2 dp above the surface: S = 0.02 */
    open_sim(text, &sc, &s);
    io_probes_sample(&s, v);
    assert_true(isnan(v[4]));
    sim_free(&s);
    scene_free(&sc);
}

/* The dam break that makes the rows of the restart test. */
static const char *break_scene(char *buf, size_t len, const char *probes)
{
    snprintf(buf, len,
             "simulation = { end_time = 0.05; };\n"
             "numerics = { spacing = 0.01; };\n"
             "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.3, 0.2]; },\n"
             "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.1, 0.1]; } );\n"
             "output = { interval = 0.01; checkpoint_every = 0; };\n"
             "probes = { interval = 0.004; %s };\n",
             probes);
    return buf;
}

/* Runs the scene into dir until `until` (< 0: the end), from `restart` when given; returns the status. */
static int run(const char *text, const char *dir, double until, const char *restart, sl_err *err)
{
    scene sc;
    sim s;
    open_sim(text, &sc, &s);
    io_probes pr;
    assert_int_equal(io_probes_init(&pr, &sc, dir, restart != NULL, err), SL_OK);
    run_options ro = {.out_dir = dir, .until = until, .max_steps = -1, .quiet = 1, .restart = restart};
    ro.observers[ro.nobservers++] = (engine_observer){&pr, io_probes_after_step};
    run_summary sum;
    int rc = engine_run(&s, &ro, &sum, err);
    io_probes_close(&pr);
    sim_free(&s);
    scene_free(&sc);
    return rc;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

static void append(const char *path, const char *text)
{
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A run stopped at t = 0.02, continued to 0.035 (rows past the checkpoint, and then a torn row as a
 * kill could leave), then continued again from the t = 0.02 checkpoint to the end: probes.csv is
 * byte for byte the file of the run that never stopped (the restart is exact, rows at and after
 * the checkpoint are dropped and sampled again, none twice). */
static void test_restart_continues_rows(void **state)
{
    (void)state;
    char a[] = "/tmp/sluice_probes_a_XXXXXX", b[] = "/tmp/sluice_probes_b_XXXXXX";
    make_temp_dir(a);
    make_temp_dir(b);
    char text[2048], path[256], ck[256], ck02[256];
    break_scene(text, sizeof text, "pressure = ( { name = \"P\"; at = [0.02, 0.01]; } ); front = \"+x\";");
    sl_err err;
    if (run(text, a, -1, NULL, &err))
        fail_msg("%s", err.msg);
    if (run(text, b, 0.02, NULL, &err))
        fail_msg("%s", err.msg);
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", b);
    snprintf(ck02, sizeof ck02, "%s/checkpoint_t002.bin", b);
    assert_int_equal(rename(ck, ck02), 0);
    if (run(text, b, 0.035, ck02, &err))
        fail_msg("%s", err.msg);
    snprintf(path, sizeof path, "%s/probes.csv", b);
    append(path, "0.036,99,1"); /* a row cut short */
    if (run(text, b, -1, ck02, &err))
        fail_msg("%s", err.msg);
    char *want = slurp(strcat(strcpy(ck, a), "/probes.csv")), *got = slurp(path);
    int rows = 0;
    for (const char *c = want; *c; ++c)
        rows += *c == '\n';
    assert_int_equal(rows, 1 + 13); /* the header and t = 0, 0.004, ..., 0.048 */
    assert_string_equal(got, want);
    free(want);
    free(got);

    /* other probes than the file's columns: refused, the file left as it was */
    break_scene(text, sizeof text, "front = \"+x\";");
    assert_int_equal(run(text, b, -1, ck02, &err), SL_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "probes.csv"));
    assert_non_null(strstr(err.msg, "columns"));
    got = slurp(path);
    want = slurp(strcat(strcpy(ck, a), "/probes.csv"));
    assert_string_equal(got, want);
    free(want);
    free(got);
    remove_tree(a);
    remove_tree(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_still_column),
        cmocka_unit_test(test_surface_threshold),
        cmocka_unit_test(test_restart_continues_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
