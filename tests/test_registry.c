/* test_registry.c: the registries that generate the code (schemes/registry.h, boundary/registry.c)
 * hold together: every listed pass has a distinct id and label and a CPU loop, every listed scheme
 * is found by its name and named in scheme_names(), every wall model a scheme asks for exists. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "boundary/boundary.h"
#include "core/scheme.h"
#include "schemes/registry.h"

#include <stdio.h>
#include <string.h>

#define PASS_ENTRY(NAME, ID, LABEL, FLAGS, FORM) &NAME##_pass,
static const pass *const every_pass[] = {SLUICE_PASSES(PASS_ENTRY)};
#undef PASS_ENTRY
enum { NPASSES = sizeof every_pass / sizeof every_pass[0] };

/* The GPU dispatch switches on ids and `sluice bench` tables are keyed by labels: a repeat of either
 * would send a pass to another's kernel or merge two rows. */
static void test_passes_distinct(void **state)
{
    (void)state;
    assert_true(NPASSES >= 15);
    for (int a = 0; a < NPASSES; ++a) {
        assert_non_null(every_pass[a]->cpu);
        assert_non_null(every_pass[a]->name);
        for (int b = a + 1; b < NPASSES; ++b) {
            assert_int_not_equal(every_pass[a]->id, every_pass[b]->id);
            assert_string_not_equal(every_pass[a]->name, every_pass[b]->name);
        }
    }
}

/* Scheme ids run 0.. in list order, wall-model ids from 1000 on, packing's from 2000 on, so the ranges
 * never meet. */
static void test_pass_id_ranges(void **state)
{
    (void)state;
#define SCHEME_ID_IN_RANGE(NAME, ID, LABEL, FLAGS, FORM) assert_true((ID) >= 0 && (ID) < SCHEME_PASS_END);
    SCHEME_PASSES(SCHEME_ID_IN_RANGE)
#undef SCHEME_ID_IN_RANGE
#define BOUNDARY_ID_IN_RANGE(NAME, ID, LABEL, FLAGS, FORM) assert_true((ID) >= 1000 && (ID) < BOUNDARY_PASS_END);
    BOUNDARY_PASSES(BOUNDARY_ID_IN_RANGE)
#undef BOUNDARY_ID_IN_RANGE
#define PACKING_ID_IN_RANGE(NAME, ID, LABEL, FLAGS, FORM) assert_true((ID) >= 2000 && (ID) < PACKING_PASS_END);
    PACKING_PASSES(PACKING_ID_IN_RANGE)
#undef PACKING_ID_IN_RANGE
    assert_true(SCHEME_PASS_END < 1000);
    assert_true(BOUNDARY_PASS_END < 2000);
}

static void test_schemes_found_by_name(void **state)
{
    (void)state;
    char names[256];
    snprintf(names, sizeof names, "|%s|", scheme_names());
#define SCHEME_FOUND(NAME)                                                                          \
    {                                                                                               \
        const scheme *s = scheme_find(#NAME);                                                       \
        assert_non_null(s);                                                                         \
        assert_string_equal(s->name, #NAME);                                                        \
        assert_non_null(s->init);                                                                   \
        assert_non_null(s->step);                                                                   \
        assert_non_null(strstr(names, "|" #NAME "|"));                                              \
    }
    SLUICE_SCHEMES(SCHEME_FOUND)
#undef SCHEME_FOUND
    assert_null(scheme_find("sph"));
    assert_null(scheme_find(NULL));
}

/* The names the schemes pass to boundary_setup (wcsph.c, mps_common.c). */
static void test_wall_models(void **state)
{
    (void)state;
    static const char *const asked[] = {"dynamic", "mdbc", "mps_layers", "mps_extrapolated"};
    for (size_t k = 0; k < sizeof asked / sizeof asked[0]; ++k) {
        const boundary_model *m = boundary_find(asked[k]);
        assert_non_null(m);
        assert_string_equal(m->name, asked[k]);
        assert_non_null(m->description);
    }
    assert_non_null(boundary_find("mps_extrapolated")->after_density);
    assert_non_null(boundary_find("mdbc")->after_density);
    assert_null(boundary_find("no_such_wall_model"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_passes_distinct),
        cmocka_unit_test(test_pass_id_ranges),
        cmocka_unit_test(test_schemes_found_by_name),
        cmocka_unit_test(test_wall_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
