/* test_mps_pairs.c: every MPS pass in pair form, run by its per-particle body (the grid's gather
 * loop: what the CPU backend and the CUDA par-part / par-cell kernels run), against an all-pairs
 * loop over the same pair form (every particle a candidate, in index order), on random layouts
 * (uniform, clustered, mostly empty), 2D and 3D, ndiv 1..3, and the scheme settings that select the
 * code paths. The grid visits its candidates in index order (mps_pair_check.h), so the results
 * must be bit-identical: the grid misses no neighbour and the body is the pair form. The CUDA
 * staged kernels drive the same pair form; the GPU test checks them against the all-pairs kernel.
 * Also accel's symmetric form (par-part-sym on the GPU: each pair once, both particles' terms) over
 * all pairs i < j against the all-pairs loop. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "mps_pair_check.h"

/* The all-pairs loop of pass NAME for particle i over particles [0, n). */
#define ALL_PAIRS(NAME)                                                                             \
    static void all_pairs_##NAME(const pass_ctx *c, int32_t i, int32_t n)                           \
    {                                                                                               \
        mps_particle a = mps_##NAME##_pass_load(c, i);                                              \
        mps_##NAME##_pass_acc s;                                                                    \
        if (mps_##NAME##_pass_begin(c, &a, i, &s)) {                                                \
            do {                                                                                    \
                for (int32_t j = 0; j < n; ++j) {                                                   \
                    mps_particle b = mps_##NAME##_pass_load(c, j);                                  \
                    mps_##NAME##_pass_add(c, &a, i, &b, j, &s);                                     \
                }                                                                                   \
            } while (mps_##NAME##_pass_next(c, &a, i, &s));                                         \
        }                                                                                           \
        mps_##NAME##_pass_finish(c, &a, i, &s);                                                     \
    }

ALL_PAIRS(accel)
ALL_PAIRS(collision)
ALL_PAIRS(density)
ALL_PAIRS(wall_pressure)
ALL_PAIRS(ppe_setup)
ALL_PAIRS(ppe_apply)
ALL_PAIRS(gradient)
ALL_PAIRS(op_gradient)
ALL_PAIRS(op_laplacian)
ALL_PAIRS(op_lsmps_gradient)

typedef struct pass_fns {
    int id;
    void (*body)(const pass_ctx *c, int32_t i);
    void (*all_pairs)(const pass_ctx *c, int32_t i, int32_t n);
} pass_fns;

static const pass_fns fns[] = {
    {PASS_MPS_ACCEL, mps_accel_body, all_pairs_accel},
    {PASS_MPS_COLLISION, mps_collision_body, all_pairs_collision},
    {PASS_MPS_DENSITY, mps_density_body, all_pairs_density},
    {PASS_MPS_WALL_PRESSURE, mps_wall_pressure_body, all_pairs_wall_pressure},
    {PASS_MPS_PPE_SETUP, mps_ppe_setup_body, all_pairs_ppe_setup},
    {PASS_MPS_PPE_APPLY, mps_ppe_apply_body, all_pairs_ppe_apply},
    {PASS_MPS_GRADIENT, mps_gradient_body, all_pairs_gradient},
    {PASS_MPS_OP_GRADIENT, mps_op_gradient_body, all_pairs_op_gradient},
    {PASS_MPS_OP_LAPLACIAN, mps_op_laplacian_body, all_pairs_op_laplacian},
    {PASS_MPS_OP_LSMPS_GRADIENT, mps_op_lsmps_gradient_body, all_pairs_op_lsmps_gradient},
};

static const pass_fns *fns_of(int id)
{
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; ++k)
        if (fns[k].id == id)
            return &fns[k];
    fail_msg("pass %d has no functions here", id);
    return NULL;
}

static void check_case(int dim, int ndiv, enum layout lay, const mps_case *mc, size_t *left_out, double *worst)
{
    scene sc;
    sim s;
    /* smaller than the GPU test's: the all-pairs loop is O(n^2) on one core */
    mps_random_sim(dim, dim == 2 ? 0.04 : 0.1, ndiv, lay, mc, &backend_cpu, &sc, &s);
    int semi = strcmp(mc->method, "mps") == 0;
    size_t n = s.p.n;
    mps_state in, oracle, got;
    mps_state_save(&s, &in);
    for (int p = 0; p < MPS_NPASSES; ++p) {
        const mps_pass_spec *ps = &mps_pair_passes[p];
        if (ps->semi_implicit_only && !semi)
            continue;
        const pass_fns *f = fns_of(ps->id);
        pass_ctx c = sim_host_ctx(&s);
        for (size_t i = 0; i < n; ++i)
            f->all_pairs(&c, (int32_t)i, (int32_t)n);
        mps_state_save(&s, &oracle);
        mps_state_restore(&s, &in);
        c = sim_host_ctx(&s);
        for (size_t i = 0; i < n; ++i)
            f->body(&c, (int32_t)i);
        mps_state_save(&s, &got);
        mps_state_restore(&s, &in);
        char what[256];
        snprintf(what, sizeof what, "%s, %dD, ndiv %d, %s layout, pass %s (%zu particles)", mc->name, dim, ndiv,
                 layout_name[lay], ps->name, n);
        size_t out;
        mps_compare(&s, ps->id, &oracle, &got, what, 0.0, 0, &out, worst); /* bit-identical */
        *left_out += out;
        mps_state_free(&oracle);
        mps_state_free(&got);
    }
    mps_state_free(&in);
    sim_free(&s);
    scene_free(&sc);
}

