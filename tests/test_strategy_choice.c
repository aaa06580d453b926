/* test_strategy_choice.c: when the CUDA backend times a pass's strategies again, and which
 * (gpu/strategy_choice.h; plain C, no GPU needed). The rules: a particle strategy chosen is never
 * timed again for a fuller cell; a cell strategy is, once the fullest cell has grown by more than a
 * quarter; then the others run only when their last time was under 1.5 times the chosen one's new
 * time, or they were not timed before. The times are exact binary fractions, so the comparisons at
 * the margin are exact. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "gpu/strategy_choice.h"

static pass_choice chosen(int strategy, int at_max_per_cell)
{
    pass_choice c;
    strategy_choice_init(&c, 7);
    c.strategy = strategy;
    c.chosen_at_max_per_cell = at_max_per_cell;
    return c;
}

static void first_call_times_every_strategy(void **state)
{
    (void)state;
    pass_choice c;
    strategy_choice_init(&c, 3);
    assert_int_equal(c.strategy, -1);
    assert_false(strategy_retime_due(&c, 100)); /* the first timing is the caller's: strategy < 0 */
    for (int k = 0; k < GS_COUNT; ++k)
        assert_true(strategy_worth_timing(&c, k, 1.0f));
}

static void only_cell_strategies_follow_the_fullest_cell(void **state)
{
    (void)state;
    int follows[GS_COUNT] = {0};
    follows[GS_PAR_CELL] = follows[GS_PAR_CELL_SM] = follows[GS_X_PENCIL] = 1;
    for (int k = 0; k < GS_COUNT; ++k)
        assert_int_equal(strategy_follows_fullest_cell(k), follows[k]);
}

static void growth_by_more_than_a_quarter_retimes_a_cell_strategy(void **state)
{
    (void)state;
    pass_choice cell = chosen(GS_PAR_CELL_SM, 8);
    assert_false(strategy_retime_due(&cell, 8));
    assert_false(strategy_retime_due(&cell, 10)); /* 8 + 8/4: a quarter exactly */
    assert_true(strategy_retime_due(&cell, 11));
    assert_false(strategy_retime_due(&cell, 4)); /* shrinking never */
    for (int k = 0; k < GS_COUNT; ++k) {
        if (!strategy_follows_fullest_cell(k)) {
            pass_choice part = chosen(k, 8);
            assert_false(strategy_retime_due(&part, 11));
            assert_false(strategy_retime_due(&part, 1000));
        }
    }
}

static void a_retiming_skips_the_strategies_that_cannot_have_overtaken(void **state)
{
    (void)state;
    pass_choice c = chosen(GS_PAR_CELL_SM, 8);
    c.ms[GS_PAR_CELL_SM] = 10.0f;
    c.ms[GS_PAR_PART] = 20.0f;
    c.ms[GS_PAR_PART_COMPACT] = 14.0f;
    c.ms[GS_PAR_CELL] = 40.0f;
    /* GS_X_PENCIL and GS_PAR_PART_SYM untimed before (invalid then): NAN */
    float now = 16.0f; /* the chosen one's new time: 1.5 * 16 = 24 */
    assert_true(strategy_worth_timing(&c, GS_PAR_PART, now));          /* 20 < 24 */
    assert_true(strategy_worth_timing(&c, GS_PAR_PART_COMPACT, now));  /* 14 < 24 */
    assert_false(strategy_worth_timing(&c, GS_PAR_CELL, now));         /* 40 >= 24 */
    assert_true(strategy_worth_timing(&c, GS_X_PENCIL, now));          /* not timed before */
    assert_true(strategy_worth_timing(&c, GS_PAR_PART_SYM, now));
    assert_false(strategy_worth_timing(&c, GS_PAR_PART, 13.0f));       /* 20 >= 19.5 */
    assert_true(strategy_worth_timing(&c, GS_PAR_PART, 13.5f));        /* 20 < 20.25 */
    /* the chosen one could not run now (NAN): every strategy is timed */
    assert_true(strategy_worth_timing(&c, GS_PAR_CELL, NAN));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_call_times_every_strategy),
        cmocka_unit_test(only_cell_strategies_follow_the_fullest_cell),
        cmocka_unit_test(growth_by_more_than_a_quarter_retimes_a_cell_strategy),
        cmocka_unit_test(a_retiming_skips_the_strategies_that_cannot_have_overtaken),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
