/* backend_cpu.c: the CPU backend: OpenMP over chunks of particles. */
#include "backend.h"
#include "backend_cpu_mg.h"
#include "cg_decide.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>

enum { CHUNK = 128 }; /* particles per task: small enough to balance, large enough to amortise */

static int cpu_build_cells(sim *s, sl_err *err)
{
    double t0 = s->prof.enabled ? profile_now() : 0;
    int rc = nbr_grid_build(&s->g, &s->p, err);
    if (s->prof.enabled)
        profile_add(&s->prof, "build_cells", "serial counting sort", profile_now() - t0);
    return rc;
}

static void cpu_run_pass(sim *s, const pass *ps, size_t n)
{
    double t0 = s->prof.enabled ? profile_now() : 0;
    pass_ctx ctx = sim_host_ctx(s);
    long nchunks = (long)((n + CHUNK - 1) / CHUNK);
    #pragma omp parallel for schedule(dynamic, 1)
    for (long c = 0; c < nchunks; ++c) {
        size_t b = (size_t)c * CHUNK;
        size_t e = b + CHUNK < n ? b + CHUNK : n;
        ps->cpu(&ctx, b, e);
    }
    if (s->prof.enabled)
        profile_add(&s->prof, ps->name, "openmp", profile_now() - t0);
}

/* Sums run over fixed blocks whose partial sums are added in order, so the result does not
 * depend on the number of threads (bit-identical runs and restarts). */
enum { SUM_BLOCK = 4096 };

static double cpu_dot(const real *a, const real *b, size_t n)
{
    long nblocks = (long)((n + SUM_BLOCK - 1) / SUM_BLOCK);
    double stack[64], *part = nblocks <= 64 ? stack : malloc((size_t)nblocks * sizeof *part);
    if (!part)
        return NAN;
    #pragma omp parallel for schedule(static)
    for (long k = 0; k < nblocks; ++k) {
        size_t lo = (size_t)k * SUM_BLOCK, hi = lo + SUM_BLOCK < n ? lo + SUM_BLOCK : n;
        double acc = 0;
        for (size_t i = lo; i < hi; ++i)
            acc += (double)a[i] * (b ? (double)b[i] : 1.0);
        part[k] = acc;
    }
    double sum = 0;
    for (long k = 0; k < nblocks; ++k)
        sum += part[k];
    if (part != stack)
        free(part);
    return sum;
}

static double cpu_reduce(sim *s, enum reduce_op op, int fa, int fb, size_t n)
{
    const real *a = s->p.f[fa];
    if (op == REDUCE_DOT || op == REDUCE_SUM)
        return cpu_dot(a, op == REDUCE_DOT ? s->p.f[fb] : NULL, n);
    double lo = INFINITY, hi = -INFINITY;
    int bad = 0;
    #pragma omp parallel for reduction(min : lo) reduction(max : hi) reduction(| : bad)
    for (size_t i = 0; i < n; ++i) {
        double v = a[i];
        if (v != v)
            bad = 1;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (bad)
        return NAN;
    return op == REDUCE_MIN ? lo : hi;
}

/* The CG solver's vector steps (pcg.c runs the iteration). The dots are three separate blocked
 * sums, in the order of the formulas, so results stay bit-identical across thread counts. */
static int cpu_cg_init(sim *s, const cg_problem *cg, double dots[3])
{
    real *const *f = s->p.f;
    real *x = f[cg->x], *b = f[cg->b], *diag = f[cg->diag];
    real *r = f[cg->r], *z = f[cg->z], *d = f[cg->d], *q = f[cg->q];
    size_t n = cg->n;
    #pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) {
        int unknown = diag[i] != 0;
        if (!unknown)
            x[i] = 0;
        r[i] = unknown ? b[i] - q[i] : 0;
        z[i] = unknown ? r[i] / diag[i] : 0;
        d[i] = z[i];
    }
    dots[0] = cpu_dot(b, b, n);
    dots[1] = cpu_dot(r, z, n);
    dots[2] = cpu_dot(r, r, n);
    return SL_OK;
}

static int cpu_cg_dot(sim *s, cg_problem *cg, int a, int b, int slot)
{
    cg->scalar[slot] = cpu_dot(s->p.f[a], s->p.f[b], cg->n);
    return SL_OK;
}

static int cpu_cg_update(sim *s, cg_problem *cg, int rz, int dq, int out)
{
    real *const *f = s->p.f;
    real *x = f[cg->x], *diag = f[cg->diag];
    real *r = f[cg->r], *z = f[cg->z], *d = f[cg->d], *q = f[cg->q];
    size_t n = cg->n;
    cg->scalar[out] = cg->scalar[out + 1] = 0;
    if (!(cg->scalar[dq] > 0) || cg->scalar[CG_STATE] != CG_GOING)
        return SL_OK;
    const double alpha = cg->scalar[rz] / cg->scalar[dq];
    #pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) {
        x[i] += (real)(alpha * d[i]);
        r[i] -= (real)(alpha * q[i]);
        z[i] = diag[i] != 0 ? r[i] / diag[i] : 0;
    }
    cg->scalar[out] = cpu_dot(r, z, n);
    cg->scalar[out + 1] = cpu_dot(r, r, n);
    return SL_OK;
}

static int cpu_cg_decide(sim *s, cg_problem *cg, int dq, int out, double bnorm)
{
    (void)s;
    cg_decide_step(cg->scalar, dq, out, bnorm, cg->tolerance, cg->max_iterations);
    return SL_OK;
}

