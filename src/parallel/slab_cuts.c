/* slab_cuts.c: where to cut a column histogram of particles into slabs, of about equal counts or of
 * the counts that would give every slab as much measured work. */
#include "slab_cuts.h"

#include <math.h>
#include <stddef.h>

/* share NULL: equal shares, the cuts' targets in exact integers (r total / nslabs) */
static int cuts(const int64_t *count, int ncols, int nslabs, int min_cols, const double *share, int *first)
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
    long double upto = 0; /* the shares of slabs 0..r-1 */
    for (int r = 1; r < nslabs; ++r) {
        long double want;
        if (share) {
            upto += share[r - 1];
            want = (long double)total * upto;
        } else {
            want = (long double)total * r / nslabs;
        }
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

int slab_cuts(const int64_t *count, int ncols, int nslabs, int min_cols, int *first)
{
    return cuts(count, ncols, nslabs, min_cols, NULL, first);
}

int slab_cuts_shared(const int64_t *count, int ncols, int nslabs, int min_cols, const double *share, int *first)
{
    return cuts(count, ncols, nslabs, min_cols, share, first);
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

double slab_marginal_cost(double n, double work, double n_before, double work_before)
{
    if (!(n > 0 && work > 0 && n_before > 0 && work_before > 0) || fabs(n - n_before) <= 0.01 * n)
        return 0;
    double average = work / n, secant = (work - work_before) / (n - n_before);
    return fmin(fmax(secant, SLAB_MARGINAL_MIN * average), SLAB_MARGINAL_MAX * average);
}

/* The cost per particle slab r is taken at: its marginal cost, else its average cost, and the
 * others' mean average cost for a slab without its own figures (own = 0). */
static double slab_cost(const double *n, const double *work, const double *marginal, int r, double mean_cost,
                        int *own)
{
    *own = n[r] > 0 && work[r] > 0;
    return !*own ? mean_cost : marginal[r] > 0 ? marginal[r] : work[r] / n[r];
}

void slab_work_shares(int nslabs, const double *n, const double *work, const double *marginal, double *share)
{
    double mean_cost = 0, total = 0;
    int known = 0;
    for (int r = 0; r < nslabs; ++r) {
        if (n[r] > 0 && work[r] > 0) {
            mean_cost += work[r] / n[r];
            known++;
        }
        total += n[r] > 0 ? n[r] : 0;
    }
    if (!known || !(total > 0)) {
        for (int r = 0; r < nslabs; ++r)
            share[r] = 1.0 / nslabs;
        return;
    }
    mean_cost /= known;
    /* T = sum(work / a) / sum(1 / a); a slab without its own figures works 0 now at the mean cost */
    double over_a = 0, work_over_a = 0;
    int own;
    for (int r = 0; r < nslabs; ++r) {
        double a = slab_cost(n, work, marginal, r, mean_cost, &own);
        over_a += 1 / a;
        work_over_a += (own ? work[r] : 0) / a;
    }
    const double T = work_over_a / over_a;
    double sum = 0;
    for (int r = 0; r < nslabs; ++r) {
        double a = slab_cost(n, work, marginal, r, mean_cost, &own);
        double m = (own ? n[r] : 0) + (T - (own ? work[r] : 0)) / a;
        share[r] = m > 0 ? m : 0;
        sum += share[r];
    }
    for (int r = 0; r < nslabs; ++r)
        share[r] = sum > 0 ? share[r] / sum : 1.0 / nslabs;
}
