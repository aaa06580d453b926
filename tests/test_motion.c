/* test_motion.c: walls with prescribed motion (physics/rigid_motion.h, core/motion.c,
 * boundary/moving.c): the laws against their formulas and their own derivatives, the walls of a
 * run where the law puts them (WCSPH with both integrators, mDBC with a rotating tank, semi-implicit
 * and explicit MPS), an exact restart, and the shipped gate dam break at a coarse spacing. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/scene.h"
#include "core/motion.h"
#include "core/sim.h"
#include "physics/rigid_motion.h"
#include "run/engine.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the laws ------------------------------------------------------------------------------- */

/* Position of reference point r under law m at time t. */
static void place(const scene_motion *m, int dim, double t, const double r[3], double x[3], double v[3])
{
    rigid_xform T;
    rigid_law_eval(m, dim, t, &T);
    rigid_xform_point(&T, r, x, v);
}

/* The velocity the transform reports against the central difference of the positions, within 1e-7
 * of the law's peak speed vpeak: the quotient's truncation error e^2/6 |x'''| is below 1e-9 vpeak for
 * these laws (the gate's 0.05 s ramp: (pi / 0.05)^2 / 2 e^2 / 6 = 3e-10), its rounding 1e-16 |x| / e
 * about 1e-10. */
static void check_velocity(const scene_motion *m, int dim, double t, const double r[3], double vpeak)
{
    const double e = 1e-6;
    double x0[3], x1[3], x[3], v[3], dummy[3];
    place(m, dim, t - e, r, x0, dummy);
    place(m, dim, t + e, r, x1, dummy);
    place(m, dim, t, r, x, v);
    for (int a = 0; a < 3; ++a) {
        double fd = (x1[a] - x0[a]) / (2 * e);
        if (fabs(fd - v[a]) > 1e-7 * vpeak)
            fail_msg("law %d at t = %g: velocity[%d] = %.12g, the positions' difference quotient %.12g", m->law, t, a,
                     v[a], fd);
    }
}

static scene_motion law_none(void)
{
    scene_motion m;
    memset(&m, 0, sizeof m);
    m.stop = INFINITY;
    return m;
}

static void test_sine_law(void **state)
{
    (void)state;
    scene_motion m = law_none();
    m.law = MOTION_SINE;
    m.amplitude[0] = 0.02;
    m.amplitude[1] = -0.01;
    m.frequency = 0.8;
    m.phase = 30.0;
    m.start = 0.5;
    m.stop = 3.0;
    double om = 2 * RIGID_PI * 0.8, ph = RIGID_PI / 6, r[3] = {0.3, 0.7, 0.0}, x[3], v[3];
    place(&m, 2, 0.2, r, x, v); /* before start: where the file puts it, at rest */
    assert_true(x[0] == r[0] && x[1] == r[1] && v[0] == 0 && v[1] == 0);
    place(&m, 2, 0.5, r, x, v); /* at start: no displacement, exactly */
    assert_true(x[0] == r[0] && x[1] == r[1]);
    for (double t = 0.55; t < 3.0; t += 0.173) {
        place(&m, 2, t, r, x, v);
        double s = sin(om * (t - 0.5) + ph) - sin(ph), ds = om * cos(om * (t - 0.5) + ph);
        assert_true(fabs(x[0] - (r[0] + 0.02 * s)) < 1e-14 && fabs(x[1] - (r[1] - 0.01 * s)) < 1e-14);
        assert_true(fabs(v[0] - 0.02 * ds) < 1e-13 && fabs(v[1] + 0.01 * ds) < 1e-13);
        assert_true(x[2] == 0 && v[2] == 0);
        check_velocity(&m, 2, t, r, 0.02 * om);
    }
    double held[3];
    place(&m, 2, 3.0, r, held, v);
    place(&m, 2, 7.0, r, x, v); /* after stop: held, at rest */
    assert_true(x[0] == held[0] && x[1] == held[1] && v[0] == 0 && v[1] == 0);
    m.period = 1 / 0.8; /* the period gives the same law as the frequency */
    m.frequency = 0;
    double xp[3];
    place(&m, 2, 1.7, r, xp, v);
    m.frequency = 0.8;
    place(&m, 2, 1.7, r, x, v);
    assert_true(fabs(xp[0] - x[0]) < 1e-15 && fabs(xp[1] - x[1]) < 1e-15);
}

