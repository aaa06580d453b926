/* test_floating.c: floating bodies (core/floating.c, boundary/floating.h, physics/rigid_body.h): the
 * scene keys' errors, the mass properties from the filled lattice, a free rigid rotation, Archimedes
 * in 2D, momentum with no gravity, an exact restart, and the shipped 3D dam break at a coarse size. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/scene.h"
#include "core/floating.h"
#include "core/sim.h"
#include "physics/rigid_body.h"
#include "run/engine.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* ---- scene keys ------------------------------------------------------------------------------ */

#define HEAD2 "simulation = { method = \"%s\"; dimension = 2; end_time = 1.0; };\n" \
              "fluid = { density = 1000.0; gravity = [0.0, -9.81]; sound_speed_coef = 10.0; };\n" \
              "numerics = { spacing = 0.02; };\n"

/* Each bad `floating` group gets its one-line message naming the key. */
static void test_scene_errors(void **state)
{
    (void)state;
    static const struct {
        const char *method, *body, *key, *what;
    } cases[] = {
        {"wcsph", "floating = { mass = -1.0; };", "geometry[2].floating.mass", "-1 is not a mass (accepted: a mass in kg > 0"},
        {"wcsph", "floating = { mass = 0.0; };", "geometry[2].floating.mass", "0 is not a mass"},
        {"wcsph", "floating = { density = 0.0; };", "geometry[2].floating.density", "0 is not a density"},
        {"wcsph", "floating = { mass = 1.0; density = 500.0; };", "geometry[2].floating.mass", "given with density"},
        {"wcsph", "floating = { center = [0.3, 0.3]; };", "geometry[2].floating.density", "required key is missing"},
        {"wcsph", "floating = { mass = 1.0; inertia = -0.1; };", "geometry[2].floating.inertia", "is not positive definite"},
        {"wcsph", "floating = { mass = 1.0; fixed_rotation = [\"w\"]; };", "geometry[2].floating.fixed_rotation", ""},
        {"wcsph", "floating = { mass = 1.0; }; motion = { law = \"sine\"; amplitude = [0.1, 0.0]; frequency = 1.0; };",
         "geometry[2].floating", "given with a prescribed motion"},
    };
    char text[2048];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        snprintf(text, sizeof text, HEAD2 "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [1.0, 1.0]; },\n"
                 "  { type = \"fluid\"; min = [0.0, 0.0]; max = [1.0, 0.2]; },\n"
                 "  { type = \"obstacle\"; min = [0.4, 0.4]; max = [0.6, 0.6]; %s } );\n", cases[k].method,
                 cases[k].body);
        scene sc;
        sl_err err;
        int rc = scene_load_string(&sc, text, "bad.cfg", &err);
        if (rc == SL_OK)
            scene_free(&sc);
        char want[160];
        snprintf(want, sizeof want, "key '%s': %s", cases[k].key, cases[k].what);
        if (rc != SL_ERR_INPUT || !strstr(err.msg, want) || !strstr(err.msg, "(accepted: ") || strchr(err.msg, '\n'))
            fail_msg("case %zu: got '%s', wanted one line with \"%s\" and the accepted values", k,
                     rc ? err.msg : "no error", want);
    }
    /* MPS and explicit MPS carry floating bodies with the MPS operators, not with LSMPS's */
    snprintf(text, sizeof text, HEAD2 "mps = { operators = \"lsmps\"; };\n"
             "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [1.0, 1.0]; },\n"
             "  { type = \"fluid\"; min = [0.0, 0.0]; max = [1.0, 0.2]; },\n"
             "  { type = \"obstacle\"; min = [0.4, 0.4]; max = [0.6, 0.6]; floating = { mass = 1.0; }; } );\n", "emps");
    {
        scene sc;
        sl_err err;
        int rc = scene_load_string(&sc, text, "bad.cfg", &err);
        if (rc == SL_OK)
            scene_free(&sc);
        if (rc != SL_ERR_INPUT || !strstr(err.msg, "key 'geometry[2].floating': not yet with mps.operators = \"lsmps\"") ||
            !strstr(err.msg, "(accepted: ") || strchr(err.msg, '\n'))
            fail_msg("lsmps case: got '%s'", rc ? err.msg : "no error");
    }
    /* 3D: principal moments that no body has */
    snprintf(text, sizeof text, "simulation = { method = \"wcsph\"; dimension = 3; end_time = 1.0; };\n"
             "fluid = { density = 1000.0; gravity = [0.0, 0.0, -9.81]; sound_speed_coef = 10.0; };\n"
             "numerics = { spacing = 0.05; };\n"
             "geometry = ( { type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0]; },\n"
             "  { type = \"fluid\"; min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 0.2]; },\n"
             "  { type = \"obstacle\"; min = [0.4, 0.4, 0.4]; max = [0.6, 0.6, 0.6];"
             "    floating = { mass = 1.0; inertia = [1.0, 1.0, 3.0]; }; } );\n");
    scene sc;
    sl_err err;
    int rc = scene_load_string(&sc, text, "bad.cfg", &err);
    if (rc == SL_OK)
        scene_free(&sc);
    assert_int_equal(rc, SL_ERR_INPUT);
    assert_non_null(strstr(err.msg, "key 'geometry[2].floating.inertia': is not positive definite"));
    /* a body outside the domain, and two bodies overlapping at the start */
    static const char *const geoms[][2] = {
        {"{ type = \"obstacle\"; min = [0.4, 1.2]; max = [0.6, 1.4]; floating = { mass = 1.0; }; }",
         "key 'geometry[2].floating': body outside the domain"},
        {"{ type = \"obstacle\"; min = [0.4, 0.4]; max = [0.6, 0.6]; floating = { mass = 1.0; }; },\n"
         "{ type = \"obstacle\"; min = [0.5, 0.5]; max = [0.7, 0.7]; floating = { mass = 1.0; }; }",
         "key 'geometry[3].floating': the body [0.5, 0.5]..[0.7, 0.7] overlaps the floating body geometry[2]"},
    };
    for (size_t k = 0; k < 2; ++k) {
        snprintf(text, sizeof text, HEAD2 "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [1.0, 1.0]; },\n"
                 "  { type = \"fluid\"; min = [0.0, 0.0]; max = [1.0, 0.2]; },\n %s );\n", "wcsph", geoms[k][0]);
        rc = scene_load_string(&sc, text, "bad.cfg", &err);
        if (rc == SL_OK)
            scene_free(&sc);
        if (rc != SL_ERR_INPUT || !strstr(err.msg, geoms[k][1]) || !strstr(err.msg, "(accepted: "))
            fail_msg("geometry case %zu: got '%s', wanted \"%s\"", k, rc ? err.msg : "no error", geoms[k][1]);
    }
}

