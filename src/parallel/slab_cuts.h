/* slab_cuts.h: where to cut a column histogram of particles into slabs, of about equal counts or of
 * the counts that would give every slab as much measured work. */
#ifndef SLUICE_SLAB_CUTS_H
#define SLUICE_SLAB_CUTS_H

#include <stdint.h>

/* Cuts columns [0, ncols) into `nslabs` runs of whole columns: slab r is [first[r], first[r+1]),
 * first[0] = 0, first[nslabs] = ncols, each at least min_cols wide (the ghosts of a slab must come
 * from its two neighbours only), the counts count[c] as evenly shared as whole columns allow (each
 * cut at the column boundary nearest to its share of the total). Returns -1 when ncols < nslabs *
 * min_cols, else 0. */
int slab_cuts(const int64_t *count, int ncols, int nslabs, int min_cols, int *first);

/* The same with slab r's share of the total share[r] (each >= 0, their sum 1) instead of 1/nslabs
 * (share NULL: slab_cuts). */
int slab_cuts_shared(const int64_t *count, int ncols, int nslabs, int min_cols, const double *share, int *first);

/* The largest slab's count over the mean (1: even), from the counts per slab. */
double slab_imbalance(const int64_t *per_slab, int nslabs);

/* A rank's marginal cost, the seconds a step one more particle costs it, from two windows of its
 * timed steps (n particles, work s a step; before: the earlier window's): the secant
 * (work - work_before) / (n - n_before), kept within SLAB_MARGINAL_MIN .. SLAB_MARGINAL_MAX times
 * the average cost work / n against the windows' noise. Part of a step does not follow the
 * particles (the halos, the ghosts' share), so the average cost overstates what a particle moved
 * away saves. Returns 0 (unknown) where the counts differ by at most 1% of n, or either window is
 * empty. */
#define SLAB_MARGINAL_MIN 0.5
#define SLAB_MARGINAL_MAX 1.0
double slab_marginal_cost(double n, double work, double n_before, double work_before);

/* Each slab's share of the particles (share[r], their sum 1) that gives every slab the same work
 * if slab r's step costs work[r] + marginal[r] (m - n[r]) with m particles (a marginal cost <= 0:
 * unknown, the slab's average cost work[r] / n[r] instead; a slab without particles or work: the
 * mean average cost of the others). The common work T solves sum_r (T - work[r]) / marginal[r] =
 * 0; a slab that would get fewer than none gets none. Equal shares when no slab has both. */
void slab_work_shares(int nslabs, const double *n, const double *work, const double *marginal, double *share);

#endif
