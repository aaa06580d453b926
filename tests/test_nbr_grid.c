/* test_nbr_grid.c: the forward-star grid against a brute-force all-pairs search. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "grid/nbr_grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum layout { UNIFORM, CLUSTERED, MOSTLY_EMPTY };

/* Deterministic generator so failures reproduce. */
static double rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static void make_layout(particles *p, int dim, enum layout lay, size_t n, const double lo[3],
                        const double hi[3], uint64_t seed)
{
    assert_int_equal(particles_alloc(p, n, NULL), SL_OK);
    uint64_t s = seed;
    double centre[4][3];
    for (int c = 0; c < 4; ++c)
        for (int a = 0; a < 3; ++a)
            centre[c][a] = lo[a] + (0.2 + 0.6 * rnd(&s)) * (hi[a] - lo[a]);
    for (size_t i = 0; i < n; ++i) {
        for (int a = 0; a < 3; ++a) {
            double x;
            if (a >= dim) {
                x = 0;
            } else if (lay == CLUSTERED && i % 5) {
                /* 80% of the particles in four tight clusters: many per cell */
                x = centre[i % 4][a] + 0.02 * (hi[a] - lo[a]) * (rnd(&s) - 0.5);
            } else if (lay == MOSTLY_EMPTY) {
                /* a thin slab in one corner of a large domain, and a few particles outside it */
                x = lo[a] + 0.1 * (hi[a] - lo[a]) * rnd(&s);
                if (i % 97 == 0)
                    x = hi[a] + 0.5 * rnd(&s);
            } else {
                x = lo[a] + (hi[a] - lo[a]) * rnd(&s);
            }
            p->f[PF_X + a][i] = (real)x;
        }
        p->f[PF_VX][i] = (real)i; /* a field that must follow its particle through the sort */
        p->type[i] = (uint8_t)(i % 3);
    }
}