/* ---- mass properties ------------------------------------------------------------------------- */

/* A box's filled lattice gives the box's own mass, centre and inertia: each point a cell of side dp,
 * sum (i + 1/2)^2 - n (n/2)^2 over n points plus n/12 makes n^3/12 exactly, so only round-off
 * (1e-12 relative) is allowed. A cylinder's (3D) within 3% of pi r^2 L density and its moments: at
 * r = 5 dp the lattice's staircase edge is that far off (measured 1.8%), and its moments, which go as
 * r^4, within 6% (measured 4.8% and 3.1%). */
static void test_mass_properties(void **state)
{
    (void)state;
    scene sc;
    sim s;
    load_sim_string("simulation = { method = \"wcsph\"; dimension = 2; end_time = 1.0; };\n"
                "fluid = { density = 1000.0; gravity = [0.0, -9.81]; sound_speed_coef = 10.0; };\n"
                "numerics = { spacing = 0.02; };\n" "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [1.0, 1.0]; },\n"
                "  { type = \"fluid\"; min = [0.0, 0.0]; max = [1.0, 0.2]; },\n"
                "  { type = \"obstacle\"; min = [0.2, 0.4]; max = [0.6, 0.6]; floating = { density = 500.0; }; } );\n",
                &sc, &s);
    rigid_body_props b;
    sl_err err;
    assert_int_equal(floating_mass_properties(&s, 2, &b, &err), SL_OK);
    double M = 500.0 * 0.4 * 0.2;
    assert_true(fabs(b.mass - M) < 1e-12 * M);
    assert_true(fabs(b.com0[0] - 0.4) < 1e-12 && fabs(b.com0[1] - 0.5) < 1e-12);
    double Izz = M * (0.4 * 0.4 + 0.2 * 0.2) / 12.0;
    assert_true(fabs(b.inertia0[2][2] - Izz) < 1e-12 * Izz);
    sim_free(&s);
    scene_free(&sc);

    load_sim_string("simulation = { method = \"wcsph\"; dimension = 3; end_time = 1.0; };\n"
                "fluid = { density = 1000.0; gravity = [0.0, 0.0, -9.81]; sound_speed_coef = 10.0; };\n"
                "numerics = { spacing = 0.02; };\n"
                "geometry = ( { type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [1.0, 0.4, 0.6]; },\n"
                "  { type = \"fluid\"; min = [0.0, 0.0, 0.0]; max = [1.0, 0.4, 0.1]; },\n"
                "  { type = \"obstacle\"; shape = \"cylinder\"; center = [0.5, 0.2, 0.3]; radius = 0.1; length = 0.2;"
                "    axis = \"x\"; floating = { density = 800.0; }; } );\n", &sc, &s);
    assert_int_equal(floating_mass_properties(&s, 2, &b, &err), SL_OK);
    M = 800.0 * PI * 0.01 * 0.2;
    double Ixx = M * 0.01 / 2, Iyy = M * (3 * 0.01 + 0.04) / 12;
    if (fabs(b.mass / M - 1) > 0.03 || fabs(b.inertia0[0][0] / Ixx - 1) > 0.06 || fabs(b.inertia0[1][1] / Iyy - 1) > 0.06)
        fail_msg("cylinder: mass %g (%g), Ixx %g (%g), Iyy %g (%g)", b.mass, M, b.inertia0[0][0], Ixx,
                 b.inertia0[1][1], Iyy);
    assert_true(fabs(b.com0[0] - 0.5) < 1e-9 && fabs(b.com0[1] - 0.2) < 1e-9 && fabs(b.com0[2] - 0.3) < 1e-9);
    sim_free(&s);
    scene_free(&sc);
}

