/* sim_create.c: a simulation assembled from a scene: the particles from its geometry, the scheme
 * it names (schemes/registry.c) with its parameters and wall model, the neighbour grid, the first
 * sort. The one place that ties the layers below together, so none of them names another. */
#include "sim_create.h"

#include "geometry/scene_build.h"
#include "packing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Neighbour cells allowed before the grid is judged a mistake (about 4 GiB of cell_start). */
#define SIM_MAX_CELLS ((int64_t)1 << 30)

int sim_create(sim *s, const scene *sc, const backend *be, sl_err *err)
{
    memset(s, 0, sizeof *s);
    s->sc = sc;
    s->be = be;
    s->sch = scheme_find(sc->method);
    if (!s->sch)
        return sl_fail(err, SL_ERR_INPUT, "%s: key 'simulation.method': '%s' is unknown (accepted: %s)",
                       sc->path, sc->method, scheme_names());
    int rc = scene_build_particles(sc, &s->p, err);
    if (rc)
        return rc;

    sim_params *P = &s->P;
    P->dim = sc->dim;
    P->dp = (real)sc->dp;
    P->rho0 = (real)sc->rho0;
    P->inv_rho0 = (real)(1.0 / sc->rho0);
    P->mass = (real)(sc->rho0 * pow(sc->dp, sc->dim));
    for (int a = 0; a < 3; ++a)
        P->g[a] = a < sc->dim ? (real)sc->gravity[a] : (real)0;
    s->fluid_height = scene_fluid_height(sc);

    /* before the scheme: it sets densities, pressures and its histories from the packed positions */
    if (sc->packing) {
        packing_result pk;
        if ((rc = packing_run(s, SIM_MAX_CELLS, stderr, &pk, err)))
            goto fail;
    }
    rc = s->sch->init(s, err);
    if (rc)
        goto fail;
    scene_domain(sc, P->r_max, s->domain_min, s->domain_max);
    P->periodic.axes = sc->periodic;
    for (int a = 0; a < 3; ++a)
        P->periodic.length[a] = (sc->periodic >> a) & 1u ? (real)(s->domain_max[a] - s->domain_min[a]) : (real)0;
    /* cells wider by the skin where a scheme reuses them for moved positions (sim_params.cell_skin) */
    rc = nbr_grid_init(&s->g, sc->dim, sc->ndiv, P->r_max + P->cell_skin, s->domain_min, s->domain_max, sc->periodic,
                       SIM_MAX_CELLS, err);
    s->g.view.slack = (real)0.5 * P->cell_skin;
    if (rc == SL_ERR_INPUT && err) {
        /* the grid knows neither the file nor the key: name them, as every scene error does */
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        if (strstr(why, "(accepted:")) /* the grid said what it accepts */
            rc = sl_fail(err, SL_ERR_INPUT, "%s:%d: key 'simulation.periodic': %s", sc->path, sc->periodic_line, why);
        else
            rc = sl_fail(err, SL_ERR_INPUT, "%s: key '%s': %s (accepted: a domain of at most %lld neighbour cells)",
                         sc->path, sc->domain_set ? "simulation.domain_max" : "geometry", why, (long long)SIM_MAX_CELLS);
    }
    if (rc)
        goto fail;
    rc = be->build_cells(s, err);
    if (rc)
        goto fail;
    if (s->g.n_inside != s->p.n) {
        rc = sl_fail(err, SL_ERR_INPUT,
                     "%s: key 'simulation.domain_max': %zu particles start outside the domain "
                     "(accepted: a domain that holds every geometry item)",
                     sc->path, s->p.n - s->g.n_inside);
        goto fail;
    }
    return SL_OK;
fail:
    sim_free(s);
    return rc;
}