static int cmp_int(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static void check_case(int dim, int ndiv, enum layout lay, size_t n, uint64_t seed)
{
    const double lo[3] = {-0.3, 0.1, 0.0}, hi[3] = {1.1, 0.9, 0.7};
    const real rmax = (real)0.08;
    particles p;
    make_layout(&p, dim, lay, n, lo, hi, seed);
    nbr_grid g;
    assert_int_equal(nbr_grid_init(&g, dim, ndiv, rmax, lo, hi, 0, (int64_t)1 << 26, NULL), SL_OK);
    assert_int_equal(g.view.nruns, dim == 2 ? 2 * ndiv + 1 : (2 * ndiv + 1) * (2 * ndiv + 1));
    /* A transient field (a rate the scheme recomputes after each rebuild) stays as it was. */
    int tf = particles_add_field(&p, "rate", 1);
    assert_true(tf >= PF_CORE);
    for (size_t i = 0; i < n; ++i)
        p.f[tf][i] = (real)(n - i);
    /* Build twice: the second build starts from a sorted state, as in a run. */
    assert_int_equal(nbr_grid_build(&g, &p, NULL), SL_OK);
    assert_int_equal(nbr_grid_build(&g, &p, NULL), SL_OK);
    for (size_t i = 0; i < n; ++i)
        assert_true(p.f[tf][i] == (real)(n - i));

    /* The sort is a permutation that carries every field along, and cells are non-decreasing. */
    char *seen = calloc(n, 1);
    for (size_t i = 0; i < n; ++i) {
        assert_true(p.id[i] >= 0 && (size_t)p.id[i] < n);
        assert_false(seen[p.id[i]]);
        seen[p.id[i]] = 1;
        assert_true(p.f[PF_VX][i] == (real)p.id[i]);
        assert_int_equal(p.type[i], p.id[i] % 3);
        assert_int_equal(g.cell[i], nbr_cell_of(&g, p.f[PF_X][i], p.f[PF_Y][i], p.f[PF_Z][i]));
        if (i)
            assert_true(g.cell[i - 1] <= g.cell[i]);
    }
    free(seen);
    for (int64_t c = 0; c <= g.ncells; ++c)
        assert_true(g.cell_start[c] <= g.cell_start[c + 1]);
    assert_int_equal(g.cell_start[g.ncells + 1], (int32_t)n);

    /* Neighbour sets: grid runs against all pairs, for every particle inside the domain. */
    int32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    size_t total = 0;
    for (size_t i = 0; i < g.n_inside; ++i) {
        size_t na = 0, nb = 0;
        for (size_t j = 0; j < g.n_inside; ++j) {
            real dx = p.f[PF_X][i] - p.f[PF_X][j], dy = p.f[PF_Y][i] - p.f[PF_Y][j];
            real dz = p.f[PF_Z][i] - p.f[PF_Z][j];
            if (dx * dx + dy * dy + dz * dz < rmax * rmax)
                a[na++] = (int32_t)j;
        }
        for (int r = 0; r < g.view.nruns; ++r) {
            int32_t jb, je;
            nbr_run_range(&g.view, g.cell[i], r, &jb, &je);
            for (int32_t j = jb; j < je; ++j) {
                real dx = p.f[PF_X][i] - p.f[PF_X][j], dy = p.f[PF_Y][i] - p.f[PF_Y][j];
                real dz = p.f[PF_Z][i] - p.f[PF_Z][j];
                if (dx * dx + dy * dy + dz * dz < rmax * rmax)
                    b[nb++] = j;
            }
        }
        qsort(b, nb, sizeof *b, cmp_int);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na * sizeof *a);
        total += na;
    }
    assert_true(total >= g.n_inside); /* every particle finds at least itself */

    /* Runs cut to a shorter reach (nbr_run_range_within), as a sphere and as a cube: the same
     * neighbours as all pairs, from at most the whole runs' candidates; in 3D at the grid's own
     * radius the cut must drop at least a fifth of them (the corners of the block: about a third on
     * a uniform layout), or it is not doing its job. */
    const double fractions[] = {1.0, 0.55, 0.2};
    for (int cube = 0; cube <= 1; ++cube)
        for (int k = 0; k < 3; ++k) {
            real reach = (real)(fractions[k] * rmax);
            size_t whole = 0, cut = 0;
            for (size_t i = 0; i < g.n_inside; ++i) {
                real xi = p.f[PF_X][i], yi = p.f[PF_Y][i], zi = p.f[PF_Z][i];
                size_t na = 0, nb = 0;
                for (size_t j = 0; j < g.n_inside; ++j) {
                    real dx = fabs(xi - p.f[PF_X][j]), dy = fabs(yi - p.f[PF_Y][j]), dz = fabs(zi - p.f[PF_Z][j]);
                    if (cube ? fmax(dx, fmax(dy, dz)) < reach : dx * dx + dy * dy + dz * dz < reach * reach)
                        a[na++] = (int32_t)j;
                }
                nbr_place at = nbr_place_of(&g.view, g.cell[i], xi, yi, zi, reach, cube);
                for (int r = 0; r < g.view.nruns; ++r) {
                    int32_t jb, je, wb, we;
                    nbr_run_range(&g.view, g.cell[i], r, &wb, &we);
                    nbr_run_range_within(&g.view, g.cell[i], r, &at, &jb, &je);
                    assert_true(je == jb || (jb >= wb && je <= we)); /* inside the whole run */
                    whole += (size_t)(we - wb);
                    cut += (size_t)(je - jb);
                    for (int32_t j = jb; j < je; ++j) {
                        real dx = fabs(xi - p.f[PF_X][j]), dy = fabs(yi - p.f[PF_Y][j]), dz = fabs(zi - p.f[PF_Z][j]);
                        if (cube ? fmax(dx, fmax(dy, dz)) < reach : dx * dx + dy * dy + dz * dz < reach * reach)
                            b[nb++] = j;
                    }
                }
                qsort(b, nb, sizeof *b, cmp_int);
                assert_int_equal(na, nb);
                assert_memory_equal(a, b, na * sizeof *a);
            }
            assert_true(cut <= whole);
            if (dim == 3 && lay == UNIFORM && !cube && k == 0)
                assert_true(cut < 0.8 * whole);
        }
    if (lay == MOSTLY_EMPTY)
        assert_true(g.n_inside < n); /* the particles outside went to the sink cell */
    else
        assert_int_equal(g.n_inside, n);
    free(a);
    free(b);
    nbr_grid_free(&g);
    particles_free(&p);
}

static void test_all_layouts(void **state)
{
    (void)state;
    for (int dim = 2; dim <= 3; ++dim)
        for (int ndiv = 1; ndiv <= 3; ++ndiv)
            for (int lay = UNIFORM; lay <= MOSTLY_EMPTY; ++lay)
                check_case(dim, ndiv, (enum layout)lay, dim == 2 ? 3000 : 4000,
                           (uint64_t)(100 * dim + 10 * ndiv + lay));
}

