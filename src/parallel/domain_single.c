/* domain_single.c: the domain interface of a build without MPI: one rank, every call a no-op. */
#include "domain.h"


void domain_start(int *argc, char ***argv, int *rank, int *size)
{
    (void)argc;
    (void)argv;
    *rank = 0;
    *size = 1;
}

const char *domain_mpi_library(void)
{
    return "not built with MPI (configure with -DSLUICE_MPI=ON; it needs an MPI such as libopenmpi-dev)";
}

void domain_host_ranks(int *rank, int *count)
{
    *rank = 0;
    *count = 1;
}

int domain_attach(sim *s, double reach, sl_err *err)
{
    (void)reach;
    (void)err;
    s->domain = NULL;
    return SL_OK;
}

int domain_agree_status(int rc, int *first_failed)
{
    *first_failed = rc ? 0 : -1;
    return rc;
}

void domain_abort(int rc, const char *msg)
{
    (void)rc;
    (void)msg;
}

void domain_describe(const sim *s, char *buf, size_t len)
{
    (void)s;
    if (len)
        buf[0] = 0;
}

void domain_detach(sim *s)
{
    s->domain = NULL;
}

void domain_finish(void) {}

int domain_is_root(const sim *s)
{
    (void)s;
    return 1;
}

int domain_distribute(sim *s, sl_err *err)
{
    (void)s;
    (void)err;
    return SL_OK;
}

double domain_min_time_step(const sim *s, double dt)
{
    (void)s;
    return dt;
}

int domain_any(const sim *s, int flag)
{
    (void)s;
    return flag;
}

size_t domain_total_particles(const sim *s)
{
    return s->p.n;
}

int domain_gather(sim *s, uint32_t fields, sl_err *err)
{
    (void)fields;
    (void)err;
    sim_sync_host(s);
    return SL_OK;
}

void domain_ungather(sim *s)
{
    (void)s;
}

int domain_build_cells(sim *s, sl_err *err)
{
    return s->be->build_cells(s, err);
}

int domain_refresh_halo(sim *s, sl_err *err)
{
    (void)s;
    (void)err;
    return SL_OK;
}

int domain_zero_ghosts(sim *s, const int *fields, int n, sl_err *err)
{
    (void)s;
    (void)fields;
    (void)n;
    (void)err;
    return SL_OK;
}

int domain_drop_halo(sim *s, sl_err *err)
{
    (void)s;
    (void)err;
    return SL_OK;
}

int domain_drop_spent_halo(sim *s, sl_err *err)
{
    (void)s;
    (void)err;
    return SL_OK;
}

int domain_settle(sim *s, sl_err *err)
{
    (void)s;
    (void)err;
    return SL_OK;
}

size_t domain_owned(const sim *s)
{
    return s->p.n;
}

int domain_refresh_field(sim *s, int field, sl_err *err)
{
    (void)s;
    (void)field;
    (void)err;
    return SL_OK;
}

int domain_sum(sim *s, double *v, int count, sl_err *err)
{
    (void)s;
    (void)v;
    (void)count;
    (void)err;
    return SL_OK;
}

int domain_max(sim *s, double *v, int count, sl_err *err)
{
    (void)s;
    (void)v;
    (void)count;
    (void)err;
    return SL_OK;
}

int domain_sum_to_root(sim *s, double *v, int count, sl_err *err)
{
    (void)s;
    (void)v;
    (void)count;
    (void)err;
    return SL_OK;
}

int domain_add_ghosts_to_owners(sim *s, int field, sl_err *err)
{
    (void)s;
    (void)field;
    (void)err;
    return SL_OK;
}

void domain_note_step(sim *s, double seconds)
{
    (void)s;
    (void)seconds;
}

int domain_world_size(void)
{
    return 1;
}

int domain_reuse_cells(sim *s, sl_err *err)
{
    (void)s;
    (void)err;
    return SL_OK;
}

int domain_set_ghosts(sim *s, int field, real value, sl_err *err)
{
    (void)s;
    (void)field;
    (void)value;
    (void)err;
    return SL_OK;
}

int domain_cell_cuts(const sim *s, int *axis, int *rank, int *cut)
{
    *axis = 0;
    *rank = 0;
    if (cut) {
        cut[0] = 0;
        cut[1] = s->g.nc[0];
    }
    return 1;
}

int domain_cell_halo(sim *s, const mg_grid *g, const int *bound, real *v, int per_cell, int left, int right,
                     sl_err *err)
{
    (void)s, (void)g, (void)bound, (void)v, (void)per_cell, (void)left, (void)right, (void)err;
    return SL_OK;
}

int domain_cell_gather(sim *s, const mg_grid *g, const int *bound, real *v, int per_cell, sl_err *err)
{
    (void)s, (void)g, (void)bound, (void)v, (void)per_cell, (void)err;
    return SL_OK;
}