/* ---- the integrator alone -------------------------------------------------------------------- */

/* Torque-free rotation of an asymmetric body: the predictor-corrector keeps |L| and the energy
 * within 1e-4 over 1000 steps of 1/200 of the fastest period (second order: the error falls as dt^2),
 * and a body with no force or torque moves in a straight line exactly. */
static void test_free_rotation(void **state)
{
    (void)state;
    rigid_body_props b;
    memset(&b, 0, sizeof b);
    b.mass = 2.0;
    double I[3] = {1.0, 2.0, 2.5};
    for (int a = 0; a < 3; ++a) {
        b.inertia0[a][a] = I[a];
        b.inv_inertia0[a][a] = 1.0 / I[a];
    }
    rigid_body_state s0, s = {{0, 0, 0}, {0.5, 0, 0}, {1, 0, 0, 0}, {0.1, 3.0, 0.2}};
    const double zero[3] = {0, 0, 0};
    double dt = 2 * PI / 3.0 / 200;
    double L0 = 0, E0 = 0;
    for (int a = 0; a < 3; ++a) {
        L0 += I[a] * I[a] * s.w[a] * s.w[a];
        E0 += 0.5 * I[a] * s.w[a] * s.w[a];
    }
    for (int k = 0; k < 1000; ++k) {
        s0 = s;
        rigid_body_predict(&b, &s0, &s, zero, zero, zero, dt);
        rigid_body_correct(&b, &s0, &s, zero, zero, zero, dt);
    }
    double r[3][3], Lw[3], L = 0, E = 0;
    rigid_quat_matrix(s.q, r);
    rigid_turned_product(r, b.inertia0, s.w, Lw);
    for (int a = 0; a < 3; ++a) {
        L += Lw[a] * Lw[a];
        E += 0.5 * Lw[a] * s.w[a];
    }
    if (fabs(sqrt(L / L0) - 1) > 1e-4 || fabs(E / E0 - 1) > 1e-4)
        fail_msg("|L| %.9g of %.9g, energy %.9g of %.9g", sqrt(L), sqrt(L0), E, E0);
    assert_true(fabs(s.x[0] - 0.5 * 1000 * dt) < 1e-12 && s.x[1] == 0 && s.x[2] == 0);
}

