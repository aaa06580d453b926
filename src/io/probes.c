/* probes.c: a row of the scene's probes sampled at the current state, and its columns (the file they
 * go to is probes_file.c's): gathered (the particles, the time) and then computed, which on one GPU
 * may happen on another thread while the run goes on. Pressure sensors sample off their wall, at a
 * point or over their face (where: probe_points.c); gauges find the level where the interpolated
 * fluid fraction crosses 1/2 (definitions in docs/output.md). The per-particle math is in
 * physics/probe_sample.h. On several MPI ranks each rank samples its own
 * particles and only the sums and maxima travel to the root (see io_probes_sample); the state is
 * not gathered. */
#define _POSIX_C_SOURCE 200809L

#include "probes.h"

#include "parallel/domain.h"

#include "schemes/mps/mps.h"
#include "physics/probe_sample.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static int has_cg(const scene *sc)
{
    return strcmp(sc->method, "mps") == 0;
}

int io_probes_columns(const scene *sc)
{
    const scene_probes *pr = &sc->probes;
    return 2 + pr->npressure + pr->ngauges + (pr->front != FRONT_NONE) + 3 * (pr->energy != 0) + 2 * has_cg(sc);
}

/* Appends to buf at *at (bounded). */
static void put(char *buf, size_t len, size_t *at, const char *fmt, const char *a, const char *b)
{
    if (*at >= len)
        return;
    int w = snprintf(buf + *at, len - *at, fmt, a, b);
    if (w > 0)
        *at += (size_t)w;
}

int io_probes_header(const scene *sc, char *buf, size_t len)
{
    const scene_probes *pr = &sc->probes;
    /* 2D quantities of the whole fluid are per metre of depth */
    const char *kg = sc->dim == 2 ? "kg/m" : "kg", *joule = sc->dim == 2 ? "J/m" : "J";
    size_t at = 0;
    buf[0] = '\0';
    put(buf, len, &at, "time[s],step", "", "");
    for (int i = 0; i < pr->npressure; ++i)
        put(buf, len, &at, ",%s%s[Pa]", pr->pressure[i].name, "");
    for (int i = 0; i < pr->ngauges; ++i)
        put(buf, len, &at, ",%s%s[m]", pr->gauges[i].name, "");
    if (pr->front != FRONT_NONE)
        put(buf, len, &at, ",front%s%s[m]", "", "");
    if (pr->energy) {
        put(buf, len, &at, ",mass[%s]%s", kg, "");
        put(buf, len, &at, ",kinetic_energy[%s]%s", joule, "");
        put(buf, len, &at, ",potential_energy[%s]%s", joule, "");
    }
    if (has_cg(sc))
        put(buf, len, &at, ",cg_iterations%s%s,cg_residual", "", "");
    return io_probes_columns(sc);
}

/* ---- particles binned by cells as wide as the probe kernel's support ----------------------- */

/* Built once per row: every probe then reads the few cells around it. Not the simulation's grid:
 * after a restart its ranges do not match the restored particle order until the next step, and a
 * fresh stable binning keeps the sums in particle order, identical across restarts. */
typedef struct probe_bins {
    int dim;
    double origin[3], width;
    int64_t n[3], ncells;
    int32_t *start; /* ncells + 1: the particles of cell c are idx[start[c] .. start[c + 1]) */
    int32_t *idx;   /* particle indices, cell by cell, in particle order inside a cell */
} probe_bins;

static int64_t bin_axis(const probe_bins *b, int a, double x)
{
    double f = floor((x - b->origin[a]) / b->width);
    return f < 0 ? 0 : f >= (double)b->n[a] ? b->n[a] - 1 : (int64_t)f;
}

/* The cell of a particle, or -1 outside the box (or NaN). */
static int64_t bin_cell(const probe_bins *b, const double x[3])
{
    int64_t c = 0;
    for (int a = b->dim - 1; a >= 0; --a) { /* axes past the dimension have one cell */
        double f = (x[a] - b->origin[a]) / b->width;
        if (!(f >= 0 && f < (double)b->n[a]))
            return -1;
        c = c * b->n[a] + (int64_t)f;
    }
    return c;
}

