/* particles.c: allocation of the structure-of-arrays particle state. */
#include "particles.h"

#include <stdlib.h>
#include <string.h>

static const char *const core_names[PF_CORE] = {"x", "y", "z", "vx", "vy", "vz", "rho", "p"};

int particles_alloc(particles *p, size_t n, sl_err *err)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    size_t m = n ? n : 1; /* calloc(0) may return NULL; keep every array valid */
    p->cap = m;
    p->id = malloc(m * sizeof *p->id);
    p->type = calloc(m, sizeof *p->type);
    p->tag = calloc(m, sizeof *p->tag);
    int ok = p->id && p->type && p->tag;
    for (int k = 0; k < PF_CORE && ok; ++k) {
        p->f[k] = calloc(m, sizeof(real));
        p->fname[k] = core_names[k];
        ok = p->f[k] != NULL;
    }
    p->nfields = PF_CORE;
    if (!ok) {
        particles_free(p);
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory allocating %zu particles", n);
    }
    for (size_t i = 0; i < n; ++i)
        p->id[i] = (int32_t)i;
    return SL_OK;
}

int particles_resize(particles *p, size_t n, sl_err *err)
{
    SL_TRY(particles_reserve(p, n, err));
    size_t old = p->n;
    p->n = n;
    if (n <= old)
        return SL_OK;
    for (int k = 0; k < p->nfields; ++k)
        memset(p->f[k] + old, 0, (n - old) * sizeof(real));
    memset(p->id + old, 0, (n - old) * sizeof *p->id);
    memset(p->type + old, 0, n - old);
    memset(p->tag + old, 0, n - old);
    return SL_OK;
}

static int realloc_array(void **arr, size_t bytes)
{
    void *a = realloc(*arr, bytes);
    if (!a)
        return 0;
    *arr = a;
    return 1;
}

/* Every array given room for m particles, each on its own: one whose realloc fails stays as it was
 * (valid, freed with the rest); returns whether all were. */
static int realloc_arrays(particles *p, size_t m)
{
    int ok = 1;
    for (int k = 0; k < p->nfields; ++k)
        ok &= realloc_array((void **)&p->f[k], m * sizeof(real));
    ok &= realloc_array((void **)&p->id, m * sizeof *p->id);
    ok &= realloc_array((void **)&p->type, m * sizeof *p->type);
    ok &= realloc_array((void **)&p->tag, m * sizeof *p->tag);
    return ok;
}

int particles_reserve(particles *p, size_t n, sl_err *err)
{
    if (n <= p->cap)
        return SL_OK;
    size_t m = n + n / 8 + 1024;
    if (!realloc_arrays(p, m))
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for %zu particles", n);
    p->cap = m;
    return SL_OK;
}

void particles_fit(particles *p)
{
    size_t m = p->n + p->n / 8 + 1024;
    if (m >= p->cap)
        return;
    realloc_arrays(p, m); /* a shrink that fails leaves a larger array, which has the room too */
    p->cap = m;
}

int particles_add_field(particles *p, const char *name, int transient)
{
    int k = particles_field_index(p, name);
    if (k >= 0)
        return k;
    if (p->nfields >= PF_MAX)
        return -1;
    k = p->nfields;
    p->f[k] = calloc(p->cap > p->n ? p->cap : (p->n ? p->n : 1), sizeof(real));
    if (!p->f[k])
        return -1;
    p->fname[k] = name;
    p->transient[k] = transient != 0;
    p->nfields++;
    return k;
}

void particles_drop_fields(particles *p, int keep)
{
    for (int k = keep; k < p->nfields; ++k) {
        free(p->f[k]);
        p->f[k] = NULL;
        p->fname[k] = NULL;
        p->transient[k] = 0;
    }
    if (keep < p->nfields)
        p->nfields = keep;
}

int particles_field_index(const particles *p, const char *name)
{
    for (int k = 0; k < p->nfields; ++k)
        if (p->fname[k] && strcmp(p->fname[k], name) == 0)
            return k;
    return -1;
}

void particles_free(particles *p)
{
    for (int k = 0; k < PF_MAX; ++k)
        free(p->f[k]);
    free(p->id);
    free(p->type);
    free(p->tag);
    memset(p, 0, sizeof *p);
}

size_t particles_count_type(const particles *p, enum particle_type t)
{
    size_t c = 0;
    for (size_t i = 0; i < p->n; ++i)
        c += p->type[i] == t;
    return c;
}