static int cpu_cg_direction(sim *s, cg_problem *cg, int num, int den)
{
    if (cg->scalar[CG_STATE] != CG_GOING)
        return SL_OK;
    real *z = s->p.f[cg->z], *d = s->p.f[cg->d];
    size_t n = cg->n;
    const double beta = den < 0 ? 0.0 : cg->scalar[num] / cg->scalar[den];
    #pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i)
        d[i] = z[i] + (real)(beta * d[i]);
    return SL_OK;
}

static int cpu_cg_scalars(sim *s, cg_problem *cg, int slot, int count, double *v, int write)
{
    (void)s;
    for (int k = 0; k < count; ++k) {
        if (write)
            cg->scalar[slot + k] = v[k];
        else
            v[k] = cg->scalar[slot + k];
    }
    return SL_OK;
}

/* Per-body sums in the fixed blocks of SUM_BLOCK particles, blocks added in order. */
static int cpu_body_sums(sim *s, int body, int nbodies, const int acc[3], double *out)
{
    double t0 = s->prof.enabled ? profile_now() : 0; /* "body_sums", as the CUDA backend names it */
    size_t n = s->g.n_inside, width = (size_t)nbodies * 6;
    long nblocks = (long)((n + SUM_BLOCK - 1) / SUM_BLOCK);
    double *part = calloc((size_t)(nblocks > 0 ? nblocks : 1) * width, sizeof *part);
    if (!part)
        return SL_ERR_RUNTIME;
    real *const *f = s->p.f;
    const real *zero_z = acc[2] >= 0 ? f[acc[2]] : NULL;
    int dim = s->sc->dim;
    #pragma omp parallel for schedule(static)
    for (long k = 0; k < nblocks; ++k) {
        size_t lo = (size_t)k * SUM_BLOCK, hi = lo + SUM_BLOCK < n ? lo + SUM_BLOCK : n;
        double *mine = part + (size_t)k * width, u[6];
        for (size_t i = lo; i < hi; ++i) {
            int b = (int)f[body][i];
            if (b < 0 || b >= nbodies)
                continue;
            rigid_body_particle_sums(s->P.mass, f[PF_X][i], f[PF_Y][i], dim == 3 ? f[PF_Z][i] : R(0.0),
                                     f[acc[0]][i], f[acc[1]][i], zero_z ? zero_z[i] : R(0.0), u);
            for (int a = 0; a < 6; ++a)
                mine[6 * b + a] += u[a];
        }
    }
    for (size_t j = 0; j < width; ++j) {
        double sum = 0;
        for (long k = 0; k < nblocks; ++k)
            sum += part[(size_t)k * width + j];
        out[j] = sum;
    }
    free(part);
    if (s->prof.enabled)
        profile_add(&s->prof, "body_sums", "openmp", profile_now() - t0);
    return SL_OK;
}

static int cpu_fill_zero(sim *s, int field, size_t n)
{
    real *a = s->p.f[field];
    #pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i)
        a[i] = 0;
    return SL_OK;
}

/* The MPI halo's hooks on the host arrays: plain loops, over the ghost bands only. */
static int cpu_halo_gather(sim *s, const int *fields, int nf, const int32_t *idx, size_t n, real *v, sl_err *err)
{
    (void)err;
    const particles *p = &s->p;
    for (size_t k = 0; k < n; ++k)
        for (int j = 0; j < nf; ++j)
            v[k * (size_t)nf + j] = fields[j] == BACKEND_FIELD_TAG ? (real)p->tag[idx[k]] : p->f[fields[j]][idx[k]];
    return SL_OK;
}

static int cpu_halo_scatter(sim *s, const int *fields, int nf, const int32_t *idx, size_t n, const real *v,
                            enum backend_halo_op op, sl_err *err)
{
    (void)err;
    particles *p = &s->p;
    for (int j = 0; j < nf; ++j)
        for (size_t k = 0; k < n; ++k) {
            real x = op == HALO_ZERO ? 0 : op == HALO_FILL ? v[0] : v[k * (size_t)nf + j];
            if (fields[j] == BACKEND_FIELD_TAG)
                p->tag[idx[k]] = (uint8_t)x;
            else if (op == HALO_ADD)
                p->f[fields[j]][idx[k]] += x;
            else
                p->f[fields[j]][idx[k]] = x;
        }
    return SL_OK;
}

/* The host sort's permutation (g->order: each place's particle before the sort) inverted into the
 * grid's int scratch, free after the build. */
static int cpu_halo_after_sort(sim *s, const int32_t *before, size_t n, int32_t *after, sl_err *err)
{
    (void)err;
    const nbr_grid *g = &s->g;
    int32_t *place = g->cell_tmp;
    for (size_t j = 0; j < s->p.n; ++j)
        place[g->order[j]] = (int32_t)j;
    for (size_t k = 0; k < n; ++k)
        after[k] = place[before[k]];
    return SL_OK;
}

static const backend_halo_hooks cpu_halo_hooks = {
    .gather = cpu_halo_gather,
    .scatter = cpu_halo_scatter,
    .after_sort = cpu_halo_after_sort,
};

const backend backend_cpu = {
    .name = "cpu",
    .build_cells = cpu_build_cells,
    .run_pass = cpu_run_pass,
    .reduce = cpu_reduce,
    .cg_init = cpu_cg_init,
    .cg_dot = cpu_cg_dot,
    .cg_update = cpu_cg_update,
    .cg_decide = cpu_cg_decide,
    .cg_direction = cpu_cg_direction,
    .cg_scalars = cpu_cg_scalars,
    .fill_zero = cpu_fill_zero,
    .body_sums = cpu_body_sums,
    .mg = &cpu_mg_hooks,
    .halo = &cpu_halo_hooks,
};