static void test_stable_order_inside_cells(void **state)
{
    (void)state;
    /* Particles that share a cell keep their previous relative order. */
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 0};
    particles p;
    make_layout(&p, 2, CLUSTERED, 2000, lo, hi, 7);
    nbr_grid g;
    assert_int_equal(nbr_grid_init(&g, 2, 2, (real)0.1, lo, hi, 0, 1 << 20, NULL), SL_OK);
    assert_int_equal(nbr_grid_build(&g, &p, NULL), SL_OK);
    for (size_t i = 1; i < p.n; ++i)
        if (g.cell[i] == g.cell[i - 1])
            assert_true(p.id[i - 1] < p.id[i]);
    nbr_grid_free(&g);
    particles_free(&p);
}

static void test_empty_and_single(void **state)
{
    (void)state;
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    for (size_t n = 0; n <= 1; ++n) {
        particles p;
        assert_int_equal(particles_alloc(&p, n, NULL), SL_OK);
        if (n)
            p.f[PF_X][0] = p.f[PF_Y][0] = p.f[PF_Z][0] = (real)0.5;
        nbr_grid g;
        assert_int_equal(nbr_grid_init(&g, 3, 1, (real)0.2, lo, hi, 0, 1 << 20, NULL), SL_OK);
        assert_int_equal(nbr_grid_build(&g, &p, NULL), SL_OK);
        assert_int_equal(g.n_inside, n);
        nbr_grid_free(&g);
        particles_free(&p);
    }
}

static void test_nan_goes_to_sink(void **state)
{
    (void)state;
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 0};
    particles p;
    assert_int_equal(particles_alloc(&p, 3, NULL), SL_OK);
    p.f[PF_X][0] = (real)NAN;
    p.f[PF_X][1] = (real)0.5;
    p.f[PF_Y][1] = (real)0.5;
    p.f[PF_X][2] = (real)-0.1;
    nbr_grid g;
    assert_int_equal(nbr_grid_init(&g, 2, 1, (real)0.2, lo, hi, 0, 1 << 20, NULL), SL_OK);
    assert_int_equal(nbr_grid_build(&g, &p, NULL), SL_OK);
    assert_int_equal(g.n_inside, 1);
    assert_int_equal(p.id[0], 1);
    nbr_grid_free(&g);
    particles_free(&p);
}

/* Parked MPI ghosts (a negative id at a NaN x, nbr_sort_key) are dropped by the sort, and the others
 * end exactly as a build without them puts them: the same ids, cells and field values in the same
 * places. A NaN x with an id >= 0 (a particle that blew up) is kept in the sink, as are ghosts
 * outside the domain at a number. A build told of another count of parked ghosts fails. */
static void test_parked_ghosts_dropped(void **state)
{
    (void)state;
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 0};
    const size_t n = 3000;
    particles p, q;
    make_layout(&p, 2, CLUSTERED, n, lo, hi, 11);
    assert_int_equal(particles_alloc(&q, n, NULL), SL_OK);
    size_t parked = 0, m = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i % 7 == 3) {
            p.id[i] = -1 - p.id[i];
            if (i % 2) { /* parked; the others stay as live ghosts */
                p.f[PF_X][i] = (real)NAN;
                ++parked;
                continue;
            }
        }
        if (i == 12) /* a particle that blew up: kept, in the sink */
            p.f[PF_X][i] = (real)NAN;
        if (i == 24) /* a ghost outside the domain at a number: kept, in the sink */
            p.f[PF_X][i] = (real)2.0;
        for (int a = 0; a < 3; ++a)
            q.f[PF_X + a][m] = p.f[PF_X + a][i];
        q.f[PF_VX][m] = p.f[PF_VX][i];
        q.id[m] = p.id[i];
        q.type[m++] = p.type[i];
    }
    q.n = m;
    nbr_grid g, h;
    assert_int_equal(nbr_grid_init(&g, 2, 2, (real)0.1, lo, hi, 0, 1 << 20, NULL), SL_OK);
    assert_int_equal(nbr_grid_init(&h, 2, 2, (real)0.1, lo, hi, 0, 1 << 20, NULL), SL_OK);
    sl_err err;
    g.parked = parked + 1; /* a count that is not what the particles hold: an error, nothing lost */
    assert_int_equal(nbr_grid_build(&g, &p, &err), SL_ERR_RUNTIME);
    printf("%s\n", err.msg);
    assert_int_equal(p.n, n);
    g.parked = parked;
    assert_int_equal(nbr_grid_build(&g, &p, NULL), SL_OK);
    assert_int_equal(g.parked, 0);
    assert_int_equal(nbr_grid_build(&h, &q, NULL), SL_OK);
    printf("%zu particles, %zu parked: %zu kept, %zu inside\n", n, parked, p.n, g.n_inside);
    assert_true(parked > 100);
    assert_int_equal(p.n, n - parked);
    assert_int_equal(g.n_inside, h.n_inside);
    assert_int_equal(g.n_inside, p.n - 2);
    assert_memory_equal(p.id, q.id, m * sizeof *p.id);
    assert_memory_equal(g.cell, h.cell, m * sizeof *g.cell);
    assert_memory_equal(g.cell_start, h.cell_start, ((size_t)g.ncells + 2) * sizeof *g.cell_start);
    assert_memory_equal(p.f[PF_Y], q.f[PF_Y], m * sizeof(real));
    assert_memory_equal(p.f[PF_VX], q.f[PF_VX], m * sizeof(real));
    nbr_grid_free(&g);
    nbr_grid_free(&h);
    particles_free(&p);
    particles_free(&q);
}

