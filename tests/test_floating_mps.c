/* test_floating_mps.c: floating bodies in semi-implicit and explicit MPS (boundary/floating_mps.h,
 * schemes/mps/mps_common.c, physics/rigid_body.h's Euler step): the reaction the body takes is what
 * its particles add to the fluid's own passes, term by term; the total momentum of fluid and body
 * with no gravity and no walls (explicit MPS); Archimedes in 2D (explicit MPS); restarts from a
 * checkpoint bit-identical to the run straight through (both schemes). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/scene.h"
#include "boundary/floating.h"
#include "core/floating.h"
#include "core/sim.h"
#include "run/engine.h"
#include "schemes/registry.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No gravity and no walls: a block of water 0.6 x 0.4 m round a body 0.08 m square moving at
 * (0.5, 0.2) m/s and turning (test_floating.c's momentum case, in MPS); %s: the method, %s: the mps
 * group. */
#define MOMENTUM_SCENE                                                                                  \
    "simulation = { method = \"%s\"; dimension = 2; end_time = 1.0; domain_min = [-0.2, -0.2];"         \
    " domain_max = [0.8, 0.6]; };\n"                                                                     \
    "fluid = { density = 1000.0; gravity = [0.0, 0.0]; sound_speed = 10.0; viscosity = 1e-4; };\n"       \
    "numerics = { spacing = 0.02; };\n"                                                                  \
    "mps = { %s };\n"                                                                                    \
    "geometry = (\n"                                                                                     \
    "  { type = \"fluid\"; min = [0.0, 0.0]; max = [0.24, 0.4]; },\n"                                   \
    "  { type = \"fluid\"; min = [0.36, 0.0]; max = [0.6, 0.4]; },\n"                                   \
    "  { type = \"fluid\"; min = [0.24, 0.0]; max = [0.36, 0.14]; },\n"                                 \
    "  { type = \"fluid\"; min = [0.24, 0.26]; max = [0.36, 0.4]; },\n"                                 \
    "  { type = \"obstacle\"; min = [0.26, 0.16]; max = [0.34, 0.24]; layers = 2;\n"                    \
    "    floating = { density = 700.0; velocity = [0.5, 0.2]; omega = 1.0; }; } );\n"

static void load_momentum(const char *method, const char *mps, scene *sc, sim *s)
{
    char text[2048];
    snprintf(text, sizeof text, MOMENTUM_SCENE, method, mps);
    load_sim_string(text, sc, s);
}

static void steps(sim *s, long n)
{
    sl_err err;
    for (long k = 0; k < n; ++k) {
        double dt;
        if (sim_time_step(s, &dt, &err) || sim_step(s, dt, &err))
            fail_msg("%s", err.msg);
        s->t += dt;
        s->step++;
    }
}

/* ---- the reaction, term by term ---------------------------------------------------------------- */

/* Runs fluid pass `fp` and returns (in out, n x 2) the fluid particles' field pair (fx, fy); with
 * `hide` the floating body's particles take a class no mask admits (31), so the pass runs as if
 * they were not there. */
static void fluid_pass(sim *s, const pass *fp, int fx, int fy, int hide, double *out)
{
    const real *body = s->p.f[s->args.motion.body];
    uint8_t *saved = malloc(s->p.n);
    assert_non_null(saved);
    memcpy(saved, s->p.tag, s->p.n);
    for (size_t i = 0; hide && i < s->p.n; ++i)
        if (body[i] == 0)
            s->p.tag[i] = 31;
    s->be->run_pass(s, fp, s->g.n_inside);
    memcpy(s->p.tag, saved, s->p.n);
    free(saved);
    for (size_t i = 0; i < s->p.n; ++i) {
        int fluid = s->p.type[i] == PT_FLUID;
        out[2 * i] = fluid ? s->p.f[fx][i] : 0.0;
        out[2 * i + 1] = fluid ? s->p.f[fy][i] : 0.0;
    }
}

/* The body's force from the reaction pass in `stage`, against minus the change in the fluid's
 * momentum rate that the body's particles make in the fluid's own pass `fp` (its output fx, fy
 * times `scale` is the fluid's acceleration): run with the body's particles and without them
 * (hidden). Equal up to the float rounding of the fluid's sums, whose terms are each at most the
 * fluid's largest acceleration: asserted within 1e-5 of m sum |a_i| over the fluid particles the
 * body changes (float: the two sums of ~30 terms each round at 6e-8 relative; 1e-5 leaves a margin
 * of 10 over sqrt(30) 6e-8 per particle summed in quadrature; measured in the output). */
