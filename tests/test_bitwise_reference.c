/* test_bitwise_reference.c: CPU runs of the 2D scenes give, bit for bit, the particles they gave
 * before the code was reorganised (tests/data/bitwise_reference.txt, made at commit 4675a4c).
 *
 * A refactoring that moves code must not move a single bit: each scene runs a fixed number of steps
 * through engine_run (output times included) and the core fields (position, velocity, density,
 * pressure) of every particle, in id order, and the simulated time are hashed (64-bit FNV-1a over
 * the bytes). The tolerance is zero on purpose. The bits depend on the compiler and on libm
 * (exp, pow), so each reference line names the toolchain that made it; a build with another one has
 * no reference to compare with and says so (ctest: skipped), instead of failing on last-bit libm
 * differences. `test_bitwise_reference --print` prints this build's lines (to extend the file for a
 * new toolchain from a commit whose results are trusted). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/engine.h"
#include "base/scene.h"
#include "core/sim.h"
#include "test_util.h"

#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKIPPED 77

typedef struct reference_case {
    const char *scene; /* in scenes/ */
    long steps;
} reference_case;

/* Each scheme (WCSPH symplectic and Verlet, semi-implicit and explicit MPS, LSMPS) and each
 * boundary treatment the 2D scenes use, at step counts a 2-core machine runs in seconds. */
static const reference_case cases[] = {
    {"dam_break_2d.cfg", 120},       {"dam_break_2d_mps.cfg", 30},   {"dam_break_2d_emps.cfg", 120},
    {"hydrostatic_2d.cfg", 120},     {"hydrostatic_2d_mps.cfg", 30}, {"hydrostatic_2d_emps.cfg", 120},
    {"hydrostatic_2d_lsmps.cfg", 30},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *b = data;
    for (size_t k = 0; k < len; ++k) {
        h ^= b[k];
        h *= 1099511628211ull;
    }
    return h;
}

static const char *precision(void)
{
    return sizeof(real) == sizeof(double) ? "double" : "float";
}

/* gcc's version and glibc's: what the bits depend on besides the code. */
static void toolchain(char *buf, size_t len)
{
    snprintf(buf, len, "gcc-%s/glibc-%s", __VERSION__, gnu_get_libc_version());
    for (char *c = buf; *c; ++c)
        if (*c == ' ')
            *c = '_';
}

static uint64_t run_hash(const reference_case *rc)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SLUICE_SCENES, rc->scene);
    scene sc;
    sim s;
    sl_err err;
    if (scene_load(&sc, path, &err))
        fail_msg("%s", err.msg);
    /* the references were made with the Jacobi-preconditioned, matrix-free solve (the only one then);
     * the multigrid solve is checked by tests/test_multigrid.c */
    sc.mps.preconditioner = MPS_PRECONDITIONER_JACOBI;
    if (sim_create(&s, &sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
    char dir[] = "/tmp/sluice_bitwise_XXXXXX";
    make_temp_dir(dir);
    run_options o = {.out_dir = dir, .until = -1.0, .max_steps = rc->steps, .quiet = 1};
    run_summary sum;
    if (engine_run(&s, &o, &sum, &err))
        fail_msg("%s: %s", rc->scene, err.msg);
    assert_int_equal(sum.steps, rc->steps);
    size_t n = s.p.n;
    real *by_id = malloc(n * sizeof *by_id);
    assert_non_null(by_id);
    uint64_t h = 14695981039346656037ull;
    for (int k = PF_X; k < PF_CORE; ++k) {
        for (size_t i = 0; i < n; ++i)
            by_id[s.p.id[i]] = s.p.f[k][i];
        h = fnv1a(h, by_id, n * sizeof *by_id);
    }
    h = fnv1a(h, &s.t, sizeof s.t);
    free(by_id);
    sim_free(&s);
    scene_free(&sc);
    remove_tree(dir);
    return h;
}

/* The reference hash of a case for this precision and toolchain; 0 when the file has none. */
static int reference_of(const reference_case *rc, const char *tool, uint64_t *out)
{
    FILE *f = fopen(SLUICE_TEST_DATA "/bitwise_reference.txt", "r");
    assert_non_null(f);
    char line[1024], scene_name[256], prec[16], tc[512];
    long steps;
    unsigned long long h;
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        if (sscanf(line, "%255s %ld %15s %511s %llx", scene_name, &steps, prec, tc, &h) != 5)
            continue;
        if (!strcmp(scene_name, rc->scene) && steps == rc->steps && !strcmp(prec, precision()) &&
            !strcmp(tc, tool)) {
            *out = (uint64_t)h;
            found = 1;
        }
    }
    fclose(f);
    return found;
}

static void test_runs_match_reference(void **state)
{
    (void)state;
    char tool[512];
    toolchain(tool, sizeof tool);
    int mismatches = 0;
    for (int k = 0; k < NCASES; ++k) {
        uint64_t want, got = run_hash(&cases[k]);
        assert_true(reference_of(&cases[k], tool, &want));
        if (got != want) {
            fprintf(stderr, "%s, %ld steps: hash %016llx, reference %016llx\n", cases[k].scene, cases[k].steps,
                    (unsigned long long)got, (unsigned long long)want);
            mismatches++;
        }
    }
    assert_int_equal(mismatches, 0);
}

int main(int argc, char **argv)
{
    char tool[512];
    toolchain(tool, sizeof tool);
    if (argc > 1 && !strcmp(argv[1], "--print")) {
        for (int k = 0; k < NCASES; ++k)
            printf("%s %ld %s %s %016llx\n", cases[k].scene, cases[k].steps, precision(), tool,
                   (unsigned long long)run_hash(&cases[k]));
        return 0;
    }
    uint64_t any;
    if (!reference_of(&cases[0], tool, &any)) {
        printf("test_bitwise_reference: SKIPPED: tests/data/bitwise_reference.txt has no %s reference made "
               "with %s (the bits depend on compiler and libm); run --print at a trusted commit to add one\n",
               precision(), tool);
        return SKIPPED;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_match_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
