/* packing_util.h: what the packing tests share (tests/test_packing.c, tests/gpu/test_gpu_packing.c): a
 * scene of packing-test size from its numerics and geometry, and a simulation brought to where
 * sim_create starts the packing. Include after cmocka.h. */
#ifndef SLUICE_TEST_PACKING_UTIL_H
#define SLUICE_TEST_PACKING_UTIL_H

#include "geometry/scene_build.h"
#include "run/packing.h"
#include "schemes/packing/packing_passes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A scene of spacing 0.01 m without gravity: `numerics` keys added to the group, the geometry items,
 * and further groups (`more`, may be ""). */
static inline void packing_load(scene *sc, int dim, const char *numerics, const char *items, const char *more)
{
    char text[4096];
    snprintf(text, sizeof text,
             "simulation = { method = \"wcsph\"; dimension = %d; end_time = 0.1; };\n"
             "fluid = { gravity = [%s]; sound_speed = 10.0; };\n"
             "numerics = { spacing = 0.01; %s };\n"
             "geometry = (\n%s\n);\n%s\n",
             dim, dim == 3 ? "0.0, 0.0, 0.0" : "0.0, 0.0", numerics, items, more);
    sl_err err;
    if (scene_load_string(sc, text, "packing.cfg", &err))
        fail_msg("%s", err.msg);
}

/* What sim_create does before the packing: the particles and the parameters every scheme shares. */
static inline void sim_before_packing(const scene *sc, sim *s, const backend *be)
{
    memset(s, 0, sizeof *s);
    s->sc = sc;
    s->be = be;
    sl_err err;
    if (scene_build_particles(sc, &s->p, &err))
        fail_msg("%s", err.msg);
    s->P.dim = sc->dim;
    s->P.dp = (real)sc->dp;
    s->P.rho0 = (real)sc->rho0;
    s->P.inv_rho0 = (real)(1.0 / sc->rho0);
    s->P.mass = (real)(sc->rho0 * pow(sc->dp, sc->dim));
}

#endif
