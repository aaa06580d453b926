/* backend_cpu_mg.c: the CPU backend's multigrid primitives: OpenMP loops over the elements of
 * core/multigrid_ops.h. */
#include "backend_cpu_mg.h"

#include "sim.h"

#include <stdlib.h>
#include <string.h>

static void *cpu_mg_alloc(sim *s, size_t bytes, sl_err *err)
{
    (void)s;
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p)
        sl_fail(err, SL_ERR_RUNTIME, "multigrid: out of memory (%zu bytes)", bytes);
    return p;
}

static void cpu_mg_free(sim *s, void *p)
{
    (void)s;
    free(p);
}

static int cpu_mg_run(sim *s, mg_args *m, int diag, int in, int out, int work)
{
    double t0 = s->prof.enabled ? profile_now() : 0;
    real *const *f = s->p.f;
    m->diag = diag >= 0 ? f[diag] : NULL;
    m->in = in >= 0 ? f[in] : NULL;
    m->out = out >= 0 ? f[out] : NULL;
    m->work = work >= 0 ? f[work] : NULL;
    m->cell = s->g.view.cell;
    m->cell_start = s->g.view.cell_start;
    const mg_args a = *m;
    const int kind = a.kind;
    const int64_t n = mg_range(&a);
    #pragma omp parallel for schedule(static)
    for (int64_t e = 0; e < n; ++e)
        mg_element(&a, kind, e);
    if (s->prof.enabled)
        profile_add(&s->prof, mg_kind_label(kind), "openmp", profile_now() - t0);
    return SL_OK;
}

static int cpu_mg_longest_row(sim *s, const sparse_ell *A, size_t n, int32_t *longest)
{
    (void)s;
    int32_t most = 0;
    #pragma omp parallel for reduction(max : most)
    for (size_t i = 0; i < n; ++i)
        most = A->count[i] > most ? A->count[i] : most;
    *longest = most;
    return SL_OK;
}

static int cpu_mg_replay(sim *s, int (*record)(sim *s, void *ctx), void *ctx, const void *stamp,
                         size_t stamp_bytes)
{
    (void)stamp, (void)stamp_bytes;
    return record(s, ctx);
}

/* One lane a cell: the CPU's caches and prefetch hide the latency that lanes split on the GPU. */
static int cpu_mg_list_cells(sim *s, mg_grid *g, int level)
{
    (void)level;
    double t0 = s->prof.enabled ? profile_now() : 0;
    int32_t count = 0;
    for (int64_t c = 0; c < g->ncells; ++c) {
        g->d[c] = mg_centre(g, c);
        if (mg_lists(g, c, g->d[c]))
            g->active[count++] = (int32_t)c;
    }
    *g->nactive = count;
    g->lanes = 1;
    g->blocks = 0;
    memset(g->x, 0, (size_t)g->ncells * sizeof(real));
    memset(g->t, 0, (size_t)g->ncells * sizeof(real));
    if (s->prof.enabled)
        profile_add(&s->prof, "mg.setup", "serial", profile_now() - t0);
    return SL_OK;
}

static int cpu_mg_count_listed(sim *s, mg_grid *levels, int nlevels, int64_t *counts)
{
    (void)s;
    for (int l = 0; l < nlevels; ++l)
        counts[l] = *levels[l].nactive;
    return SL_OK;
}

/* The CPU's own memory is the host's: on_device changes nothing. */
static int cpu_mg_columns(sim *s, real *v, const mg_span *sp, int nspans, real *buf, int to_buf, int on_device)
{
    (void)s;
    (void)on_device;
    for (int j = 0; j < nspans; buf += sp[j].run * sp[j].count, ++j)
        for (int64_t k = 0; k < sp[j].count; ++k) {
            real *at = v + sp[j].first + k * sp[j].pitch, *packed = buf + k * sp[j].run;
            memcpy(to_buf ? packed : at, to_buf ? at : packed, (size_t)sp[j].run * sizeof(real));
        }
    return SL_OK;
}

const backend_mg_hooks cpu_mg_hooks = {
    .alloc = cpu_mg_alloc,
    .free = cpu_mg_free,
    .run = cpu_mg_run,
    .longest_row = cpu_mg_longest_row,
    .replay = cpu_mg_replay,
    .list_cells = cpu_mg_list_cells,
    .count_listed = cpu_mg_count_listed,
    .columns = cpu_mg_columns,
    .row_group_shift = 0,
    .hybrid_cycle = 0,
};
