/* test_halo_hooks.c: the CPU backend's halo hooks (backend.halo, what parallel/mpi_halo.c refreshes
 * the ghosts with): the values of a few fields and the tag at a list of particles, particle by
 * particle; written, added and zeroed at a list, every other particle untouched; a list of places
 * followed through the sort (after_sort, what the halo's plan moves with); and none of the hooks
 * that stage a device's arrays, so the MPI code keeps its host path. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/scene.h"
#include "core/backend.h"
#include "core/sim.h"
#include "run/sim_create.h"

#include <stdlib.h>
#include <string.h>

enum { N = 10 };

/* Particle i holds 100 k + i in field k of {PF_X, PF_P, extra} and tag i. */
static void setup(sim *s, int *extra)
{
    sl_err err;
    memset(s, 0, sizeof *s);
    s->be = &backend_cpu;
    assert_int_equal(particles_alloc(&s->p, N, &err), SL_OK);
    *extra = particles_add_field(&s->p, "extra", 1);
    assert_true(*extra >= PF_CORE);
    const int f[3] = {PF_X, PF_P, *extra};
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < N; ++i)
            s->p.f[f[k]][i] = (real)(100 * k + i);
    for (int i = 0; i < N; ++i)
        s->p.tag[i] = (uint8_t)i;
}

static void test_gather(void **state)
{
    (void)state;
    sim s;
    int extra;
    sl_err err;
    setup(&s, &extra);
    const int fields[3] = {PF_P, BACKEND_FIELD_TAG, extra};
    const int32_t idx[3] = {7, 2, 9};
    real v[9];
    assert_int_equal(backend_cpu.halo->gather(&s, fields, 3, idx, 3, v, &err), SL_OK);
    for (int k = 0; k < 3; ++k) { /* v[k nf + j]: field j of particle idx[k] */
        assert_true(v[3 * k] == (real)(100 + idx[k]));
        assert_true(v[3 * k + 1] == (real)idx[k]);
        assert_true(v[3 * k + 2] == (real)(200 + idx[k]));
    }
    particles_free(&s.p);
}

static void test_scatter(void **state)
{
    (void)state;
    sim s;
    int extra;
    sl_err err;
    setup(&s, &extra);
    const int fields[2] = {PF_X, BACKEND_FIELD_TAG};
    const int32_t idx[2] = {4, 1};
    const real v[4] = {-1, 42, -2, 43};
    assert_int_equal(backend_cpu.halo->scatter(&s, fields, 2, idx, 2, v, HALO_SET, &err), SL_OK);
    assert_true(s.p.f[PF_X][4] == -1 && s.p.tag[4] == 42);
    assert_true(s.p.f[PF_X][1] == -2 && s.p.tag[1] == 43);

    const int added[1] = {extra};
    const real w[2] = {0.5, 0.25};
    assert_int_equal(backend_cpu.halo->scatter(&s, added, 1, idx, 2, w, HALO_ADD, &err), SL_OK);
    assert_true(s.p.f[extra][4] == (real)204.5 && s.p.f[extra][1] == (real)201.25);

    const int zeroed[2] = {PF_P, extra};
    const int32_t ghosts[3] = {8, 0, 5};
    assert_int_equal(backend_cpu.halo->scatter(&s, zeroed, 2, ghosts, 3, NULL, HALO_ZERO, &err), SL_OK);
    for (int k = 0; k < 3; ++k)
        assert_true(s.p.f[PF_P][ghosts[k]] == 0 && s.p.f[extra][ghosts[k]] == 0);

    /* one value for every listed particle and field (a time-step limit kept out of the minimum) */
    const real big = (real)1e30;
    assert_int_equal(backend_cpu.halo->scatter(&s, zeroed, 2, ghosts, 3, &big, HALO_FILL, &err), SL_OK);
    for (int k = 0; k < 3; ++k)
        assert_true(s.p.f[PF_P][ghosts[k]] == big && s.p.f[extra][ghosts[k]] == big);

    for (int i = 0; i < N; ++i) { /* nobody else changed */
        int listed = i == 4 || i == 1, ghost = i == 8 || i == 0 || i == 5;
        if (!listed) {
            assert_true(s.p.f[PF_X][i] == (real)i);
            assert_int_equal(s.p.tag[i], i);
        }
        if (!ghost) {
            assert_true(s.p.f[PF_P][i] == (real)(100 + i));
            if (!listed)
                assert_true(s.p.f[extra][i] == (real)(200 + i));
        }
    }
    particles_free(&s.p);
}

/* The host arrays are the CPU's state: it has none of the hooks that stage a device's arrays
 * (drop_ghosts, column_counts, fetch, remove, append), so parallel/mpi_halo.c and mpi_exchange.c keep
 * their host path on it (compacting and appending every array in place), the path the CPU's MPI
 * tests compare with one rank. */
static void test_host_state(void **state)
{
    (void)state;
    const backend_halo_hooks *h = backend_cpu.halo;
    assert_non_null(h);
    assert_null(h->drop_ghosts);
    assert_null(h->column_counts);
    assert_null(h->fetch);
    assert_null(h->remove);
    assert_null(h->append);
    assert_null(backend_cpu.to_host);
    assert_null(backend_cpu.to_device);
}

/* Reversed particles sorted into cells: every third place followed through the sort names the same
 * particle (its id) afterwards, and most of them moved. */
static void test_after_sort(void **state)
{
    (void)state;
    static const char scene_text[] =
        "simulation = { method = \"wcsph\"; dimension = 2; end_time = 1.0; };\n"
        "fluid = { density = 1000.0; viscosity = 1.0e-6; gravity = [0.0, -9.81]; };\n"
        "numerics = { spacing = 0.02; };\n"
        "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.6, 0.5]; layers = 3; },\n"
        "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.24, 0.3]; } );\n";
    scene sc;
    sim s;
    sl_err err;
    if (scene_load_string(&sc, scene_text, "test_halo_hooks", &err) || sim_create(&s, &sc, &backend_cpu, &err) ||
        s.be->build_cells(&s, &err))
        fail_msg("%s", err.msg);
    particles *p = &s.p;
    size_t n = p->n, m = 0, moved = 0;
    for (size_t i = 0; i < n / 2; ++i) {
        for (int k = 0; k < p->nfields; ++k) {
            real t = p->f[k][i];
            p->f[k][i] = p->f[k][n - 1 - i];
            p->f[k][n - 1 - i] = t;
        }
        int32_t t = p->id[i];
        p->id[i] = p->id[n - 1 - i];
        p->id[n - 1 - i] = t;
    }
    int32_t *before = malloc(n * sizeof *before), *after = malloc(n * sizeof *after),
            *id_before = malloc(n * sizeof *id_before);
    memcpy(id_before, p->id, n * sizeof *id_before);
    for (size_t i = 0; i < n; i += 3)
        before[m++] = (int32_t)i;
    if (s.be->build_cells(&s, &err) || s.be->halo->after_sort(&s, before, m, after, &err))
        fail_msg("%s", err.msg);
    for (size_t k = 0; k < m; ++k) {
        assert_true(after[k] >= 0 && (size_t)after[k] < n);
        assert_int_equal(p->id[after[k]], id_before[before[k]]);
        moved += after[k] != before[k];
    }
    assert_true(moved > m / 2);
    free(before);
    free(after);
    free(id_before);
    sim_free(&s);
    scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_scatter),
        cmocka_unit_test(test_after_sort),
        cmocka_unit_test(test_host_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
