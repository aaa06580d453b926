/* sim.c: creating a simulation from a scene (particles, parameters, scheme, neighbour grid). */
#include "sim.h"

#include "geometry/scene_build.h"

#include <math.h>
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

    rc = s->sch->init(s, err);
    if (rc)
        goto fail;
    scene_domain(sc, P->r_max, s->domain_min, s->domain_max);
    rc = nbr_grid_init(&s->g, sc->dim, sc->ndiv, P->r_max, s->domain_min, s->domain_max, SIM_MAX_CELLS, err);
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

pass_ctx sim_host_ctx(const sim *s)
{
    pass_ctx c;
    memset(&c, 0, sizeof c);
    c.P = s->P;
    c.nb = s->g.view;
    for (int k = 0; k < s->p.nfields; ++k)
        c.f[k] = s->p.f[k];
    c.type = s->p.type;
    c.tag = s->p.tag;
    c.a = s->args;
    return c;
}

void sim_sync_host(sim *s)
{
    if (s->be && s->be->to_host)
        s->be->to_host(s);
}

int sim_sync_device(sim *s, sl_err *err)
{
    return s->be && s->be->to_device ? s->be->to_device(s, err) : SL_OK;
}

int sim_backend_error(sim *s, sl_err *err)
{
    return s->be && s->be->take_error ? s->be->take_error(s, err) : SL_OK;
}

int sim_time_step(sim *s, double *dt, sl_err *err)
{
    int rc = s->sch->time_step(s, dt, err);
    return rc ? rc : sim_backend_error(s, err);
}

int sim_step(sim *s, double dt, sl_err *err)
{
    int rc = s->sch->step(s, dt, err);
    return rc ? rc : sim_backend_error(s, err);
}

void sim_free(sim *s)
{
    if (s->be && s->be->release)
        s->be->release(s);
    particles_free(&s->p);
    nbr_grid_free(&s->g);
    free(s->scheme_data);
    s->scheme_data = NULL;
}

size_t sim_memory_bytes(const sim *s)
{
    size_t per_particle = (size_t)s->p.nfields * sizeof(real) + sizeof(int32_t) + sizeof(uint8_t);
    size_t grid_per_particle = 3 * sizeof(int32_t) + sizeof(real); /* cell, cell_tmp, order, field_tmp */
    return s->p.n * (per_particle + grid_per_particle) + ((size_t)s->g.ncells + 2) * sizeof(int32_t);
}
