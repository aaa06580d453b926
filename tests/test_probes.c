/* test_probes.c: probes against a still water column whose answers are known; probes.csv through a
 * restart (continued, not duplicated) and refused when its columns do not match; a row the same to
 * the bit on any number of threads and equal to the definitions summed by brute force. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/engine.h"
#include "io/probes.h"
#include "test_util.h"

#include "physics/probe_sample.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

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

static void open_sim_on(const backend *be, const char *text, scene *sc, sim *s)
{
    sl_err err;
    if (scene_load_string(sc, text, "probes.cfg", &err) || sim_create(s, sc, be, &err))
        fail_msg("%s", err.msg);
}

static void open_sim(const char *text, scene *sc, sim *s)
{
    open_sim_on(&backend_cpu, text, sc, s);
}

/* The CPU backend with the probes' particles picked as on a device (pick_on_host, below). */
static int pick_on_host(sim *s, const probe_regions *req, particles *out, probe_totals *tot, int *picked,
                        sl_err *err);

static const backend *picking_backend(void)
{
    static backend picking;
    picking = backend_cpu;
    picking.probe_particles = pick_on_host;
    return &picking;
}

/* At t = 0 (hydrostatic start): pressure in the water and on the wall within 1% of rho g depth (the
 * Shepard interpolant of a linear field on a lattice is exact up to the particles' own deviation
 * from rho g depth; the wall sensor samples h off the wall at its own depth); dry (NaN) in the air;
 * the level of the wet gauge is the water's surface, 0.1 m, within a quarter spacing (the scan's
 * step; the fluid fraction of a flat lattice surface is 1/2 at the surface); the dry gauge NaN; the
 * front at the column's face, 0.1 m; mass 400 rho dp^2; no kinetic energy; potential energy
 * M g H / 2 (the centre of a full lattice is at H/2) to 1e-6 relative. */
static void test_still_column(void **state)
{
    (void)state;
    scene sc;
    sim s;
    open_sim(column, &sc, &s);
    double v[32];
    io_probes_sample(&s, v, NULL);
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
    if (fabs(v[5] - 0.1) > 0.25 * 0.005)
        fail_msg("level %g m, expected 0.1", v[5]);
    assert_true(isnan(v[6]));
    assert_true(fabs(v[7] - 0.1) <= 1e-6);
    double mass = 400 * 1000.0 * 0.005 * 0.005;
    assert_true(fabs(v[8] - mass) <= 1e-6 * mass);
    assert_true(v[9] == 0.0);
    assert_true(fabs(v[10] - mass * 9.81 * 0.05) <= 1e-6 * mass * 9.81 * 0.05);
    sim_free(&s);
    scene_free(&sc);
}

/* A point away from walls is dry where the Shepard sum falls below 0.25: on the surface (S = 0.5)
 * the pressure is finite, 2 spacings above it (S = 0.02) dry. */
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
    io_probes_sample(&s, v, NULL);
    assert_true(isfinite(v[4]) && v[4] < 0.05 * 1000 * 9.81 * 0.1);
    sim_free(&s);
    scene_free(&sc);
    memcpy(at, "[0.05, 0.11]", 12); /* 2 dp above the surface: S = 0.02 */
    open_sim(text, &sc, &s);
    io_probes_sample(&s, v, NULL);
    assert_true(isnan(v[4]));
    sim_free(&s);
    scene_free(&sc);
}

/* Still water H = 0.2 m deep in a 2D tank, its left edge `gap` off the left wall (the fluid box
 * starts there, so the first particles' centres are gap + dp/2 off it), with:
 *   side     on the left wall at mid-depth (normal inferred: +x),
 *   floor    on the floor (normal inferred: +y),
 *   at_wall  on the left wall, sampled at the wall itself (offset = 0, the old behaviour),
 *   dry      on the left wall 5 cm above the water,
 *   mid      a gauge over the middle, beside  a gauge half a spacing from the left wall. */
static const char *hydro_scene(char *buf, size_t len, double dp, double gap)
{
    snprintf(buf, len,
             "numerics = { spacing = %#.17g; };\n"
             "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.3, 0.3]; layers = 3; },\n"
             "             { type = \"fluid\"; min = [%#.17g, 0.0]; max = [0.15, 0.2]; } );\n"
             "probes = {\n"
             "  pressure = ( { name = \"side\"; at = [0.0, 0.1]; }, { name = \"floor\"; at = [0.075, 0.0]; },\n"
             "               { name = \"at_wall\"; at = [0.0, 0.1]; normal = [2.0, 0.0]; offset = 0.0; },\n"
             "               { name = \"dry\"; at = [0.0, 0.25]; } );\n"
             "  gauges = ( { name = \"mid\"; at = 0.075; }, { name = \"beside\"; at = %#.17g; } );\n"
             "  energy = false;\n"
             "};\n",
             dp, gap, 0.5 * dp);
    return buf;
}

/* Wall sensors against rho g depth at two resolutions, with the water on the wall and held 1.5
 * spacings off it (as the wall particles' repulsion holds it in a run). Tolerances: 1% of rho g
 * depth, as in the still column (the sampled point's kernel is whole along the pressure gradient
 * for the side sensor); the floor sensor samples h above the floor, so it reads rho g (H - h), and
 * the floor cutting the kernel h below that point shifts its weighted centre up by 0.06 dp
 * (computed on a lattice), within the added rho g dp / 4. Sampled at the wall itself, the held-off
 * water is "outside" (the failure this replaces); the sensor 5 cm above the water is dry; the gauge
 * over the middle reads H within a quarter spacing, and so does the one beside the wall (the wall's
 * share of the kernel is discounted) when the water touches that wall. */