static void test_rotation_law(void **state)
{
    (void)state;
    scene_motion m = law_none();
    m.law = MOTION_ROTATION;
    m.angle = 8.0;
    m.period = 1.3;
    m.phase = -45.0;
    double s3 = 1 / sqrt(3.0);
    m.axis[0] = m.axis[1] = m.axis[2] = s3;
    m.pivot[0] = 0.4;
    m.pivot[1] = -0.2;
    m.pivot[2] = 1.1;
    double r[3] = {1.0, 0.5, 0.25}, x[3], v[3];
    place(&m, 3, 0.0, r, x, v);
    assert_true(x[0] == r[0] && x[1] == r[1] && x[2] == r[2]); /* the identity at start, exactly */
    for (double t = 0.05; t < 4; t += 0.31) {
        rigid_xform T;
        rigid_law_eval(&m, 3, t, &T);
        for (int a = 0; a < 3; ++a) /* orthonormal */
            for (int b = 0; b < 3; ++b) {
                double d = 0;
                for (int k = 0; k < 3; ++k)
                    d += T.r[k][a] * T.r[k][b];
                assert_true(fabs(d - (a == b)) < 1e-14);
            }
        double p[3], pv[3]; /* the pivot stays put, at rest */
        rigid_xform_point(&T, m.pivot, p, pv);
        for (int a = 0; a < 3; ++a)
            assert_true(fabs(p[a] - m.pivot[a]) < 1e-14 && fabs(pv[a]) < 1e-14);
        double th = 8.0 * RIGID_PI / 180 * (sin(2 * RIGID_PI / 1.3 * t - RIGID_PI / 4) - sin(-RIGID_PI / 4));
        double trace = T.r[0][0] + T.r[1][1] + T.r[2][2]; /* 1 + 2 cos(theta) */
        assert_true(fabs(trace - (1 + 2 * cos(th))) < 1e-14);
        check_velocity(&m, 3, t, r, 8.0 * RIGID_PI / 180 * 2 * RIGID_PI / 1.3 * 2.0);
    }
    /* 2D: about z through the pivot, z stays 0 */
    m.axis[0] = m.axis[1] = 0;
    m.axis[2] = 1;
    r[2] = 0;
    for (double t = 0.05; t < 2; t += 0.29) {
        place(&m, 2, t, r, x, v);
        assert_true(x[2] == 0 && v[2] == 0);
        double d0 = hypot(r[0] - m.pivot[0], r[1] - m.pivot[1]), d1 = hypot(x[0] - m.pivot[0], x[1] - m.pivot[1]);
        assert_true(fabs(d0 - d1) < 1e-14);
        check_velocity(&m, 2, t, r, 8.0 * RIGID_PI / 180 * 2 * RIGID_PI / 1.3 * 2.0);
    }
}

static void test_gate_law(void **state)
{
    (void)state;
    scene_motion m = law_none();
    m.law = MOTION_GATE;
    m.velocity[1] = 1.5;
    m.start = 0.1;
    m.stop = 0.5;
    m.ramp = 0.05;
    double r[3] = {0.4, 0.0, 0.0}, x[3], v[3];
    place(&m, 2, 0.1, r, x, v);
    assert_true(x[1] == 0 && v[1] == 0);
    place(&m, 2, 0.3, r, x, v); /* between the ramps: the full speed */
    assert_true(fabs(v[1] - 1.5) < 1e-15);
    place(&m, 2, 0.6, r, x, v); /* after stop: V (stop - start - ramp), at rest */
    assert_true(fabs(x[1] - 1.5 * 0.35) < 1e-14 && v[1] == 0);
    assert_true(x[0] == r[0]);
    /* continuous across the ramps' ends, and the velocity is the positions' derivative */
    const double joints[] = {0.15, 0.45};
    for (int k = 0; k < 2; ++k) {
        double a[3], b[3], va[3], vb[3];
        place(&m, 2, joints[k] - 1e-12, r, a, va);
        place(&m, 2, joints[k] + 1e-12, r, b, vb);
        assert_true(fabs(a[1] - b[1]) < 1e-11 && fabs(va[1] - vb[1]) < 1e-9);
    }
    for (double t = 0.103; t < 0.5; t += 0.0217)
        check_velocity(&m, 2, t, r, 1.5);
    /* without a ramp, and without a stop */
    m.ramp = 0;
    m.stop = INFINITY;
    place(&m, 2, 2.1, r, x, v);
    assert_true(fabs(x[1] - 3.0) < 1e-14 && v[1] == 1.5);
}