static void check_reaction(sim *s, const pass *fp, int fx, int fy, double scale, int stage, const char *what)
{
    sl_err err;
    size_t n = s->p.n;
    double *with = malloc(2 * n * sizeof *with), *without = malloc(2 * n * sizeof *without);
    assert_true(with && without);
    fluid_pass(s, fp, fx, fy, 0, with);
    s->args.floating.mps_stage = stage;
    s->be->run_pass(s, &floating_mps_force_pass, s->g.n_inside);
    if (floating_sums(s, 0, &err))
        fail_msg("%s", err.msg);
    fluid_pass(s, fp, fx, fy, 1, without);
    double m = s->P.mass, dP[2] = {0, 0}, size = 0;
    int touched = 0;
    for (size_t i = 0; i < n; ++i) {
        double dx = with[2 * i] - without[2 * i], dy = with[2 * i + 1] - without[2 * i + 1];
        dP[0] += m * scale * dx;
        dP[1] += m * scale * dy;
        if (dx != 0 || dy != 0) {
            touched++;
            size += m * fabs(scale) * (fabs(with[2 * i]) + fabs(with[2 * i + 1]));
        }
    }
    const double *F = s->floating->force[0];
    double miss = hypot(F[0] + dP[0], F[1] + dP[1]);
    print_message("%s, %s: body force (%.7g, %.7g) N, the fluid's change (%.7g, %.7g) N over %d particles: miss "
                  "%.2e of %.3g\n", s->sc->method, what, F[0], F[1], dP[0], dP[1], touched, miss, size);
    assert_true(touched > 0 && hypot(F[0], F[1]) > 0);
    assert_true(miss <= 1e-5 * size);
    free(with);
    free(without);
}

/* At t = 0.05 s (the pressure built up, the body moved and turned): the viscous term at that state
 * (pass mps.accel: the acceleration nu lap u) and the pressure term (mps.gradient: grad p, the
 * acceleration -grad p / rho0), for semi-implicit MPS with the plain gradient (phat_i = p_i: hiding
 * the body leaves phat unchanged; the stabilised one takes the same pair function with the stored
 * phat_i) and explicit MPS's symmetric gradient. */
/* The momentum scene at t = 0.05 s with its cells built, where the reaction checks look. */
static void reaction_state(const char *method, const char *mps, scene *sc, sim *s)
{
    load_momentum(method, mps, sc, s);
    run_until(s, 0.05); /* explicit MPS: the pressure in front of the body has built up (5 steps of MPS, 130 of EMPS) */
    sl_err err;
    if (s->be->build_cells(s, &err))
        fail_msg("%s", err.msg);
}

static void reaction_case(const char *method, const char *mps)
{
    scene sc;
    sim s;
    reaction_state(method, mps, &sc, &s);
    const int *slot = s.args.slot;
    check_reaction(&s, &mps_accel_pass, slot[MS_AX], slot[MS_AY], 1.0, FLOAT_MPS_VISCOUS, "viscous");
    check_reaction(&s, &mps_gradient_pass, slot[MS_GX], slot[MS_GY], -1.0 / s.P.rho0, FLOAT_MPS_PRESSURE, "pressure");
    sim_free(&s);
    scene_free(&sc);
}

static void test_reaction_mps(void **state)
{
    (void)state;
    reaction_case("mps", "gradient_stabilised = false;");
}

static void test_reaction_emps(void **state)
{
    (void)state;
    reaction_case("emps", "");
}

/* The collisions' term (pass mps.collision: the velocity change du over the step, the acceleration
 * du / dt) at the same state, for both collision laws (mps_collision.h), from 0.95 spacings so that
 * the body, having moved 2.5 cm into the water, has pairs within reach: the body takes minus the
 * fluid's change, the same check and tolerance as above. */
static void test_reaction_collision(void **state)
{
    (void)state;
    const char *laws[] = {"koshizuka", "dynamic"};
    for (int k = 0; k < 2; ++k) {
        char mps[160];
        snprintf(mps, sizeof mps, "collision_distance = 0.95; collision_model = \"%s\";", laws[k]);
        scene sc;
        sim s;
        reaction_state("mps", mps, &sc, &s);
        const int *slot = s.args.slot;
        char what[64];
        snprintf(what, sizeof what, "collision (%s)", laws[k]);
        check_reaction(&s, &mps_collision_pass, slot[MS_GX], slot[MS_GY], 1.0 / (double)s.args.dt,
                       FLOAT_MPS_COLLISION, what);
        sim_free(&s);
        scene_free(&sc);
    }
}

/* ---- momentum ---------------------------------------------------------------------------------- */

/* Explicit MPS: every pair term of its step is antisymmetric (the symmetric gradient, the Laplacian,
 * the collisions) and the body takes each one's reaction at the same state, in the same Euler step:
 * the total momentum stays at its start up to round-off: within 1e-5 of the body's initial momentum
 * over 1,000 steps (float velocities: 1e-7 per step of a sum of that size, growing as the square root
 * of the steps, as test_floating.c's WCSPH case), while the body hands more than 5% of its momentum
 * to the water. Semi-implicit MPS: its gradient, (p_j - phat_i) r_ij w_ij / |r_ij|^2, is not
 * antisymmetric, so the fluid alone does not keep its momentum (test_reaction_mps checks the
 * exchange itself); its drift is printed, not asserted. */
