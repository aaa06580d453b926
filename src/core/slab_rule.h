/* slab_rule.h: which particles an MPI rank sends where, decided from each particle's position along
 * the slab axis and its id: the migration's movers and the ghost bands. One rule for the host's loop
 * (parallel/mpi_select.c) and a device backend's selection (backend.halo.select), so both choose the
 * same particles in the same order. */
#ifndef SLUICE_SLAB_RULE_H
#define SLUICE_SLAB_RULE_H

#include "base/real.h"

#include <stddef.h>
#include <stdint.h>

enum slab_choice {
    SLAB_MOVERS, /* particles whose cell column another rank owns, to that rank */
    SLAB_BANDS   /* owned particles within `band` columns of a cut, to the rank across it */
};

/* The slabs as the choices read them. `first` is not here: the caller passes it where the code that
 * applies the rule reads it (host memory, or a device's copy). */
typedef struct slab_rule {
    enum slab_choice choice;
    int axis;      /* the slab axis: the position read is field PF_X + axis */
    int ncols;     /* the grid's interior cell columns along it */
    int rank, size;
    int band;      /* cell columns of a ghost band */
    double origin; /* the first interior cell along the axis, m */
    double width;  /* the cells' width along it, m */
} slab_rule;

/* The cell column of position x along the slab axis, clamped to [0, ncols); -1 for NaN. In double,
 * the grid's arithmetic (nbr_view_cell_of), so a slab's particles are exactly its cells'. */
static inline HD int slab_column(const slab_rule *r, real x)
{
    double f = ((double)x - r->origin) / r->width;
    if (!(f == f))
        return -1;
    if (f < 0)
        return 0;
    if (f >= r->ncols)
        return r->ncols - 1;
    return (int)f;
}

/* The particles per column of n positions x along the rule's axis, into count[0 .. ncols) (NaN
 * positions are nobody's to count): the host's loop, which a device backend's column_counts hook
 * must equal. */
static inline void slab_column_counts(const slab_rule *r, const real *x, size_t n, int64_t *count)
{
    for (int c = 0; c < r->ncols; ++c)
        count[c] = 0;
    for (size_t i = 0; i < n; ++i) {
        const int c = slab_column(r, x[i]);
        if (c >= 0)
            count[c]++;
    }
}

/* The rank whose slab holds column col >= 0: the last r with first[r] <= col. */
static inline HD int slab_owner(const int *first, int size, int col)
{
    int lo = 0, hi = size - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (first[mid] <= col)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Where the rule sends a particle at x with this id: its destinations, the lower rank first, in
 * dest[0 .. returned count), at most two. A NaN position goes nowhere (it is in the sink wherever it
 * is); a ghost is never a mover or in a band (no ghosts of ghosts). */
static inline HD int slab_destinations(const slab_rule *r, const int *first, real x, int32_t id, int dest[2])
{
    const int c = slab_column(r, x);
    if (c < 0 || id < 0)
        return 0;
    const int lo = first[r->rank], hi = first[r->rank + 1];
    if (r->choice == SLAB_MOVERS) {
        if (c >= lo && c < hi)
            return 0;
        dest[0] = slab_owner(first, r->size, c);
        return 1;
    }
    int k = 0; /* both bands where the slab is no wider than one */
    if (r->rank > 0 && c < lo + r->band)
        dest[k++] = r->rank - 1;
    if (r->rank < r->size - 1 && c >= hi - r->band)
        dest[k++] = r->rank + 1;
    return k;
}

#endif
