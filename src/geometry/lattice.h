/* lattice.h: the scene lattice that non-box shapes sample (points at (i + 1/2) dp for every integer
 * i, the points of a box whose corners are multiples of dp), what a sampler keeps of it, and the
 * visitor it hands the points to. */
#ifndef SLUICE_LATTICE_H
#define SLUICE_LATTICE_H

#include <math.h>
#include <stdint.h>

/* Which lattice points a sampler keeps. */
enum sample_mode {
    SAMPLE_FILL,    /* inside the shape (fluid) */
    SAMPLE_BAND_IN, /* inside, closer than layers x dp to the surface (an obstacle's walls) */
    SAMPLE_BAND_OUT /* outside, closer than layers x dp to the surface (a tank's walls round its cavity) */
};

/* Called for each kept point in lattice order (z, then y, then x ascending); layer: 0 next to the
 * surface, then 1, 2, ... (floor(distance / dp)), 0 for SAMPLE_FILL. */
typedef void (*lattice_visit)(void *ctx, const double pos[3], int layer);

/* The coordinate of lattice index i. */
static inline double lattice_at(int64_t i, double dp)
{
    return ((double)i + 0.5) * dp;
}

/* Lattice indices stay well inside int64 (and exact in a double) within this many spacings of the
 * origin. */
#define LATTICE_INDEX_MAX 1e15

/* Whether [lo, hi] lies within LATTICE_INDEX_MAX spacings of the origin (false for NaN). */
static inline int lattice_fits(double lo, double hi, double dp)
{
    return fabs(lo / dp) <= LATTICE_INDEX_MAX && fabs(hi / dp) <= LATTICE_INDEX_MAX;
}

/* The first and last lattice indices within [lo, hi] (first > last when none); lattice_fits first. */
static inline void lattice_range(double lo, double hi, double dp, int64_t *first, int64_t *last)
{
    *first = (int64_t)ceil(lo / dp - 0.5);
    *last = (int64_t)floor(hi / dp - 0.5);
}

#endif
