/* test_slab_cuts.c: the MPI decomposition's cuts (parallel/slab_cuts.h): even shares, the minimum
 * width, empty and lopsided histograms, too few columns; given shares; the balance by work's marginal
 * cost and shares, and their convergence on a model of ranks whose step has a part that does not
 * follow the particles. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "parallel/slab_cuts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int64_t slab_sum(const int64_t *count, const int *first, int r)
{
    int64_t s = 0;
    for (int c = first[r]; c < first[r + 1]; ++c)
        s += count[c];
    return s;
}

static void check_valid(const int *first, int ncols, int nslabs, int min_cols)
{
    assert_int_equal(first[0], 0);
    assert_int_equal(first[nslabs], ncols);
    for (int r = 0; r < nslabs; ++r)
        assert_true(first[r + 1] - first[r] >= min_cols);
}

static void test_uniform(void **state)
{
    (void)state;
    int64_t count[100];
    for (int c = 0; c < 100; ++c)
        count[c] = 10;
    int first[5];
    assert_int_equal(slab_cuts(count, 100, 4, 2, first), 0);
    check_valid(first, 100, 4, 2);
    for (int r = 0; r < 4; ++r)
        assert_int_equal(slab_sum(count, first, r), 250);
}

/* A dam break at rest: everything in the first columns. The cuts follow the particles, each within
 * one column's count of its share, and the empty rest still gives every slab its minimum width. */
static void test_lopsided(void **state)
{
    (void)state;
    int64_t count[60] = {0};
    for (int c = 0; c < 12; ++c)
        count[c] = 50;
    count[59] = 7; /* the far wall */
    int first[4];
    assert_int_equal(slab_cuts(count, 60, 3, 2, first), 0);
    check_valid(first, 60, 3, 2);
    int64_t total = 12 * 50 + 7;
    for (int r = 0; r < 2; ++r)
        assert_true(llabs(slab_sum(count, first, r) - total / 3) <= 50);
    double imbalance;
    int64_t per[3];
    for (int r = 0; r < 3; ++r)
        per[r] = slab_sum(count, first, r);
    imbalance = slab_imbalance(per, 3);
    assert_true(imbalance < 1.10);
}

