/* test_gpu_halo.c: the CUDA backend's halo hooks (gpu/cuda_halo.cu, what parallel/mpi_halo.c moves
 * the MPI ghosts with) against the CPU backend's on the same particles, bit for bit: the gather of a
 * few fields and the tag at a list of particles; writes, additions, zeros and fills at a list; the drop of
 * the particles whose id is negative, the others in their order with every field. The CPU's hooks
 * run on a copy of the CUDA sim's host arrays. Then the cell build's hooks, which the CPU does not
 * have, against plain loops: the removal of a list (the migration's leavers), the fetch of a list's
 * records as columns, the append of arrivals from columns past the arrays' capacity, and a sort of
 * the grown arrays; the selection of movers, bands and ghosts against the host's loop with the same
 * rule, the balance's column counts, and the sort's drop of parked ghosts against the CPU's. Exits
 * 77 (skipped) without a device. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/scene.h"
#include "core/sim.h"
#include "gpu/backend_cuda.h"
#include "gpu_test.h"
#include "run/sim_create.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENE                                                                                       \
    "simulation = { method = \"wcsph\"; dimension = 2; end_time = 1.0; };\n"                       \
    "fluid = { density = 1000.0; viscosity = 1.0e-6; gravity = [0.0, -9.81]; };\n"                 \
    "numerics = { spacing = 0.01; };\n"                                                            \
    "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.6, 0.5]; layers = 3; },\n"          \
    "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.24, 0.3]; } );\n"

/* s's host particles into r's arrays, which hold as many with the same fields. */
static void copy_particles(const sim *s, sim *r)
{
    assert_int_equal(r->p.n, s->p.n);
    assert_int_equal(r->p.nfields, s->p.nfields);
    for (int k = 0; k < s->p.nfields; ++k)
        memcpy(r->p.f[k], s->p.f[k], s->p.n * sizeof(real));
    memcpy(r->p.id, s->p.id, s->p.n * sizeof *s->p.id);
    memcpy(r->p.type, s->p.type, s->p.n);
    memcpy(r->p.tag, s->p.tag, s->p.n);
}

/* A copy of s's host particles in a sim of their own, for the CPU's hooks. */
static void copy_host(const sim *s, sim *r)
{
    sl_err err;
    memset(r, 0, sizeof *r);
    r->be = &backend_cpu;
    assert_int_equal(particles_alloc(&r->p, s->p.n, &err), SL_OK);
    while (r->p.nfields < s->p.nfields)
        assert_true(particles_add_field(&r->p, s->p.fname[r->p.nfields], s->p.transient[r->p.nfields]) >= 0);
    copy_particles(s, r);
}

/* s's particles are r's: every field, or the persistent ones only (with_rates 0). */
static void same_fields(const sim *s, const sim *r, int with_rates)
{
    assert_int_equal(s->p.n, r->p.n);
    for (int k = 0; k < s->p.nfields; ++k)
        if (with_rates || !s->p.transient[k])
            assert_memory_equal(s->p.f[k], r->p.f[k], s->p.n * sizeof(real));
    assert_memory_equal(s->p.id, r->p.id, s->p.n * sizeof *s->p.id);
    assert_memory_equal(s->p.type, r->p.type, s->p.n);
    assert_memory_equal(s->p.tag, r->p.tag, s->p.n);
}

static void same(const sim *s, const sim *r)
{
    same_fields(s, r, 1);
}

/* Particle `from`'s record into slot `to` (to <= from): the reference's compaction. */
static void move_record(particles *p, size_t from, size_t to)
{
    for (int k = 0; k < p->nfields; ++k)
        p->f[k][to] = p->f[k][from];
    p->id[to] = p->id[from];
    p->type[to] = p->type[from];
    p->tag[to] = p->tag[from];
}

/* The particles idx[0 .. m) made ghosts in s (on the device) and r, and dropped by s's hook (keep_rates
 * as given) and from r by the host's compaction; s's and r's particles compared after. */