static double momentum_run(const char *method, long n, double *handed)
{
    scene sc;
    sim s;
    load_momentum(method, "", &sc, &s);
    double p0[2], p1[2], pb0 = s.floating->props[0].mass * s.floating->state[0].v[0];
    fluid_and_body_momentum_2d(&s, p0);
    steps(&s, n);
    fluid_and_body_momentum_2d(&s, p1);
    double pb = s.floating->props[0].mass * s.floating->state[0].v[0];
    double scale = hypot(p0[0], p0[1]), drift = hypot(p1[0] - p0[0], p1[1] - p0[1]);
    print_message("%s: momentum over %ld steps (t = %.3f s): body x %.6g -> %.6g; total (%.9g, %.9g) -> (%.9g, "
                  "%.9g): %.2e of the start\n", method, n, s.t, pb0, pb, p0[0], p0[1], p1[0], p1[1], drift / scale);
    *handed = fabs(pb - pb0) / fabs(pb0);
    sim_free(&s);
    scene_free(&sc);
    return drift / scale;
}

static void test_momentum_emps(void **state)
{
    (void)state;
    long n = test_steps(1000, 100);
    double handed, drift = momentum_run("emps", n, &handed);
    /* over 1,000 steps the body hands the water 72% of its momentum; the sanitizer's 100 steps see
     * the start of it (0.26% measured): there it must have handed some, 0.1% */
    assert_true(handed > (n >= 1000 ? 0.05 : 1e-3));
    assert_true(drift < 1e-5);
}

static void test_momentum_mps(void **state)
{
    (void)state;
    double handed;
    momentum_run("mps", test_steps(200, 20), &handed);
    assert_true(handed > 0.05); /* the body does slow down in the water */
}

/* ---- Archimedes ---------------------------------------------------------------------------------- */

/* test_floating.c's 2D Archimedes tank (a box of H = 0.1 m, density 500, in water 0.2 m deep, its
 * lower half under the surface, dp = 0.01 m) in explicit MPS, the box kept from turning: a square
 * of half the water's density is unstable upright (its metacentre b/6 above the centre of buoyancy,
 * its centre of mass b/4 above), and explicit MPS's pressure noise tips it over (measured: 0.07 rad
 * by 0.6 s), which is not what this test is about.
 * The water level is read from the water's volume, not from its top particles: the level of the
 * tank's water (its particles' volumes m / rho_i, rho0 for those on the free surface, whose number
 * density is short of n0 for want of neighbours) plus the body's submerged part, over the tank's
 * width. Explicit MPS packs its top particles closer than dp (measured: the top particles plus half
 * a spacing read 4 mm below a level gauge, test_floating.c's measure), so that measure would be off
 * by more than the tolerance. The box must stay half submerged: its centre's mean over
 * t in [0.3, 1.0] s less the level within 2% of H (2 mm = 0.2 spacings), the centre's oscillation
 * (the body's heave, about 0.45 s, set off by the start of explicit MPS, whose first steps let the
 * water settle from the lattice to its equation of state's density) within 10% of H (measured 4%),
 * no sideways drift beyond 5% of H (the sloshing it sets off sways the body: measured 1.7%). 1.0 s: 7,000 steps at c0 = 14 m/s, about 25 s on one core. */
#define ARCH_SCENE                                                                                      \
    "simulation = { method = \"%s\"; dimension = 2; end_time = 3.0; };\n"                                \
    "fluid = { density = 1000.0; gravity = [0.0, -9.81]; sound_speed_coef = 10.0; };\n"                  \
    "numerics = { spacing = 0.01; };\n"                                                                  \
    "mps = { collision_distance = 0.8; };\n"                                                             \
    "geometry = (\n"                                                                                     \
    "  { type = \"tank\"; min = [0.0, 0.0]; max = [0.6, 0.4]; layers = 3; },\n"                          \
    "  { type = \"fluid\"; min = [0.0, 0.0]; max = [0.25, 0.2]; },\n"                                    \
    "  { type = \"fluid\"; min = [0.35, 0.0]; max = [0.6, 0.2]; },\n"                                    \
    "  { type = \"fluid\"; min = [0.25, 0.0]; max = [0.35, 0.15]; },\n"                                  \
    "  { type = \"obstacle\"; min = [0.25, 0.15]; max = [0.35, 0.25]; layers = 3;\n"                     \
    "    floating = { density = 500.0; fixed_rotation = [\"z\"]; }; } );\n"