static void bins_free(probe_bins *b)
{
    free(b->start);
    free(b->idx);
}

/* Fewer particles than this are binned on one thread (the device's picks: a few thousand). */
#define BINS_PARALLEL_MIN 32768

static int bins_build(probe_bins *b, const probe_view *v, const particles *p, double support)
{
    memset(b, 0, sizeof *b);
    b->dim = v->sc->dim;
    b->width = support;
    for (;;) { /* coarser cells rather than more cells than particles (a huge, nearly empty box) */
        b->ncells = 1;
        for (int a = 0; a < 3; ++a) {
            b->origin[a] = v->domain_min[a];
            double ext = v->domain_max[a] - v->domain_min[a];
            b->n[a] = a < v->sc->dim && ext > 0 ? (int64_t)ceil(ext / b->width) + 1 : 1;
            b->ncells *= b->n[a];
        }
        if (b->ncells <= (int64_t)(4 * p->n) + 4096)
            break;
        b->width *= 1.5;
    }
    b->start = calloc((size_t)b->ncells + 1, sizeof *b->start);
    b->idx = malloc((p->n ? p->n : 1) * sizeof *b->idx);
    int32_t *cell = malloc((p->n ? p->n : 1) * sizeof *cell);
    if (!b->start || !b->idx || !cell) {
        free(cell);
        bins_free(b);
        return -1;
    }
    /* Each particle's cell on every thread (the divisions are most of the cost over a whole state:
     * the CPU backend's rows bin every particle); the stable counting sort that follows is serial. */
    #pragma omp parallel for schedule(static) if (p->n >= BINS_PARALLEL_MIN)
    for (size_t i = 0; i < p->n; ++i) {
        double x[3] = {p->f[PF_X][i], p->f[PF_Y][i], v->sc->dim == 3 ? p->f[PF_Z][i] : 0.0};
        cell[i] = (int32_t)bin_cell(b, x);
    }
    for (size_t i = 0; i < p->n; ++i) /* stable counting sort by cell */
        if (cell[i] >= 0)
            b->start[cell[i] + 1]++;
    for (int64_t c = 0; c < b->ncells; ++c)
        b->start[c + 1] += b->start[c];
    int32_t *fill = calloc((size_t)b->ncells, sizeof *fill);
    if (!fill) {
        free(cell);
        bins_free(b);
        return -1;
    }
    for (size_t i = 0; i < p->n; ++i)
        if (cell[i] >= 0)
            b->idx[b->start[cell[i]] + fill[cell[i]]++] = (int32_t)i;
    free(fill);
    free(cell);
    return 0;
}

/* The cell ranges (inclusive) that cover [x - r, x + r] on each axis; the whole axis where it is
 * periodic (images across the seam count; probes are few, so the longer walk costs little). */
static void bins_range(const probe_bins *b, const double x[3], double r, int dim, unsigned periodic, int64_t lo[3],
                       int64_t hi[3])
{
    for (int a = 0; a < 3; ++a) {
        int whole = (periodic >> a) & 1u;
        lo[a] = a < dim && !whole ? bin_axis(b, a, x[a] - r) : 0;
        hi[a] = a < dim ? whole ? b->n[a] - 1 : bin_axis(b, a, x[a] + r) : 0;
    }
}

/* Runs the statements (a block) with `e` the index of each particle binned in [lo, hi] (every
 * axis); `continue` goes on to the next particle. */
#define BINS_FOR_EACH(b, lo, hi, e, ...)                                                            \
    for (int64_t bk_ = (lo)[2]; bk_ <= (hi)[2]; ++bk_)                                              \
        for (int64_t bj_ = (lo)[1]; bj_ <= (hi)[1]; ++bj_)                                          \
            for (int64_t bi_ = (lo)[0]; bi_ <= (hi)[0]; ++bi_) {                                    \
                int64_t bc_ = bi_ + (b)->n[0] * (bj_ + (b)->n[1] * bk_);                            \
                for (int32_t bm_ = (b)->start[bc_]; bm_ < (b)->start[bc_ + 1]; ++bm_) {             \
                    int32_t e = (b)->idx[bm_];                                                      \
                    __VA_ARGS__                                                                     \
                }                                                                                   \
            }