static void test_too_many_cells_is_an_error(void **state)
{
    (void)state;
    const double lo[3] = {0, 0, 0}, hi[3] = {1000, 1000, 1000};
    nbr_grid g;
    sl_err err;
    assert_int_equal(nbr_grid_init(&g, 3, 3, (real)0.001, lo, hi, 0, 1 << 20, &err), SL_ERR_INPUT);
    assert_non_null(strstr(err.msg, "cells"));
    nbr_grid_free(&g);
}

/* Periodic axes: for every particle, every particle whose nearest image lies within r_max is a
 * candidate exactly once (a seam must neither hide a neighbour nor hand it out twice), positions
 * that left the period are folded back into it, and the grid refuses a period shorter than
 * 2 ndiv + 1 cells. Brute force over all pairs with the minimum-image distance is the oracle. */
static void check_periodic(int dim, int ndiv, unsigned axes, uint64_t seed)
{
    const double lo[3] = {-0.3, 0.1, 0.0}, hi[3] = {0.5, 0.72, 0.55};
    const real rmax = (real)0.1;
    const size_t n = dim == 2 ? 1000 : 1600;
    particles p;
    make_layout(&p, dim, UNIFORM, n, lo, hi, seed);
    /* a few particles a little outside the period, as a step leaves them before the next sort */
    for (size_t i = 0; i < n; i += 50)
        for (int a = 0; a < dim; ++a)
            if ((axes >> a) & 1u)
                p.f[PF_X + a][i] = (real)(i % 100 ? lo[a] - 0.01 : hi[a] + 0.01);
    nbr_grid g;
    assert_int_equal(nbr_grid_init(&g, dim, ndiv, rmax, lo, hi, axes, 1 << 24, NULL), SL_OK);
    assert_int_equal(nbr_grid_build(&g, &p, NULL), SL_OK);
    assert_int_equal(g.n_inside, n); /* along a periodic axis nothing is outside */
    double L[3];
    for (int a = 0; a < 3; ++a)
        L[a] = hi[a] - lo[a];
    for (size_t i = 0; i < n; ++i)
        for (int a = 0; a < dim; ++a)
            if ((axes >> a) & 1u)
                assert_true(p.f[PF_X + a][i] >= (real)lo[a] - (real)1e-6 && p.f[PF_X + a][i] <= (real)hi[a] + (real)1e-6);
    int32_t *seen = calloc(n, sizeof *seen);
    long pairs = 0, across = 0;
    for (size_t i = 0; i < n; ++i) {
        memset(seen, 0, n * sizeof *seen);
        NBR_FOR_CANDIDATES(&g.view, (int32_t)i, j, { seen[j]++; });
        for (size_t j = 0; j < n; ++j) {
            assert_true(seen[j] <= 1);
            double r2 = 0;
            int wrapped = 0;
            for (int a = 0; a < dim; ++a) {
                double d = (double)p.f[PF_X + a][i] - (double)p.f[PF_X + a][j];
                if ((axes >> a) & 1u) {
                    double k = round(d / L[a]);
                    wrapped |= fabs(d - k * L[a]) < fabs(d) - 1e-12;
                    d -= k * L[a];
                }
                r2 += d * d;
            }
            if (r2 < (double)rmax * (double)rmax) {
                if (!seen[j])
                    fail_msg("dim %d ndiv %d axes %u: particle %zu misses neighbour %zu at %g", dim, ndiv, axes, i, j,
                             sqrt(r2));
                pairs++;
                across += wrapped;
            }
        }
    }
    assert_true(across > 0); /* the seams were crossed */
    printf("periodic dim %d ndiv %d axes %u: %ld pairs within r_max, %ld of them across a seam\n", dim, ndiv, axes,
           pairs, across);
    free(seen);
    nbr_grid_free(&g);
    particles_free(&p);
}