static void drop_and_compare(sim *s, sim *r, const int32_t *idx, size_t m, int keep_rates)
{
    sl_err err;
    for (size_t k = 0; k < m; ++k)
        s->p.id[idx[k]] = r->p.id[idx[k]] = -1 - s->p.id[idx[k]];
    size_t was_inside = s->g.n_inside, kept = 0, inside = 0;
    if (sim_sync_device(s, &err) || s->be->halo->drop_ghosts(s, keep_rates, &err))
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < r->p.n; ++i) {
        if (r->p.id[i] < 0)
            continue;
        inside += i < was_inside; /* the grid's cells come first, the sink's particles after */
        move_record(&r->p, i, kept++);
    }
    r->p.n = kept;
    sim_sync_host(s);
    same_fields(s, r, keep_rates);
    printf("dropped %zu (%s); %zu left, %zu inside the grid\n", m, keep_rates ? "every field" : "rates spent",
           s->p.n, s->g.n_inside);
    assert_int_equal(s->g.n_inside, inside);
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
    int32_t *idx = malloc(n * sizeof *idx); /* (the lists below are shorter than the first) */
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
    const real big = (real)1e30; /* HALO_FILL's one value */
    if (gpu->scatter(&s, set, 4, at, m, vc, HALO_SET, &err) || cpu->scatter(&r, set, 4, idx, m, vc, HALO_SET, &err) ||
        gpu->scatter(&s, add, 2, at, m, vc, HALO_ADD, &err) || cpu->scatter(&r, add, 2, idx, m, vc, HALO_ADD, &err) ||
        gpu->scatter(&s, add + 1, 1, at + 1, m - 1, NULL, HALO_ZERO, &err) ||
        cpu->scatter(&r, add + 1, 1, idx + 1, m - 1, NULL, HALO_ZERO, &err) ||
        gpu->scatter(&s, add, 1, at + 2, m - 2, &big, HALO_FILL, &err) ||
        cpu->scatter(&r, add, 1, idx + 2, m - 2, &big, HALO_FILL, &err))
        fail_msg("%s", err.msg);
    sim_sync_host(&s);
    same(&s, &r);

    /* the listed particles made ghosts (ids -1 - id) and dropped; the CPU's reference keeps the others
     * in order, as mpi_halo.c's host path does. Then another list with the rates spent: the
     * persistent fields moved as the sort's reorder moves them, the transients left undefined (the
     * reference takes the device's, so that what follows compares the same arrays). */
    drop_and_compare(&s, &r, idx, m, 1);
    m = pick(s.p.n - 1, idx);
    for (size_t k = 0; k < m; ++k)
        idx[k] += 1;
    drop_and_compare(&s, &r, idx, m, 0);
    for (int k = 0; k < s.p.nfields; ++k)
        if (s.p.transient[k])
            memcpy(r.p.f[k], s.p.f[k], s.p.n * sizeof(real));
    size_t kept;

    /* the migration's leavers removed: every third from the 5th on, backwards */
    n = s.p.n;
    m = pick(n, idx);
    if (gpu->remove(&s, idx, m, &err))
        fail_msg("%s", err.msg);
    uint8_t *keep = malloc(n);
    memset(keep, 1, n);
    for (size_t k = 0; k < m; ++k)
        keep[idx[k]] = 0;
    kept = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!keep[i])
            continue;
        move_record(&r.p, i, kept++);
    }
    r.p.n = kept;
    assert_int_equal(s.p.n, kept);
    printf("removed %zu of %zu\n", m, n);

    /* the records fetched: the listed particles' persistent fields, ids, kinds and tags as columns,
     * in the list's order */
    n = s.p.n;
    m = pick(n, idx);
    int np = 0;
    for (int k = 0; k < s.p.nfields; ++k)
        np += !s.p.transient[k];
    void *buf = malloc(record_columns_bytes(np, m));
    for (int ghost = 0; ghost < 2; ++ghost) { /* as themselves, then as ghosts: ids -1 - id */
        if (gpu->fetch(&s, idx, m, buf, ghost, &err))
            fail_msg("%s", err.msg);
        record_columns c = record_columns_at(buf, np, m);
        for (size_t j = 0; j < m; ++j) {
            const real *f = c.f + j;
            for (int k = 0; k < r.p.nfields; ++k)
                if (!r.p.transient[k]) {
                    assert_memory_equal(f, &r.p.f[k][idx[j]], sizeof *f);
                    f += m;
                }
            assert_int_equal(c.id[j], ghost ? -1 - r.p.id[idx[j]] : r.p.id[idx[j]]);
            assert_int_equal(c.type[j], r.p.type[idx[j]]);
            assert_int_equal(c.tag[j], r.p.tag[idx[j]]);
        }
    }
    free(buf);
    sim_sync_host(&s); /* stale since the removal: every array again */
    same(&s, &r);
    printf("fetched %zu of %zu\n", m, n);

    /* arrivals appended from columns: more than the arrays hold, so they grow, keeping the particles
     * there; the transient fields zero */
    size_t n0 = s.p.n, count = 2 * n0 + 17;
    assert_int_equal(particles_resize(&r.p, n0 + count, &err), SL_OK);
    buf = malloc(record_columns_bytes(np, count));
    record_columns c = record_columns_at(buf, np, count);
    for (size_t i = n0; i < n0 + count; ++i) {
        size_t from = i % n0, j = i - n0; /* near a particle there, inside the grid */
        real *f = c.f + j;
        for (int k = 0; k < r.p.nfields; ++k) {
            real v = k < PF_Z + 1 ? r.p.f[k][from] + (real)1e-4 : (real)(0.25 * (double)(k + i));
            r.p.f[k][i] = r.p.transient[k] ? 0 : v;
            if (!r.p.transient[k]) {
                *f = v;
                f += count;
            }
        }
        c.id[j] = r.p.id[i] = (int32_t)(1000000 + i);
        c.type[j] = r.p.type[i] = r.p.type[from];
        c.tag[j] = r.p.tag[i] = (uint8_t)(i % 200);
    }
    assert_int_equal(particles_reserve(&s.p, n0 + count, &err), SL_OK);
    if (gpu->append(&s, buf, count, &err))
        fail_msg("%s", err.msg);
    free(buf);
    assert_int_equal(s.p.n, n0 + count);
    sim_sync_host(&s);
    same(&s, &r);
    printf("appended %zu behind %zu\n", count, n0);

    /* the grown arrays sort as before: each particle's persistent fields, kind and tag found by id */
    if (s.be->build_cells(&s, &err))
        fail_msg("%s", err.msg);
    sim_sync_host(&s);
    assert_int_equal(s.p.n, r.p.n);
    size_t ids = 1000000 + r.p.n;
    int32_t *at_id = malloc(ids * sizeof *at_id);
    for (size_t i = 0; i < ids; ++i)
        at_id[i] = -1;
    for (size_t i = 0; i < r.p.n; ++i)
        at_id[r.p.id[i]] = (int32_t)i;
    for (size_t i = 0; i < s.p.n; ++i) {
        assert_true(s.p.id[i] >= 0 && (size_t)s.p.id[i] < ids && at_id[s.p.id[i]] >= 0);
        size_t j = (size_t)at_id[s.p.id[i]];
        at_id[s.p.id[i]] = -1; /* each once */
        for (int k = 0; k < s.p.nfields; ++k)
            if (!s.p.transient[k])
                assert_memory_equal(&s.p.f[k][i], &r.p.f[k][j], sizeof(real));
        assert_int_equal(s.p.type[i], r.p.type[j]);
        assert_int_equal(s.p.tag[i], r.p.tag[j]);
    }
    free(at_id);
    free(keep);

    s.be->buffer_free(&s, &dev);
    free(vg);
    free(vc);
    free(idx);
    particles_free(&r.p);
    sim_free(&s);
    scene_free(&sc);
}