static void test_minimum_width(void **state)
{
    (void)state;
    int64_t count[10] = {1000, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    int first[6];
    assert_int_equal(slab_cuts(count, 10, 5, 2, first), 0);
    check_valid(first, 10, 5, 2);
    assert_int_equal(slab_cuts(count, 10, 6, 2, first), -1); /* 6 slabs of 2 columns need 12 */
}

static void test_empty(void **state)
{
    (void)state;
    int64_t count[8] = {0};
    int first[3];
    assert_int_equal(slab_cuts(count, 8, 2, 1, first), 0);
    check_valid(first, 8, 2, 1);
    int64_t per[2] = {0, 0};
    assert_true(slab_imbalance(per, 2) == 1.0);
}


/* Given shares: the slabs' counts follow them; NULL is slab_cuts. */
static void test_shared(void **state)
{
    (void)state;
    int64_t count[100];
    for (int c = 0; c < 100; ++c)
        count[c] = 10;
    const double share[4] = {0.1, 0.2, 0.3, 0.4};
    int first[5], even[5];
    assert_int_equal(slab_cuts_shared(count, 100, 4, 2, share, first), 0);
    check_valid(first, 100, 4, 2);
    for (int r = 0; r < 4; ++r)
        assert_int_equal(slab_sum(count, first, r), 1000 * share[r] + 0.5);
    assert_int_equal(slab_cuts_shared(count, 100, 4, 2, NULL, first), 0);
    assert_int_equal(slab_cuts(count, 100, 4, 2, even), 0);
    assert_memory_equal(first, even, sizeof first);
    const double tiny[4] = {0.0, 0.0, 0.0, 1.0}; /* the minimum width still holds */
    assert_int_equal(slab_cuts_shared(count, 100, 4, 3, tiny, first), 0);
    check_valid(first, 100, 4, 3);
}

static void test_marginal_cost(void **state)
{
    (void)state;
    /* 100 more particles cost 0.7 s more: 0.007 (the average cost is 0.01 at 1,000 and 10 s) */
    assert_true(fabs(slab_marginal_cost(1000, 10, 900, 9.3) - 0.007) < 1e-15);
    /* the secant's noise kept within 0.5 .. 1 times the average cost */
    assert_true(fabs(slab_marginal_cost(1000, 10, 900, 10.5) - SLAB_MARGINAL_MIN * 0.01) < 1e-15);
    assert_true(fabs(slab_marginal_cost(1000, 10, 900, 5) - SLAB_MARGINAL_MAX * 0.01) < 1e-15);
    /* counts within 1%: too close to tell (unknown) */
    assert_true(slab_marginal_cost(1000, 10, 991, 9.9) == 0);
    assert_true(slab_marginal_cost(1000, 10, 0, 0) == 0);
    assert_true(slab_marginal_cost(0, 0, 1000, 10) == 0);
}

/* Without marginal costs the shares are the counts over the works (each rank's average cost); with
 * them, what makes every rank's work + marginal (m - n) equal. */
static void test_work_shares(void **state)
{
    (void)state;
    const double n[2] = {100, 100}, work[2] = {1, 3}, unknown[2] = {0, 0};
    double share[2];
    slab_work_shares(2, n, work, unknown, share);
    assert_true(fabs(share[0] - 0.75) < 1e-12 && fabs(share[1] - 0.25) < 1e-12);
    /* steps of 0.5 + 0.005 m and 1 + 0.005 m: both 1.25 once 50 particles move (the average costs
     * would move 20: 120 at 0.01 and 80 at 0.015 work 1.2) */
    const double marginal[2] = {0.005, 0.005}, closer[2] = {1, 1.5};
    slab_work_shares(2, n, closer, marginal, share);
    assert_true(fabs(share[0] - 0.75) < 1e-12 && fabs(share[1] - 0.25) < 1e-12);
    slab_work_shares(2, n, closer, unknown, share);
    assert_true(fabs(share[0] - 0.6) < 1e-12 && fabs(share[1] - 0.4) < 1e-12);
    /* a rank past saving: none, not fewer than none */
    const double slow[2] = {1, 30};
    slab_work_shares(2, n, slow, marginal, share);
    assert_true(share[1] == 0 && share[0] == 1);
    /* an empty rank takes the others' mean cost and works 0 now */
    const double n3[3] = {0, 100, 100}, work3[3] = {0, 1, 1};
    double share3[3];
    slab_work_shares(3, n3, work3, (const double[3]){0, 0, 0}, share3);
    for (int r = 0; r < 3; ++r)
        assert_true(fabs(share3[r] - 1.0 / 3) < 1e-12);
    /* nothing known: equal shares */
    slab_work_shares(3, n3, (const double[3]){0, 0, 0}, (const double[3]){0, 0, 0}, share3);
    for (int r = 0; r < 3; ++r)
        assert_true(share3[r] == 1.0 / 3);
}

/* A model of session 30's 4 x H200 MPS run (about 20M particles and 550 ms a step a rank): 4 slabs of
 * a tank 771 columns long, 104,000 particles each; every rank spends a fixed 196 ms a step in the
 * halos and 10 ms a neighbour on its ghosts; a particle costs 17.5 ns a step, in the 40 wall-heavy
 * columns at either end 0.6 times that. From count-balanced cuts (the slowest rank 3.7% over the
 * mean), two balances by work by the ranks' average costs leave it 0.66% over (each halves what is
 * left); with the marginal costs measured across the first, 0.33%, which is a column's worth (a
 * column is 0.5% of a rank's particles and the middle cut cannot move). The second must do better
 * than the average costs by at least a quarter of a column. */
enum { MODEL_COLS = 771, MODEL_SLABS = 4 };

static void model_work(const int64_t *count, const int *first, double *n, double *work)
{
    for (int r = 0; r < MODEL_SLABS; ++r) {
        n[r] = 0;
        work[r] = 0.196 + (r == 0 || r == MODEL_SLABS - 1 ? 0.010 : 0.020);
        for (int c = first[r]; c < first[r + 1]; ++c) {
            int wall = c < 40 || c >= MODEL_COLS - 40;
            n[r] += (double)count[c];
            work[r] += (double)count[c] * 17.5e-9 * (wall ? 0.6 : 1.0);
        }
    }
}

static double model_imbalance(const double *work)
{
    double most = 0, sum = 0;
    for (int r = 0; r < MODEL_SLABS; ++r) {
        most = fmax(most, work[r]);
        sum += work[r];
    }
    return most * MODEL_SLABS / sum;
}

/* The slowest rank over the mean after `balances` balances by work. */
static double model_balances(const int64_t *count, int secant, int balances)
{
    int first[MODEL_SLABS + 1];
    double n[MODEL_SLABS], work[MODEL_SLABS], n_before[MODEL_SLABS] = {0}, work_before[MODEL_SLABS] = {0};
    double marginal[MODEL_SLABS] = {0}, share[MODEL_SLABS];
    assert_int_equal(slab_cuts(count, MODEL_COLS, MODEL_SLABS, 4, first), 0);
    for (int b = 0; b < balances; ++b) {
        model_work(count, first, n, work);
        for (int r = 0; r < MODEL_SLABS && secant; ++r) {
            double m = slab_marginal_cost(n[r], work[r], n_before[r], work_before[r]);
            marginal[r] = m > 0 ? m : marginal[r];
            n_before[r] = n[r];
            work_before[r] = work[r];
        }
        slab_work_shares(MODEL_SLABS, n, work, marginal, share);
        assert_int_equal(slab_cuts_shared(count, MODEL_COLS, MODEL_SLABS, 4, share, first), 0);
    }
    model_work(count, first, n, work);
    return model_imbalance(work);
}

static void test_balance_by_marginal_cost(void **state)
{
    (void)state;
    int64_t *count = malloc(MODEL_COLS * sizeof *count);
    assert_non_null(count);
    for (int c = 0; c < MODEL_COLS; ++c)
        count[c] = 104000;
    double start = model_balances(count, 0, 0);
    double prop1 = model_balances(count, 0, 1), prop2 = model_balances(count, 0, 2);
    double sec1 = model_balances(count, 1, 1), sec2 = model_balances(count, 1, 2);
    printf("slowest over mean: count-balanced %.5f; by average cost %.5f, %.5f; by marginal cost %.5f, %.5f\n",
           start, prop1, prop2, sec1, sec2);
    assert_true(start > 1.02);               /* the model is out of balance by count */
    assert_true(fabs(sec1 - prop1) < 1e-12); /* the first balance knows no marginal cost yet */
    assert_true(sec2 < 1.004);
    assert_true(sec2 < prop2 - 0.00125);
    free(count);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_lopsided),
        cmocka_unit_test(test_minimum_width),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_shared),
        cmocka_unit_test(test_marginal_cost),
        cmocka_unit_test(test_work_shares),
        cmocka_unit_test(test_balance_by_marginal_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
