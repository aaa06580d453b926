/* slab_cuts.c: where to cut a column histogram of particles into slabs of about equal counts. */
#include "slab_cuts.h"

int slab_cuts(const int64_t *count, int ncols, int nslabs, int min_cols, int *first)
{
    if (nslabs < 1 || min_cols < 1 || ncols < (int64_t)nslabs * min_cols)
        return -1;
    int64_t total = 0;
    for (int c = 0; c < ncols; ++c)
        total += count[c];
    first[0] = 0;
    first[nslabs] = ncols;
    int c = 0;          /* columns [0, c) are summed in below */
    int64_t below = 0;  /* particles in columns [0, c) */
    for (int r = 1; r < nslabs; ++r) {
        /* the share of slabs 0..r-1, in exact integers: r total / nslabs */
        long double want = (long double)total * r / nslabs;
        while (c < ncols && below + count[c] <= want) {
            below += count[c];
            ++c;
        }
        /* the boundary after column c is nearer when it overshoots less than stopping here falls short */
        int cut = c;
        if (c < ncols && (long double)(below + count[c]) - want < want - (long double)below)
            cut = c + 1;
        int lo = first[r - 1] + min_cols, hi = ncols - (nslabs - r) * min_cols;
        cut = cut < lo ? lo : cut > hi ? hi : cut;
        first[r] = cut;
        /* the walk resumes from the cut (it may have been moved by the width limits) */
        while (c < cut) {
            below += count[c];
            ++c;
        }
        while (c > cut) {
            --c;
            below -= count[c];
        }
    }
    return 0;
}

double slab_imbalance(const int64_t *per_slab, int nslabs)
{
    int64_t total = 0, most = 0;
    for (int r = 0; r < nslabs; ++r) {
        total += per_slab[r];
        most = per_slab[r] > most ? per_slab[r] : most;
    }
    return total > 0 ? (double)most * nslabs / (double)total : 1.0;
}
