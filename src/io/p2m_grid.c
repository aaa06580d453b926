/* p2m_grid.c: particle-to-mesh spreading on the CPU (OpenMP): the particle-based algorithm with
 * atomic adds and the mesh-based gather through a CSR structure; the weights are physics/p2m_weights.h.
 * The choice of algorithm for a run (p2m_grid_update) and the hand-over to a backend that spreads on
 * its device (backend.p2m_spread: src/gpu/p2m_cuda.cu) are here too. */
#include "p2m_grid.h"

#include "base/scene.h"
#include "core/sim.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdlib.h>
#include <string.h>

/* Scratch of the mesh-based algorithm, in bin order: stencil and what the particle carries. */
typedef struct sorted {
    double *t[3];
    int32_t *i0[3];
    real *v[3], *p;
} sorted;

int p2m_grid_init(p2m_grid *g, int dim, int order, double spacing, const double dmin[3], const double dmax[3],
                  unsigned fields, size_t max_nodes, sl_err *err)
{
    memset(g, 0, sizeof *g);
    if (dim < 2 || dim > 3 || order < 1 || order > P2M_MAX_ORDER || !(spacing > 0))
        return sl_fail(err, SL_ERR_RUNTIME, "grid: dimension %d, order %d, spacing %g are not usable", dim, order,
                       spacing);
    p2m_layout *L = &g->L;
    L->dim = dim;
    L->order = order;
    L->spacing = spacing;
    int margin = order / 2 + 1;
    double nodes = 1;
    for (int a = 0; a < 3; ++a) {
        if (a >= dim) {
            L->n[a] = 1;
            L->origin[a] = 0.0;
            continue;
        }
        double cells = ceil((dmax[a] - dmin[a]) / spacing - 1e-9);
        if (!(cells >= 0 && cells < 1e8))
            return sl_fail(err, SL_ERR_INPUT,
                           "grid: %.3g nodes along an axis at spacing %g m (accepted: a spacing that gives fewer than "
                           "1e8 nodes per axis)",
                           cells, spacing);
        L->n[a] = (int)cells + 1 + 2 * margin;
        L->origin[a] = dmin[a] - margin * spacing;
        nodes *= L->n[a];
    }
    if (nodes > (double)max_nodes)
        return sl_fail(err, SL_ERR_INPUT,
                       "grid: %.3g nodes at grid.spacing = %g m exceed the limit of %zu (accepted: a larger spacing)",
                       nodes, spacing, max_nodes);
    g->nnodes = (size_t)nodes;
    g->fields = fields;
    size_t n = g->nnodes;
    g->mass = calloc(n, sizeof(double));
    for (int a = 0; a < 3; ++a)
        g->mom[a] = calloc(n, sizeof(double));
    g->pmass = calloc(n, sizeof(double));
    g->density = calloc(n, sizeof(real));
    g->velocity = calloc(3 * n, sizeof(real));
    g->pressure = calloc(n, sizeof(real));
    g->bin_start = calloc(n + 1, sizeof(int32_t));
    if (!g->mass || !g->mom[0] || !g->mom[1] || !g->mom[2] || !g->pmass || !g->density || !g->velocity ||
        !g->pressure || !g->bin_start) {
        p2m_grid_free(g);
        return sl_fail(err, SL_ERR_RUNTIME, "grid: out of memory for %zu nodes", n);
    }
    return SL_OK;
}

void p2m_grid_free(p2m_grid *g)
{
    if (g->device && g->device_free)
        g->device_free(g->device);
    free(g->mass);
    for (int a = 0; a < 3; ++a)
        free(g->mom[a]);
    free(g->pmass);
    free(g->density);
    free(g->velocity);
    free(g->pressure);
    free(g->bin_start);
    free(g->pbin);
    free(g->order);
    memset(g, 0, sizeof *g);
}

double p2m_contributions_per_node(const p2m_grid *g, size_t nfluid)
{
    double per = pow(g->L.order, g->L.dim);
    return g->nnodes ? (double)nfluid * per / (double)g->nnodes : 0.0;
}