/* ---- runs ------------------------------------------------------------------------------------ */

/* A box of H = 0.1 m and density 500 in a 0.6 m wide tank of water 0.2 m deep, its lower half in the
 * water. */
#define ARCH_SCENE                                                                                      \
    "simulation = { method = \"wcsph\"; dimension = 2; end_time = 3.0; };\n"                             \
    "fluid = { density = 1000.0; gravity = [0.0, %s]; sound_speed_coef = 10.0; };\n"                     \
    "numerics = { spacing = 0.01; integrator = \"symplectic\"; viscosity = \"artificial\"; alpha = 0.1; "  \
    "delta = 0.1; };\n"                                                                                   \
    "geometry = (\n"                                                                                      \
    "  { type = \"tank\"; min = [0.0, 0.0]; max = [0.6, 0.4]; layers = 3; },\n"                           \
    "  { type = \"fluid\"; min = [0.0, 0.0]; max = [0.25, 0.2]; },\n"                                     \
    "  { type = \"fluid\"; min = [0.35, 0.0]; max = [0.6, 0.2]; },\n"                                     \
    "  { type = \"fluid\"; min = [0.25, 0.0]; max = [0.35, 0.15]; },\n"                                   \
    "  { type = \"obstacle\"; min = [0.25, 0.15]; max = [0.35, 0.25]; layers = 3;\n"                      \
    "    floating = { density = 500.0; %s }; } );\n"                                                       \
    "output = { interval = 0.1; };\n"

/* The free surface's height away from the body and the walls: the highest fluid particle of each
 * spacing-wide column in x in [0.05, 0.2] and [0.4, 0.55], plus half a spacing, averaged. */
static double water_level(const sim *s)
{
    double dp = s->sc->dp, top[64], sum = 0;
    int n = 0;
    for (int k = 0; k < 64; ++k)
        top[k] = -INFINITY;
    for (size_t i = 0; i < s->p.n; ++i) {
        double x = s->p.f[PF_X][i];
        if (s->p.type[i] != PT_FLUID || !((x > 0.05 && x < 0.2) || (x > 0.4 && x < 0.55)))
            continue;
        int k = (int)(x / dp) % 64;
        top[k] = fmax(top[k], s->p.f[PF_Y][i]);
    }
    for (int k = 0; k < 64; ++k)
        if (isfinite(top[k])) {
            sum += top[k] + 0.5 * dp;
            n++;
        }
    return sum / n;
}

/* Archimedes: a box of half the water's density floats with half its height submerged, so its
 * centre sits at the water level. Released at that place (the theory's: 5 cm under a level of
 * 0.2 m), the box must stay there: asserted, the centre's mean over t in [0.5, 1.5] s less the mean
 * free-surface height away from the body (water_level) within 2% of H = 0.1 m (2 mm = 0.2 spacings:
 * the free surface read from the particles is good to a fraction of a spacing, and the dynamic
 * boundary keeps the fluid a fraction of a spacing off the body's particles, which shifts the
 * displaced area by as much; measured 0.35%), the centre within 1% of H of its mean level throughout
 * (measured range 0.17%), and the box neither drifts sideways nor turns (the scene is symmetric). */
#define ARCH_TOL 0.02