static void gather_matches_all_pairs(void **state)
{
    (void)state;
    size_t left_out = 0;
    double worst = 0;
    for (int m = 0; m < MPS_NCASES; ++m)
        for (int dim = 2; dim <= 3; ++dim)
            for (int ndiv = 1; ndiv <= 3; ++ndiv)
                for (int lay = UNIFORM; lay <= MOSTLY_EMPTY; ++lay)
                    check_case(dim, ndiv, (enum layout)lay, &mps_cases[m], &left_out, &worst);
    printf("every MPS pass: the grid's gather loop gives the all-pairs loop's results bit for bit (largest "
           "difference %.3g)\n", worst);
    assert_int_equal(left_out, 0);
}

/* accel by its symmetric form: pair (i, j), i < j, once (mps_accel_pass_both), j's terms added to
 * j's sums, then each particle's outputs from its sums. The sums add the same terms in another order
 * (each particle's pairs with lower indices first), so the tolerance is float rounding: 1e-5 of the
 * field's largest value (the GPU test's for its strategies); a term of the wrong sign or missing on
 * one side is of the order of the field. The LSMPS Laplacian has no symmetric form (refused). */
static void accel_symmetric_form(void **state)
{
    (void)state;
    double worst = 0;
    size_t left_out = 0;
    for (int m = 0; m < MPS_NCASES; ++m)
        for (int dim = 2; dim <= 3; ++dim)
            for (int lay = UNIFORM; lay <= MOSTLY_EMPTY; ++lay) {
                scene sc;
                sim s;
                mps_random_sim(dim, dim == 2 ? 0.04 : 0.1, 2, (enum layout)lay, &mps_cases[m], &backend_cpu, &sc, &s);
                int lsmps = strstr(mps_cases[m].mps, "lsmps") != NULL;
                assert_int_equal(mps_accel_pass_symmetric(&s.P), !lsmps);
                if (lsmps) {
                    sim_free(&s);
                    scene_free(&sc);
                    continue;
                }
                int32_t n = (int32_t)s.p.n;
                mps_state in, oracle, got;
                mps_state_save(&s, &in);
                pass_ctx c = sim_host_ctx(&s);
                for (int32_t i = 0; i < n; ++i)
                    all_pairs_accel(&c, i, n);
                mps_state_save(&s, &oracle);
                mps_state_restore(&s, &in);
                c = sim_host_ctx(&s);
                real (*sums)[4] = calloc((size_t)n, sizeof *sums);
                assert_non_null(sums);
                for (int32_t i = 0; i < n; ++i) {
                    mps_particle a = mps_accel_pass_load(&c, i);
                    real own[4] = {0, 0, 0, 0};
                    for (int32_t j = i + 1; j < n; ++j) {
                        mps_particle b = mps_accel_pass_load(&c, j);
                        mps_accel_pass_both(&c, &a, i, &b, j, own, sums[j]);
                    }
                    for (int k = 0; k < 4; ++k)
                        sums[i][k] += own[k];
                }
                for (int32_t i = 0; i < n; ++i)
                    mps_accel_pass_finish_sums(&c, i, sums[i]);
                mps_state_save(&s, &got);
                char what[160];
                snprintf(what, sizeof what, "%s, %dD, %s layout, accel's symmetric form (%d particles)",
                         mps_cases[m].name, dim, layout_name[lay], n);
                size_t out;
                mps_compare(&s, PASS_MPS_ACCEL, &oracle, &got, what, 1e-5, 0, &out, &worst);
                left_out += out;
                free(sums);
                mps_state_free(&in);
                mps_state_free(&oracle);
                mps_state_free(&got);
                sim_free(&s);
                scene_free(&sc);
            }
    printf("accel's symmetric form against the all-pairs loop: largest difference %.3g of the field's largest\n",
           worst);
    assert_int_equal(left_out, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gather_matches_all_pairs),
        cmocka_unit_test(accel_symmetric_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