/* ---- pressure sensors ----------------------------------------------------------------------- */

/* Shepard sums of the fluid particles around q: sw = sum W V, swp = sum W V p. */
static void sensor_sums(const probe_view *v, const particles *p, const probe_bins *b, const double q[3], double *sw,
                        double *swp)
{
    const scene *sc = v->sc;
    int dim = sc->dim;
    double h = sc->h_factor * sc->dp;
    real norm = (real)sph_kernel_norm(sc->kernel, dim, h), inv_h = (real)(1.0 / h), r2 = (real)(4.0 * h * h);
    int64_t lo[3], hi[3];
    bins_range(b, q, 2.0 * h, dim, v->periodic.axes, lo, hi);
    *sw = *swp = 0.0;
    BINS_FOR_EACH(b, lo, hi, e, {
        if (p->type[e] != PT_FLUID)
            continue;
        real d[3] = {(real)(q[0] - p->f[PF_X][e]), (real)(q[1] - p->f[PF_Y][e]),
                     dim == 3 ? (real)(q[2] - p->f[PF_Z][e]) : R(0.0)};
        periodic_fold(&v->periodic, &d[0], &d[1], &d[2]);
        probe_pressure_add(sc->kernel, norm, inv_h, r2, d[0], d[1], d[2], v->mass, p->f[PF_RHO][e], p->f[PF_P][e],
                           sw, swp);
    });
}

/* A sensor's reading from the Shepard sums (sw, swp) at its m points of weights w: the weighted mean
 * over its face of the pressure where the water touches it and 0, the air's gauge pressure, where it
 * does not, as a membrane averages what presses on it; NaN (dry) when no point is wet. One point:
 * its value. */
static double face_pressure(const double *sums, const double *w, int m)
{
    double total = 0.0, weights = 0.0;
    int wet = 0;
    for (int e = 0; e < m; ++e) {
        double v = probe_pressure_value(sums[2 * e], sums[2 * e + 1]);
        weights += w[e];
        if (!isnan(v)) {
            total += w[e] * v;
            wet = 1;
        }
    }
    return wet ? total / weights : (double)NAN;
}

/* ---- level gauges ----------------------------------------------------------------------------- */

/* The level on the vertical through a gauge (see docs/output.md): the fluid fraction
 * phi = sum_fluid W V / max(1 - sum_solid W V, 1/4) is scanned upward in steps of dp/4 from below
 * the lowest fluid particle near the vertical; the level is where phi, having reached 1/2 (the
 * water's bottom), falls below 1/2 again, interpolated linearly between the two steps around it.
 * Upward, so that a sheet thrown up from an impact and detached from the water below does not
 * count (scanning down from the top read 0.96 m over 0.15 m of water in SPHERIC Test 2). The solid
 * sum discounts the part of the kernel a wall takes (1/2 on a wall, so a gauge beside a wall reads
 * the water beside it; the floor 1/4 keeps a corner finite). A lone particle gives phi <= W(0)
 * dp^dim = 0.14 (2D) or 0.05 (3D): droplets and spray never reach 1/2. NaN when dry.
 *
 * The sums at the scan's heights are sums over particles, so on several ranks each rank sums its own
 * on heights every rank agrees on (from the fluid's extent near the vertical, a maximum over the
 * ranks) and the root adds them up and scans: three passes, gauge_extent, gauge_sums, gauge_scan, over
 * the column's particles gathered once (gauge_collect). */

/* What a particle adds to a gauge: its height, squared horizontal distance from the vertical,
 * volume, and how far along the vertical its kernel reaches (reach: either way from z); k0..k1 the
 * scan's heights that reach covers (gauge_spans; k1 < k0: none). */
typedef struct column_particle {
    double z, r2, vol, reach;
    int64_t k0, k1;
    int fluid;
} column_particle;

/* Whether particle e is within the kernel's support of the vertical through `at` (a fluid particle
 * also needs a density to have a volume); its part in *cp. */