/* ---- runs ----------------------------------------------------------------------------------- */

/* Steps as the engine does (time step, step, then the time). */
static void run_steps(sim *s, long steps)
{
    sl_err err;
    for (long k = 0; k < steps; ++k) {
        double dt;
        if (sim_time_step(s, &dt, &err) || sim_step(s, dt, &err))
            fail_msg("%s", err.msg);
        s->t += dt;
        s->step++;
    }
}

/* Every particle of a body is where its law puts it at s->t, with the law's velocity there (to the
 * rounding of `real`), and every other particle has no body; returns the body particles counted. */
static size_t check_walls(const sim *s)
{
    const motion *m = s->motion;
    assert_non_null(m);
    const motion_args *a = &s->args.motion;
    const particles *p = &s->p;
    int dim = s->sc->dim;
    size_t moving = 0;
    double tol = sizeof(real) == sizeof(float) ? 2e-6 : 1e-13;
    for (size_t i = 0; i < p->n; ++i) {
        int b = (int)p->f[a->body][i];
        if (p->type[i] == PT_FLUID) {
            assert_int_equal(b, -1);
            continue;
        }
        if (b < 0)
            continue;
        rigid_xform T;
        rigid_law_eval(m->law[b], dim, s->t, &T);
        double r[3] = {p->f[a->ref[0]][i], p->f[a->ref[1]][i], dim == 3 ? p->f[a->ref[2]][i] : 0.0}, x[3], v[3];
        rigid_xform_point(&T, r, x, v);
        for (int d = 0; d < dim; ++d) {
            if (fabs(p->f[PF_X + d][i] - x[d]) > tol * (1 + fabs(x[d])))
                fail_msg("t = %g: particle %zu of body %d at %s = %.9g, its law says %.9g", s->t, i, b,
                         d ? "y" : "x", (double)p->f[PF_X + d][i], x[d]);
            if (fabs(p->f[PF_VX + d][i] - v[d]) > tol * (1 + fabs(v[d])))
                fail_msg("t = %g: particle %zu of body %d has v%s = %.9g, its law says %.9g", s->t, i, b,
                         d ? "y" : "x", (double)p->f[PF_VX + d][i], v[d]);
        }
        if (a->vec_ref[0] >= 0) /* the ghost offset turned with the body */
            for (int d = 0; d < dim; ++d) {
                double q = 0;
                for (int k = 0; k < dim; ++k)
                    q += T.r[d][k] * p->f[a->vec_ref[k]][i];
                assert_true(fabs(p->f[a->vec[d]][i] - q) <= tol * 10);
            }
        moving++;
    }
    return moving;
}

#define TANK_SCENE                                                                                  \
    "simulation = { method = \"%s\"; dimension = 2; end_time = 1.0; };\n"                          \
    "fluid = { density = 1000.0; viscosity = 1.0e-6; gravity = [0.0, -9.81]; };\n"                 \
    "numerics = { spacing = 0.02; integrator = \"%s\"; boundary = \"%s\"; };\n"                     \
    "mps = { collision_distance = 0.8; };\n"                                                       \
    "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.6, 0.5]; layers = 3;\n"            \
    "               motion = { %s }; },\n"                                                         \
    "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.24, 0.3]; },\n"                   \
    "             { type = \"obstacle\"; min = [0.24, 0.0]; max = [0.36, 0.1]; layers = 3;\n"      \
    "               motion = { %s }; } );\n"

#define SINE_LAW "law = \"sine\"; amplitude = [0.03, 0.01]; period = 0.05;"
#define ROLL_LAW "law = \"rotation\"; angle = 10.0; period = 0.05; pivot = [0.3, 0.1];"
#define GATE_LAW "law = \"gate\"; velocity = [0.0, 0.4]; start = 0.002; ramp = 0.005;"

static void walls_follow(const char *method, const char *integrator, const char *boundary, const char *law,
                         long steps)
{
    char text[2048];
    snprintf(text, sizeof text, TANK_SCENE, method, integrator, boundary, law, GATE_LAW);
    scene sc;
    sim s;
    load_sim_string(text, &sc, &s);
    assert_int_equal(s.motion->nbodies, 2);
    size_t walls = particles_count_type(&s.p, PT_WALL) + particles_count_type(&s.p, PT_OBSTACLE);
    assert_int_equal(check_walls(&s), walls); /* at t = 0: velocities set, places untouched */
    run_steps(&s, steps);
    if (!env_flag("SLUICE_TEST_SMALL")) /* the short runs of the sanitizer build may stop before */
        assert_true(s.t > 0.004);       /* the gate is on its way */
    assert_int_equal(check_walls(&s), walls);
    for (size_t i = 0; i < s.p.n; ++i) /* the scheme ran on: nothing went to NaN */
        assert_true(isfinite(s.p.f[PF_X][i]) && isfinite(s.p.f[PF_P][i]));
    sim_free(&s);
    scene_free(&sc);
}