double p2m_mesh_threshold(int on_device)
{
    if (on_device)
        return P2M_MESH_THRESHOLD_GPU;
#ifdef _OPENMP
    /* With many threads the atomic adds contend: on 16 threads the gather won at every density
     * measured, down to 0.3 contributions per node (docs/performance.md). */
    if (omp_get_max_threads() > P2M_FEW_THREADS)
        return 0.0;
#endif
    return P2M_MESH_THRESHOLD;
}

int p2m_pick(const p2m_grid *g, int requested, size_t nfluid, int on_device)
{
    if (requested == GRID_METHOD_PARTICLE || requested == GRID_METHOD_MESH)
        return requested == GRID_METHOD_PARTICLE ? P2M_PARTICLE : P2M_MESH;
    return p2m_contributions_per_node(g, nfluid) >= p2m_mesh_threshold(on_device) ? P2M_MESH : P2M_PARTICLE;
}

static size_t node_index(const p2m_layout *L, long i, long j, long k)
{
    return (size_t)i + (size_t)L->n[0] * ((size_t)j + (size_t)L->n[1] * (size_t)k);
}

/* The stencil of particle i (first node i0, offsets t) when it is a fluid particle the grid
 * covers: returns 1 then, 0 for particles that are not spread. */
static int fluid_stencil(const p2m_layout *L, const particles *p, size_t i, long i0[3], double t[3])
{
    if (p->type[i] != PT_FLUID)
        return 0;
    real x[3] = {p->f[PF_X][i], p->f[PF_Y][i], L->dim == 3 ? p->f[PF_Z][i] : R(0.0)};
    return p2m_particle_stencil(L, x, i0, t) == 0;
}

/* Every fluid particle adds to its stencil's nodes; nodes shared between threads take atomic adds. */
static void spread_particles(p2m_grid *g, const particles *p, real mass, size_t *count)
{
    const p2m_layout *L = &g->L;
    int kz_end = L->dim == 3 ? L->order : 1;
    size_t spread = 0;
    double *gm = g->mass, *gx = g->mom[0], *gy = g->mom[1], *gz = g->mom[2], *gp = g->pmass;
#pragma omp parallel for schedule(static, 256) reduction(+ : spread)
    for (size_t i = 0; i < p->n; ++i) {
        long i0[3];
        double t[3];
        if (!fluid_stencil(L, p, i, i0, t))
            continue;
        ++spread;
        double m = (double)mass, vx = p->f[PF_VX][i], vy = p->f[PF_VY][i];
        double vz = L->dim == 3 ? p->f[PF_VZ][i] : 0.0, pr = p->f[PF_P][i];
        int k[3];
        for (k[2] = 0; k[2] < kz_end; ++k[2])
            for (k[1] = 0; k[1] < L->order; ++k[1])
                for (k[0] = 0; k[0] < L->order; ++k[0]) {
                    double mw = m * p2m_node_weight(L, t, k);
                    size_t c = node_index(L, i0[0] + k[0], i0[1] + k[1], i0[2] + k[2]);
#pragma omp atomic
                    gm[c] += mw;
#pragma omp atomic
                    gx[c] += mw * vx;
#pragma omp atomic
                    gy[c] += mw * vy;
#pragma omp atomic
                    gz[c] += mw * vz;
#pragma omp atomic
                    gp[c] += mw * pr;
                }
    }
    *count = spread;
}

/* Counting sort of the fluid particles by their first stencil node: bin_start is the CSR row
 * pointer (exclusive prefix sum of the counts), order the particles bin by bin (stable). */