static int column_member(const probe_view *v, const particles *p, int32_t e, const double at[2], double support,
                         column_particle *cp)
{
    int dim = v->sc->dim, up = dim - 1;
    real d[3] = {(real)(at[0] - p->f[PF_X][e]), dim == 3 ? (real)(at[1] - p->f[PF_Y][e]) : R(0.0), R(0.0)};
    periodic_fold(&v->periodic, &d[0], &d[1], &d[2]); /* horizontal axes only: z stays 0 */
    double dx = d[0], dy = d[1];
    double r2 = dx * dx + dy * dy, rho = p->f[PF_RHO][e];
    int fluid = p->type[e] == PT_FLUID;
    if (!(r2 < support * support) || (fluid && !(rho > 0)))
        return 0;
    double solid_vol = dim == 3 ? v->sc->dp * v->sc->dp * v->sc->dp : v->sc->dp * v->sc->dp;
    *cp = (column_particle){p->f[up == 2 ? PF_Z : PF_Y][e], r2, fluid ? (double)v->mass / rho : solid_vol,
                            sqrt(support * support - r2), 1, 0, fluid};
    return 1;
}

/* The bins of the column: those within the support of the vertical, every height. */
static void column_range(const probe_view *v, const probe_bins *b, const double at[2], double support, int64_t lo[3],
                         int64_t hi[3])
{
    int dim = v->sc->dim, up = dim - 1;
    double xq[3] = {at[0], dim == 3 ? at[1] : 0.0, 0.0};
    bins_range(b, xq, support, dim, v->periodic.axes, lo, hi);
    lo[up] = 0;
    hi[up] = b->n[up] - 1;
}

/* A gauge's column on this rank: its particles in the order the bins list them, which is the order
 * of every sum over them. Gathered once per row: the extent and the sums read the list. */
typedef struct gauge_column {
    column_particle *cp;
    size_t n;
} gauge_column;

/* Gathers the column of the vertical through `at`; -1: out of memory. */
static int gauge_collect(const probe_view *v, const particles *p, const probe_bins *b, const double at[2],
                         gauge_column *col)
{
    double h = v->sc->h_factor * v->sc->dp, support = 2.0 * h;
    int64_t lo[3], hi[3];
    column_range(v, b, at, support, lo, hi);
    size_t room = 0; /* the binned particles there: at least the column's */
    BINS_FOR_EACH(b, lo, hi, e, { (void)e; ++room; });
    column_particle *cp = malloc((room ? room : 1) * sizeof *cp);
    size_t n = 0; /* counted here, not in *col: the other gauges' columns, beside it, are other threads' */
    if (!cp)
        return -1;
    BINS_FOR_EACH(b, lo, hi, e, { n += column_member(v, p, e, at, support, &cp[n]); });
    *col = (gauge_column){cp, n};
    return 0;
}

/* The highest and the lowest fluid particle of this rank's column (-inf and +inf: none). */
static void gauge_extent(const gauge_column *col, double *ztop, double *zlow)
{
    *ztop = -INFINITY;
    *zlow = INFINITY;
    for (size_t i = 0; i < col->n; ++i)
        if (col->cp[i].fluid) {
            *ztop = fmax(*ztop, col->cp[i].z);
            *zlow = fmin(*zlow, col->cp[i].z);
        }
}

/* The scan's heights, zstart - k ds for k < nh (nh = 0: dry), from the fluid's extent near the
 * vertical over every rank: from a support above the highest fluid particle to a support below the
 * lowest, as far as any kernel reaches. */
typedef struct gauge_heights {
    double zstart, ds;
    size_t nh;
} gauge_heights;

static gauge_heights gauge_heights_of(const scene *sc, double ztop, double zlow)
{
    double h = sc->h_factor * sc->dp, support = 2.0 * h, ds = 0.25 * sc->dp, zstart = ztop + support;
    gauge_heights gh = {zstart, ds, 0};
    if (ztop >= zlow)
        gh.nh = (size_t)ceil((zstart - (zlow - support)) / ds) + 1;
    return gh;
}

