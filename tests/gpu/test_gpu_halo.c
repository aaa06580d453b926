/* test_gpu_halo.c: the CUDA backend's halo hooks (gpu/cuda_halo.cu, what parallel/mpi_halo.c moves
 * the MPI ghosts with) against the CPU backend's on the same particles, bit for bit: the gather of a
 * few fields and the tag at a list of particles; writes, additions and zeros at a list; the drop of
 * the particles whose id is negative, the others in their order with every field. The CPU's hooks
 * run on a copy of the CUDA sim's host arrays. Exits 77 (skipped) without a device. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/scene.h"
#include "core/sim.h"
#include "gpu/backend_cuda.h"
#include "run/sim_create.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENE                                                                                       \
    "simulation = { method = \"wcsph\"; dimension = 2; end_time = 1.0; };\n"                       \
    "fluid = { density = 1000.0; viscosity = 1.0e-6; gravity = [0.0, -9.81]; };\n"                 \
    "numerics = { spacing = 0.01; };\n"                                                            \
    "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.6, 0.5]; layers = 3; },\n"          \
    "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.24, 0.3]; } );\n"

/* A copy of s's host particles in a sim of their own, for the CPU's hooks. */
static void copy_host(const sim *s, sim *r)
{
    sl_err err;
    memset(r, 0, sizeof *r);
    r->be = &backend_cpu;
    assert_int_equal(particles_alloc(&r->p, s->p.n, &err), SL_OK);
    while (r->p.nfields < s->p.nfields)
        assert_true(particles_add_field(&r->p, s->p.fname[r->p.nfields], s->p.transient[r->p.nfields]) >= 0);
    for (int k = 0; k < s->p.nfields; ++k)
        memcpy(r->p.f[k], s->p.f[k], s->p.n * sizeof(real));
    memcpy(r->p.id, s->p.id, s->p.n * sizeof *s->p.id);
    memcpy(r->p.type, s->p.type, s->p.n);
    memcpy(r->p.tag, s->p.tag, s->p.n);
}

static void same(const sim *s, const sim *r)
{
    assert_int_equal(s->p.n, r->p.n);
    for (int k = 0; k < s->p.nfields; ++k)
        assert_memory_equal(s->p.f[k], r->p.f[k], s->p.n * sizeof(real));
    assert_memory_equal(s->p.id, r->p.id, s->p.n * sizeof *s->p.id);
    assert_memory_equal(s->p.type, r->p.type, s->p.n);
    assert_memory_equal(s->p.tag, r->p.tag, s->p.n);
}

/* Every third particle from the 5th on, backwards: no particle twice, in no sorted order. */
static size_t pick(size_t n, int32_t *idx)
{
    size_t m = 0;
    for (size_t i = n; i-- > 5;)
        if (i % 3 == 0)
            idx[m++] = (int32_t)i;
    return m;
}

static void hooks(void **state)
{
    (void)state;
    scene sc;
    sim s, r;
    sl_err err;
    if (scene_load_string(&sc, SCENE, "test_gpu_halo", &err) || sim_create(&s, &sc, &backend_cuda, &err) ||
        s.be->build_cells(&s, &err))
        fail_msg("%s", err.msg);
    const backend_halo_hooks *gpu = s.be->halo, *cpu = backend_cpu.halo;
    sim_sync_host(&s);
    copy_host(&s, &r);
    size_t n = s.p.n;
    int32_t *idx = malloc(n * sizeof *idx);
    size_t m = pick(n, idx);
    backend_buffer dev = {NULL, 0};
    const int32_t *at = s.be->upload(&s, &dev, idx, m * sizeof *idx);
    assert_non_null(at);
    printf("%zu particles, %zu in the list, %d fields\n", n, m, s.p.nfields);

    const int fields[4] = {PF_Y, BACKEND_FIELD_TAG, PF_P, s.p.nfields - 1};
    real *vg = malloc(4 * m * sizeof *vg), *vc = malloc(4 * m * sizeof *vc);
    if (gpu->gather(&s, fields, 4, at, m, vg, &err) || cpu->gather(&r, fields, 4, idx, m, vc, &err))
        fail_msg("%s", err.msg);
    assert_memory_equal(vg, vc, 4 * m * sizeof *vg);

    for (size_t k = 0; k < 4 * m; ++k)
        vc[k] = (real)(k % 4 == 1 ? k % 200 : 0.5 * (double)k); /* tags within a byte */
    const int set[4] = {PF_X, BACKEND_FIELD_TAG, PF_VX, PF_RHO}, add[2] = {PF_P, PF_RHO};
    if (gpu->scatter(&s, set, 4, at, m, vc, HALO_SET, &err) || cpu->scatter(&r, set, 4, idx, m, vc, HALO_SET, &err) ||
        gpu->scatter(&s, add, 2, at, m, vc, HALO_ADD, &err) || cpu->scatter(&r, add, 2, idx, m, vc, HALO_ADD, &err) ||
        gpu->scatter(&s, add + 1, 1, at + 1, m - 1, NULL, HALO_ZERO, &err) ||
        cpu->scatter(&r, add + 1, 1, idx + 1, m - 1, NULL, HALO_ZERO, &err))
        fail_msg("%s", err.msg);
    sim_sync_host(&s);
    same(&s, &r);

    /* the listed particles made ghosts (ids -1 - id) and dropped; the CPU's reference keeps the others
     * in order, as mpi_halo.c's host path does */
    for (size_t k = 0; k < m; ++k)
        s.p.id[idx[k]] = r.p.id[idx[k]] = -1 - s.p.id[idx[k]];
    size_t was_inside = s.g.n_inside, kept = 0, inside = 0;
    if (sim_sync_device(&s, &err) || gpu->drop_ghosts(&s, &err))
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < r.p.n; ++i) {
        if (r.p.id[i] < 0)
            continue;
        inside += i < was_inside; /* the grid's cells come first, the sink's particles after */
        for (int k = 0; k < r.p.nfields; ++k)
            r.p.f[k][kept] = r.p.f[k][i];
        r.p.id[kept] = r.p.id[i];
        r.p.type[kept] = r.p.type[i];
        r.p.tag[kept] = r.p.tag[i];
        ++kept;
    }
    r.p.n = kept;
    sim_sync_host(&s);
    same(&s, &r);
    printf("dropped %zu of %zu; %zu inside the grid\n", m, n, s.g.n_inside);
    assert_int_equal(s.g.n_inside, inside);

    s.be->buffer_free(&s, &dev);
    free(vg);
    free(vc);
    free(idx);
    particles_free(&r.p);
    sim_free(&s);
    scene_free(&sc);
}

int main(void)
{
    if (!cuda_device_present()) {
        printf("no CUDA device: skipped (run this test on a machine with an NVIDIA GPU)\n");
        return 77;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hooks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
