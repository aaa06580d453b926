/* test_particles.c: the particle arrays' room (base/particles.c): a resize keeps the values below
 * the old count and zeroes those above it; the room grows by an eighth beyond the count when it must
 * and never shrinks on a resize (an MPI rank's count changes every cell build), a reserve gives room
 * without touching the count or the values, a fit gives back the room beyond an eighth; a field
 * added later has the same room. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/particles.h"

/* Particle i holds i + k / 8 in field k and its id, kind and tag. */
static void fill(particles *p)
{
    for (size_t i = 0; i < p->n; ++i) {
        for (int k = 0; k < p->nfields; ++k)
            p->f[k][i] = (real)((double)i + k / 8.0);
        p->id[i] = (int32_t)i;
        p->type[i] = (uint8_t)(i % 3);
        p->tag[i] = (uint8_t)(i % 200);
    }
}

static void kept(const particles *p, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        for (int k = 0; k < p->nfields; ++k)
            assert_true(p->f[k][i] == (real)((double)i + k / 8.0));
        assert_int_equal(p->id[i], (int32_t)i);
        assert_int_equal(p->type[i], i % 3);
        assert_int_equal(p->tag[i], i % 200);
    }
}

static void zero_from(const particles *p, size_t from)
{
    for (size_t i = from; i < p->n; ++i) {
        for (int k = 0; k < p->nfields; ++k)
            assert_true(p->f[k][i] == 0);
        assert_int_equal(p->id[i], 0);
        assert_int_equal(p->type[i], 0);
        assert_int_equal(p->tag[i], 0);
    }
}

static void room(void **state)
{
    (void)state;
    particles p;
    sl_err err;
    assert_int_equal(particles_alloc(&p, 1000, &err), SL_OK);
    assert_true(particles_add_field(&p, "extra", 0) >= PF_CORE);
    assert_int_equal(p.cap, 1000);
    fill(&p);

    /* grows: the room an eighth (and 1024) beyond the count, the old values kept, the new zero */
    assert_int_equal(particles_resize(&p, 3000, &err), SL_OK);
    assert_int_equal(p.n, 3000);
    assert_int_equal(p.cap, 3000 + 3000 / 8 + 1024);
    kept(&p, 1000);
    zero_from(&p, 1000);
    fill(&p);

    /* shrinks and grows within the room: no new room, the values below the count kept, those the
     * count passes again zeroed (not the old values) */
    size_t cap = p.cap;
    assert_int_equal(particles_resize(&p, 500, &err), SL_OK);
    assert_int_equal(particles_resize(&p, 2500, &err), SL_OK);
    assert_int_equal(p.cap, cap);
    kept(&p, 500);
    zero_from(&p, 500);
    fill(&p);

    /* a reserve: room only */
    assert_int_equal(particles_reserve(&p, 10000, &err), SL_OK);
    assert_int_equal(p.n, 2500);
    assert_true(p.cap >= 10000);
    kept(&p, 2500);

    /* a field added now has the room too: the count may grow into it */
    int late = particles_add_field(&p, "late", 1);
    assert_true(late > PF_CORE);
    assert_int_equal(particles_resize(&p, 9000, &err), SL_OK);
    for (size_t i = 0; i < p.n; ++i)
        assert_true(p.f[late][i] == 0);
    p.f[late][8999] = 1; /* (the sanitizer's check of the room) */

    /* a fit: the room back to an eighth (and 1024) beyond the count, the values kept */
    assert_int_equal(particles_resize(&p, 100, &err), SL_OK);
    fill(&p);
    particles_fit(&p);
    assert_int_equal(p.cap, 100 + 100 / 8 + 1024);
    kept(&p, 100);
    particles_fit(&p); /* nothing more to give back */
    assert_int_equal(p.cap, 100 + 100 / 8 + 1024);
    particles_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