/* Each column particle's heights: those of the scan within its reach. */
static void gauge_spans(const gauge_heights *gh, gauge_column *col)
{
    for (size_t i = 0; i < col->n; ++i) {
        column_particle *cp = &col->cp[i];
        double k0 = fmax(ceil((gh->zstart - cp->z - cp->reach) / gh->ds), 0.0);
        double k1 = fmin(floor((gh->zstart - cp->z + cp->reach) / gh->ds), (double)gh->nh - 1.0);
        cp->k0 = k0 <= k1 ? (int64_t)k0 : 1; /* both within [0, nh) when k0 <= k1 */
        cp->k1 = k0 <= k1 ? (int64_t)k1 : 0;
    }
}

/* The scan's heights are summed a block at a time, each block by one thread: enough blocks to share
 * a column among threads, each long enough that walking the column's list costs little beside it. */
#define GAUGE_BLOCK 16

/* This rank's kernel sums at heights k0 <= k < k1 <= k0 + GAUGE_BLOCK: fluid into sf[k], solid into
 * ss[k] (added to what is there). Each height adds its particles in the column's order whatever the
 * blocks, so the sums do not depend on the thread count. They add up in the task's own array and are
 * stored once: the blocks beside it, on other threads, may share the cache lines at its ends. */
static void gauge_sums(const probe_view *v, const gauge_column *col, const gauge_heights *gh, int64_t k0, int64_t k1,
                       double *sf, double *ss)
{
    const scene *sc = v->sc;
    double h = sc->h_factor * sc->dp, zstart = gh->zstart, ds = gh->ds;
    real norm = (real)sph_kernel_norm(sc->kernel, sc->dim, h), inv_h = (real)(1.0 / h);
    double acc[2][GAUGE_BLOCK]; /* [solid, fluid][k - k0] */
    for (int64_t k = k0; k < k1; ++k) {
        acc[0][k - k0] = ss[k];
        acc[1][k - k0] = sf[k];
    }
    for (size_t i = 0; i < col->n; ++i) { /* each particle adds to the heights its kernel reaches */
        const column_particle cp = col->cp[i];
        double *to = acc[cp.fluid != 0];
        int64_t first = cp.k0 > k0 ? cp.k0 : k0, last = cp.k1 < k1 - 1 ? cp.k1 : k1 - 1;
        for (int64_t k = first; k <= last; ++k) {
            double dz = zstart - (double)k * ds - cp.z;
            double w = (double)sph_w(sc->kernel, norm, (real)sqrt(cp.r2 + dz * dz), inv_h) * cp.vol;
            to[k - k0] += w;
        }
    }
    for (int64_t k = k0; k < k1; ++k) {
        ss[k] = acc[0][k - k0];
        sf[k] = acc[1][k - k0];
    }
}

/* The level from the sums of every rank (NaN: dry, or the water never thins out below 1/2). */
static double gauge_scan(const gauge_heights *gh, const double *sf, const double *ss)
{
    int in_water = 0;
    double below = 0.0, ds = gh->ds; /* phi one step down */
    for (size_t k = gh->nh; k-- > 0;) { /* k = nh - 1 is the bottom */
        double phi = sf[k] / fmax(1.0 - ss[k], 0.25);
        if (!in_water)
            in_water = phi >= 0.5;
        else if (phi < 0.5)
            return gh->zstart - (double)(k + 1) * ds + ds * (below - 0.5) / (below - phi);
        below = phi;
    }
    return NAN;
}

/* ---- a row ------------------------------------------------------------------------------------ */

/* The whole fluid on this rank: one serial pass in particle order, so the sums are the same for any
 * thread count and across a restart. front: the largest sign * x + dp/2 along the front's axis
 * (-inf: no fluid). */