static void test_periodic_candidates(void **state)
{
    (void)state;
    for (int ndiv = 1; ndiv <= 3; ++ndiv) {
        check_periodic(2, ndiv, 1u, 11);
        check_periodic(2, ndiv, 2u, 12);
        check_periodic(2, ndiv, 3u, 13);
        check_periodic(3, ndiv, 1u, 14);
        check_periodic(3, ndiv, 6u, 15);
        check_periodic(3, ndiv, 7u, 16);
    }
}

static void test_periodic_period_too_short(void **state)
{
    (void)state;
    const double lo[3] = {0, 0, 0}, hi[3] = {0.26, 1, 0};
    nbr_grid g;
    sl_err err;
    /* ndiv 2, r_max 0.1: cells of at least 0.05, 5 needed along x; 0.26 m holds 5 (of 0.052 m):
     * accepted; 0.24 m holds 4 */
    assert_int_equal(nbr_grid_init(&g, 2, 2, (real)0.1, lo, hi, 1u, 1 << 20, &err), SL_OK);
    assert_int_equal(g.interior[0], 5);
    nbr_grid_free(&g);
    const double hi2[3] = {0.24, 1, 0};
    assert_int_equal(nbr_grid_init(&g, 2, 2, (real)0.1, lo, hi2, 1u, 1 << 20, &err), SL_ERR_INPUT);
    assert_non_null(strstr(err.msg, "periodic"));
    nbr_grid_free(&g);
}

/* Each particle's fields still its own after a build: field VX holds its first index, the positions
 * are those it was given. */
static void fields_follow(const particles *p, const real *x0)
{
    for (size_t i = 0; i < p->n; ++i) {
        size_t first = (size_t)p->f[PF_VX][i];
        assert_true(first < p->n);
        assert_true(p->f[PF_X][i] == x0[first]);
    }
}

/* The grid built for many particles, then for a share of them whose arrays gave back their room (an
 * MPI rank keeps its slab's share, particles_fit) and then grew again, to fewer than the grid's room
 * (a balance that moved many particles to the rank). The scratch a field is reordered into is an
 * array the particles held, so it must grow with them although the grid's own arrays need not: it
 * once wrote past its end here (heap-buffer-overflow in the sanitizer build, a crash in a 2-rank run
 * balanced by work). */
static void test_scratch_follows_the_particles_room(void **state)
{
    (void)state;
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 0};
    particles p;
    make_layout(&p, 2, UNIFORM, 5000, lo, hi, 7);
    nbr_grid g;
    sl_err err;
    assert_int_equal(nbr_grid_init(&g, 2, 2, (real)0.05, lo, hi, 0, 1 << 20, &err), SL_OK);
    assert_int_equal(nbr_grid_build(&g, &p, &err), SL_OK);
    assert_int_equal(particles_resize(&p, 500, &err), SL_OK); /* the rank's share */
    particles_fit(&p);
    assert_true(p.cap < 2000);
    real *x0 = malloc(5000 * sizeof *x0);
    assert_non_null(x0);
    for (size_t i = 0; i < p.n; ++i) {
        p.f[PF_VX][i] = (real)i;
        x0[i] = p.f[PF_X][i];
    }
    assert_int_equal(nbr_grid_build(&g, &p, &err), SL_OK);
    fields_follow(&p, x0);
    uint64_t s = 11;
    size_t grown = 3000; /* more than the fitted room, less than the grid's */
    assert_int_equal(particles_resize(&p, grown, &err), SL_OK);
    assert_true(p.cap < g.cap);
    for (size_t i = 0; i < grown; ++i) {
        if (i >= 500) {
            p.f[PF_X][i] = (real)rnd(&s);
            p.f[PF_Y][i] = (real)rnd(&s);
        }
        p.f[PF_VX][i] = (real)i;
        x0[i] = p.f[PF_X][i];
    }
    assert_int_equal(nbr_grid_build(&g, &p, &err), SL_OK);
    assert_int_equal(g.n_inside, grown);
    fields_follow(&p, x0);
    free(x0);
    nbr_grid_free(&g);
    particles_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_layouts),
        cmocka_unit_test(test_stable_order_inside_cells),
        cmocka_unit_test(test_empty_and_single),
        cmocka_unit_test(test_nan_goes_to_sink),
        cmocka_unit_test(test_parked_ghosts_dropped),
        cmocka_unit_test(test_too_many_cells_is_an_error),
        cmocka_unit_test(test_periodic_candidates),
        cmocka_unit_test(test_periodic_period_too_short),
        cmocka_unit_test(test_scratch_follows_the_particles_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