static void test_wcsph_symplectic(void **state)
{
    (void)state;
    walls_follow("wcsph", "symplectic", "dbc", SINE_LAW, test_steps(60, 20));
}

static void test_wcsph_verlet(void **state)
{
    (void)state;
    walls_follow("wcsph", "verlet", "dbc", SINE_LAW, test_steps(60, 20));
}

static void test_mdbc_rotation(void **state)
{
    (void)state;
    walls_follow("wcsph", "symplectic", "mdbc", ROLL_LAW, test_steps(60, 20));
}

static void test_mps(void **state)
{
    (void)state;
    walls_follow("mps", "symplectic", "dbc", ROLL_LAW, test_steps(25, 10));
}

static void test_emps(void **state)
{
    (void)state;
    walls_follow("emps", "symplectic", "dbc", SINE_LAW, test_steps(40, 20));
}

/* 3D: a box tank with mDBC rolled about an oblique axis, and a cylinder obstacle (a shape other
 * than a box) shaken through the water. */
static void test_3d(void **state)
{
    (void)state;
    static const char text[] =
        "simulation = { dimension = 3; end_time = 1.0; };\n"
        "numerics = { spacing = 0.02; boundary = \"mdbc\"; };\n"
        "geometry = ( { type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [0.3, 0.2, 0.3]; layers = 3;\n"
        "   motion = { law = \"rotation\"; angle = 6.0; period = 0.05; axis = [1.0, 1.0, 0.0]; pivot = [0.15, 0.1, 0.0]; }; },\n"
        "  { type = \"fluid\"; min = [0.0, 0.0, 0.0]; max = [0.3, 0.2, 0.12]; } );\n";
    static const char text_dbc[] =
        "simulation = { dimension = 3; end_time = 1.0; };\n"
        "numerics = { spacing = 0.02; };\n"
        "geometry = ( { type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [0.3, 0.2, 0.3]; layers = 3; },\n"
        "  { type = \"fluid\"; min = [0.0, 0.0, 0.0]; max = [0.1, 0.2, 0.12]; },\n"
        "  { type = \"obstacle\"; shape = \"cylinder\"; center = [0.2, 0.1, 0.2]; radius = 0.04; length = 0.1;\n"
        "    axis = \"y\"; motion = { law = \"sine\"; amplitude = [0.0, 0.0, 0.05]; frequency = 5.0; }; } );\n";
    const char *texts[2] = {text, text_dbc};
    for (int k = 0; k < 2; ++k) {
        scene sc;
        sim s;
        load_sim_string(texts[k], &sc, &s);
        assert_int_equal(s.motion->nbodies, 1);
        size_t walls = particles_count_type(&s.p, k ? PT_OBSTACLE : PT_WALL);
        assert_int_equal(check_walls(&s), walls);
        run_steps(&s, test_steps(30, 8));
        assert_int_equal(check_walls(&s), walls);
        sim_free(&s);
        scene_free(&sc);
    }
}

/* The moving walls' speed bounds the MPS time step (a wall faster than the fluid). */
static void test_mps_time_step(void **state)
{
    (void)state;
    char text[2048];
    snprintf(text, sizeof text, TANK_SCENE, "mps", "symplectic", "dbc", "law = \"none\";",
             "law = \"gate\"; velocity = [0.0, 4.0]; stop = 0.02;");
    scene sc;
    sim s;
    load_sim_string(text, &sc, &s);
    assert_int_equal(s.motion->nbodies, 1); /* a law "none" is no body */
    /* the gate at 4 m/s, faster than the fluid and than the reference speed sqrt(2 g H) = 2.4 m/s */
    run_steps(&s, 2);
    double dt;
    sl_err err;
    assert_int_equal(sim_time_step(&s, &dt, &err), SL_OK);
    assert_true(motion_max_speed(&s) >= 4.0 * (1 - 1e-12));
    assert_true(dt <= s.P.cfl * s.P.dp / 4.0 * (1 + 1e-12));
    sim_free(&s);
    scene_free(&sc);
}