static void fluid_totals(const sim *s, const probe_regions *q, probe_totals *tot)
{
    const particles *p = &s->p;
    int dim = s->sc->dim;
    tot->front = -INFINITY;
    tot->ke = tot->pe = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < p->n; ++i) {
        if (p->type[i] != PT_FLUID)
            continue;
        ++n;
        real x = p->f[PF_X][i], y = p->f[PF_Y][i], z = dim == 3 ? p->f[PF_Z][i] : R(0.0);
        real xv[3] = {x, y, z};
        if (q->front_sign)
            probe_front_add(xv[q->front_axis], q->front_sign, q->dp, &tot->front);
        if (q->energy)
            probe_energy_add(q->mass, p->f[PF_VX][i], p->f[PF_VY][i], dim == 3 ? p->f[PF_VZ][i] : R(0.0), x, y, z,
                             q->g, &tot->ke, &tot->pe);
    }
    tot->nfluid = (double)n; /* exact below 2^53 particles, as a sum across ranks */
}

/* What a row reads: the fluid's totals (the front's axis and direction, the energies), and, for a
 * backend that picks the particles itself, what the probes reach: a ball of radius 2h around each
 * sensor's sampled point, a column of radius 2h around each gauge's vertical, a thousandth wider (the
 * host's sums decide with their own arithmetic; a particle picked in excess adds nothing). */
static void probe_reach(const sim *s, probe_regions *q)
{
    const scene *sc = s->sc;
    const scene_probes *pr = &sc->probes;
    memset(q, 0, sizeof *q);
    q->dim = sc->dim;
    q->periodic = s->P.periodic;
    double r = 2.0 * sc->h_factor * sc->dp * 1.001;
    for (int k = 0; k < pr->npressure; ++k) {
        /* a ball around the sensor's points: their mean, out to the farthest one plus the kernel */
        double pts[PROBE_FACE_POINTS_MAX][3], at[3] = {0, 0, 0}, far2 = 0.0;
        int m = io_probe_face_points(sc, &pr->pressure[k], pts, NULL);
        for (int e = 0; e < m; ++e)
            for (int a = 0; a < 3; ++a)
                at[a] += pts[e][a] / m;
        for (int e = 0; e < m; ++e) {
            double d2 = 0.0;
            for (int a = 0; a < 3; ++a)
                d2 += (pts[e][a] - at[a]) * (pts[e][a] - at[a]);
            far2 = fmax(far2, d2);
        }
        double rk = r + sqrt(far2) * 1.001;
        q->region[q->count++] = (probe_region){{(real)at[0], (real)at[1], (real)at[2]}, (real)(rk * rk), 0};
    }
    for (int g = 0; g < pr->ngauges; ++g) {
        const double *at = pr->gauges[g].at; /* the horizontal coordinates */
        real x = (real)at[0], y = sc->dim == 3 ? (real)at[1] : R(0.0);
        q->region[q->count++] = (probe_region){{x, y, R(0.0)}, (real)(r * r), 1};
    }
    if (pr->front != FRONT_NONE) {
        q->front_axis = (pr->front - 1) / 2;
        q->front_sign = (pr->front - 1) % 2 ? -1 : 1;
    }
    q->energy = pr->energy;
    q->dp = s->P.dp;
    q->mass = s->P.mass;
    for (int a = 0; a < 3; ++a)
        q->g[a] = s->P.g[a];
}

/* The particles a row reads and the fluid's totals: picked by the backend where it keeps the
 * particles (backend.probe_particles), else the host arrays, brought up to date. */
static int row_particles(sim *s, io_probe_row *row, sl_err *err)
{
    int done = 0;
    if (s->be && s->be->probe_particles)
        SL_TRY(s->be->probe_particles(s, &row->q, &row->picked, &row->tot, &done, err));
    row->from_backend = done;
    if (done)
        return SL_OK;
    sim_sync_host(s); /* this rank's particles (a backend without the hook, or nothing on its device yet) */
    row->p = &s->p;
    fluid_totals(s, &row->q, &row->tot);
    return SL_OK;
}