static void test_wall_sensors_hydrostatic(void **state)
{
    (void)state;
    const double rg = 1000.0 * 9.81, H = 0.2;
    const double spacings[2] = {0.01, 0.005};
    for (int r = 0; r < 2; ++r)
        for (int held = 0; held < 2; ++held) {
            double dp = spacings[r], gap = held ? 1.5 * dp : 0.0, h = 2.0 * dp;
            char text[2048];
            scene sc;
            sim s;
            open_sim(hydro_scene(text, sizeof text, dp, gap), &sc, &s);
            double v[16];
            assert_int_equal(io_probes_sample(&s, v, NULL), 0);
            double side = v[2], floor_p = v[3], at_wall = v[4], dry = v[5], mid = v[6], beside = v[7];
            if (!(fabs(side - rg * (H - 0.1)) <= 0.01 * rg * (H - 0.1)))
                fail_msg("dp %g, gap %g: side sensor %g Pa, expected %g", dp, gap, side, rg * (H - 0.1));
            double want = rg * (H - h);
            if (!(fabs(floor_p - want) <= 0.01 * want + 0.25 * rg * dp))
                fail_msg("dp %g, gap %g: floor sensor %g Pa, expected %g", dp, gap, floor_p, want);
            if (held)
                assert_true(isnan(at_wall));
            else if (!(fabs(at_wall - rg * (H - 0.1)) <= 0.01 * rg * (H - 0.1)))
                fail_msg("dp %g: sensor sampled on the wall %g Pa, expected %g", dp, at_wall, rg * (H - 0.1));
            assert_true(isnan(dry));
            if (!(fabs(mid - H) <= 0.25 * dp))
                fail_msg("dp %g, gap %g: level %g m, expected %g", dp, gap, mid, H);
            if (!held && !(fabs(beside - H) <= 0.25 * dp))
                fail_msg("dp %g: level beside the wall %g m, expected %g", dp, beside, H);
            sim_free(&s);
            scene_free(&sc);
        }
}

/* The sampled point: at + h n with n inferred from the nearest box face within 2 spacings (into a
 * tank, out of an obstacle; an open tank has no roof), the given normal (normalised) and offset
 * when set, the MPS default re_density dp / 2, and the point itself when no wall is near. With the
 * normal inferred, a point closer than h to another face it lies over is moved to h off that face
 * too (a sensor in a corner: on the obstacle's face half a spacing above the floor, on the tank's
 * wall half a spacing from the next wall); with the normal given, it stays where it is put. */
static void test_sample_points(void **state)
{
    (void)state;
    static const char text[] =
        "simulation = { dimension = 3; };\n"
        "numerics = { spacing = 0.01; };\n"
        "geometry = ( { type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [1.0, 0.5, 0.5]; },\n"
        "             { type = \"fluid\"; min = [0.6, 0.0, 0.0]; max = [1.0, 0.5, 0.3]; },\n"
        "             { type = \"obstacle\"; min = [0.2, 0.2, 0.0]; max = [0.3, 0.3, 0.1]; } );\n"
        "probes = { pressure = (\n"
        "  { name = \"face\"; at = [0.3, 0.25, 0.05]; },\n"          /* obstacle +x face */
        "  { name = \"top\"; at = [0.28, 0.25, 0.1]; },\n"           /* obstacle top, 2 cm from the +x edge */
        "  { name = \"back\"; at = [1.0, 0.1, 0.2]; },\n"            /* tank +x wall */
        "  { name = \"near\"; at = [0.015, 0.25, 0.25]; },\n"        /* 1.5 dp off the tank's -x wall */
        "  { name = \"free\"; at = [0.5, 0.25, 0.25]; },\n"          /* no wall within 2 dp */
        "  { name = \"roof\"; at = [0.5, 0.25, 0.5]; },\n"           /* the open top is no wall */
        "  { name = \"given\"; at = [0.5, 0.25, 0.25]; normal = [0, 3, 4]; offset = 0.05; },\n"
        "  { name = \"corner\"; at = [0.3, 0.25, 0.005]; },\n"     /* obstacle +x face, 0.5 dp above the floor */
        "  { name = \"edge\"; at = [1.0, 0.005, 0.3]; },\n"        /* tank +x wall, 0.5 dp off the -y wall */
        "  { name = \"low\"; at = [0.5, 0.25, 0.005]; normal = [1, 0, 0]; } ); };\n"; /* given: not moved up */
    scene sc;
    sl_err err;
    if (scene_load_string(&sc, text, "points.cfg", &err))
        fail_msg("%s", err.msg);
    const double h = 0.02;
    const double want[10][3] = {{0.3 + h, 0.25, 0.05},  {0.28, 0.25, 0.1 + h}, {1.0 - h, 0.1, 0.2},
                                {0.015 + h, 0.25, 0.25}, {0.5, 0.25, 0.25},     {0.5, 0.25, 0.5},
                                {0.5, 0.25 + 0.03, 0.25 + 0.04}, {0.3 + h, 0.25, h}, {1.0 - h, h, 0.3},
                                {0.5 + h, 0.25, 0.005}};
    assert_int_equal(sc.probes.npressure, 10);
    for (int k = 0; k < 10; ++k) {
        double q[3];
        io_probe_sample_point(&sc, &sc.probes.pressure[k], q);
        for (int a = 0; a < 3; ++a)
            if (fabs(q[a] - want[k][a]) > 1e-12)
                fail_msg("%s: sampled at [%g, %g, %g], expected [%g, %g, %g]", sc.probes.pressure[k].name, q[0],
                         q[1], q[2], want[k][0], want[k][1], want[k][2]);
    }
    scene_free(&sc);
    char mps[1024];
    snprintf(mps, sizeof mps, "simulation = { method = \"mps\"; };\nnumerics = { spacing = 0.01; };\n"
                              "mps = { re_density = 3.0; };\n"
                              "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.3, 0.3]; },\n"
                              "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.1, 0.1]; } );\n"
                              "probes = { pressure = ( { name = \"P\"; at = [0.0, 0.05]; } ); };\n");
    if (scene_load_string(&sc, mps, "mps.cfg", &err))
        fail_msg("%s", err.msg);
    assert_true(fabs(io_probe_default_offset(&sc) - 1.5 * 0.01) < 1e-15);
    scene_free(&sc);
}

