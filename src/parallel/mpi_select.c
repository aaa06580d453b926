/* mpi_select.c: the particles a cell build sends (migration, ghost bands), chosen by slab_rule.h's
 * rule: on the device where the cell build is staged (only the chosen
 * particles' places cross the bus), otherwise by a loop over the host arrays. */
#include "mpi_domain.h"

slab_rule domain_rule(const struct domain *d, enum slab_choice c)
{
    slab_rule r = {c, d->axis, d->ncols, d->rank, d->size, d->band, d->origin, d->width};
    return r;
}

int domain_select(struct domain *d, sim *s, enum slab_choice c, routes *r, sl_err *err)
{
    const particles *p = &s->p;
    SL_TRY(routes_reserve(r, 2 * p->n, err));
    const slab_rule rule = domain_rule(d, c);
    r->n = 0;
    if (domain_staged(s))
        return s->be->halo->select(s, &rule, d->first, r->idx, r->dest, &r->n, err);
    const real *x = p->f[PF_X + d->axis];
    for (size_t i = 0; i < p->n; ++i) {
        int dest[2], k = slab_destinations(&rule, d->first, x[i], p->id[i], dest);
        for (int j = 0; j < k; ++j) {
            r->idx[r->n] = (int32_t)i;
            r->dest[r->n++] = dest[j];
        }
    }
    return SL_OK;
}