int io_probes_gather(sim *s, io_probe_row *row, sl_err *err)
{
    memset(row, 0, sizeof *row);
    SL_TRY(domain_settle(s, err)); /* this rank's own particles only */
    probe_view *v = &row->view;
    v->sc = s->sc;
    v->mass = s->P.mass;
    v->periodic = s->P.periodic;
    memcpy(v->domain_min, s->domain_min, sizeof v->domain_min);
    memcpy(v->domain_max, s->domain_max, sizeof v->domain_max);
    v->t = s->t;
    v->step = s->step;
    row->cg[0] = row->cg[1] = NAN;
    mps_stats st;
    if (has_cg(s->sc) && mps_get_stats(s, &st) == 0) { /* the solve's own numbers, the same on every rank */
        row->cg[0] = st.cg_last_iterations;
        row->cg[1] = st.cg_last_residual;
    }
    probe_reach(s, &row->q);
    return row_particles(s, row, err);
}

int io_probes_sample(sim *s, double *values, sl_err *err)
{
    io_probe_row row;
    SL_TRY(io_probes_gather(s, &row, err));
    return io_probes_compute(s, &row, values, err);
}

/* A row is sampled in three collective phases that every rank runs on its own particles (after a
 * step only the owned ones: domain_drop_halo removed the ghosts), with one reduction after each of
 * the first two; on one rank the reductions do nothing and this is the whole computation:
 *   1. local maxima: the front, each gauge's fluid extent (top, and bottom negated); domain_max;
 *   2. local sums: each sensor's Shepard sums, the fluid count and energies, each gauge's kernel sums
 *      at the heights the extents give; domain_sum_to_root;
 *   3. on the root: the sensors' quotients and dry rule, the gauges' scans, the columns. */