static void test_archimedes_2d(void **state)
{
    (void)state;
    char text[2048];
    snprintf(text, sizeof text, ARCH_SCENE, "-9.81", "");
    scene sc;
    sim s;
    load_sim_string(text, &sc, &s);
    double H = 0.1, t_end = env_flag("SLUICE_TEST_SMALL") ? 0.1 : 1.5;
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    int n = 0;
    while (s.t < t_end) {
        run_until(&s, s.t + 0.01);
        if (s.t >= 0.5) {
            double y = s.floating->state[0].x[1];
            lo = fmin(lo, y);
            hi = fmax(hi, y);
            sum += y - water_level(&s);
            n++;
        }
    }
    const rigid_body_state *b = &s.floating->state[0];
    double angle = 2 * asin(fabs(b->q[3]));
    double off = n ? sum / n : 0;
    print_message("archimedes 2D: mean centre - water level %.5f m (%.2f%% of H) over t in [0.5, %.2f] s; centre "
                  "range %.5f..%.5f (%.2f%% of H); x %.6f; angle %.2e rad\n",
                  off, 100 * off / H, s.t, lo, hi, 100 * (hi - lo) / H, b->x[0], angle);
    if (n) {
        assert_true(fabs(off) < ARCH_TOL * H);
        assert_true(hi - lo < 0.01 * H);
    }
    assert_true(fabs(b->x[0] - 0.3) < 1e-3 * H && angle < 1e-3);
    sim_free(&s);
    scene_free(&sc);
}

/* Momentum: no gravity and no walls: a block of water 0.6 x 0.4 m with a body 0.1 m square inside it,
 * moving at 0.5 m/s. The body and the fluid exchange equal and opposite forces (boundary/floating.h:
 * the same pair terms, equal particle masses), and the symplectic updates of both are linear in them,
 * so the total momentum stays at its start up to round-off: asserted within 1e-5 of the body's
 * initial momentum over 1,000 steps (float fields: 1e-7 per step of a sum of that size, growing as
 * the square root of the steps), while the body hands more than 5% of it to the water. */
#define MOMENTUM_SCENE                                                                                  \
    "simulation = { method = \"wcsph\"; dimension = 2; end_time = 1.0; domain_min = [-0.2, -0.2];"       \
    " domain_max = [0.8, 0.6]; };\n"                                                                     \
    "fluid = { density = 1000.0; gravity = [0.0, 0.0]; sound_speed = 10.0; };\n"                          \
    "numerics = { spacing = 0.02; integrator = \"symplectic\"; viscosity = \"artificial\"; alpha = 0.1; "  \
    "delta = 0.1; };\n"                                                                                    \
    "geometry = (\n"                                                                                       \
    "  { type = \"fluid\"; min = [0.0, 0.0]; max = [0.24, 0.4]; },\n"                                     \
    "  { type = \"fluid\"; min = [0.36, 0.0]; max = [0.6, 0.4]; },\n"                                     \
    "  { type = \"fluid\"; min = [0.24, 0.0]; max = [0.36, 0.14]; },\n"                                   \
    "  { type = \"fluid\"; min = [0.24, 0.26]; max = [0.36, 0.4]; },\n"                                   \
    "  { type = \"obstacle\"; min = [0.26, 0.16]; max = [0.34, 0.24]; layers = 2;\n"                      \
    "    floating = { density = 700.0; velocity = [0.5, 0.2]; omega = 1.0; }; } );\n"

static void test_momentum_no_gravity(void **state)
{
    (void)state;
    scene sc;
    sim s;
    load_sim_string(MOMENTUM_SCENE, &sc, &s);
    double p0[2], p1[2], pb0 = s.floating->props[0].mass * s.floating->state[0].v[0];
    fluid_and_body_momentum_2d(&s, p0);
    long steps = test_steps(1000, 100);
    sl_err err;
    for (long k = 0; k < steps; ++k) {
        double dt;
        if (sim_time_step(&s, &dt, &err) || sim_step(&s, dt, &err))
            fail_msg("%s", err.msg);
        s.t += dt;
        s.step++;
    }
    fluid_and_body_momentum_2d(&s, p1);
    double pb = s.floating->props[0].mass * s.floating->state[0].v[0];
    double scale = hypot(p0[0], p0[1]), drift = hypot(p1[0] - p0[0], p1[1] - p0[1]);
    print_message("momentum over %ld steps (t = %.3f s): body x %.6g -> %.6g; total (%.9g, %.9g) -> (%.9g, %.9g): "
                  "%.2e of the start\n", steps, s.t, pb0, pb, p0[0], p0[1], p1[0], p1[1], drift / scale);
    assert_true(fabs(pb - pb0) > 0.05 * fabs(pb0));
    assert_true(drift < 1e-5 * scale);
    sim_free(&s);
    scene_free(&sc);
}

