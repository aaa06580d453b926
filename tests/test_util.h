/* test_util.h: what the simulation tests share: a scene loaded into a simulation, a temporary output
 * directory and its removal. Include after cmocka.h. */
#ifndef SLUICE_TEST_UTIL_H
#define SLUICE_TEST_UTIL_H

#include "base/scene.h"
#include "core/sim.h"
#include "run/engine.h"
#include "run/sim_create.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether environment variable `name` is set to anything but "" or "0". */
static inline int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* SLUICE_GPU_TEST_SMALL=1 (tools/gpu-check sanitize): the GPU tests shrink their problem sizes and
 * step counts, because compute-sanitizer (racecheck above all) is many times slower per kernel; what
 * they assert stays the same. */
static inline int gpu_test_small(void)
{
    return env_flag("SLUICE_GPU_TEST_SMALL");
}

/* The step count of a long CPU run: `full`, or `small` where SLUICE_TEST_SMALL is set (not "0"). The
 * sanitizer build's ctest sets it (tests/CMakeLists.txt): ASan and UBSan make a step many times
 * slower, and what the test asserts (bit-identical fields) holds at any step count. */
static inline long test_steps(long full, long small)
{
    return env_flag("SLUICE_TEST_SMALL") ? small : full;
}

/* Loads `path` and creates its simulation on the CPU backend; fails the test with the loader's
 * message otherwise. */
static inline void load_sim(const char *path, scene *sc, sim *s)
{
    sl_err err;
    if (scene_load(sc, path, &err))
        fail_msg("%s", err.msg);
    if (sim_create(s, sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
}

/* The same from scene text (messages name it "test scene"). */
static inline void load_sim_string(const char *text, scene *sc, sim *s)
{
    sl_err err;
    if (scene_load_string(sc, text, "test scene", &err))
        fail_msg("%s", err.msg);
    if (sim_create(s, sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
}

/* Steps s to t_end (or just past it) at the scheme's own time step; fails the test with the step's
 * message otherwise. */
static inline void run_until(sim *s, double t_end)
{
    sl_err err;
    while (s->t < t_end) {
        double dt;
        if (sim_time_step(s, &dt, &err) || sim_step(s, dt, &err))
            fail_msg("%s", err.msg);
        s->t += dt;
        s->step++;
    }
}

/* The free surface's mean height over the spacing-wide columns in x in [x0, x1) (2D): the highest
 * fluid particle of each plus half a spacing; NAN where no column holds fluid. */
static inline double surface_level_2d(const sim *s, double x0, double x1)
{
    double dp = s->sc->dp, sum = 0;
    int nx = (int)ceil((x1 - x0) / dp), n = 0;
    double *top = malloc((size_t)(nx > 0 ? nx : 1) * sizeof *top);
    assert_non_null(top);
    for (int k = 0; k < nx; ++k)
        top[k] = -INFINITY;
    for (size_t i = 0; i < s->p.n; ++i) {
        double x = s->p.f[PF_X][i];
        int k = (int)floor((x - x0) / dp);
        if (s->p.type[i] == PT_FLUID && x >= x0 && k >= 0 && k < nx)
            top[k] = fmax(top[k], s->p.f[PF_Y][i]);
    }
    for (int k = 0; k < nx; ++k)
        if (isfinite(top[k])) {
            sum += top[k] + 0.5 * dp;
            n++;
        }
    free(top);
    return n ? sum / n : NAN;
}

/* Every real field of every particle, in id order, one field after another (nfields * n values,
 * malloc'd): what two runs are compared by. */
static inline real *fields_by_id(const sim *s, size_t *count)
{
    size_t n = s->p.n;
    int nf = s->p.nfields;
    real *out = malloc((size_t)nf * n * sizeof *out);
    assert_non_null(out);
    for (int k = 0; k < nf; ++k)
        for (size_t i = 0; i < n; ++i)
            out[(size_t)k * n + (size_t)s->p.id[i]] = s->p.f[k][i];
    *count = (size_t)nf * n;
    return out;
}

/* `steps` steps of the scene `text` by the engine (snapshots and checkpoint into `dir`; continued
 * from the checkpoint `restart` when given): every field in id order (fields_by_id, *count values,
 * malloc'd). `last`, when given, sees the final state before it is freed (a floating body's state). */
static inline real *engine_steps_text(const char *text, const char *dir, long steps, const char *restart,
                                      size_t *count, void (*last)(const sim *s, void *arg), void *arg)
{
    scene sc;
    sim s;
    sl_err err;
    load_sim_string(text, &sc, &s);
    run_options o = {.out_dir = dir, .until = -1.0, .max_steps = steps, .quiet = 1, .restart = restart};
    run_summary sum;
    if (engine_run(&s, &o, &sum, &err))
        fail_msg("%s", err.msg);
    real *out = fields_by_id(&s, count);
    if (last)
        last(&s, arg);
    sim_free(&s);
    scene_free(&sc);
    return out;
}

/* Creates a fresh directory from a template ending in XXXXXX (rewritten in place). */
static inline void make_temp_dir(char *tmpl)
{
    assert_non_null(mkdtemp(tmpl));
}

static inline void remove_tree(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The x and y momentum of the fluid particles and of floating body 0 together (2D scenes with one
 * body; needs core/floating.h). */
#ifdef SLUICE_FLOATING_H
static inline void fluid_and_body_momentum_2d(const sim *s, double p[2])
{
    p[0] = p[1] = 0;
    for (size_t i = 0; i < s->p.n; ++i)
        if (s->p.type[i] == PT_FLUID)
            for (int a = 0; a < 2; ++a)
                p[a] += (double)s->P.mass * s->p.f[PF_VX + a][i];
    for (int a = 0; a < 2; ++a)
        p[a] += s->floating->props[0].mass * s->floating->state[0].v[a];
}
#endif

#endif
