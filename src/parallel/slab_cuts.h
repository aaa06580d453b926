/* slab_cuts.h: where to cut a column histogram of particles into slabs of about equal counts. */
#ifndef SLUICE_SLAB_CUTS_H
#define SLUICE_SLAB_CUTS_H

#include <stdint.h>

/* Cuts columns [0, ncols) into `nslabs` runs of whole columns: slab r is [first[r], first[r+1]),
 * first[0] = 0, first[nslabs] = ncols, each at least min_cols wide (the ghosts of a slab must come
 * from its two neighbours only), the counts count[c] as evenly shared as whole columns allow (each
 * cut at the column boundary nearest to its share of the total). Returns -1 when ncols < nslabs *
 * min_cols, else 0. */
int slab_cuts(const int64_t *count, int ncols, int nslabs, int min_cols, int *first);

/* The largest slab's count over the mean (1: even), from the counts per slab. */
double slab_imbalance(const int64_t *per_slab, int nslabs);

#endif
