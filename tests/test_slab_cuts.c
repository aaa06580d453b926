/* test_slab_cuts.c: the MPI decomposition's cuts (parallel/slab_cuts.h): even shares, the minimum
 * width, empty and lopsided histograms, too few columns. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "parallel/slab_cuts.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_lopsided),
        cmocka_unit_test(test_minimum_width),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