/* Still water 0.1 m deep with, above it, one particle at 0.205 m over gauge H and a sheet of water
 * three spacings thick at 0.2..0.23 m over gauge H_sheet: both gauges read the water, within a
 * quarter spacing, in 2D and 3D (the highest particle would say 0.21 m and 0.23 m; scanning down
 * from the top, the sheet's 0.23 m); a sensor on the tank's wall reads rho g depth within 1% (the
 * droplet and the sheet lie beyond its kernel: the hydrostatic start counts them as depth). */
static void test_gauge_ignores_droplet_and_sheet(void **state)
{
    (void)state;
    for (int dim = 2; dim <= 3; ++dim) {
        char text[2048];
        const double dp = 0.01;
        if (dim == 2)
            snprintf(text, sizeof text,
                     "numerics = { spacing = 0.01; };\n"
                     "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.3, 0.3]; },\n"
                     "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.3, 0.1]; },\n"
                     "             { type = \"fluid\"; min = [0.07, 0.2]; max = [0.08, 0.21]; },\n"
                     "             { type = \"fluid\"; min = [0.15, 0.2]; max = [0.25, 0.23]; } );\n"
                     "probes = { pressure = ( { name = \"P\"; at = [0.0, 0.05]; } );\n"
                     "           gauges = ( { name = \"H\"; at = 0.075; }, { name = \"H_sheet\"; at = 0.2; } );\n"
                     "           energy = false; };\n");
        else
            snprintf(text, sizeof text,
                     "simulation = { dimension = 3; };\n"
                     "numerics = { spacing = 0.01; };\n"
                     "geometry = ( { type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [0.2, 0.1, 0.3]; },\n"
                     "             { type = \"fluid\"; min = [0.0, 0.0, 0.0]; max = [0.2, 0.1, 0.1]; },\n"
                     "             { type = \"fluid\"; min = [0.06, 0.05, 0.2]; max = [0.07, 0.06, 0.21]; },\n"
                     "             { type = \"fluid\"; min = [0.1, 0.0, 0.2]; max = [0.2, 0.1, 0.23]; } );\n"
                     "probes = { pressure = ( { name = \"P\"; at = [0.0, 0.05, 0.05]; } );\n"
                     "           gauges = ( { name = \"H\"; at = [0.065, 0.055]; },\n"
                     "                      { name = \"H_sheet\"; at = [0.15, 0.05]; } ); energy = false; };\n");
        scene sc;
        sim s;
        open_sim(text, &sc, &s);
        double v[8];
        assert_int_equal(io_probes_sample(&s, v, NULL), 0);
        if (!(fabs(v[3] - 0.1) <= 0.25 * dp))
            fail_msg("%dD: level %g m under a droplet at 0.205 m, expected 0.1", dim, v[3]);
        if (!(fabs(v[4] - 0.1) <= 0.25 * dp))
            fail_msg("%dD: level %g m under a sheet at 0.2..0.23 m, expected 0.1", dim, v[4]);
        double rg = 1000.0 * 9.81;
        if (!(fabs(v[2] - rg * 0.05) <= 0.01 * rg * 0.05))
            fail_msg("%dD: wall sensor %g Pa, expected %g", dim, v[2], rg * 0.05);
        sim_free(&s);
        scene_free(&sc);
    }
}

