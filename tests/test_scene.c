/* test_scene.c: the scene loader: defaults, every key, every error path (message names the file,
 * the line and the key), and robustness against truncated and random input. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/scene.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EPS 1e-12

/* ---- helpers ---------------------------------------------------------------------------- */

/* The 1-based line of the first occurrence of `needle` in `text`. */
static int line_of(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    assert_non_null(at);
    int line = 1;
    for (const char *p = text; p < at; ++p)
        line += *p == '\n';
    return line;
}

/* Fails with the message when it does not contain `frag`. */
static void assert_msg_has(const char *msg, const char *frag)
{
    if (!strstr(msg, frag))
        fail_msg("message \"%s\" lacks \"%s\"", msg, frag);
}

/* An error message: one line, non-empty, starting with `name`. */
static void assert_one_line(const char *msg, const char *name)
{
    assert_true(msg[0] != '\0');
    assert_null(strchr(msg, '\n'));
    assert_int_equal(strncmp(msg, name, strlen(name)), 0);
}

/* Writes `len` bytes to a new temporary file; returns its path (malloc'd). */
static char *write_temp(const char *data, size_t len)
{
    char *path = malloc(64);
    assert_non_null(path);
    snprintf(path, 64, "/tmp/sluice_test_scene_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return path;
}

static void assert_vec(const double *v, double x, double y, double z)
{
    assert_true(fabs(v[0] - x) < EPS);
    assert_true(fabs(v[1] - y) < EPS);
    assert_true(fabs(v[2] - z) < EPS);
}

#define NUM "numerics = { spacing = 0.1; };\n"
#define GEO "geometry = ( { type = \"fluid\"; min = [0.0, 0.0]; max = [1.0, 1.0]; } );\n"

/* ---- valid scenes ------------------------------------------------------------------------- */

static const char minimal_scene[] = "numerics = { spacing = 0.1; };\n"
                                    "geometry = (\n"
                                    "  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; }\n"
                                    ");\n";

static void test_minimal_defaults(void **state)
{
    (void)state;
    scene sc;
    sl_err err = {{0}};
    assert_int_equal(scene_load_string(&sc, minimal_scene, "scenes/minimal.cfg", &err), SL_OK);
    assert_string_equal(sc.path, "scenes/minimal.cfg");
    assert_non_null(sc.text);
    assert_string_equal(sc.text, minimal_scene);
    assert_string_equal(sc.method, "wcsph");
    assert_int_equal(sc.dim, 2);
    assert_true(sc.end_time == 1.0);
    assert_int_equal(sc.domain_set, 0);
    assert_true(sc.rho0 == 1000.0);
    assert_true(sc.nu == 1.0e-6);
    assert_vec(sc.gravity, 0.0, -9.81, 0.0);
    assert_true(sc.sound_speed == 0.0);
    assert_true(sc.sound_speed_coef == 10.0);
    assert_true(sc.eos_gamma == 7.0);
    assert_true(sc.dp == 0.1);
    assert_int_equal(sc.kernel, KERNEL_WENDLAND_C2);
    assert_true(sc.h_factor == 2.0);
    assert_true(sc.cfl == 0.2);
    assert_int_equal(sc.ndiv, 2);
    assert_int_equal(sc.integrator, INTEGRATOR_SYMPLECTIC);
    assert_int_equal(sc.verlet_steps, 40);
    assert_int_equal(sc.viscosity, VISCOSITY_ARTIFICIAL);
    assert_true(sc.alpha == 0.02);
    assert_true(sc.delta == 0.1);
    assert_int_equal(sc.ngeom, 1);
    assert_non_null(sc.geom);
    assert_int_equal(sc.geom[0].kind, GEOM_FLUID);
    assert_vec(sc.geom[0].min, 0, 0, 0);
    assert_vec(sc.geom[0].max, 1, 1, 0);
    assert_vec(sc.geom[0].velocity, 0, 0, 0);
    assert_int_equal(sc.geom[0].layers, 3);
    assert_int_equal(sc.geom[0].closed_top, 0);
    assert_int_equal(sc.geom[0].line, 3);
    assert_string_equal(sc.out_dir, "output/minimal");
    assert_true(sc.out_interval == 0.01);
    assert_int_equal(sc.out_fields, OUT_ALL);
    scene_free(&sc);
    assert_null(sc.text);
    assert_null(sc.geom);
    scene_free(&sc); /* twice is harmless */
}

static void test_scene_defaults(void **state)
{
    (void)state;
    scene sc;
    memset(&sc, 0x5a, sizeof sc);
    scene_defaults(&sc);
    assert_null(sc.text);
    assert_null(sc.geom);
    assert_int_equal(sc.ngeom, 0);
    assert_int_equal(sc.dim, 2);
    assert_string_equal(sc.method, "wcsph");
    assert_string_equal(sc.out_dir, "output/scene");
    assert_int_equal(sc.out_fields, OUT_ALL);
    assert_vec(sc.gravity, 0.0, -9.81, 0.0);
    assert_true(sc.rho0 == 1000.0);
    assert_int_equal(sc.verlet_steps, 40);
    assert_true(sc.mps.collision_distance == 0.5 && sc.mps.collision_restitution == 0.2);
    scene_free(&sc);
}

static const char full_scene[] =
    "# every key, none at its default\n"
    "simulation = {\n"
    "  method = \"wcsph\";\n"
    "  dimension = 2;\n"
    "  end_time = 2.5;\n"
    "  domain_min = [-0.5, -0.5];\n"
    "  domain_max = [2.0, 2.0];\n"
    "};\n"
    "fluid = {\n"
    "  density = 998.2;\n"
    "  viscosity = 1.0e-5;\n"
    "  gravity = [0.5, -9.0];\n"
    "  sound_speed = 40.0;\n"
    "  sound_speed_coef = 12.0;\n"
    "  eos_gamma = 7.5;\n"
    "};\n"
    "numerics = {\n"
    "  spacing = 0.01;\n"
    "  kernel = \"cubic\";\n"
    "  h_factor = 1.5;\n"
    "  cfl = 0.3;\n"
    "  ndiv = 3;\n"
    "  integrator = \"verlet\";\n"
    "  verlet_steps = 50;\n"
    "  viscosity = \"laminar\";\n"
    "  alpha = 0.05;\n"
    "  delta = 0.0;\n"
    "};\n"
    "geometry = (\n"
    "  { type = \"tank\"; min = [0.0, 0.0]; max = [1.6, 1.0]; layers = 4; closed_top = true; },\n"
    "  { type = \"fluid\"; min = [0.0, 0.0]; max = [0.4, 0.6]; velocity = [0.5, -0.25]; },\n"
    "  { type = \"obstacle\"; min = [1.0, 0.0]; max = [1.2, 0.2]; layers = 2; },\n"
    "  { type = \"fluid\"; min = [1.0, 0.2]; max = [1.2, 0.4]; },  // touches the obstacle's top\n"
    "  { type = \"fluid\"; min = [0.4, 0.0]; max = [0.5, 0.6]; }   // touches the first fluid box\n"
    ");\n"
    "output = {\n"
    "  directory = \"out/full\";\n"
    "  interval = 0.05;\n"
    "  fields = [\"velocity\", \"pressure\"];  /* position and id are implied */\n"
    "};\n";

static void test_full_scene(void **state)
{
    (void)state;
    scene sc;
    sl_err err = {{0}};
    int rc = scene_load_string(&sc, full_scene, "full.cfg", &err);
    if (rc != SL_OK)
        fail_msg("%s", err.msg);
    assert_string_equal(sc.method, "wcsph");
    assert_int_equal(sc.dim, 2);
    assert_true(sc.end_time == 2.5);
    assert_int_equal(sc.domain_set, 1);
    assert_vec(sc.domain_min, -0.5, -0.5, 0);
    assert_vec(sc.domain_max, 2.0, 2.0, 0);
    assert_true(sc.rho0 == 998.2);
    assert_true(sc.nu == 1.0e-5);
    assert_vec(sc.gravity, 0.5, -9.0, 0);
    assert_true(sc.sound_speed == 40.0);
    assert_true(sc.sound_speed_coef == 12.0);
    assert_true(sc.eos_gamma == 7.5);
    assert_true(sc.dp == 0.01);
    assert_int_equal(sc.kernel, KERNEL_CUBIC_SPLINE);
    assert_true(sc.h_factor == 1.5);
    assert_true(sc.cfl == 0.3);
    assert_int_equal(sc.ndiv, 3);
    assert_int_equal(sc.integrator, INTEGRATOR_VERLET);
    assert_int_equal(sc.verlet_steps, 50);
    assert_int_equal(sc.viscosity, VISCOSITY_LAMINAR);
    assert_true(sc.alpha == 0.05);
    assert_true(sc.delta == 0.0);
    assert_int_equal(sc.ngeom, 5);
    const scene_geom *g = sc.geom;
    assert_int_equal(g[0].kind, GEOM_TANK);
    assert_vec(g[0].max, 1.6, 1.0, 0);
    assert_int_equal(g[0].layers, 4);
    assert_int_equal(g[0].closed_top, 1);
    assert_int_equal(g[0].line, line_of(full_scene, "type = \"tank\""));
    assert_int_equal(g[1].kind, GEOM_FLUID);
    assert_vec(g[1].velocity, 0.5, -0.25, 0);
    assert_int_equal(g[1].line, g[0].line + 1);
    assert_int_equal(g[2].kind, GEOM_OBSTACLE);
    assert_int_equal(g[2].layers, 2);
    assert_int_equal(g[2].closed_top, 0);
    assert_vec(g[2].min, 1.0, 0.0, 0);
    assert_int_equal(g[2].line, line_of(full_scene, "type = \"obstacle\""));
    assert_int_equal(g[3].kind, GEOM_FLUID);
    assert_vec(g[3].velocity, 0, 0, 0);
    assert_string_equal(sc.out_dir, "out/full");
    assert_true(sc.out_interval == 0.05);
    assert_int_equal(sc.out_fields, OUT_POSITION | OUT_ID | OUT_VELOCITY | OUT_PRESSURE);
    assert_string_equal(scene_kernel_name(sc.kernel), "cubic");
    assert_string_equal(scene_integrator_name(sc.integrator), "verlet");
    assert_string_equal(scene_viscosity_name(sc.viscosity), "laminar");
    scene_free(&sc);
}

static void test_3d_scene(void **state)
{
    (void)state;
    static const char text[] =
        "simulation = { dimension = 3; domain_min = [0, 0, 0]; domain_max = [2, 2, 2]; };\n"
        "numerics = { spacing = 0.1; };\n"
        "geometry = (\n"
        "  { type = \"tank\"; min = [0.5, 0.5, 0.5]; max = [1.5, 1.5, 1.5]; },\n"
        "  { type = \"fluid\"; min = [0.5, 0.5, 0.5]; max = [1.0, 1.5, 1.0]; velocity = [1.0, 0.0, 0.0]; }\n"
        ");\n"
        "output = { fields = []; };\n";
    scene sc;
    sl_err err = {{0}};
    int rc = scene_load_string(&sc, text, "three.d.cfg", &err);
    if (rc != SL_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(sc.dim, 3);
    assert_vec(sc.gravity, 0.0, 0.0, -9.81); /* the 3D default points down z */
    assert_vec(sc.geom[1].max, 1.0, 1.5, 1.0);
    assert_vec(sc.geom[1].velocity, 1.0, 0.0, 0.0);
    assert_int_equal(sc.out_fields, OUT_POSITION | OUT_ID);
    assert_string_equal(sc.out_dir, "output/three.d");
    scene_free(&sc);
}

/* The probes and grid groups: every key, 2D and 3D forms of `at`, defaults, and the visitor's text. */
static void visit_probe_keys(const scene_value *v, void *ctx)
{
    char *out = ctx;
    if (strcmp(v->group, "probes") == 0 && strcmp(v->key, "gauges") == 0)
        snprintf(out, 256, "%s", v->string);
    if (strcmp(v->group, "grid") == 0)
        out[255] = 'g'; /* the grid group was visited */
}

static void test_probes_and_grid(void **state)
{
    (void)state;
    static const char text[] =
        "simulation = { dimension = 3; };\n"
        NUM
        "geometry = ( { type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [3.0, 1.0, 1.0]; },\n"
        "             { type = \"fluid\"; min = [2.0, 0.0, 0.0]; max = [3.0, 1.0, 0.5]; } );\n"
        "probes = {\n"
        "  interval = 0.002;\n"
        "  pressure = ( { name = \"P1\"; at = [0.8, 0.5, 0.021]; },\n"
        "               { name = \"P-2.b\"; at = [0.8, 0.5, 0.061]; } );\n"
        "  gauges = ( { name = \"H1\"; at = [0.496, 0.5]; } );\n"
        "  front = \"-x\"; energy = false;\n"
        "};\n"
        "grid = { spacing = 0.05; order = 2; fields = [\"density\"]; method = \"mesh\"; };\n";
    scene sc;
    sl_err err = {{0}};
    if (scene_load_string(&sc, text, "probes.cfg", &err) != SL_OK)
        fail_msg("%s", err.msg);
    const scene_probes *pr = &sc.probes;
    assert_int_equal(pr->enabled, 1);
    assert_true(pr->interval == 0.002);
    assert_int_equal(pr->npressure, 2);
    assert_string_equal(pr->pressure[1].name, "P-2.b");
    assert_vec(pr->pressure[1].at, 0.8, 0.5, 0.061);
    assert_int_equal(pr->pressure[1].line, line_of(text, "P-2.b"));
    assert_int_equal(pr->ngauges, 1);
    assert_vec(pr->gauges[0].at, 0.496, 0.5, 0.0);
    assert_int_equal(pr->front, FRONT_MINUS_X);
    assert_int_equal(pr->energy, 0);
    assert_int_equal(sc.grid.enabled, 1);
    assert_true(sc.grid.spacing == 0.05);
    assert_int_equal(sc.grid.order, 2);
    assert_int_equal(sc.grid.fields, GRID_DENSITY);
    assert_int_equal(sc.grid.method, GRID_METHOD_MESH);
    char seen[256] = "";
    scene_visit_keys(&sc, visit_probe_keys, seen);
    assert_string_equal(seen, "H1 [0.496, 0.5]");
    assert_true(seen[255] == 'g');
    scene_free(&sc);

    /* absent groups: off, with the documented defaults, and not visited */
    if (scene_load_string(&sc, minimal_scene, "min.cfg", &err) != SL_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(sc.probes.enabled, 0);
    assert_int_equal(sc.grid.enabled, 0);
    assert_true(sc.probes.interval == 0.0);
    assert_int_equal(sc.probes.energy, 1);
    assert_int_equal(sc.probes.front, FRONT_NONE);
    assert_int_equal(sc.grid.order, 4);
    assert_int_equal(sc.grid.fields, GRID_ALL);
    assert_int_equal(sc.grid.method, GRID_METHOD_AUTO);
    memset(seen, 0, sizeof seen);
    scene_visit_keys(&sc, visit_probe_keys, seen);
    assert_true(seen[0] == '\0' && seen[255] == '\0');
    scene_free(&sc);

    /* 2D: a gauge is one number, bare or in brackets */
    static const char two[] = NUM GEO "probes = { gauges = ( { name = \"a\"; at = 0.5; }, { name = \"b\"; at = [0.25]; } ); };\n";
    if (scene_load_string(&sc, two, "two.cfg", &err) != SL_OK)
        fail_msg("%s", err.msg);
    assert_true(sc.probes.gauges[0].at[0] == 0.5 && sc.probes.gauges[1].at[0] == 0.25);
    scene_free(&sc);
}

/* Integers where reals are expected, lists for vectors (mixed types allowed there), CRLF line ends,
 * 2D z components left at 0, int64 literals. */
static void test_lenient_forms(void **state)
{
    (void)state;
    static const char text[] = "fluid = { density = 1000; gravity = (0, -9.81); };\r\n"
                               "numerics = { spacing = 1; verlet_steps = 12L; };\r\n"
                               "geometry = ( { type = \"fluid\"; min = (0, 0.5); max = [3, 4]; } );\r\n";
    scene sc;
    sl_err err = {{0}};
    int rc = scene_load_string(&sc, text, "lenient", &err);
    if (rc != SL_OK)
        fail_msg("%s", err.msg);
    assert_true(sc.rho0 == 1000.0);
    assert_vec(sc.gravity, 0.0, -9.81, 0.0);
    assert_true(sc.dp == 1.0);
    assert_int_equal(sc.verlet_steps, 12);
    assert_vec(sc.geom[0].min, 0.0, 0.5, 0.0);
    assert_string_equal(sc.out_dir, "output/lenient");
    scene_free(&sc);
}

/* Boxes that share a face, a fluid box filling its tank, a box exactly one spacing thick. */
static void test_touching_boxes(void **state)
{
    (void)state;
    static const char text[] = "numerics = { spacing = 0.1; };\n"
                               "geometry = (\n"
                               "  { type = \"tank\"; min = [0.0, 0.0]; max = [0.3, 0.7]; layers = 1; },\n"
                               "  { type = \"tank\"; min = [0.5, 0.0]; max = [0.9, 0.7]; layers = 1; },\n"
                               "  { type = \"fluid\"; min = [0.0, 0.0]; max = [0.3, 0.7]; },\n"
                               "  { type = \"obstacle\"; min = [0.5, 0.0]; max = [0.9, 0.1]; },\n"
                               "  { type = \"fluid\"; min = [0.5, 0.1]; max = [0.9, 0.2]; },\n"
                               "  { type = \"fluid\"; min = [0.5, 0.2]; max = [0.6, 0.7]; }\n"
                               ");\n";
    scene sc;
    sl_err err = {{0}};
    int rc = scene_load_string(&sc, text, "touch.cfg", &err);
    if (rc != SL_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(sc.ngeom, 6);
    scene_free(&sc);
}

static void test_load_file(void **state)
{
    (void)state;
    char *path = write_temp(full_scene, strlen(full_scene));
    scene sc;
    sl_err err = {{0}};
    int rc = scene_load(&sc, path, &err);
    if (rc != SL_OK)
        fail_msg("%s", err.msg);
    assert_string_equal(sc.path, path);
    assert_string_equal(sc.text, full_scene);
    assert_int_equal(sc.ngeom, 5);
    scene_free(&sc);
    unlink(path);
    free(path);
}

/* ---- files that cannot be read ------------------------------------------------------------- */

static void test_missing_file(void **state)
{
    (void)state;
    scene sc;
    sl_err err = {{0}};
    const char *path = "/nonexistent/dir/scene.cfg";
    assert_int_equal(scene_load(&sc, path, &err), SL_ERR_INPUT);
    assert_one_line(err.msg, path);
    assert_msg_has(err.msg, "/nonexistent/dir/scene.cfg: cannot read: No such file or directory");
    assert_null(sc.text);
    assert_null(sc.geom);
    scene_free(&sc);
}

static void test_directory(void **state)
{
    (void)state;
    scene sc;
    sl_err err = {{0}};
    assert_int_equal(scene_load(&sc, "/tmp", &err), SL_ERR_INPUT);
    assert_msg_has(err.msg, "/tmp: cannot read: ");
    assert_null(sc.text);
}

static void test_nul_bytes(void **state)
{
    (void)state;
    static const char data[] = "numerics = { spacing = 0.1; };\n\x7f" "ELF\0\0\x01\x02";
    char *path = write_temp(data, sizeof data - 1);
    scene sc;
    sl_err err = {{0}};
    assert_int_equal(scene_load(&sc, path, &err), SL_ERR_INPUT);
    assert_one_line(err.msg, path);
    char want[128];
    snprintf(want, sizeof want, "%s:2: not a text file", path);
    assert_msg_has(err.msg, want);
    assert_null(sc.text);
    assert_null(sc.geom);
    unlink(path);
    free(path);
}

static void test_empty_file(void **state)
{
    (void)state;
    char *path = write_temp("", 0);
    scene sc;
    sl_err err = {{0}};
    assert_int_equal(scene_load(&sc, path, &err), SL_ERR_INPUT);
    assert_one_line(err.msg, path);
    assert_msg_has(err.msg, "the file is empty");
    assert_null(sc.text);
    unlink(path);
    free(path);
}

static void test_too_many_items(void **state)
{
    (void)state;
    const char *item = "{ type = \"fluid\"; min = [0, 0]; max = [1, 1]; },\n";
    size_t n = 10001, len = strlen(item);
    char *text = malloc(64 + n * len);
    assert_non_null(text);
    strcpy(text, NUM "geometry = (\n");
    char *p = text + strlen(text);
    for (size_t i = 0; i < n; ++i, p += len)
        memcpy(p, item, len);
    strcpy(p - 2, "\n);\n"); /* no trailing comma */
    scene sc;
    sl_err err = {{0}};
    assert_int_equal(scene_load_string(&sc, text, "many.cfg", &err), SL_ERR_INPUT);
    assert_msg_has(err.msg, "many.cfg:10003: key 'geometry': 10001 items");
    assert_null(sc.geom);
    free(text);
}

/* Every file in tests/data/scenes_bad fails; a first line "# expect: TEXT" gives a fragment of the
 * message. */
static void test_bad_scene_files(void **state)
{
    (void)state;
#ifdef SLUICE_TEST_DATA
    const char *dir = SLUICE_TEST_DATA "/scenes_bad";
    DIR *d = opendir(dir);
    if (!d) {
        skip();
        return;
    }
    struct dirent *e;
    int count = 0;
    while ((e = readdir(d)) != NULL) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || strcmp(dot, ".cfg") != 0)
            continue;
        char path[1024], expect[256] = "";
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        char first[256];
        if (fgets(first, sizeof first, f) && strncmp(first, "# expect: ", 10) == 0) {
            snprintf(expect, sizeof expect, "%s", first + 10);
            expect[strcspn(expect, "\r\n")] = '\0';
        }
        fclose(f);
        scene sc;
        sl_err err = {{0}};
        int rc = scene_load(&sc, path, &err);
        if (rc != SL_ERR_INPUT)
            fail_msg("%s: expected SL_ERR_INPUT, got %d", path, rc);
        assert_one_line(err.msg, path);
        if (expect[0])
            assert_msg_has(err.msg, expect);
        assert_null(sc.text);
        assert_null(sc.geom);
        ++count;
    }
    closedir(d);
    assert_true(count > 0);
#else
    skip();
#endif
}

/* Every scene shipped in scenes/ loads. */
static void test_shipped_scenes(void **state)
{
    (void)state;
#ifdef SLUICE_SCENES
    DIR *d = opendir(SLUICE_SCENES);
    if (!d) {
        skip();
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || strcmp(dot, ".cfg") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", SLUICE_SCENES, e->d_name);
        scene sc;
        sl_err err = {{0}};
        if (scene_load(&sc, path, &err) != SL_OK)
            fail_msg("%s", err.msg);
        scene_free(&sc);
    }
    closedir(d);
#else
    skip();
#endif
}

/* ---- one test per error path ------------------------------------------------------------- */

/* A box tank whose `motion` group is M, on line 4; MOTION_TANK_RAW: the whole setting. */
#define MOTION_TANK_RAW(M)                                                                          \
    NUM "geometry = (\n  { type = \"tank\"; min = [0.0, 0.0]; max = [1.0, 1.0];\n    " M " },\n"          \
        "  { type = \"fluid\"; min = [0.0, 0.0]; max = [1.0, 0.5]; } );\n"
#define MOTION_TANK(M) MOTION_TANK_RAW("motion = { " M " };")

typedef struct bad_case {
    const char *name;
    const char *text;
    int line;         /* expected "bad.cfg:LINE:"; 0: the message has no line ("bad.cfg: ") */
    const char *key;  /* expected "key 'KEY'", or NULL */
    const char *frag; /* another fragment of the message, or NULL */
} bad_case;

static const bad_case bad_cases[] = {
    /* the file as text */
    {"syntax_error", NUM "\n" GEO "simulation = { dimension == 2; };\n", 4, NULL, "syntax error"},
    {"truncated", NUM GEO "fluid = {\n  density = 1000.0;\n", 5, NULL,
     "syntax error: unexpected end of file (expected '}' to close the group opened on line 3)"},
    {"truncated_array", NUM GEO "fluid = {\n  gravity = [0.0,\n", 5, NULL,
     "unexpected end of file (expected ']' to close the array opened on line 4)"},
    {"unterminated_string", NUM GEO "output = { directory = \"abc; };\n", 3, NULL,
     "syntax error: the string opened here by '\"' is never closed"},
    {"unterminated_comment", NUM GEO "/* a comment\n\n", 3, NULL, "never closed by */"},
    {"string_where_name_expected", NUM GEO "fluid = { density = 1.0 \"x\"; };\n", 3, NULL,
     "syntax error: unexpected string \"x\" (expected a setting name or '}')"},
    {"group_in_array", NUM GEO "fluid = { gravity = [{ }]; };\n", 3, NULL, "an array holds only those"},
    {"trailing_comma", NUM GEO "output = { fields = (\"id\", ); };\n", 3, NULL, "unexpected ')' (expected a value)"},
    {"garbage_byte", NUM GEO "fluid = { density = 1.0; }; \x01\n", 3, NULL, "unexpected byte 0x01"},
    {"digitless_number", NUM GEO "numerics = { delta = .; };\n", 3, NULL, "'.' is not a number"},
    {"too_deep", NUM GEO "x = ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))));\n",
     3, NULL, "more than 64 nested"},
    {"duplicate_key", NUM GEO "fluid = { density = 1.0;\n  density = 2.0; };\n", 4, NULL, "duplicate setting"},
    {"mixed_array", NUM GEO "fluid = { gravity = [0, -9.81]; };\n", 3, NULL, "[0.0, -9.81]"},
    {"include", NUM GEO "@include \"other.cfg\"\n", 3, NULL, "@include is not supported"},
    {"empty_text", "", 0, NULL, "the file is empty"},
    {"only_comments", "# nothing\n// here\n", 0, NULL, "the file has no settings"},

    /* groups */
    {"unknown_group", NUM GEO "numeric = { cfl = 0.2; };\n", 3, "numeric", "unknown group; did you mean 'numerics'?"},
    {"unknown_group_far", NUM GEO "banana = { };\n", 3, "banana", "unknown group (accepted: simulation, fluid"},
    {"key_at_top_level", NUM GEO "\ncfl = 0.2;\n", 4, "cfl", "did you mean 'numerics.cfl'?"},
    {"item_key_at_top_level", NUM GEO "layers = 2;\n", 3, "layers", "is a key of geometry items"},
    {"group_is_scalar", NUM GEO "simulation = 5;\n", 3, "simulation", "expected a group { ... }, got the integer 5"},
    {"geometry_is_group", NUM "geometry = { type = \"fluid\"; };\n", 2, "geometry", "expected a list"},

    /* keys */
    {"unknown_key_typo", "numerics = {\n  spaceing = 0.1;\n};\n" GEO, 2, "numerics.spaceing",
     "unknown key; did you mean 'spacing'?"},
    {"unknown_key", NUM GEO "fluid = {\n\n  foo = 1.0; };\n", 5, "fluid.foo", "unknown key (accepted: density,"},
    {"key_in_wrong_group", NUM GEO "simulation = {\n  gravity = [0.0, -9.81];\n};\n", 4, "simulation.gravity",
     "belongs in group 'fluid'"},
    {"missing_required_key", "\nnumerics = { cfl = 0.2; };\n" GEO, 2, "numerics.spacing", "required key is missing"},
    {"missing_required_group", GEO, 0, "numerics.spacing", "required key is missing"},

    /* types */
    {"real_for_int", "numerics = { spacing = 0.1;\n  ndiv = 2.0; };\n" GEO, 2, "numerics.ndiv",
     "2.0 is a real number, an integer is expected"},
    {"string_for_number", "numerics = { spacing = \"0.1\"; };\n" GEO, 1, "numerics.spacing",
     "expected a number, got the string \"0.1\""},
    {"number_for_string", "numerics = { spacing = 0.1; kernel = 1; };\n" GEO, 1, "numerics.kernel",
     "expected a string, got the integer 1"},
    {"bool_for_string", "numerics = { spacing = 0.1; kernel = true; };\n" GEO, 1, "numerics.kernel",
     "expected a string, got the boolean true"},
    {"group_for_number", NUM GEO "fluid = { density = { value = 1.0; }; };\n", 3, "fluid.density", "got a group"},
    {"bool_for_number", NUM GEO "fluid = { eos_gamma = true; };\n", 3, "fluid.eos_gamma", "got the boolean true"},
    {"array_for_number", NUM GEO "simulation = { end_time = [1.0]; };\n", 3, "simulation.end_time", "an array"},
    {"number_for_bool",
     NUM "geometry = (\n"
         "  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; },\n"
         "  { type = \"tank\"; min = [0, 0]; max = [2, 2];\n"
         "    closed_top = 1; }\n);\n",
     5, "geometry[1].closed_top", "expected true or false"},

    /* ranges */
    {"int_out_of_range", "numerics = { spacing = 0.1;\n\n  ndiv = 5; };\n" GEO, 3, "numerics.ndiv",
     "5 is out of range (accepted: an integer 1..3)"},
    {"real_out_of_range", NUM GEO "fluid = { density = 0.5; };\n", 3, "fluid.density",
     "0.5 is out of range (accepted: a number 1..1e5, in kg/m^3)"},
    {"open_lower_bound", NUM GEO "simulation = { end_time = 0; };\n", 3, "simulation.end_time",
     "(accepted: a number > 0 and <= 1e6, in s)"},
    {"upper_bound", NUM GEO "simulation = { end_time = 2e6; };\n", 3, "simulation.end_time", "2e6 is out of range"},
    {"sound_speed_gap", NUM GEO "fluid = { sound_speed = 0.001; };\n", 3, "fluid.sound_speed",
     "(accepted: 0, or a number 0.01..1e5, in m/s)"},
    {"dimension", NUM GEO "simulation = { dimension = 4; };\n", 3, "simulation.dimension",
     "4 is out of range (accepted: an integer 2..3)"},
    {"spacing_too_big", "numerics = { spacing = 11.0; };\n" GEO, 1, "numerics.spacing",
     "11 is out of range (accepted: a number > 0 and <= 10, in m)"},
    {"negative_spacing", "numerics = { spacing = -0.1; };\n" GEO, 1, "numerics.spacing", "-0.1 is out of range"},
    {"collision_distance_range", NUM GEO "mps = { collision_distance = 1.5; };\n", 3, "mps.collision_distance",
     "1.5 is out of range (accepted: a number 0..1, in spacings)"},
    {"cfl_zero", "numerics = { spacing = 0.1; cfl = 0; };\n" GEO, 1, "numerics.cfl", "0 is out of range"},
    {"int64_real_key", "numerics = { spacing = 0.1; h_factor = 9L; };\n" GEO, 1, "numerics.h_factor",
     "9 is out of range (accepted: a number 0.5..4)"},
    {"int64_int_key", "numerics = { spacing = 0.1; verlet_steps = 5000000000L; };\n" GEO, 1,
     "numerics.verlet_steps", "5000000000 is out of range"},
    {"infinite", NUM GEO "fluid = { viscosity = 1e999; };\n", 3, "fluid.viscosity", "inf is not a finite number"},
    {"infinite_component", NUM GEO "fluid = {\n  gravity = [0.0,\n  -1e999]; };\n", 5, "fluid.gravity",
     "component y: -inf is not a finite number"},
    {"int_overflow", "numerics = {\n  spacing = 0.1;\n  verlet_steps =\n    99999999999; };\n" GEO, 4,
     "numerics.verlet_steps", "99999999999 does not fit in a 32-bit integer"},
    {"int_overflow_hex", "numerics = { spacing = 0.1; ndiv = 0x100000002; };\n" GEO, 1, "numerics.ndiv",
     "0x100000002 does not fit"},
    {"int_overflow_real_key", NUM GEO "output = { interval = 4294967296; };\n", 3, "output.interval",
     "does not fit in a 32-bit integer"},
    {"gravity_component", NUM GEO "fluid = { gravity = [0.0, -2000.0]; };\n", 3, "fluid.gravity",
     "component y = -2000 is out of range (accepted: [x, y], each number -1000..1000, in m/s^2)"},

    /* vectors */
    {"vector_too_long", NUM GEO "fluid = { gravity = [0.0, 0.0, -9.81]; };\n", 3, "fluid.gravity",
     "has 3 numbers, but simulation.dimension = 2 needs 2"},
    {"vector_too_short_3d", "simulation = { dimension = 3; };\n" NUM GEO, 3, "geometry[0].min", "has 2 numbers"},
    {"vector_of_strings", NUM GEO "fluid = { gravity = [\"0\", \"-9.81\"]; };\n", 3, "fluid.gravity",
     "component x: expected a number"},
    {"vector_is_scalar", NUM GEO "fluid = { gravity = -9.81; };\n", 3, "fluid.gravity", "expected 2 numbers [x, y]"},

    /* enumerations */
    {"kernel", "numerics = { spacing = 0.1; kernel = \"cubik\"; };\n" GEO, 1, "numerics.kernel",
     "\"cubik\" is not accepted; did you mean 'cubic'? (accepted: one of \"wendland\", \"cubic\")"},
    {"integrator", "numerics = { spacing = 0.1; integrator = \"rk4\"; };\n" GEO, 1, "numerics.integrator",
     "\"rk4\" is not accepted (accepted: one of \"symplectic\", \"verlet\")"},
    {"viscosity_model", "numerics = { spacing = 0.1; viscosity = \"laminer\"; };\n" GEO, 1, "numerics.viscosity",
     "did you mean 'laminar'?"},
    {"method", NUM GEO "simulation = { method = \"wcsp\"; };\n", 3, "simulation.method",
     "\"wcsp\" is not a known method; did you mean 'wcsph'? (accepted: one of \"wcsph\""},
    {"method_far", NUM GEO "simulation = { method = \"lattice-boltzmann\"; };\n", 3, "simulation.method",
     "not a known method (accepted"},
    {"item_type", NUM "geometry = ( { type = \"fluids\"; min = [0, 0]; max = [1, 1]; } );\n", 2, "geometry[0].type",
     "did you mean 'fluid'?"},

    /* the domain */
    {"domain_min_alone", NUM GEO "simulation = {\n  domain_min = [0, 0];\n};\n", 4, "simulation.domain_max",
     "go together"},
    {"domain_max_alone", NUM GEO "simulation = { domain_max = [1, 1]; };\n", 3, "simulation.domain_min",
     "go together"},
    {"domain_inverted", NUM GEO "simulation = { domain_min = [0, 2]; domain_max = [3, 1]; };\n", 3,
     "simulation.domain_max", "component y = 1 is not above"},

    /* geometry items */
    {"geometry_missing", NUM, 0, "geometry", "required list is missing"},
    {"geometry_empty", NUM "\ngeometry = ( );\n", 3, "geometry", "the list is empty"},
    {"geometry_no_fluid", NUM "geometry = (\n  { type = \"tank\"; min = [0, 0]; max = [1, 1]; } );\n", 2, "geometry",
     "no item of type \"fluid\""},
    {"item_not_group", NUM "geometry = (\n  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; },\n  42 );\n", 4,
     "geometry[1]", "expected a group"},
    {"item_missing_type", NUM "geometry = (\n  { min = [0, 0]; max = [1, 1]; } );\n", 3, "geometry[0].type",
     "required key is missing"},
    {"item_missing_max", NUM "geometry = (\n  { type = \"fluid\";\n    min = [0, 0]; } );\n", 3, "geometry[0].max",
     "required key is missing"},
    {"item_empty_box", NUM "geometry = (\n  { type = \"fluid\"; min = [0, 0];\n    max = [1, 0]; } );\n", 4,
     "geometry[0].max", "empty box: max y = 0 is not above min y = 0"},
    {"item_unknown_key",
     NUM "geometry = (\n  { type = \"fluid\"; min = [0, 0]; max = [1, 1];\n    velocty = [1, 0]; } );\n", 4,
     "geometry[0].velocty", "did you mean 'velocity'?"},
    {"item_key_wrong_kind",
     NUM "geometry = (\n  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; layers = 2; } );\n", 3,
     "geometry[0].layers", "not used by a fluid item (accepted: only in tank, obstacle items)"},
    {"closed_top_on_obstacle",
     NUM "geometry = (\n  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; },\n"
         "  { type = \"obstacle\"; min = [2, 0]; max = [3, 1];\n    closed_top = true; } );\n",
     5, "geometry[1].closed_top", "not used by an obstacle item (accepted: only in tank items)"},
    {"velocity_on_tank",
     NUM "geometry = (\n  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; },\n"
         "  { type = \"tank\"; min = [0, 0]; max = [1, 1]; velocity = [0, 1]; } );\n",
     4, "geometry[1].velocity", "(accepted: only in fluid items)"},
    {"layers_out_of_range",
     NUM "geometry = (\n  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; },\n"
         "  { type = \"obstacle\"; min = [2, 0]; max = [3, 1]; layers = 9; } );\n",
     4, "geometry[1].layers", "9 is out of range (accepted: an integer 1..8)"},
    {"velocity_out_of_range",
     NUM "geometry = (\n  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; velocity = [2e4, 0.0]; } );\n", 3,
     "geometry[0].velocity", "component x = 2e4 is out of range"},

    /* output */
    {"directory_empty", NUM GEO "output = { directory = \"\"; };\n", 3, "output.directory", "the string is empty"},
    {"directory_number", NUM GEO "output = { directory = 5; };\n", 3, "output.directory",
     "expected a string, got the integer 5"},
    {"interval_zero", NUM GEO "output = { interval = 0.0; };\n", 3, "output.interval",
     "(accepted: a number > 0, in s)"},
    {"fields_unknown", NUM GEO "output = { fields = [\"position\",\n  \"pressur\"]; };\n", 4, "output.fields",
     "\"pressur\" is not a field name; did you mean 'pressure'?"},
    {"fields_duplicate", NUM GEO "output = { fields = [\"id\", \"velocity\", \"id\"]; };\n", 3, "output.fields",
     "\"id\" is listed twice"},
    {"fields_not_strings", NUM GEO "output = { fields = [1, 2]; };\n", 3, "output.fields",
     "element 0: expected a string"},
    {"fields_is_string", NUM GEO "output = { fields = \"velocity\"; };\n", 3, "output.fields",
     "expected an array of strings"},

    /* cross-checks */
    {"fluid_overlaps_fluid",
     NUM "geometry = (\n  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; },\n"
         "  { type = \"fluid\"; min = [0.5, 0.5]; max = [2.0, 2.0]; } );\n",
     4, "geometry[1]", "overlaps the fluid geometry[0] (line 3)"},
    {"fluid_overlaps_obstacle",
     NUM "geometry = (\n  { type = \"obstacle\"; min = [0.5, 0.0]; max = [0.7, 0.2]; },\n"
         "  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; } );\n",
     4, "geometry[1]", "overlaps the obstacle geometry[0] (line 3)"},
    {"obstacle_overlaps_fluid",
     NUM "geometry = (\n  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; },\n"
         "  { type = \"obstacle\"; min = [0.9, 0.9]; max = [1.2, 1.2]; } );\n",
     4, "geometry[1]", "the obstacle box [0.9, 0.9]..[1.2, 1.2] overlaps the fluid geometry[0] (line 3)"},
    {"fluid_outside_tank",
     NUM "geometry = (\n  { type = \"tank\"; min = [0, 0]; max = [1, 1]; },\n"
         "  { type = \"fluid\"; min = [0.0, 0.0]; max = [1.5, 0.5]; } );\n",
     4, "geometry[1]", "fluid outside the domain: the box [0, 0]..[1.5, 0.5] is not inside the inner box"},
    {"fluid_outside_tanks",
     NUM "geometry = (\n  { type = \"tank\"; min = [0, 0]; max = [1, 1]; },\n"
         "  { type = \"tank\"; min = [5, 0]; max = [6, 1]; },\n"
         "  { type = \"fluid\"; min = [2.0, 0.0]; max = [3.0, 0.5]; } );\n",
     5, "geometry[2]", "any of the 2 tanks"},
    {"fluid_outside_domain",
     NUM "simulation = { domain_min = [0, 0]; domain_max = [1, 1]; };\n"
         "geometry = (\n  { type = \"fluid\"; min = [0.0, 0.0]; max = [1.0, 1.5]; } );\n",
     4, "geometry[0]", "fluid outside the domain"},
    {"obstacle_outside_domain",
     NUM "simulation = { domain_min = [0, 0]; domain_max = [2, 2]; };\n"
         "geometry = (\n  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; },\n"
         "  { type = \"obstacle\"; min = [1.5, -1.0]; max = [2.0, 0.0]; } );\n",
     5, "geometry[1]", "obstacle outside the domain"},
    {"tank_walls_outside_domain",
     NUM "simulation = { domain_min = [0, 0]; domain_max = [2, 2]; };\n"
         "geometry = (\n  { type = \"tank\"; min = [0, 0]; max = [1, 1]; },\n"
         "  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; } );\n",
     4, "geometry[0]", "tank outside the domain: the tank with its walls, [-0.3, -0.3]..[1.3, 1], is not inside"},
    {"thin_fluid",
     NUM "geometry = (\n  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; },\n"
         "  { type = \"fluid\"; min = [2.0, 0.0]; max = [3.0, 0.05]; } );\n",
     4, "geometry[1]", "empty geometry: the fluid box is 0.05 m thick in y"},
    /* found by tests/fuzz_scenes.c: a huge box was blamed on numerics.spacing, with no line */
    {"box_too_many_particles",
     NUM "geometry = (\n  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; },\n"
         "  { type = \"fluid\"; min = [-1e308, 2.0]; max = [1e308, 3.0]; } );\n",
     4, "geometry[1]", "makes more particles than a double can count in all, more than the 2147483646"},
    {"boxes_too_many_particles", "numerics = { spacing = 1e-5; };\n" GEO, 2, "geometry[0]",
     "at numerics.spacing = 1e-5 m makes about 1e10 particles in all"},
    /* probes and grid */
    {"probes_is_scalar", NUM GEO "probes = 1;\n", 3, "probes", "expected a group"},
    {"probes_unknown_key", NUM GEO "probes = {\n  intervall = 0.1; };\n", 4, "probes.intervall",
     "did you mean 'interval'?"},
    {"probes_interval_negative", NUM GEO "probes = { interval = -0.1; };\n", 3, "probes.interval",
     "-0.1 is out of range (accepted: 0, or a number 1e-9..1e6, in s)"},
    {"probes_nothing", NUM GEO "probes = { energy = false; };\n", 3, "probes", "the group measures nothing"},
    {"probes_pressure_not_list", NUM GEO "probes = { pressure = [0.5, 0.5]; };\n", 3, "probes.pressure",
     "expected a list"},
    {"probes_item_not_group", NUM GEO "probes = { pressure = ( 1 ); };\n", 3, "probes.pressure[0]",
     "expected a group { name = ...; at = [...]; }"},
    {"probes_item_unknown_key", NUM GEO "probes = { pressure = (\n { name = \"a\"; pos = [0.5, 0.5]; } ); };\n", 4,
     "probes.pressure[0].pos", "unknown key (accepted: name, at, normal, offset)"},
    {"probes_missing_name", NUM GEO "probes = { pressure = (\n { at = [0.5, 0.5]; } ); };\n", 4,
     "probes.pressure[0].name", "required key is missing"},
    {"probes_bad_name", NUM GEO "probes = { pressure = ( { name = \"P 1\"; at = [0.5, 0.5]; } ); };\n", 3,
     "probes.pressure[0].name", "\"P 1\" is not a usable name (accepted: a list of at most 64 items"},
    {"probes_missing_at", NUM GEO "probes = { gauges = (\n { name = \"a\"; } ); };\n", 4, "probes.gauges[0].at",
     "required key is missing"},
    {"probes_at_length", NUM GEO "probes = { pressure = ( { name = \"a\";\n at = [0.5]; } ); };\n", 4,
     "probes.pressure[0].at", "has 1 number, but simulation.dimension = 2 needs 2 here"},
    {"probes_gauge_length", NUM GEO "probes = { gauges = ( { name = \"a\"; at = [0.5, 0.5]; } ); };\n", 3,
     "probes.gauges[0].at", "needs 1 here (accepted: a list of at most 64 items ( { name = \"...\"; at = [x]; }"},
    {"probes_at_string", NUM GEO "probes = { pressure = ( { name = \"a\"; at = [\"x\", \"y\"]; } ); };\n", 3,
     "probes.pressure[0].at", "component x: expected a number, got the string \"x\""},
    {"probes_outside", NUM GEO "probes = { pressure = (\n { name = \"a\"; at = [0.5, 1.5]; } ); };\n", 4,
     "probes.pressure[0].at", "component y = 1.5 lies outside the scene [0, 0]..[1, 1]"},
    {"probes_duplicate_name",
     NUM GEO "probes = { pressure = ( { name = \"a\"; at = [0.5, 0.5]; } );\n gauges = ( { name = \"a\"; at = 0.5; } ); };\n",
     4, "probes.gauges[0].name", "\"a\" is already the name of probes.pressure[0] (line 3)"},
    {"probes_front_z_in_2d", NUM GEO "probes = {\n front = \"+z\"; };\n", 4, "probes.front",
     "\"+z\" needs simulation.dimension = 3"},
    {"probes_front_typo", NUM GEO "probes = { front = \"x\"; };\n", 3, "probes.front",
     "\"x\" is not accepted; did you mean '+x'? (accepted: one of \"none\", \"+x\", \"-x\""},
    {"grid_order", NUM GEO "grid = {\n order = 5; };\n", 4, "grid.order", "5 is out of range (accepted: an integer 1..4)"},
    {"grid_spacing", NUM GEO "grid = { spacing = -1.0; };\n", 3, "grid.spacing",
     "-1 is out of range (accepted: 0, or a number > 0 and <= 10, in m)"},
    {"grid_no_fields", NUM GEO "grid = {\n fields = []; };\n", 4, "grid.fields", "no field listed"},
    {"grid_bad_field", NUM GEO "grid = { fields = [\"mass\"]; };\n", 3, "grid.fields", "\"mass\" is not a field name"},
    {"grid_method", NUM GEO "grid = { method = \"atomic\"; };\n", 3, "grid.method",
     "(accepted: one of \"auto\", \"particle\", \"mesh\")"},
    {"tanks_overlap",
     NUM "geometry = (\n  { type = \"tank\"; min = [0, 0]; max = [1, 1]; },\n"
         "  { type = \"tank\"; min = [1.5, 0.0]; max = [2.5, 1.0]; },\n"
         "  { type = \"fluid\"; min = [0, 0]; max = [1, 1]; } );\n",
     4, "geometry[1]", "overlap those of the tank geometry[0] (line 3)"},
    /* moving walls: a tank's `motion` group (line 4 in MOTION_TANK) */
    {"motion_in_fluid",
     NUM "geometry = (\n  { type = \"fluid\"; min = [0.0, 0.0]; max = [1.0, 1.0];\n"
         "    motion = { law = \"gate\"; velocity = [0.0, 1.0]; }; } );\n",
     4, "geometry[0].motion", "not used by a fluid item (accepted: only in tank, obstacle items)"},
    {"motion_not_group", MOTION_TANK_RAW("motion = 1;"), 4, "geometry[0].motion",
     "expected a group { ... }, got the integer 1 (accepted: a group { key = value; ... } of the keys law, amplitude"},
    {"motion_unknown_key", MOTION_TANK("law = \"sine\"; amplitud = [0.1, 0.0]; frequency = 1.0;"), 4,
     "geometry[0].motion.amplitud", "unknown key; did you mean 'amplitude'?"},
    {"motion_no_law", MOTION_TANK("amplitude = [0.1, 0.0]; frequency = 1.0;"), 4, "geometry[0].motion.law",
     "required key is missing (accepted: one of \"none\", \"sine\", \"rotation\", \"gate\")"},
    {"motion_bad_law", MOTION_TANK("law = \"slosh\";"), 4, "geometry[0].motion.law",
     "\"slosh\" is not accepted"},
    {"motion_key_of_other_law", MOTION_TANK("law = \"gate\"; velocity = [0.0, 1.0]; amplitude = [0.1, 0.0];"), 4,
     "geometry[0].motion.amplitude", "not used by the gate law (accepted: only with law sine)"},
    {"motion_missing_amplitude", MOTION_TANK("law = \"sine\"; frequency = 1.0;"), 4, "geometry[0].motion.amplitude",
     "required key is missing for the sine law (accepted: a displacement amplitude"},
    {"motion_missing_pivot", MOTION_TANK("law = \"rotation\"; angle = 5.0; period = 2.0;"), 4,
     "geometry[0].motion.pivot", "required key is missing for the rotation law (accepted: a point"},
    {"motion_missing_velocity", MOTION_TANK("law = \"gate\"; start = 0.1;"), 4, "geometry[0].motion.velocity",
     "required key is missing for the gate law"},
    {"motion_frequency_and_period", MOTION_TANK("law = \"sine\"; amplitude = [0.1, 0.0]; frequency = 1.0; period = 1.0;"),
     4, "geometry[0].motion.period", "given with frequency (accepted: frequency or period, not both)"},
    {"motion_no_frequency", MOTION_TANK("law = \"sine\"; amplitude = [0.1, 0.0];"), 4,
     "geometry[0].motion.frequency", "required key is missing for the sine law (accepted: frequency in Hz > 0"},
    {"motion_frequency_negative", MOTION_TANK("law = \"sine\"; amplitude = [0.1, 0.0]; frequency = -1.0;"), 4,
     "geometry[0].motion.frequency", "-1 is out of range (accepted: a number > 0 and <= 1e4, in Hz)"},
    {"motion_angle_range", MOTION_TANK("law = \"rotation\"; angle = 200.0; period = 2.0; pivot = [0.5, 0.0];"), 4,
     "geometry[0].motion.angle", "200 is out of range (accepted: a number > 0 and <= 180, in degrees)"},
    {"motion_amplitude_length", MOTION_TANK("law = \"sine\"; amplitude = [0.1]; frequency = 1.0;"), 4,
     "geometry[0].motion.amplitude", "has 1 number, but simulation.dimension = 2 needs 2"},
    {"motion_stop_before_start",
     MOTION_TANK("law = \"gate\"; velocity = [0.0, 1.0]; start = 1.0; stop = 0.5;"), 4,
     "geometry[0].motion.stop", "0.5 s is not after start = 1 s (accepted: stop > start)"},
    {"motion_ramp_too_long", MOTION_TANK("law = \"gate\"; velocity = [0.0, 1.0]; stop = 0.1; ramp = 0.06;"), 4,
     "geometry[0].motion.ramp", "0.06 s of ramp at each end do not fit in start..stop = 0.1 s (accepted: 2 ramp"},
    {"motion_axis_in_2d", MOTION_TANK("law = \"rotation\"; angle = 5.0; period = 2.0; pivot = [0.5, 0.0]; "
                                      "axis = [0.0, 1.0];"),
     4, "geometry[0].motion.axis", "not used in 2D (accepted: only with simulation.dimension = 3"},
    {"motion_axis_zero",
     "simulation = { dimension = 3; };\n" NUM "geometry = (\n  { type = \"tank\"; min = [0.0, 0.0, 0.0]; "
     "max = [1.0, 1.0, 1.0];\n    motion = { law = \"rotation\"; angle = 5.0; period = 2.0; pivot = [0.5, 0.5, 0.0];"
     "\n axis = [0.0, 0.0, 0.0]; }; },\n  { type = \"fluid\"; min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 0.5]; } );\n",
     6, "geometry[0].motion.axis", "has no direction (accepted: a vector [x, y, z], numbers not all 0)"},
    {"motion_outside_domain",
     "simulation = { domain_min = [-0.5, -0.5]; domain_max = [1.5, 2.0]; };\n"
         MOTION_TANK("law = \"sine\"; amplitude = [0.2, 0.0]; frequency = 1.0;"),
     5, "geometry[0]", "the tank's motion takes it outside the domain: it sweeps [-0.7, -0.3]..[1.7, 1]"},
    {"motion_of_plane",
     "simulation = { domain_min = [-0.5, -0.5]; domain_max = [1.5, 2.0]; };\n" NUM
     "geometry = (\n  { type = \"tank\"; shape = \"plane\"; point = [0.0, 0.0]; normal = [0.0, 1.0];\n"
     "    motion = { law = \"gate\"; velocity = [0.0, 1.0]; }; },\n"
     "  { type = \"fluid\"; min = [0.0, 0.0]; max = [1.0, 0.5]; } );\n",
     5, "geometry[0].motion", "not used by a plane item (accepted: only with shape box, mesh, cylinder, sphere, wedge)"},
};

static void test_bad_case(void **state)
{
    const bad_case *c = *state;
    scene sc;
    sl_err err = {{0}};
    int rc = scene_load_string(&sc, c->text, "bad.cfg", &err);
    if (rc != SL_ERR_INPUT)
        fail_msg("%s: expected SL_ERR_INPUT, got %d (%s)", c->name, rc, rc == SL_OK ? "accepted" : err.msg);
    assert_one_line(err.msg, "bad.cfg");
    char want[64];
    if (c->line > 0)
        snprintf(want, sizeof want, "bad.cfg:%d: ", c->line);
    else
        snprintf(want, sizeof want, "bad.cfg: ");
    assert_int_equal(strncmp(err.msg, want, strlen(want)), 0);
    if (c->key) {
        char key[96];
        snprintf(key, sizeof key, "key '%s': ", c->key);
        assert_msg_has(err.msg, key);
    }
    if (c->frag)
        assert_msg_has(err.msg, c->frag);
    assert_null(sc.text);
    assert_null(sc.geom);
    assert_int_equal(sc.ngeom, 0);
    scene_free(&sc);
}

/* ---- robustness ------------------------------------------------------------------------- */

static uint32_t rng_state = 12345u;

static uint32_t rng(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static void load_anything(const char *text, const char *name)
{
    scene sc;
    sl_err err = {{0}};
    int rc = scene_load_string(&sc, text, name, &err);
    if (rc == SL_OK) {
        assert_non_null(sc.text);
        assert_true(sc.ngeom >= 1);
        scene_free(&sc);
        return;
    }
    if (rc != SL_ERR_INPUT)
        fail_msg("status %d for input \"%.60s\"", rc, text);
    assert_one_line(err.msg, name);
    assert_null(sc.text);
    assert_null(sc.geom);
}

static void test_fuzz(void **state)
{
    (void)state;
    size_t len = strlen(full_scene);
    char *buf = malloc(len + 1);
    assert_non_null(buf);

    /* every truncation of a valid scene */
    int ok = 0;
    for (size_t n = 0; n <= len; ++n) {
        memcpy(buf, full_scene, n);
        buf[n] = '\0';
        scene sc;
        sl_err err = {{0}};
        int rc = scene_load_string(&sc, buf, "fuzz.cfg", &err);
        assert_true(rc == SL_OK || rc == SL_ERR_INPUT);
        if (rc == SL_OK) {
            ++ok;
            scene_free(&sc);
        } else {
            assert_one_line(err.msg, "fuzz.cfg");
            assert_null(sc.text);
            assert_null(sc.geom);
        }
    }
    assert_true(ok >= 1); /* at least the whole scene */

    /* the valid scene with a few bytes changed */
    static const char alphabet[] = "{}()[];,=:\"#/*.-+0123456789eExLtrufalsyp \n\t\\@";
    for (int i = 0; i < 1500; ++i) {
        memcpy(buf, full_scene, len + 1);
        int edits = 1 + (int)(rng() % 3);
        for (int k = 0; k < edits; ++k) {
            size_t at = rng() % len;
            buf[at] = (rng() % 4 == 0) ? (char)(1 + rng() % 255) : alphabet[rng() % (sizeof alphabet - 1)];
        }
        load_anything(buf, "fuzz.cfg");
    }

    /* random byte strings (no NUL: scene_load_string takes a C string) */
    char rnd[400];
    for (int i = 0; i < 400; ++i) {
        size_t n = rng() % (sizeof rnd - 1);
        for (size_t k = 0; k < n; ++k)
            rnd[k] = (i % 2) ? (char)(1 + rng() % 255) : alphabet[rng() % (sizeof alphabet - 1)];
        rnd[n] = '\0';
        load_anything(rnd, "fuzz.cfg");
    }

    /* deep nesting and long names */
    char *deep = malloc(20001);
    assert_non_null(deep);
    memset(deep, '(', 20000);
    deep[20000] = '\0';
    load_anything(deep, "fuzz.cfg");
    memcpy(deep, "a = ", 4);
    memset(deep + 4, '[', 19996);
    load_anything(deep, "fuzz.cfg");
    memset(deep, 'k', 20000);
    memcpy(deep + 19990, " = 1;\n", 7);
    load_anything(deep, "fuzz.cfg");
    free(deep);

    /* binary garbage through a file, with NUL bytes */
    for (int i = 0; i < 20; ++i) {
        size_t n = 1 + rng() % 300;
        for (size_t k = 0; k < n; ++k)
            rnd[k] = (char)(rng() % 256);
        char *path = write_temp(rnd, n);
        scene sc;
        sl_err err = {{0}};
        int rc = scene_load(&sc, path, &err);
        assert_int_equal(rc, SL_ERR_INPUT);
        assert_one_line(err.msg, path);
        assert_null(sc.text);
        unlink(path);
        free(path);
    }
    free(buf);
}

static void test_name_tables(void **state)
{
    (void)state;
    assert_string_equal(scene_kernel_name(KERNEL_WENDLAND_C2), "wendland");
    assert_string_equal(scene_kernel_name(KERNEL_CUBIC_SPLINE), "cubic");
    assert_string_equal(scene_integrator_name(INTEGRATOR_SYMPLECTIC), "symplectic");
    assert_string_equal(scene_integrator_name(INTEGRATOR_VERLET), "verlet");
    assert_string_equal(scene_viscosity_name(VISCOSITY_ARTIFICIAL), "artificial");
    assert_string_equal(scene_viscosity_name(VISCOSITY_LAMINAR), "laminar");
    assert_string_equal(scene_kernel_name((enum kernel_kind)7), "unknown");
}

static void test_null_arguments(void **state)
{
    (void)state;
    scene sc;
    sl_err err = {{0}};
    assert_int_equal(scene_load(&sc, NULL, &err), SL_ERR_INPUT);
    assert_true(err.msg[0] != '\0');
    assert_int_equal(scene_load_string(&sc, NULL, "x.cfg", &err), SL_ERR_INPUT);
    assert_null(sc.text);
    assert_int_equal(scene_load_string(&sc, minimal_scene, "x.cfg", NULL), SL_OK); /* err may be NULL */
    scene_free(&sc);
    assert_int_equal(scene_load_string(&sc, "x = 1;", "x.cfg", NULL), SL_ERR_INPUT);
    scene_free(NULL);
}

#define NBAD (sizeof bad_cases / sizeof bad_cases[0])

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_minimal_defaults),
        cmocka_unit_test(test_scene_defaults),
        cmocka_unit_test(test_full_scene),
        cmocka_unit_test(test_3d_scene),
        cmocka_unit_test(test_probes_and_grid),
        cmocka_unit_test(test_lenient_forms),
        cmocka_unit_test(test_touching_boxes),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_directory),
        cmocka_unit_test(test_nul_bytes),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_too_many_items),
        cmocka_unit_test(test_bad_scene_files),
        cmocka_unit_test(test_shipped_scenes),
        cmocka_unit_test(test_fuzz),
        cmocka_unit_test(test_name_tables),
        cmocka_unit_test(test_null_arguments),
    };
    enum { NFIXED = sizeof fixed / sizeof fixed[0] };
    static struct CMUnitTest tests[NFIXED + NBAD];
    static char names[NBAD][64];
    size_t n = 0;
    for (size_t i = 0; i < NFIXED; ++i)
        tests[n++] = fixed[i];
    for (size_t i = 0; i < NBAD; ++i) {
        const bad_case *c = &bad_cases[i];
        struct CMUnitTest t = cmocka_unit_test_prestate(test_bad_case, (void *)c);
        snprintf(names[i], sizeof names[i], "error_%s", c->name);
        t.name = names[i];
        tests[n++] = t;
    }
    return _cmocka_run_group_tests("scene", tests, n, NULL, NULL);
}
