/* sim.c: one simulation's life after creation: host/device sync, the scheme's steps with the
 * backend's errors checked, release, memory. */
#include "sim.h"

#include "floating.h"
#include "motion.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    if (s->sch && s->sch->release && s->scheme_data)
        s->sch->release(s);
    motion_free(s); /* before the backend, whose memory it may hold */
    floating_free(s);
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