/* Bad sensor keys: one line naming the file, the line, the key and what is accepted. */
static void test_sensor_key_errors(void **state)
{
    (void)state;
    static const struct {
        const char *item, *key, *msg;
    } cases[] = {
        {"normal = [0, 0];", "probes.pressure[0].normal", "has no direction (accepted: [nx, ny], finite numbers"},
        {"normal = [1];", "probes.pressure[0].normal", "has 1 number, but simulation.dimension = 2 needs 2"},
        {"normal = (1, \"a\");", "probes.pressure[0].normal", "expected a number, got the string \"a\""},
        {"offset = -0.01;", "probes.pressure[0].offset", "-0.01 is out of range (accepted: 0..0.1 (10 "
                                                         "numerics.spacing), in m)"},
        {"offset = 0.5;", "probes.pressure[0].offset", "0.5 is out of range (accepted: 0..0.1"},
        {"offset = true;", "probes.pressure[0].offset", "expected a number"},
        {"diameter = -0.01;", "probes.pressure[0].diameter", "-0.01 is out of range (accepted: 0..1 (100 "
                                                             "numerics.spacing), in m"},
        {"diameter = \"4 mm\";", "probes.pressure[0].diameter", "expected a number"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char text[1024], want[160];
        snprintf(text, sizeof text,
                 "numerics = { spacing = 0.01; };\n"
                 "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.3, 0.3]; },\n"
                 "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.1, 0.1]; } );\n"
                 "probes = { pressure = ( { name = \"P\"; at = [0.0, 0.05];\n"
                 "                          %s } ); };\n",
                 cases[k].item);
        scene sc;
        sl_err err;
        assert_int_equal(scene_load_string(&sc, text, "bad.cfg", &err), SL_ERR_INPUT);
        snprintf(want, sizeof want, "bad.cfg:5: key '%s': ", cases[k].key);
        if (strncmp(err.msg, want, strlen(want)) != 0 || !strstr(err.msg, cases[k].msg))
            fail_msg("%s: got \"%s\"", cases[k].item, err.msg);
    }
    /* gauges take no normal */
    scene sc;
    sl_err err;
    assert_int_equal(scene_load_string(&sc,
                                       "numerics = { spacing = 0.01; };\n"
                                       "geometry = ( { type = \"fluid\"; min = [0.0, 0.0]; max = [0.1, 0.1]; } );\n"
                                       "probes = { gauges = ( { name = \"H\"; at = 0.05; normal = [0, 1]; } ); };\n",
                                       "bad.cfg", &err),
                     SL_ERR_INPUT);
    assert_non_null(strstr(err.msg, "probes.gauges[0].normal': unknown key (accepted: name, at)"));
}

/* A sensor's face (diameter), in 2D against the still water of hydro_scene:
 *   - its points: ceil(4 D / dp) of them, the centres of equal parts of the segment on the wall, each
 *     h off it (to 1e-12 m: the arithmetic of a few sums);
 *   - under water, on a wall at mid-depth, it reads rho g depth within 1% as the point does (the
 *     pressure is linear along the face and the face is symmetric about its centre, so the mean of
 *     the points' values is the centre's to within their own 1%);
 *   - straddling the surface, it reads the mean over its points of the pressure where they are wet
 *     and 0 where they are dry, each weighted by the disc's chord through it: the same number (to
 *     1e-12 relative: the same sums, added in the same order) as from point sensors placed by hand
 *     at those points, some of which are dry. */
static void test_sensor_faces(void **state)
{
    (void)state;
    const double dp = 0.005, h = 2.0 * dp, D = 0.04, rg = 1000.0 * 9.81, H = 0.2;
    const int m = 32; /* ceil(4 D / dp) */
    char text[4096];
    int at = snprintf(text, sizeof text,
                      "numerics = { spacing = 0.005; };\n"
                      "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.3, 0.3]; layers = 3; },\n"
                      "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.15, 0.2]; } );\n"
                      "probes = { energy = false; pressure = (\n"
                      "  { name = \"point\"; at = [0.0, 0.1]; },\n"
                      "  { name = \"face\"; at = [0.0, 0.1]; diameter = %.17g; },\n"
                      "  { name = \"edge\"; at = [0.0, 0.2]; diameter = %.17g; }",
                      D, D);
    for (int k = 0; k < m; ++k) /* the edge face's points, by hand */
        at += snprintf(text + at, sizeof text - (size_t)at,
                       ",\n  { name = \"e%d\"; at = [0.0, %.17g]; normal = [1, 0]; offset = %.17g; }", k,
                       H - 0.5 * D + (k + 0.5) * D / m, h);
    snprintf(text + at, sizeof text - (size_t)at, " ); };\n");
    scene sc;
    sim s;
    open_sim(text, &sc, &s);
    double pts[PROBE_FACE_POINTS_MAX][3];
    assert_int_equal(io_probe_face_points(&sc, &sc.probes.pressure[1], pts, NULL), m);
    for (int k = 0; k < m; ++k) {
        double want_y = 0.1 - 0.5 * D + (k + 0.5) * D / m;
        if (fabs(pts[k][0] - h) > 1e-12 || fabs(pts[k][1] - want_y) > 1e-12 || pts[k][2] != 0.0)
            fail_msg("face point %d at [%g, %g, %g], expected [%g, %g, 0]", k, pts[k][0], pts[k][1], pts[k][2], h,
                     want_y);
    }
    assert_int_equal(io_probe_face_points(&sc, &sc.probes.pressure[0], NULL, NULL), 1);
    double v[2 + 3 + 32];
    assert_int_equal(io_probes_sample(&s, v, NULL), 0);
    double point = v[2], face = v[3], edge = v[4], want = rg * (H - 0.1);
    if (!(fabs(point - want) <= 0.01 * want) || !(fabs(face - want) <= 0.01 * want))
        fail_msg("under water: point %g Pa, face %g Pa, expected %g within 1%%", point, face, want);
    double sum = 0.0, weights = 0.0;
    int wet = 0;
    for (int k = 0; k < m; ++k) {
        double a = (k + 0.5) / m * 2.0 - 1.0, w = sqrt(1.0 - a * a); /* the disc's chord there */
        weights += w;
        if (!isnan(v[5 + k])) {
            sum += w * v[5 + k];
            ++wet;
        }
    }
    if (!(wet > 0 && wet < m))
        fail_msg("the edge face should straddle the surface: %d of %d points wet", wet, m);
    if (!(fabs(edge - sum / weights) <= 1e-12 * fabs(sum / weights)) || !(edge > 0.0))
        fail_msg("edge face %.17g Pa, expected the chord-weighted mean with the dry points as 0, %.17g", edge,
                 sum / weights);
    sim_free(&s);
    scene_free(&sc);
}

/* A face in 3D: a disc on the tank's +x wall. Its points lie h off the wall, within D/2 of the
 * sensor's centre line, centred on it (the grid is symmetric: to 1e-12 m), and cover the disc: their
 * count is that of the grid's parts whose centres fall in it, pi/4 of the square's m^2 within 15% at
 * m = 16 (the cap: 4 D / dp = 40 parts would exceed PROBE_FACE_POINTS_MAX). */
static void test_sensor_face_disc(void **state)
{
    (void)state;
    static const char text[] =
        "simulation = { dimension = 3; };\n"
        "numerics = { spacing = 0.01; };\n"
        "geometry = ( { type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [1.0, 0.5, 0.5]; },\n"
        "             { type = \"fluid\"; min = [0.6, 0.0, 0.0]; max = [1.0, 0.5, 0.3]; } );\n"
        "probes = { pressure = ( { name = \"disc\"; at = [1.0, 0.25, 0.2]; diameter = 0.1; } ); };\n";
    scene sc;
    sl_err err;
    if (scene_load_string(&sc, text, "disc.cfg", &err))
        fail_msg("%s", err.msg);
    double pts[PROBE_FACE_POINTS_MAX][3], c[3] = {0, 0, 0};
    int n = io_probe_face_points(&sc, &sc.probes.pressure[0], pts, NULL);
    assert_true(n > 0 && n <= PROBE_FACE_POINTS_MAX);
    if (!(fabs(n - M_PI / 4 * 256) <= 0.15 * M_PI / 4 * 256))
        fail_msg("%d points on the disc, expected about %g", n, M_PI / 4 * 256);
    for (int k = 0; k < n; ++k) {
        double r2 = (pts[k][1] - 0.25) * (pts[k][1] - 0.25) + (pts[k][2] - 0.2) * (pts[k][2] - 0.2);
        if (fabs(pts[k][0] - (1.0 - 0.02)) > 1e-12 || r2 > 0.05 * 0.05)
            fail_msg("disc point %d at [%g, %g, %g]: not h off the wall within the disc", k, pts[k][0], pts[k][1],
                     pts[k][2]);
        for (int a = 0; a < 3; ++a)
            c[a] += pts[k][a] / n;
    }
    if (fabs(c[0] - 0.98) > 1e-12 || fabs(c[1] - 0.25) > 1e-12 || fabs(c[2] - 0.2) > 1e-12)
        fail_msg("the disc's points centred at [%g, %g, %g], expected [0.98, 0.25, 0.2]", c[0], c[1], c[2]);
    scene_free(&sc);
}

/* A face needs a wall and must stay on it: a sensor with a diameter and no wall within 2 spacings,
 * or whose face reaches below the floor, is refused by the scene loader, with the file, the item's
 * line, the key and what is accepted. */
static void test_sensor_face_errors(void **state)
{
    (void)state;
    static const struct {
        const char *item, *msg;
    } cases[] = {
        {"at = [0.15, 0.15]; diameter = 0.01;", "sensor 'P' has a face 0.01 m across but no wall to lie on"},
        {"at = [0.0, 0.005]; diameter = 0.02;",
         "sensor 'P''s face, 0.02 m across, reaches past the edge of its wall, which runs from 0 to 0.3 m along y "
         "(accepted: a face within the wall, at most 0.01 m across here)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char text[1024];
        snprintf(text, sizeof text,
                 "numerics = { spacing = 0.01; };\n"
                 "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.3, 0.3]; },\n"
                 "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.1, 0.1]; } );\n"
                 "probes = { pressure = (\n"
                 "  { name = \"P\"; %s } ); };\n",
                 cases[k].item);
        scene sc;
        sl_err err;
        assert_int_equal(scene_load_string(&sc, text, "face.cfg", &err), SL_ERR_INPUT);
        static const char where[] = "face.cfg:5: key 'probes.pressure[0].diameter': ";
        if (strncmp(err.msg, where, strlen(where)) != 0 || !strstr(err.msg, cases[k].msg))
            fail_msg("%s: got \"%s\"", cases[k].item, err.msg);
    }
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

/* Runs the scene on `be` into dir until `until` (< 0: the end), from `restart` when given; returns the
 * status, and in *background the rows finished on the probes' worker thread. */
static int run_on(const backend *be, const char *text, const char *dir, double until, const char *restart,
                  int *background, sl_err *err)
{
    scene sc;
    sim s;
    open_sim_on(be, text, &sc, &s);
    io_probes pr;
    assert_int_equal(io_probes_init(&pr, &sc, dir, restart != NULL, err), SL_OK);
    run_options ro = {.out_dir = dir, .until = until, .max_steps = -1, .quiet = 1, .restart = restart};
    ro.observers[ro.nobservers++] = (engine_observer){&pr, io_probes_after_step, io_probes_settle};
    run_summary sum;
    int rc = engine_run(&s, &ro, &sum, err);
    if (rc == SL_OK) /* the run's last checkpoint waited for the last row (engine_observer.settle) */
        assert_int_equal(pr.busy, 0);
    io_probes_close(&pr);
    if (background)
        *background = pr.background_rows;
    sim_free(&s);
    scene_free(&sc);
    return rc;
}

static int run(const char *text, const char *dir, double until, const char *restart, sl_err *err)
{
    return run_on(&backend_cpu, text, dir, until, restart, NULL, err);
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
 * the checkpoint are dropped and sampled again, none twice). The stopped and continued runs go
 * once on the CPU backend and once with the particles picked as on a device, whose rows are
 * finished on the probes' worker thread while the run steps on (every row but none on the CPU
 * backend: counted), settled before each checkpoint: the same bytes. */
static void test_restart_continues_rows(void **state)
{
    (void)state;
    char a[] = "/tmp/sluice_probes_a_XXXXXX", b[] = "/tmp/sluice_probes_b_XXXXXX";
    make_temp_dir(a);
    make_temp_dir(b);
    char text[2048], path[256], ck[256], ck02[256];
    break_scene(text, sizeof text,
                "pressure = ( { name = \"P\"; at = [0.02, 0.01]; }, { name = \"F\"; at = [0.0, 0.05]; diameter = 0.04; } ); "
                "front = \"+x\";");
    sl_err err;
    if (run(text, a, -1, NULL, &err))
        fail_msg("%s", err.msg);
    char *want = slurp(strcat(strcpy(ck, a), "/probes.csv"));
    for (int picked = 0; picked < 2; ++picked) {
        const backend *be = picked ? picking_backend() : &backend_cpu;
        int background[3];
        remove_tree(b);
        make_temp_dir(strcpy(b, "/tmp/sluice_probes_b_XXXXXX"));
        if (run_on(be, text, b, 0.02, NULL, &background[0], &err))
            fail_msg("%s", err.msg);
        snprintf(ck, sizeof ck, "%s/checkpoint.bin", b);
        snprintf(ck02, sizeof ck02, "%s/checkpoint_t002.bin", b);
        assert_int_equal(rename(ck, ck02), 0);
        if (run_on(be, text, b, 0.035, ck02, &background[1], &err))
            fail_msg("%s", err.msg);
        snprintf(path, sizeof path, "%s/probes.csv", b);
        append(path, "0.036,99,1"); /* a row cut short */
        if (run_on(be, text, b, -1, ck02, &background[2], &err))
            fail_msg("%s", err.msg);
        char *got = slurp(path);
        int rows = 0;
        for (const char *c = want; *c; ++c)
            rows += *c == '\n';
        assert_int_equal(rows, 1 + 13); /* the header and t = 0, 0.004, ..., 0.048 */
        assert_string_equal(got, want);
        free(got);
        /* rows t = 0..0.02 (6), 0.02..0.032 (4), 0.02..0.048 (8) */
        assert_int_equal(background[0], picked ? 6 : 0);
        assert_int_equal(background[1], picked ? 4 : 0);
        assert_int_equal(background[2], picked ? 8 : 0);
    }
    free(want);
    char *got;

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

/* A dry sensor and gauge are empty fields in probes.csv (pandas and numpy's genfromtxt read NaN),
 * the wet ones numbers. */
static void test_dry_is_empty_field(void **state)
{
    (void)state;
    char dir[] = "/tmp/sluice_probes_dry_XXXXXX";
    make_temp_dir(dir);
    char text[2048], path[300];
    break_scene(text, sizeof text,
                "pressure = ( { name = \"P\"; at = [0.0, 0.05]; }, { name = \"air\"; at = [0.3, 0.15]; } );\n"
                "gauges = ( { name = \"H\"; at = 0.05; }, { name = \"H_dry\"; at = 0.28; } ); energy = false;");
    sl_err err;
    if (run(text, dir, 0.004, NULL, &err))
        fail_msg("%s", err.msg);
    snprintf(path, sizeof path, "%s/probes.csv", dir);
    char *csv = slurp(path);
    char *row = strchr(csv, '\n');
    assert_non_null(row);
    *row++ = '\0';
    assert_string_equal(csv, "time[s],step,P[Pa],air[Pa],H[m],H_dry[m]");
    int rows = 0;
    for (char *nl; (nl = strchr(row, '\n')); row = nl + 1, ++rows) {
        *nl = '\0';
        char *f[6] = {NULL};
        int n = 0;
        for (char *c = row; n < 6; ++c) { /* split on commas, keeping empty fields */
            f[n++] = c;
            c = strchr(c, ',');
            if (!c)
                break;
            *c = '\0';
        }
        assert_int_equal(n, 6);
        char *end;
        strtod(f[2], &end);
        assert_true(end != f[2] && *end == '\0'); /* wet: a number */
        assert_string_equal(f[3], "");
        strtod(f[4], &end);
        assert_true(end != f[4] && *end == '\0');
        assert_string_equal(f[5], "");
    }
    assert_true(rows >= 2);
    free(csv);
    remove_tree(dir);
}

/* ---- the same row on any number of threads, and the definitions it computes ------------------ */

/* A number in [0, 1) from (i, salt): the same on every machine. */
static double jitter(uint32_t i, uint32_t salt)
{
    uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + salt * 0xBF58476D1CE4E5B9ull + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

/* The level on the vertical through `at` by docs/output.md's definition, every particle in particle
 * order (the probes sum them in their bins' order: the same terms, other roundings). */
static double reference_level(const sim *s, const double at[2])
{
    const scene *sc = s->sc;
    const particles *p = &s->p;
    int dim = sc->dim, up = dim - 1;
    double h = sc->h_factor * sc->dp, support = 2.0 * h, ds = 0.25 * sc->dp;
    real norm = (real)sph_kernel_norm(sc->kernel, dim, h), inv_h = (real)(1.0 / h);
    double solid_vol = dim == 3 ? sc->dp * sc->dp * sc->dp : sc->dp * sc->dp;
    double ztop = -INFINITY, zlow = INFINITY;
    for (int pass = 0; pass < 2; ++pass) {
        double zstart = ztop + support;
        size_t nh = pass && ztop >= zlow ? (size_t)ceil((zstart - (zlow - support)) / ds) + 1 : 0;
        double *sf = calloc(nh + 1, sizeof *sf), *ss = calloc(nh + 1, sizeof *ss);
        for (size_t i = 0; i < p->n; ++i) {
            real dx = (real)(at[0] - p->f[PF_X][i]), dy = dim == 3 ? (real)(at[1] - p->f[PF_Y][i]) : R(0.0);
            double r2 = (double)dx * dx + (double)dy * dy, z = p->f[up == 2 ? PF_Z : PF_Y][i];
            int fluid = p->type[i] == PT_FLUID;
            if (!(r2 < support * support))
                continue;
            if (!pass && fluid) {
                ztop = fmax(ztop, z);
                zlow = fmin(zlow, z);
            }
            for (size_t k = 0; pass && k < nh; ++k) {
                double dz = zstart - (double)k * ds - z;
                if (r2 + dz * dz < support * support)
                    (fluid ? sf : ss)[k] += (double)sph_w(sc->kernel, norm, (real)sqrt(r2 + dz * dz), inv_h) *
                                            (fluid ? (double)s->P.mass / p->f[PF_RHO][i] : solid_vol);
            }
        }
        double level = NAN, below = 0.0;
        for (size_t k = nh, in_water = 0; pass && k-- > 0;) { /* upward from the bottom */
            double phi = sf[k] / fmax(1.0 - ss[k], 0.25);
            if (in_water && phi < 0.5) {
                level = zstart - (double)(k + 1) * ds + ds * (below - 0.5) / (below - phi);
                break;
            }
            in_water = in_water || phi >= 0.5;
            below = phi;
        }
        free(sf);
        free(ss);
        if (pass)
            return level;
    }
    return NAN;
}

/* The Shepard quotient at q by the definition, every fluid particle in particle order; NaN: dry. */
static double reference_at(const sim *s, const double q[3])
{
    const scene *sc = s->sc;
    const particles *p = &s->p;
    double h = sc->h_factor * sc->dp, sw = 0.0, swp = 0.0;
    real norm = (real)sph_kernel_norm(sc->kernel, sc->dim, h), inv_h = (real)(1.0 / h), r2 = (real)(4.0 * h * h);
    for (size_t i = 0; i < p->n; ++i)
        if (p->type[i] == PT_FLUID)
            probe_pressure_add(sc->kernel, norm, inv_h, r2, (real)(q[0] - p->f[PF_X][i]),
                               (real)(q[1] - p->f[PF_Y][i]), sc->dim == 3 ? (real)(q[2] - p->f[PF_Z][i]) : R(0.0),
                               s->P.mass, p->f[PF_RHO][i], p->f[PF_P][i], &sw, &swp);
    return probe_pressure_value(sw, swp);
}

/* The pressure at a sensor by the definition: over its face points the weighted mean of the wet
 * points' values, the dry ones counted as 0; NaN when none is wet. */
static double reference_pressure(const sim *s, const scene_probe_point *pt)
{
    double q[PROBE_FACE_POINTS_MAX][3], w[PROBE_FACE_POINTS_MAX], sum = 0.0, weights = 0.0;
    int n = io_probe_face_points(s->sc, pt, q, w), wet = 0;
    for (int k = 0; k < n; ++k) {
        double v = reference_at(s, q[k]);
        weights += w[k];
        if (!isnan(v)) {
            sum += w[k] * v;
            wet = 1;
        }
    }
    return wet ? sum / weights : NAN;
}

/* A backend that picks the probes' particles as the CUDA backend does (backend.probe_particles: the
 * particles some region holds, in particle order, and the fluid's totals over all), here on the host
 * arrays: a row sampled through it must be the host path's to the bit, whatever the sensors' faces
 * (a region that misses a particle some sum reads changes that sum). */
static struct {
    real *f[5];
    uint8_t *type;
} picked_store;

static int pick_on_host(sim *s, const probe_regions *req, particles *out, probe_totals *tot, int *picked,
                        sl_err *err)
{
    (void)err;
    const particles *p = &s->p;
    int dim = s->sc->dim;
    for (int k = 0; k < 5; ++k)
        picked_store.f[k] = realloc(picked_store.f[k], (p->n + 1) * sizeof(real));
    picked_store.type = realloc(picked_store.type, p->n + 1);
    const int fields[5] = {PF_X, PF_Y, PF_Z, PF_RHO, PF_P};
    size_t m = 0;
    *tot = (probe_totals){-INFINITY, 0.0, 0.0, 0.0};
    for (size_t i = 0; i < p->n; ++i) {
        real x = p->f[PF_X][i], y = p->f[PF_Y][i], z = dim == 3 ? p->f[PF_Z][i] : R(0.0);
        if (p->type[i] == PT_FLUID) {
            real xv[3] = {x, y, z};
            tot->nfluid += 1.0;
            if (req->front_sign)
                probe_front_add(xv[req->front_axis], req->front_sign, req->dp, &tot->front);
            if (req->energy)
                probe_energy_add(req->mass, p->f[PF_VX][i], p->f[PF_VY][i], dim == 3 ? p->f[PF_VZ][i] : R(0.0), x,
                                 y, z, req->g, &tot->ke, &tot->pe);
        }
        if (!probe_regions_hold(req, x, y, z))
            continue;
        for (int k = 0; k < 5; ++k)
            picked_store.f[k][m] = fields[k] == PF_Z && dim != 3 ? R(0.0) : p->f[fields[k]][i];
        picked_store.type[m++] = p->type[i];
    }
    memset(out, 0, sizeof *out);
    out->n = out->cap = m;
    out->nfields = PF_CORE;
    for (int k = 0; k < 5; ++k)
        out->f[fields[k]] = picked_store.f[k];
    out->type = picked_store.type;
    *picked = 1;
    return SL_OK;
}

/* Water 0.12 m deep (dp = 0.01 m) whose particles are moved by up to 0.15 spacings along each axis
 * and whose density (+-1%) and pressure (+-50 Pa) are disturbed, so that no sum is a lattice's, with
 * gauges in the middle, beside a wall, over the dry half and sensors on the walls, the floor, in
 * the air and one with a face 8 spacings across straddling the surface, in 2D and 3D: the row
 * sampled on 2, 3, 4 and 7 threads is the one thread's to the bit (memcmp), and so is the row from
 * the particles picked by the probes' regions (pick_on_host: a region too small for the face fails
 * it); every level and pressure is the definition's (docs/output.md) computed here by brute
 * force within 1e-9 m and 1e-9 relative (the same terms summed in another order); the level in the
 * middle is the depth within half a spacing (the disturbed surface), beside the wall within a
 * spacing; the gauge over the dry half is dry. The gauges' scans span 5 to 7 blocks of heights,
 * shared among the threads. */
static void test_threads_bit_identical(void **state)
{
    (void)state;
    for (int dim = 2; dim <= 3; ++dim) {
        char text[2048];
        if (dim == 2)
            snprintf(text, sizeof text,
                     "numerics = { spacing = 0.01; };\n"
                     "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.4, 0.25]; },\n"
                     "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.2, 0.12]; } );\n"
                     "probes = { pressure = ( { name = \"side\"; at = [0.0, 0.05]; }, { name = \"low\"; at = [0.0, 0.01]; },\n"
                     "                        { name = \"floor\"; at = [0.1, 0.0]; }, { name = \"mid\"; at = [0.1, 0.06]; },\n"
                     "                        { name = \"air\"; at = [0.3, 0.2]; },\n"
                     "                        { name = \"face\"; at = [0.0, 0.08]; diameter = 0.08; } );\n"
                     "           gauges = ( { name = \"H\"; at = 0.1; }, { name = \"wall\"; at = 0.005; },\n"
                     "                      { name = \"dry\"; at = 0.35; } ); };\n");
        else
            snprintf(text, sizeof text,
                     "simulation = { dimension = 3; };\n"
                     "numerics = { spacing = 0.01; };\n"
                     "geometry = ( { type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [0.4, 0.1, 0.25]; },\n"
                     "             { type = \"fluid\"; min = [0.0, 0.0, 0.0]; max = [0.2, 0.1, 0.12]; } );\n"
                     "probes = { pressure = ( { name = \"side\"; at = [0.0, 0.05, 0.05]; },\n"
                     "                        { name = \"low\"; at = [0.0, 0.05, 0.01]; },\n"
                     "                        { name = \"floor\"; at = [0.1, 0.05, 0.0]; },\n"
                     "                        { name = \"mid\"; at = [0.1, 0.05, 0.06]; },\n"
                     "                        { name = \"air\"; at = [0.3, 0.05, 0.2]; },\n"
                     "                        { name = \"face\"; at = [0.0, 0.05, 0.08]; diameter = 0.08; } );\n"
                     "           gauges = ( { name = \"H\"; at = [0.1, 0.05]; }, { name = \"wall\"; at = [0.005, 0.05]; },\n"
                     "                      { name = \"dry\"; at = [0.35, 0.05]; } ); };\n");
        scene sc;
        sim s;
        open_sim(text, &sc, &s);
        const double dp = 0.01, depth = 0.12;
        particles *p = &s.p;
        for (size_t i = 0; i < p->n; ++i) {
            if (p->type[i] != PT_FLUID)
                continue;
            uint32_t id = (uint32_t)p->id[i];
            for (int a = 0; a < dim; ++a)
                p->f[PF_X + a][i] += (real)(0.3 * dp * (jitter(id, (uint32_t)a) - 0.5));
            p->f[PF_RHO][i] *= (real)(1.0 + 0.02 * (jitter(id, 3) - 0.5));
            p->f[PF_P][i] += (real)(100.0 * (jitter(id, 4) - 0.5));
        }
        char header[512];
        int ncols = io_probes_header(&sc, header, sizeof header);
        assert_int_equal(ncols, 2 + 6 + 3 + 3); /* and the fluid's mass and energies */
        double one[16], many[16];
        int threads = 1;
#ifdef _OPENMP
        threads = omp_get_max_threads();
        omp_set_num_threads(1);
#endif
        assert_int_equal(io_probes_sample(&s, one, NULL), 0);
        const int counts[4] = {2, 3, 4, 7};
        for (int c = 0; c < 4; ++c) {
#ifdef _OPENMP
            omp_set_num_threads(counts[c]);
#endif
            memset(many, 0xA5, sizeof many);
            assert_int_equal(io_probes_sample(&s, many, NULL), 0);
            if (memcmp(one, many, (size_t)ncols * sizeof *one) != 0)
                fail_msg("%dD: the row on %d threads differs from the row on one", dim, counts[c]);
        }
#ifdef _OPENMP
        omp_set_num_threads(threads);
#endif
        backend picking = *s.be; /* the particles picked by regions, as on a device */
        picking.probe_particles = pick_on_host;
        const backend *host = s.be;
        s.be = &picking;
        memset(many, 0xA5, sizeof many);
        assert_int_equal(io_probes_sample(&s, many, NULL), 0);
        s.be = host;
        for (int c = 0; c < ncols; ++c)
            if (memcmp(&one[c], &many[c], sizeof *one) != 0)
                fail_msg("%dD: column %d from the picked particles %.17g, from all of them %.17g", dim, c, many[c],
                         one[c]);
        for (int k = 0; k < 6; ++k) { /* sensors: columns 2..7 */
            double want = reference_pressure(&s, &sc.probes.pressure[k]), got = one[2 + k];
            if (!(isnan(want) && isnan(got)) && !(fabs(got - want) <= 1e-9 * fabs(want)))
                fail_msg("%dD: sensor %s %.17g Pa, by the definition %.17g", dim, sc.probes.pressure[k].name, got, want);
        }
        assert_true(isnan(one[6]) && !isnan(one[2]) && !isnan(one[5])); /* air dry; side, mid wet */
        if (!(one[7] > 0.0) || !(one[7] < one[2])) /* the face (0.04..0.12 m) half above the water */
            fail_msg("%dD: the face straddling the surface reads %g Pa (side %g)", dim, one[7], one[2]);
        for (int g = 0; g < 3; ++g) { /* gauges: columns 8..10 */
            double want = reference_level(&s, sc.probes.gauges[g].at), got = one[8 + g];
            if (!(isnan(want) && isnan(got)) && !(fabs(got - want) <= 1e-9))
                fail_msg("%dD: gauge %s %.17g m, by the definition %.17g", dim, sc.probes.gauges[g].name, got, want);
        }
        if (!(fabs(one[8] - depth) <= 0.5 * dp))
            fail_msg("%dD: level %g m, expected %g", dim, one[8], depth);
        if (!(fabs(one[9] - depth) <= dp))
            fail_msg("%dD: level beside the wall %g m, expected %g", dim, one[9], depth);
        assert_true(isnan(one[10]));
        sim_free(&s);
        scene_free(&sc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_still_column),
        cmocka_unit_test(test_surface_threshold),
        cmocka_unit_test(test_wall_sensors_hydrostatic),
        cmocka_unit_test(test_sample_points),
        cmocka_unit_test(test_gauge_ignores_droplet_and_sheet),
        cmocka_unit_test(test_sensor_key_errors),
        cmocka_unit_test(test_sensor_faces),
        cmocka_unit_test(test_sensor_face_disc),
        cmocka_unit_test(test_sensor_face_errors),
        cmocka_unit_test(test_dry_is_empty_field),
        cmocka_unit_test(test_restart_continues_rows),
        cmocka_unit_test(test_threads_bit_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