/* The routes of the host's loop (parallel/mpi_select.c's, with the same rule). */
static size_t host_routes(const particles *p, const slab_rule *rule, const int *first, int32_t *idx, int *dest)
{
    size_t m = 0;
    for (size_t i = 0; i < p->n; ++i) {
        int d[2], k = slab_destinations(rule, first, p->f[PF_X + rule->axis][i], p->id[i], d);
        for (int j = 0; j < k; ++j) {
            idx[m] = (int32_t)i;
            dest[m++] = d[j];
        }
    }
    return m;
}

/* The device's selection (backend.halo.select) against the host's loop, for both choices and every
 * rank of three slabs, with some ghosts and a NaN position among the particles: the same routes,
 * ordered by destination as the exchange sends them, the same counts, and some of each. Then after_sort: a list of places followed through a sort of
 * the shuffled particles lands on the same particles (by id). */
static void choices(void **state)
{
    (void)state;
    scene sc;
    sim s;
    sl_err err;
    if (scene_load_string(&sc, SCENE, "test_gpu_halo", &err) || sim_create(&s, &sc, &backend_cuda, &err) ||
        s.be->build_cells(&s, &err))
        fail_msg("%s", err.msg);
    sim_sync_host(&s);
    size_t n = s.p.n;
    for (size_t i = 7; i < n; i += 11)
        s.p.id[i] = -1 - s.p.id[i];
    s.p.f[PF_X][3] = (real)NAN;
    if (sim_sync_device(&s, &err))
        fail_msg("%s", err.msg);
    /* 30 columns of 2 cm over the 0.6 m tank (and its walls, clamped), cut at 8 and 14 */
    const int first[4] = {0, 8, 14, 30};
    int32_t *idx[2];
    int *dest[2];
    for (int h = 0; h < 2; ++h) {
        idx[h] = malloc(2 * n * sizeof *idx[h]);
        dest[h] = malloc(2 * n * sizeof *dest[h]);
    }
    /* the balance's histogram (column_counts) against the host's loop: 30 columns (a block's
     * histogram in shared memory) and 20,000 (past it: global atomics); the NaN counts nowhere */
    for (int fine = 0; fine < 2; ++fine) {
        const int ncols = fine ? 20000 : 30;
        const slab_rule rule = {SLAB_MOVERS, 0, ncols, 0, 3, 2, 0.0, 0.6 / ncols};
        int64_t *got = calloc((size_t)ncols, sizeof *got), *expect = calloc((size_t)ncols, sizeof *expect), sum = 0;
        if (s.be->halo->column_counts(&s, &rule, got, &err))
            fail_msg("%s", err.msg);
        slab_column_counts(&rule, s.p.f[PF_X], n, expect);
        for (int c = 0; c < ncols; ++c)
            sum += got[c];
        printf("column counts: %d columns, %lld particles\n", ncols, (long long)sum);
        assert_int_equal(sum, n - 1);
        assert_memory_equal(got, expect, (size_t)ncols * sizeof *got);
        free(got);
        free(expect);
    }
    for (int c = SLAB_MOVERS; c <= SLAB_BANDS; ++c)
        for (int rank = 0; rank < 3; ++rank) {
            const slab_rule rule = {(enum slab_choice)c, 0, 30, rank, 3, 2, 0.0, 0.02};
            size_t m;
            int counts[3], expect[3] = {0, 0, 0};
            const int32_t *by_dest = NULL;
            if (s.be->halo->select(&s, &rule, first, counts, &by_dest, &m, &err))
                fail_msg("%s", err.msg);
            size_t mh = host_routes(&s.p, &rule, first, idx[1], dest[1]);
            printf("choice %d, rank %d: %zu routes\n", c, rank, m);
            assert_true(mh > 0);
            assert_int_equal(m, mh);
            /* the host's routes by destination, each destination's in route order */
            size_t at = 0;
            for (int q = 0; q < 3; ++q)
                for (size_t k = 0; k < mh; ++k)
                    if (dest[1][k] == q) {
                        idx[0][at++] = idx[1][k];
                        expect[q]++;
                    }
            assert_memory_equal(counts, expect, sizeof counts);
            int32_t *got = malloc(m * sizeof *got);
            if (cuda_copy_to_host(got, by_dest, m * sizeof *got))
                fail_msg("the routes could not be copied back");
            assert_memory_equal(got, idx[0], m * sizeof *got);
            free(got);
        }

    /* the particles reversed (so that the sort moves every one), sorted, and followed */
    sim_sync_host(&s);
    for (size_t i = 0; i < n / 2; ++i)
        for (int k = -1; k < s.p.nfields; ++k) {
            if (k >= 0) {
                real t = s.p.f[k][i];
                s.p.f[k][i] = s.p.f[k][n - 1 - i];
                s.p.f[k][n - 1 - i] = t;
            } else {
                int32_t t = s.p.id[i];
                s.p.id[i] = s.p.id[n - 1 - i];
                s.p.id[n - 1 - i] = t;
            }
        }
    s.p.f[PF_X][3] = 0.1f; /* (a NaN sorts into the sink as well; one place fewer to reason about) */
    int32_t *id_before = malloc(n * sizeof *id_before);
    if (sim_sync_device(&s, &err))
        fail_msg("%s", err.msg);
    memcpy(id_before, s.p.id, n * sizeof *id_before);
    size_t m = pick(n, idx[0]), moved = 0;
    if (s.be->build_cells(&s, &err) || s.be->halo->after_sort(&s, idx[0], m, idx[1], &err))
        fail_msg("%s", err.msg);
    sim_sync_host(&s);
    for (size_t k = 0; k < m; ++k) {
        assert_true(idx[1][k] >= 0 && (size_t)idx[1][k] < n);
        assert_int_equal(s.p.id[idx[1][k]], id_before[idx[0][k]]);
        moved += idx[1][k] != idx[0][k];
    }
    printf("after_sort: %zu of %zu followed, %zu moved\n", m, n, moved);
    assert_true(moved > m / 2);
    free(id_before);
    for (int h = 0; h < 2; ++h) {
        free(idx[h]);
        free(dest[h]);
    }
    sim_free(&s);
    scene_free(&sc);
}