/* A run continued from a checkpoint ends bit-identical to the uninterrupted run: the bodies and
 * reference positions are fields, the transforms a function of the time. */
typedef struct restart_case {
    const char *method, *boundary, *tank_law, *gate_law;
} restart_case;

static real *rolled_steps(const restart_case *rc, const char *dir, long steps, const char *restart, size_t *count)
{
    char text[2048];
    snprintf(text, sizeof text, TANK_SCENE "output = { interval = 0.5; };\n", rc->method, "symplectic",
             rc->boundary, rc->tank_law, rc->gate_law);
    return engine_steps_text(text, dir, steps, restart, count, NULL, NULL);
}

static void restart_is_exact(const restart_case *rc)
{
    long half = test_steps(40, 15);
    char a[] = "/tmp/sluice_motion_ra_XXXXXX", b[] = "/tmp/sluice_motion_rb_XXXXXX";
    make_temp_dir(a);
    make_temp_dir(b);
    size_t na, nb;
    real *straight = rolled_steps(rc, a, 2 * half, NULL, &na);
    free(rolled_steps(rc, b, half, NULL, &nb));
    char ck[256];
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", b);
    real *second = rolled_steps(rc, b, half, ck, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(straight, second, na * sizeof *straight);
    free(straight);
    free(second);
    remove_tree(a);
    remove_tree(b);
}

static void test_restart_is_exact(void **state)
{
    (void)state;
    const restart_case wcsph = {"wcsph", "mdbc", ROLL_LAW, GATE_LAW};
    restart_is_exact(&wcsph);
}

/* The fast gate sets semi-implicit MPS's time step: the restart must take the same one. */
static void test_mps_restart_is_exact(void **state)
{
    (void)state;
    const restart_case mps = {"mps", "dbc", "law = \"none\";", "law = \"gate\"; velocity = [0.0, 4.0]; stop = 0.2;"};
    restart_is_exact(&mps);
}

/* scenes/gate_dam_break_2d.cfg at 4 times its spacing: the gate holds the column until it starts
 * to rise, ends 0.5 m up, and the water has run out under it. */
static void test_gate_dam_break(void **state)
{
    (void)state;
    scene sc;
    sim s;
    sl_err err;
    if (scene_load(&sc, SLUICE_SCENES "/gate_dam_break_2d.cfg", &err))
        fail_msg("%s", err.msg);
    sc.dp *= 4;
    if (sim_create(&s, &sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
    double front = 0;
    while (s.t < 0.05) {
        run_steps(&s, 1);
        for (size_t i = 0; i < s.p.n; ++i)
            if (s.p.type[i] == PT_FLUID)
                front = fmax(front, s.p.f[PF_X][i]);
    }
    assert_true(front < 0.4); /* held by the gate (the column's last particles are dp/2 inside) */
    double until = env_flag("SLUICE_TEST_SMALL") ? 0.12 : 0.5;
    while (s.t < until)
        run_steps(&s, 1);
    check_walls(&s);
    front = 0;
    double gate_bottom = INFINITY;
    for (size_t i = 0; i < s.p.n; ++i) {
        if (s.p.type[i] == PT_FLUID)
            front = fmax(front, s.p.f[PF_X][i]);
        if (s.p.type[i] == PT_OBSTACLE)
            gate_bottom = fmin(gate_bottom, s.p.f[PF_Y][i]);
    }
    if (until >= 0.5) {
        /* the gate stopped 0.5 m up: its lowest particles dp/2 above the floor before */
        assert_true(fabs(gate_bottom - (0.5 + sc.dp / 2)) < 1e-5);
        assert_true(front > 0.8); /* the surge is well past the gate */
    }
    sim_free(&s);
    scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sine_law),
        cmocka_unit_test(test_rotation_law),
        cmocka_unit_test(test_gate_law),
        cmocka_unit_test(test_wcsph_symplectic),
        cmocka_unit_test(test_wcsph_verlet),
        cmocka_unit_test(test_mdbc_rotation),
        cmocka_unit_test(test_mps),
        cmocka_unit_test(test_emps),
        cmocka_unit_test(test_3d),
        cmocka_unit_test(test_mps_time_step),
        cmocka_unit_test(test_restart_is_exact),
        cmocka_unit_test(test_mps_restart_is_exact),
        cmocka_unit_test(test_gate_dam_break),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
