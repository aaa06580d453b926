/* test_sloshing.c: the first sloshing mode of a rectangular tank (scenes/sloshing_2d.cfg: L = 1 m,
 * h = 0.5 m, shaken sideways at the mode's frequency for two periods, then still) against its
 * analytic natural frequency, omega1^2 = g k tanh(k h), k = pi / L (linear potential theory of
 * standing waves: the sloshing here, A = 3.3 cm at most at the walls, has k A = 0.1, and the amplitude's
 * corrections are of relative order (k A)^2 < 1% times a coefficient well below 1 at this depth),
 * at twice the scene's spacing (mDBC walls, as the scene has them).
 *
 * The period is measured on the free sloshing after the tank stops: the antisymmetric part of the
 * two wall gauges, (H_left - H_right) / 2, holds the odd modes only (the first and the weak third),
 * its mean is taken out, and the period is twice the mean time between its zero crossings (linear
 * interpolation between probe rows, 0.01 s apart), from the first crossing after stop + 0.2 s to
 * the last before the end. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/scene.h"
#include "core/sim.h"
#include "io/probes.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column of `name` in the probes' header, or -1. */
static int column(const scene *sc, const char *name)
{
    char header[4096];
    int n = io_probes_header(sc, header, sizeof header);
    char *save = NULL, *tok = strtok_r(header, ",", &save);
    for (int k = 0; tok && k < n; ++k, tok = strtok_r(NULL, ",", &save))
        if (strncmp(tok, name, strlen(name)) == 0 && tok[strlen(name)] == '[')
            return k;
    return -1;
}

static void test_first_mode(void **state)
{
    (void)state;
    scene sc;
    sim s;
    sl_err err;
    if (scene_load(&sc, SLUICE_SCENES "/sloshing_2d.cfg", &err))
        fail_msg("%s", err.msg);
    assert_int_equal(sc.geom[0].motion.law, MOTION_SINE);
    double L = sc.geom[0].max[0] - sc.geom[0].min[0], h = sc.geom[1].max[1] - sc.geom[1].min[1];
    double k = RIGID_PI / L, g = -sc.gravity[1];
    double T1 = 2 * RIGID_PI / sqrt(g * k * tanh(k * h));
    double stop = sc.geom[0].motion.stop;
    sc.dp *= 2; /* 50 particles along the tank */
    double until = env_flag("SLUICE_TEST_SMALL") ? 0.5 : 6.0;
    if (sim_create(&s, &sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
    int cl = column(&sc, "H_left"), cr = column(&sc, "H_right");
    assert_true(cl >= 0 && cr >= 0);
    double values[256];
    enum { MAXROWS = 2000 };
    static double ts[MAXROWS], as[MAXROWS];
    int rows = 0;
    double next = 0;
    while (s.t < until) {
        double dt;
        if (sim_time_step(&s, &dt, &err) || sim_step(&s, dt, &err))
            fail_msg("%s", err.msg);
        s.t += dt;
        s.step++;
        if (s.t >= next && rows < MAXROWS) {
            sim_sync_host(&s);
            io_probes_sample(&s, values, NULL);
            ts[rows] = s.t;
            as[rows++] = 0.5 * (values[cl] - values[cr]);
            next += 0.01;
        }
    }
    if (until < stop) /* SLUICE_TEST_SMALL: the run only */
        goto done;
    double mean = 0;
    int first = -1, count = 0;
    for (int i = 0; i < rows; ++i)
        if (ts[i] >= stop + 0.2) {
            first = first < 0 ? i : first;
            mean += as[i];
            count++;
        }
    mean /= count;
    double t0 = -1, t1 = -1, amplitude = 0;
    int crossings = 0;
    for (int i = first; i + 1 < rows; ++i) {
        double a = as[i] - mean, b = as[i + 1] - mean;
        amplitude = fmax(amplitude, fabs(a));
        if ((a < 0) != (b < 0)) {
            double tc = ts[i] + a / (a - b) * (ts[i + 1] - ts[i]);
            t0 = t0 < 0 ? tc : t0;
            t1 = tc;
            crossings++;
        }
    }
    double T = crossings > 1 ? 2 * (t1 - t0) / (crossings - 1) : NAN;
    printf("sloshing at dp = %g m: amplitude %.4f m, period %.4f s from %d zero crossings, analytic %.4f s "
           "(%+.2f%%)\n", sc.dp, amplitude, T, crossings, T1, 100 * (T / T1 - 1));
    /* The tank moved and set the water sloshing: up to 3.3 cm at the walls in this run; a tank that did not
     * move leaves particle noise of a few mm. */
    assert_true(amplitude > 0.01);
    assert_true(crossings >= 5); /* two periods and more of free sloshing */
    /* Within 2% of T1, the target. docs/validation.md measures the period at dp = 0.04,
     * 0.02 and 0.01 m: with mDBC walls (the scene's) within 1% at each (-0.9% here: the
     * crossings of a signal with 2 mm of particle noise on 28 mm, and the weakly compressible
     * fluid), which leaves 1% for other platforms and precisions; dynamic boundary walls give a
     * period 4.4% short at this spacing and fail, and so would a tank 4% shorter than L or a law that
     * placed the walls at the wrong times. */
    assert_true(fabs(T / T1 - 1) < 0.02);
done:
    sim_free(&s);
    scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