/* The level of the water in the 0.6 m wide tank round the 0.1 m wide box whose centre is at yc. */
static double volume_level(const sim *s, double yc)
{
    double area = 0, W = 0.6, B = 0.1, H = 0.1;
    for (size_t i = 0; i < s->p.n; ++i)
        if (s->p.type[i] == PT_FLUID)
            area += s->P.mass / (s->p.tag[i] == MC_FLUID ? s->p.f[PF_RHO][i] : s->P.rho0);
    /* W L = area + B (L - (yc - H/2)) while the body is partly under */
    return (area - B * (yc - 0.5 * H)) / (W - B);
}

static void test_archimedes_emps(void **state)
{
    (void)state;
    char text[2048];
    snprintf(text, sizeof text, ARCH_SCENE, "emps");
    scene sc;
    sim s;
    load_sim_string(text, &sc, &s);
    double H = 0.1, t0 = 0.3, t_end = env_flag("SLUICE_TEST_SMALL") ? 0.05 : 1.0;
    double lo = INFINITY, hi = -INFINITY, sum = 0, top = 0;
    int n = 0;
    while (s.t < t_end) {
        run_until(&s, s.t + 0.01);
        if (s.t >= t0) {
            double y = s.floating->state[0].x[1];
            lo = fmin(lo, y);
            hi = fmax(hi, y);
            sum += y - volume_level(&s, y);
            top += y - 0.5 * (surface_level_2d(&s, 0.05, 0.2) + surface_level_2d(&s, 0.4, 0.55));
            n++;
        }
    }
    const rigid_body_state *b = &s.floating->state[0];
    double off = n ? sum / n : 0, off_top = n ? top / n : 0;
    print_message("archimedes 2D, emps: mean centre - water level %.5f m (%.2f%% of H; from the top particles "
                  "%.2f%%) over t in [%.1f, %.2f] s; centre range %.5f..%.5f (%.2f%% of H); x %.6f\n", off,
                  100 * off / H, 100 * off_top / H, t0, s.t, lo, hi, 100 * (hi - lo) / H, b->x[0]);
    if (n) {
        assert_true(fabs(off) < 0.02 * H);
        assert_true(hi - lo < 0.1 * H);
    }
    assert_true(fabs(b->x[0] - 0.3) < 0.05 * H); /* the tank's sloshing sways it: measured 1.7% */
    assert_true(fabs(b->x[1] - 0.2) < 0.1 * H); /* even in the short sanitizer run: it floats */
    sim_free(&s);
    scene_free(&sc);
}

/* ---- restart ------------------------------------------------------------------------------------ */

static void keep_body(const sim *s, void *state)
{
    *(rigid_body_state *)state = s->floating->state[0];
}

/* `n` steps of the momentum scene by the engine into `dir` (from `restart` when given): the fields in
 * id order and the body's state. */
static real *engine_steps(const char *method, const char *dir, long n, const char *restart, size_t *count,
                          rigid_body_state *body)
{
    char text[2048];
    snprintf(text, sizeof text, MOMENTUM_SCENE, method, "");
    return engine_steps_text(text, dir, n, restart, count, keep_body, body);
}

/* A run continued from a checkpoint ends bit-identical to the uninterrupted one, particles and body:
 * the body's state travels in the checkpoint; what the MPS schemes keep besides (the predictor's
 * share of the force, force_pre) lives within one step. */
static void restart_case(const char *method)
{
    long half = test_steps(30, 5);
    char a[] = "/tmp/sluice_fmps_ra_XXXXXX", b[] = "/tmp/sluice_fmps_rb_XXXXXX", ck[256];
    make_temp_dir(a);
    make_temp_dir(b);
    size_t na, nb;
    rigid_body_state sa, sb;
    real *straight = engine_steps(method, a, 2 * half, NULL, &na, &sa);
    free(engine_steps(method, b, half, NULL, &nb, &sb));
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", b);
    real *second = engine_steps(method, b, half, ck, &nb, &sb);
    assert_int_equal(na, nb);
    assert_memory_equal(straight, second, na * sizeof *straight);
    assert_memory_equal(&sa, &sb, sizeof sa);
    assert_true(sa.v[0] != 0.5); /* the water did slow the body */
    free(straight);
    free(second);
    remove_tree(a);
    remove_tree(b);
}

static void test_restart_mps(void **state)
{
    (void)state;
    restart_case("mps");
}

static void test_restart_emps(void **state)
{
    (void)state;
    restart_case("emps");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reaction_mps),
        cmocka_unit_test(test_reaction_emps),
        cmocka_unit_test(test_reaction_collision),
        cmocka_unit_test(test_momentum_emps),
        cmocka_unit_test(test_momentum_mps),
        cmocka_unit_test(test_archimedes_emps),
        cmocka_unit_test(test_restart_mps),
        cmocka_unit_test(test_restart_emps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
