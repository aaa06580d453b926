/* mpi_gather.c: every rank's particles on the root for output and checkpoints, and back. */
#include "mpi_domain.h"

#include <stdlib.h>
#include <string.h>

int domain_gather(sim *s, uint32_t fields, sl_err *err)
{
    struct domain *d = s->domain;
    if (!d) {
        sim_sync_host(s);
        return SL_OK;
    }
    SL_TRY(domain_settle(s, err)); /* the owned particles alone, then the host's copy of them */
    sim_sync_host(s);
    particles *p = &s->p;
    int n = (int)p->n, R = d->size;
    int *count = d->counts, *off = d->counts + R;
    MPI_Gather(&n, 1, MPI_INT, count, 1, MPI_INT, 0, d->comm);
    particles all;
    memset(&all, 0, sizeof all);
    if (d->rank == 0) {
        size_t total = 0;
        for (int r = 0; r < R; ++r) {
            off[r] = (int)total;
            total += (size_t)count[r];
        }
        /* the same fields in the same slots, so the writers see the state as on one rank */
        int rc = particles_alloc(&all, total, err);
        for (int k = PF_CORE; k < p->nfields && rc == SL_OK; ++k)
            if (particles_add_field(&all, p->fname[k], p->transient[k]) != k)
                rc = sl_fail(err, SL_ERR_RUNTIME, "MPI domain: out of memory gathering %zu particles", total);
        if (rc) {
            particles_free(&all);
            return rc; /* the caller aborts every rank */
        }
    }
    /* (the fields not asked for stay as calloc left them: pages never touched cost nothing) */
    for (int k = 0; k < p->nfields; ++k)
        if ((fields >> k) & 1u)
            MPI_Gatherv(p->f[k], n, DOMAIN_MPI_REAL, all.f[k], count, off, DOMAIN_MPI_REAL, 0, d->comm);
    MPI_Gatherv(p->id, n, MPI_INT32_T, all.id, count, off, MPI_INT32_T, 0, d->comm);
    MPI_Gatherv(p->type, n, MPI_UINT8_T, all.type, count, off, MPI_UINT8_T, 0, d->comm);
    MPI_Gatherv(p->tag, n, MPI_UINT8_T, all.tag, count, off, MPI_UINT8_T, 0, d->comm);
    if (d->rank == 0) {
        d->own = *p;
        *p = all;
        d->gathered = 1;
    }
    return SL_OK;
}

void domain_ungather(sim *s)
{
    struct domain *d = s->domain;
    if (!d || !d->gathered)
        return;
    particles_free(&s->p);
    s->p = d->own;
    memset(&d->own, 0, sizeof d->own);
    d->gathered = 0;
}