int io_probes_compute(sim *s, const io_probe_row *row, double *values, sl_err *err)
{
    const probe_view *v = &row->view;
    const scene *sc = v->sc;
    const scene_probes *pr = &sc->probes;
    int ng = pr->ngauges, np = pr->npressure;
    const particles *p = row->from_backend ? &row->picked : row->p;
    probe_totals tot = row->tot;
    /* Pressure sensors and gauges read the particles near them through bins built for this row. */
    probe_bins b;
    int binned = np || ng;
    if (binned && bins_build(&b, v, p, 2.0 * sc->h_factor * sc->dp))
        return sl_fail(err, SL_ERR_RUNTIME, "probes: out of memory binning %zu particles", p->n);
    /* Each gauge's column, gathered from the bins once for both phases (a gauge a thread). */
    gauge_column col[SCENE_PROBES_MAX] = {{0}};
    int short_of_memory = 0;
    #pragma omp parallel for schedule(dynamic, 1) reduction(| : short_of_memory) if (ng > 1)
    for (int g = 0; g < ng; ++g)
        short_of_memory |= gauge_collect(v, p, &b, pr->gauges[g].at, &col[g]) != 0;
    if (short_of_memory) {
        for (int g = 0; g < ng; ++g)
            free(col[g].cp);
        bins_free(&b);
        return sl_fail(err, SL_ERR_RUNTIME, "probes: out of memory gathering the gauges' columns");
    }

    /* 1: maxima. most = [front, ztop_0, -zlow_0, ztop_1, -zlow_1, ...] */
    double most[1 + 2 * SCENE_PROBES_MAX];
    most[0] = tot.front;
    for (int g = 0; g < ng; ++g) {
        double zlow;
        gauge_extent(&col[g], &most[1 + 2 * g], &zlow);
        most[2 + 2 * g] = -zlow;
    }
    int rc = domain_max(s, most, 1 + 2 * ng, err);

    /* 2: sums. sum = [sw, swp at each point of each sensor, nfluid, ke, pe, sf then ss of each gauge];
     * sensor k's points are face[k] .. face[k + 1] of `point` */
    int face[SCENE_PROBES_MAX + 1];
    face[0] = 0;
    for (int k = 0; k < np; ++k)
        face[k + 1] = face[k] + io_probe_face_points(sc, &pr->pressure[k], NULL, NULL);
    double (*point)[3] = face[np] ? malloc((size_t)face[np] * sizeof *point) : NULL;
    double *weight = face[np] ? malloc((size_t)face[np] * sizeof *weight) : NULL;
    if (face[np] && (!point || !weight))
        rc = rc ? rc : sl_fail(err, SL_ERR_RUNTIME, "probes: out of memory for %d sensor points", face[np]);
    for (int k = 0; k < np && point && weight; ++k)
        io_probe_face_points(sc, &pr->pressure[k], point + face[k], weight + face[k]);
    gauge_heights gh[SCENE_PROBES_MAX];
    size_t count = 2 * (size_t)face[np] + 3, at[SCENE_PROBES_MAX]; /* at[g]: where gauge g's sf starts */
    for (int g = 0; g < ng; ++g) {
        gh[g] = gauge_heights_of(sc, most[1 + 2 * g], -most[2 + 2 * g]);
        at[g] = count;
        count += 2 * gh[g].nh;
    }
    double *sum = rc ? NULL : calloc(count, sizeof *sum);
    if (!rc && !sum)
        rc = sl_fail(err, SL_ERR_RUNTIME, "probes: out of memory for %zu sums", count);
    if (!rc) {
        double *totals = sum + 2 * face[np];
        totals[0] = tot.nfluid;
        totals[1] = tot.ke;
        totals[2] = tot.pe;
        /* The work, shared among the threads as tasks: each sensor's sums, then each gauge's heights
         * GAUGE_BLOCK at a time (task t of gauge g: its block t - first[g]). Every sum belongs to one
         * task and adds its terms in the order of one thread's sums. */
        int64_t first[SCENE_PROBES_MAX + 1];
        first[0] = np;
        for (int g = 0; g < ng; ++g)
            first[g + 1] = first[g] + (int64_t)((gh[g].nh + GAUGE_BLOCK - 1) / GAUGE_BLOCK);
        int64_t ntasks = first[ng];
        #pragma omp parallel if (ntasks > 1)
        {
            #pragma omp for schedule(dynamic, 1)
            for (int g = 0; g < ng; ++g)
                gauge_spans(&gh[g], &col[g]);
            #pragma omp for schedule(dynamic, 1)
            for (int64_t t = 0; t < ntasks; ++t) {
                if (t < np) {
                    for (int e = face[t]; e < face[t + 1]; ++e)
                        sensor_sums(v, p, &b, point[e], &sum[2 * e], &sum[2 * e + 1]);
                    continue;
                }
                int g = 0;
                while (t >= first[g + 1])
                    ++g;
                int64_t k0 = (t - first[g]) * GAUGE_BLOCK, k1 = k0 + GAUGE_BLOCK;
                if (k1 > (int64_t)gh[g].nh)
                    k1 = (int64_t)gh[g].nh;
                gauge_sums(v, &col[g], &gh[g], k0, k1, sum + at[g], sum + at[g] + gh[g].nh);
            }
        }
        /* every rank counts the same, from the same maxima; MPI's counts are ints */
        rc = count > INT32_MAX ? sl_fail(err, SL_ERR_RUNTIME, "probes: %zu sums over the ranks, at most %d", count,
                                         INT32_MAX)
                               : domain_sum_to_root(s, sum, (int)count, err);
    }
    for (int g = 0; g < ng; ++g)
        free(col[g].cp);
    free(point);
    if (binned)
        bins_free(&b);
    if (rc || !domain_is_root(s)) {
        free(sum);
        free(weight);
        return rc;
    }

    /* 3: the row on the root */
    int c = 0;
    values[c++] = v->t;
    values[c++] = (double)v->step;
    for (int k = 0; k < np; ++k)
        values[c++] = face_pressure(sum + 2 * face[k], weight + face[k], face[k + 1] - face[k]); /* NaN: dry */
    const double *totals = sum + 2 * face[np], *column = totals + 3;
    for (int g = 0; g < ng; ++g) {
        values[c++] = gauge_scan(&gh[g], column, column + gh[g].nh);
        column += 2 * gh[g].nh;
    }
    if (row->q.front_sign) /* a front column (probe_reach) */
        values[c++] = isfinite(most[0]) ? row->q.front_sign * most[0] : NAN;
    if (pr->energy) {
        values[c++] = totals[0] * (double)v->mass;
        values[c++] = totals[1];
        values[c++] = totals[2];
    }
    free(sum);
    free(weight);
    if (has_cg(sc)) {
        values[c++] = row->cg[0];
        values[c++] = row->cg[1];
    }
    return SL_OK;
}
