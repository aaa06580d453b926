/* mpi_select.c: the particles a cell build sends (migration, ghost bands), chosen by slab_rule.h's
 * rule and ordered by destination: on the device where the cell build is staged (the routes stay
 * there; only their counts cross the bus), otherwise by a loop over the host arrays. */
#include "mpi_domain.h"

slab_rule domain_rule(const struct domain *d, enum slab_choice c)
{
    slab_rule r = {c, d->axis, d->ncols, d->rank, d->size, d->band, d->origin, d->width};
    return r;
}

int domain_select(struct domain *d, sim *s, enum slab_choice c, routes *r, sl_err *err)
{
    const particles *p = &s->p;
    const slab_rule rule = domain_rule(d, c);
    r->n = 0;
    if (domain_staged(s)) /* only the counts come back: the routes stay on the device */
        return s->be->halo->select(s, &rule, d->first, d->counts, &r->by_dest, &r->n, err);
    SL_TRY(routes_reserve(r, 2 * p->n, err));
    const real *x = p->f[PF_X + d->axis];
    for (size_t i = 0; i < p->n; ++i) {
        int dest[2], k = slab_destinations(&rule, d->first, x[i], p->id[i], dest);
        for (int j = 0; j < k; ++j) {
            r->idx[r->n] = (int32_t)i;
            r->dest[r->n++] = dest[j];
        }
    }
    return domain_order_routes(d, r, err);
}