static int bin_particles(p2m_grid *g, const particles *p, sorted *s, size_t *count, sl_err *err)
{
    const p2m_layout *L = &g->L;
    if (p->n > (size_t)INT32_MAX - 1)
        return sl_fail(err, SL_ERR_RUNTIME, "grid: %zu particles do not fit 32-bit indices", p->n);
    if (g->cap < p->n) {
        free(g->pbin);
        free(g->order);
        g->pbin = malloc(p->n * sizeof *g->pbin);
        g->order = malloc(p->n * sizeof *g->order);
        g->cap = p->n;
        if (!g->pbin || !g->order) {
            g->cap = 0;
            return sl_fail(err, SL_ERR_RUNTIME, "grid: out of memory for %zu particles", p->n);
        }
    }
    int32_t *start = g->bin_start;
    memset(start, 0, (g->nnodes + 1) * sizeof *start);
    size_t nb = 0;
    for (size_t i = 0; i < p->n; ++i) {
        g->pbin[i] = -1;
        long i0[3];
        double t[3];
        if (!fluid_stencil(L, p, i, i0, t))
            continue;
        size_t b = node_index(L, i0[0], i0[1], i0[2]);
        g->pbin[i] = (int32_t)b;
        start[b + 1]++;
        ++nb;
    }
    for (size_t b = 0; b < g->nnodes; ++b)
        start[b + 1] += start[b];
    /* scatter, using bin_start[b] as the fill pointer, then shift back */
    for (size_t i = 0; i < p->n; ++i)
        if (g->pbin[i] >= 0)
            g->order[start[g->pbin[i]]++] = (int32_t)i;
    memmove(start + 1, start, g->nnodes * sizeof *start);
    start[0] = 0;

    size_t m = nb ? nb : 1;
    for (int a = 0; a < 3; ++a) {
        s->t[a] = malloc(m * sizeof(double));
        s->i0[a] = malloc(m * sizeof(int32_t));
        s->v[a] = malloc(m * sizeof(real));
    }
    s->p = malloc(m * sizeof(real));
    for (int a = 0; a < 3; ++a)
        if (!s->t[a] || !s->i0[a] || !s->v[a])
            return sl_fail(err, SL_ERR_RUNTIME, "grid: out of memory for %zu particles", nb);
    if (!s->p)
        return sl_fail(err, SL_ERR_RUNTIME, "grid: out of memory for %zu particles", nb);
#pragma omp parallel for schedule(static, 1024)
    for (size_t q = 0; q < nb; ++q) {
        int32_t i = g->order[q];
        real x[3] = {p->f[PF_X][i], p->f[PF_Y][i], L->dim == 3 ? p->f[PF_Z][i] : R(0.0)};
        long i0[3] = {0, 0, 0};
        double t[3] = {0, 0, 0};
        p2m_particle_stencil(L, x, i0, t); /* succeeded when binned */
        for (int a = 0; a < 3; ++a) {
            s->t[a][q] = t[a];
            s->i0[a][q] = (int32_t)i0[a];
        }
        s->v[0][q] = p->f[PF_VX][i];
        s->v[1][q] = p->f[PF_VY][i];
        s->v[2][q] = L->dim == 3 ? p->f[PF_VZ][i] : R(0.0);
        s->p[q] = p->f[PF_P][i];
    }
    *count = nb;
    return SL_OK;
}

/* Every node gathers from the bins whose stencils cover it: bins i - order + 1 .. i along each axis;
 * along x they are consecutive, so each (dy, dz) is one contiguous run of particles. */