/* A run continued from a checkpoint ends bit-identical to the uninterrupted run: the bodies' state
 * travels in the checkpoint, their forces are taken again from the particles. */
static void keep_body(const sim *s, void *state)
{
    memcpy(state, &s->floating->state[0], sizeof(rigid_body_state));
}

static real *floating_steps(const char *dir, long steps, const char *restart, size_t *count, double *state)
{
    char text[2048];
    snprintf(text, sizeof text, ARCH_SCENE, "-9.81", "omega = 0.5; velocity = [0.1, 0.0];");
    return engine_steps_text(text, dir, steps, restart, count, keep_body, state);
}

static void test_restart_is_exact(void **state)
{
    (void)state;
    long half = test_steps(40, 10);
    char a[] = "/tmp/sluice_float_ra_XXXXXX", b[] = "/tmp/sluice_float_rb_XXXXXX";
    make_temp_dir(a);
    make_temp_dir(b);
    size_t na, nb;
    rigid_body_state sa, sb;
    real *straight = floating_steps(a, 2 * half, NULL, &na, (double *)&sa);
    free(floating_steps(b, half, NULL, &nb, (double *)&sb));
    char ck[256];
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", b);
    real *second = floating_steps(b, half, ck, &nb, (double *)&sb);
    assert_int_equal(na, nb);
    assert_memory_equal(straight, second, na * sizeof *straight);
    assert_memory_equal(&sa, &sb, sizeof sa);
    assert_true(sa.w[2] != 0.5 && sa.v[0] != 0.1); /* the body did move under the fluid's forces */
    free(straight);
    free(second);
    remove_tree(a);
    remove_tree(b);
}

/* scenes/dam_break_floating_3d.cfg at twice its spacing, to t = 0.5 s: the surge carries the box
 * downstream (its centre more than 0.1 m along x), it is not driven into the floor (its lowest
 * particle no lower than the contact distance, dp, above the floor's top layer at -dp/2, less a
 * quarter spacing of overlap) and no particle of it enters the fixed block or leaves the tank. */
static void test_dam_break_floating_3d(void **state)
{
    (void)state;
    scene sc;
    sim s;
    sl_err err;
    if (scene_load(&sc, SLUICE_SCENES "/dam_break_floating_3d.cfg", &err))
        fail_msg("%s", err.msg);
    sc.dp *= 2;
    if (sim_create(&s, &sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
    double x0 = s.floating->state[0].x[0], dp = sc.dp, zmin = INFINITY;
    double t_end = env_flag("SLUICE_TEST_SMALL") ? 0.05 : 0.5;
    int inside_block = 0, outside_tank = 0;
    while (s.t < t_end) {
        run_until(&s, s.t + 0.01);
        const real *body = s.p.f[s.args.motion.body];
        for (size_t i = 0; i < s.p.n; ++i) {
            if (body[i] != 0)
                continue;
            double x = s.p.f[PF_X][i], y = s.p.f[PF_Y][i], z = s.p.f[PF_Z][i];
            zmin = fmin(zmin, z);
            inside_block += x > 1.2 && x < 1.28 && y > 0.16 && y < 0.44 && z < 0.16;
            outside_tank += x < 0 || x > 1.6 || y < 0 || y > 0.6 || z < 0;
        }
    }
    const rigid_body_state *b = &s.floating->state[0];
    print_message("dam break 3D: box centre x %.4f -> %.4f m at t = %.2f s, lowest particle z %.4f m (dp %.2f), "
                  "in the block %d, outside the tank %d\n", x0, b->x[0], s.t, zmin, dp, inside_block, outside_tank);
    if (t_end >= 0.5)
        assert_true(b->x[0] - x0 > 0.1);
    assert_true(zmin > 0.5 * dp - 0.25 * dp);
    assert_int_equal(inside_block, 0);
    assert_int_equal(outside_tank, 0);
    sim_free(&s);
    scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scene_errors),
        cmocka_unit_test(test_mass_properties),
        cmocka_unit_test(test_free_rotation),
        cmocka_unit_test(test_restart_is_exact),
        cmocka_unit_test(test_momentum_no_gravity),
        cmocka_unit_test(test_archimedes_2d),
        cmocka_unit_test(test_dam_break_floating_3d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