/* The cell build drops the parked ghosts (a negative id at a NaN x, nbr_sort_key: an MPI rank's
 * spent ghosts) on the device as on the CPU: the same particles with the same values after both
 * builds, the same count inside the grid, some live ghosts (a negative id at a number) kept. */
static void parked(void **state)
{
    (void)state;
    scene sc;
    sim s, r;
    sl_err err;
    if (scene_load_string(&sc, SCENE, "test_gpu_halo", &err) || sim_create(&s, &sc, &backend_cuda, &err) ||
        sim_create(&r, &sc, &backend_cpu, &err) || s.be->build_cells(&s, &err))
        fail_msg("%s", err.msg);
    sim_sync_host(&s);
    copy_particles(&s, &r); /* the device's sorted particles, both sims' start */
    const size_t n = s.p.n;
    size_t parked = 0;
    for (size_t i = 0; i < n; ++i)
        if (i % 5 == 2) {
            s.p.id[i] = r.p.id[i] = -1 - s.p.id[i];
            if (i % 2) {
                s.p.f[PF_X][i] = r.p.f[PF_X][i] = (real)NAN;
                ++parked;
            }
        }
    s.g.parked = r.g.parked = parked; /* what the MPI domain hands the build */
    if (sim_sync_device(&s, &err) || s.be->build_cells(&s, &err) || r.be->build_cells(&r, &err))
        fail_msg("%s", err.msg);
    sim_sync_host(&s);
    assert_true(parked > 100);
    assert_int_equal(s.g.parked, 0);
    assert_int_equal(s.p.n, n - parked);
    assert_int_equal(r.p.n, n - parked);
    assert_int_equal(s.g.n_inside, r.g.n_inside);
    /* each kept particle's persistent fields, found by id (ids -n-1 .. n-1: at id + n + 1), and
     * how many sit at another place (a cell's order, which the two sorts need not share) */
    size_t *at = malloc((2 * n + 1) * sizeof *at), elsewhere = 0;
    for (size_t i = 0; i < 2 * n + 1; ++i)
        at[i] = SIZE_MAX;
    for (size_t i = 0; i < r.p.n; ++i)
        at[(size_t)((int64_t)r.p.id[i] + (int64_t)n + 1)] = i;
    for (size_t i = 0; i < s.p.n; ++i) {
        const size_t j = at[(size_t)((int64_t)s.p.id[i] + (int64_t)n + 1)];
        assert_true(j != SIZE_MAX);
        elsewhere += j != i;
        for (int k = 0; k < s.p.nfields; ++k)
            if (!s.p.transient[k])
                assert_memory_equal(&s.p.f[k][i], &r.p.f[k][j], sizeof(real));
        assert_int_equal(s.p.type[i], r.p.type[j]);
        assert_int_equal(s.p.tag[i], r.p.tag[j]);
    }
    printf("parked: %zu of %zu dropped by the sort, %zu left, %zu inside, %zu at another place than on the CPU\n",
           parked, n, s.p.n, s.g.n_inside, elsewhere);
    free(at);
    sim_free(&s);
    sim_free(&r);
    scene_free(&sc);
}

int main(void)
{
    GPU_TEST_SKIP_WITHOUT_DEVICE();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hooks),
        cmocka_unit_test(choices),
        cmocka_unit_test(parked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