static void gather_nodes(p2m_grid *g, const sorted *s, real mass)
{
    const p2m_layout *L = &g->L;
    const int32_t *start = g->bin_start;
    long nx = L->n[0], ny = L->n[1], nz = L->n[2], p = L->order;
    long rows = ny * nz;
    int kz_end = L->dim == 3 ? L->order : 1;
#pragma omp parallel for schedule(dynamic, 4)
    for (long row = 0; row < rows; ++row) {
        long j = row % ny, kk = row / ny;
        for (long i = 0; i < nx; ++i) {
            double sm = 0, sx = 0, sy = 0, sz = 0, sp = 0;
            long ib = i - p + 1 < 0 ? 0 : i - p + 1;
            long ie = i < nx - p ? i : nx - p; /* bins exist up to n - order */
            for (int dz = 0; dz < kz_end && ib <= ie; ++dz) {
                long bk = kk - dz;
                if (bk < 0 || bk > nz - kz_end)
                    continue;
                for (int dy = 0; dy < p; ++dy) {
                    long bj = j - dy;
                    if (bj < 0 || bj > ny - p)
                        continue;
                    int32_t qb = start[node_index(L, ib, bj, bk)], qe = start[node_index(L, ie, bj, bk) + 1];
                    for (int32_t q = qb; q < qe; ++q) {
                        double t[3] = {s->t[0][q], s->t[1][q], s->t[2][q]};
                        int k[3] = {(int)(i - s->i0[0][q]), dy, dz};
                        double mw = (double)mass * p2m_node_weight(L, t, k);
                        sm += mw;
                        sx += mw * s->v[0][q];
                        sy += mw * s->v[1][q];
                        sz += mw * s->v[2][q];
                        sp += mw * s->p[q];
                    }
                }
            }
            size_t c = node_index(L, i, j, kk);
            g->mass[c] = sm;
            g->mom[0][c] = sx;
            g->mom[1][c] = sy;
            g->mom[2][c] = sz;
            g->pmass[c] = sp;
        }
    }
}

/* Sums to fields: density = mass / cell volume; velocity and pressure mass-weighted. */
static void finish(p2m_grid *g)
{
    double vol = pow(g->L.spacing, g->L.dim);
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < g->nnodes; ++c) {
        double mom[3] = {g->mom[0][c], g->mom[1][c], g->mom[2][c]};
        p2m_node_fields(g->mass[c], mom, g->pmass[c], vol, &g->density[c], &g->velocity[3 * c], &g->pressure[c]);
    }
}

int p2m_spread(p2m_grid *g, const particles *p, real mass, int method, sl_err *err)
{
    size_t count = 0;
    if (method == P2M_MESH) {
        sorted s;
        memset(&s, 0, sizeof s);
        int rc = bin_particles(g, p, &s, &count, err);
        if (rc == SL_OK)
            gather_nodes(g, &s, mass);
        for (int a = 0; a < 3; ++a) {
            free(s.t[a]);
            free(s.i0[a]);
            free(s.v[a]);
        }
        free(s.p);
        if (rc)
            return rc;
    } else {
        memset(g->mass, 0, g->nnodes * sizeof(double));
        memset(g->pmass, 0, g->nnodes * sizeof(double));
        for (int a = 0; a < 3; ++a)
            memset(g->mom[a], 0, g->nnodes * sizeof(double));
        spread_particles(g, p, mass, &count);
    }
    g->method_used = method;
    g->on_device = 0;
    g->spread = count;
    g->fluid_mass = (double)count * (double)mass;
    finish(g);
    return SL_OK;
}

int p2m_grid_for_sim(p2m_grid *g, const sim *s, sl_err *err)
{
    const scene_grid *sg = &s->sc->grid;
    double spacing = sg->spacing > 0 ? sg->spacing : 2.0 * s->sc->dp;
    int rc = p2m_grid_init(g, s->sc->dim, sg->order, spacing, s->domain_min, s->domain_max, sg->fields, P2M_MAX_NODES,
                           err);
    if (rc == SL_ERR_INPUT && err) { /* a scene error: name the file and the key, as every one does */
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        sl_fail(err, SL_ERR_INPUT, "%s: key 'grid.spacing': %s", s->sc->path, why);
    }
    return rc;
}

int p2m_grid_update(p2m_grid *g, const sim *s, sl_err *err)
{
    /* types never change, so the host's count holds even while the device has moved on */
    size_t nfluid = particles_count_type(&s->p, PT_FLUID);
    /* on several MPI ranks the root spreads the whole state it gathered, which is on the host */
    int on_device = s->be->p2m_spread != NULL && !s->domain;
    int method = p2m_pick(g, (int)s->sc->grid.method, nfluid, on_device);
    if (on_device)
        return s->be->p2m_spread(s, g, method, err);
    return p2m_spread(g, &s->p, s->P.mass, method, err);
}
