/* mesh_sample.c: lattice points inside a closed triangle mesh (ray parity along rows) and in a band
 * along its surface (distance to the nearest triangle), one z plane of the lattice at a time. */
#include "mesh_sample.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A plane of the lattice larger than this is refused (its distances alone take 8 bytes a point). */
#define PLANE_POINTS_MAX ((int64_t)1 << 28)

void mesh_bounds(const stl_mesh *m, double lo[3], double hi[3])
{
    for (int d = 0; d < 3; ++d) {
        lo[d] = INFINITY;
        hi[d] = -INFINITY;
    }
    for (size_t i = 0; i < 3 * m->ntri; ++i)
        for (int d = 0; d < 3; ++d) {
            lo[d] = fmin(lo[d], m->xyz[3 * i + (size_t)d]);
            hi[d] = fmax(hi[d], m->xyz[3 * i + (size_t)d]);
        }
}

/* ---- the row crossings ------------------------------------------------------------------------ */

/* Vertex order by (y, z, x): each edge's function is computed from its ends in this order and
 * negated for the other, so the two triangles sharing an edge see exactly opposite values. */
static int before(const double *p, const double *q)
{
    if (p[1] != q[1])
        return p[1] < q[1];
    if (p[2] != q[2])
        return p[2] < q[2];
    return p[0] < q[0];
}

/* The side of the perturbed row point (y0 + e, z0 + e^2) from the edge p -> q, in the (y, z)
 * projection: +1, -1, or 0 only when p and q project onto one point. *raw: the unperturbed value. */
static int edge_side(const double *p, const double *q, double y0, double z0, double *raw)
{
    int flip = before(q, p);
    if (flip) {
        const double *t = p;
        p = q;
        q = t;
    }
    double py = p[1] - y0, pz = p[2] - z0, qy = q[1] - y0, qz = q[2] - z0;
    double e = py * qz - pz * qy;
    int s = e > 0 ? 1 : e < 0 ? -1 : 0;
    if (s == 0) { /* the derivative of the edge function along the perturbation decides */
        double dz = q[2] - p[2], dy = q[1] - p[1];
        s = dz != 0 ? (dz < 0 ? 1 : -1) : dy > 0 ? 1 : dy < 0 ? -1 : 0;
    }
    *raw = flip ? -e : e;
    return flip ? -s : s;
}

/* Where the row (y0, z0) crosses triangle t: 1 and its x, or 0. */
static int row_crossing(const double *v, double y0, double z0, double *x)
{
    const double *a = v, *b = v + 3, *c = v + 6;
    double wa, wb, wc;
    int sa = edge_side(b, c, y0, z0, &wa), sb = edge_side(c, a, y0, z0, &wb), sc = edge_side(a, b, y0, z0, &wc);
    if (sa == 0 || sa != sb || sb != sc)
        return 0;
    double sum = wa + wb + wc;
    if (sum == 0)
        return 0;
    *x = (wa * a[0] + wb * b[0] + wc * c[0]) / sum;
    return 1;
}

typedef struct crossing {
    int64_t row;
    double x;
} crossing;

static int cmp_crossing(const void *pa, const void *pb)
{
    const crossing *a = pa, *b = pb;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    return a->x < b->x ? -1 : a->x > b->x;
}

/* ---- distance to a triangle ------------------------------------------------------------------ */

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Squared distance from p to triangle abc (Ericson, Real-Time Collision Detection, 5.1.5). */
static double dist2_triangle(const double *p, const double *a, const double *b, const double *c)
{
    double ab[3], ac[3], ap[3], q[3];
    for (int d = 0; d < 3; ++d) {
        ab[d] = b[d] - a[d];
        ac[d] = c[d] - a[d];
        ap[d] = p[d] - a[d];
    }
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0 && d2 <= 0)
        return dot3(ap, ap);
    double bp[3] = {p[0] - b[0], p[1] - b[1], p[2] - b[2]};
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0 && d4 <= d3)
        return dot3(bp, bp);
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double t = d1 / (d1 - d3);
        for (int d = 0; d < 3; ++d)
            q[d] = a[d] + t * ab[d];
        goto done;
    }
    double cp[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0 && d5 <= d6)
        return dot3(cp, cp);
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double t = d2 / (d2 - d6);
        for (int d = 0; d < 3; ++d)
            q[d] = a[d] + t * ac[d];
        goto done;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int d = 0; d < 3; ++d)
            q[d] = b[d] + t * (c[d] - b[d]);
        goto done;
    }
    {
        double den = 1.0 / (va + vb + vc), v = vb * den, w = vc * den;
        for (int d = 0; d < 3; ++d)
            q[d] = a[d] + ab[d] * v + ac[d] * w;
    }
done:
    for (int d = 0; d < 3; ++d)
        q[d] -= p[d];
    return dot3(q, q);
}

/* ---- the sweep ------------------------------------------------------------------------------- */

typedef struct tri_box {
    double lo[3], hi[3];
} tri_box;

static const double *sort_zlo; /* qsort has no context argument in C11 */

static int cmp_zlo(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    double za = sort_zlo[a], zb = sort_zlo[b];
    if (za != zb)
        return za < zb ? -1 : 1;
    return a < b ? -1 : a > b;
}

int mesh_sample(const stl_mesh *m, double dp, enum sample_mode mode, int layers, lattice_visit fn, void *ctx,
                const char *name, sl_err *err)
{
    double lo[3], hi[3];
    mesh_bounds(m, lo, hi);
    double band = mode == SAMPLE_FILL ? 0.0 : layers * dp;
    double grow = mode == SAMPLE_BAND_OUT ? band : 0.0; /* the lattice box beyond the mesh's */
    double reach = fmax(band, dp);                      /* how far a triangle matters to a plane */
    int64_t first[3], last[3];
    for (int d = 0; d < 3; ++d) {
        if (!lattice_fits(lo[d] - grow, hi[d] + grow, dp))
            return sl_fail(err, SL_ERR_INPUT, "%s: the mesh reaches beyond %g spacings of %g m from the origin "
                           "(accepted: meshes nearer the origin, or a coarser spacing)", name, LATTICE_INDEX_MAX, dp);
        lattice_range(lo[d] - grow, hi[d] + grow, dp, &first[d], &last[d]);
    }
    if (first[0] > last[0] || first[1] > last[1] || first[2] > last[2])
        return SL_OK;
    int64_t nx = last[0] - first[0] + 1, ny = last[1] - first[1] + 1;
    if (nx > PLANE_POINTS_MAX / ny) /* distances and inside flags: 9 bytes a point */
        return sl_fail(err, SL_ERR_INPUT, "%s: a plane of the lattice would have %.3g points at spacing %g m "
                       "(accepted: at most %lld; a coarser spacing or a smaller mesh)",
                       name, (double)nx * (double)ny, dp, (long long)PLANE_POINTS_MAX);
    size_t nt = m->ntri, np = (size_t)(nx * ny);
    tri_box *box = malloc(nt * sizeof *box);
    size_t *order = malloc(nt * sizeof *order), *active = malloc(nt * sizeof *active);
    double *zlo = malloc(nt * sizeof *zlo);
    double *dist = mode == SAMPLE_FILL ? NULL : malloc(np * sizeof *dist);
    unsigned char *inside = malloc(np);
    size_t cross_cap = 1024, ncross = 0;
    crossing *cross = malloc(cross_cap * sizeof *cross);
    if (!box || !order || !active || !zlo || (mode != SAMPLE_FILL && !dist) || !cross || !inside) {
        free(box), free(order), free(active), free(zlo), free(dist), free(cross), free(inside);
        return sl_fail(err, SL_ERR_RUNTIME, "%s: out of memory sampling %zu triangles", name, nt);
    }
    for (size_t t = 0; t < nt; ++t) {
        const double *v = m->xyz + 9 * t;
        for (int d = 0; d < 3; ++d) {
            box[t].lo[d] = fmin(fmin(v[d], v[3 + d]), v[6 + d]);
            box[t].hi[d] = fmax(fmax(v[d], v[3 + d]), v[6 + d]);
        }
        zlo[t] = box[t].lo[2];
        order[t] = t;
    }
    sort_zlo = zlo;
    qsort(order, nt, sizeof *order, cmp_zlo);
    size_t next = 0, nactive = 0;
    int rc = SL_OK;
    for (int64_t k = first[2]; k <= last[2] && rc == SL_OK; ++k) {
        double z = lattice_at(k, dp);
        /* the triangles within reach of this plane */
        while (next < nt && box[order[next]].lo[2] - reach <= z)
            active[nactive++] = order[next++];
        size_t kept = 0;
        for (size_t a = 0; a < nactive; ++a)
            if (box[active[a]].hi[2] + reach >= z)
                active[kept++] = active[a];
        nactive = kept;
        ncross = 0;
        for (size_t a = 0; a < nactive && rc == SL_OK; ++a) {
            size_t t = active[a];
            const tri_box *b = &box[t];
            /* rows one index beyond the box too: the edge tests decide exactly */
            if (!(z >= b->lo[2] - dp && z <= b->hi[2] + dp))
                continue;
            int64_t j0, j1;
            lattice_range(b->lo[1], b->hi[1], dp, &j0, &j1);
            for (int64_t j = (j0 - 1 > first[1] ? j0 - 1 : first[1]); j <= j1 + 1 && j <= last[1]; ++j) {
                double x;
                if (!row_crossing(m->xyz + 9 * t, lattice_at(j, dp), z, &x))
                    continue;
                if (ncross == cross_cap) {
                    crossing *grown = realloc(cross, 2 * cross_cap * sizeof *cross);
                    if (!grown) {
                        rc = sl_fail(err, SL_ERR_RUNTIME, "%s: out of memory sampling the mesh", name);
                        break;
                    }
                    cross = grown;
                    cross_cap *= 2;
                }
                cross[ncross++] = (crossing){j, x};
            }
        }
        if (rc != SL_OK)
            break;
        /* inside: an odd number of crossings past the point in +x */
        qsort(cross, ncross, sizeof *cross, cmp_crossing);
        size_t c0 = 0;
        for (int64_t j = first[1]; j <= last[1]; ++j) {
            while (c0 < ncross && cross[c0].row < j)
                ++c0;
            size_t c1 = c0;
            while (c1 < ncross && cross[c1].row == j)
                ++c1;
            size_t passed = c0; /* crossings at x <= the point's */
            for (int64_t i = first[0]; i <= last[0]; ++i) {
                while (passed < c1 && cross[passed].x <= lattice_at(i, dp))
                    ++passed;
                inside[(size_t)((j - first[1]) * nx + (i - first[0]))] = ((c1 - passed) & 1u) != 0;
            }
            c0 = c1;
        }
        /* distances, only on the side the band keeps */
        unsigned char want = mode != SAMPLE_BAND_OUT;
        if (dist) {
            for (size_t q = 0; q < np; ++q)
                dist[q] = INFINITY;
            for (size_t a = 0; a < nactive; ++a) {
                size_t t = active[a];
                const double *v = m->xyz + 9 * t;
                const tri_box *b = &box[t];
                /* the band's reach in this plane: a circle's radius at the plane's height off the box */
                double dz = fmax(fmax(b->lo[2] - z, z - b->hi[2]), 0.0);
                if (dz >= band)
                    continue;
                double r = sqrt(band * band - dz * dz);
                int64_t i0, i1, j0, j1;
                lattice_range(b->lo[0] - r, b->hi[0] + r, dp, &i0, &i1);
                lattice_range(b->lo[1] - r, b->hi[1] + r, dp, &j0, &j1);
                i0 = i0 > first[0] ? i0 : first[0];
                i1 = i1 < last[0] ? i1 : last[0];
                j0 = j0 > first[1] ? j0 : first[1];
                j1 = j1 < last[1] ? j1 : last[1];
                for (int64_t j = j0; j <= j1; ++j)
                    for (int64_t i = i0; i <= i1; ++i) {
                        size_t q = (size_t)((j - first[1]) * nx + (i - first[0]));
                        if (inside[q] != want)
                            continue;
                        double p[3] = {lattice_at(i, dp), lattice_at(j, dp), z};
                        double d2 = dist2_triangle(p, v, v + 3, v + 6);
                        if (d2 < dist[q])
                            dist[q] = d2;
                    }
            }
        }
        for (int64_t j = first[1]; j <= last[1]; ++j)
            for (int64_t i = first[0]; i <= last[0]; ++i) {
                size_t q = (size_t)((j - first[1]) * nx + (i - first[0]));
                double p[3] = {lattice_at(i, dp), lattice_at(j, dp), z};
                if (inside[q] != want)
                    continue;
                if (mode == SAMPLE_FILL) {
                    fn(ctx, p, 0);
                    continue;
                }
                double d = sqrt(dist[q]);
                if (!(d < band))
                    continue;
                int layer = (int)floor(d / dp);
                fn(ctx, p, layer < layers ? layer : layers - 1);
            }
    }
    free(box), free(order), free(active), free(zlo), free(dist), free(cross), free(inside);
    return rc;
}

/* ---- one point ----------------------------------------------------------------------------- */

double mesh_signed_distance(const stl_mesh *m, const double p[3])
{
    double d2 = INFINITY;
    size_t crossings = 0;
    for (size_t t = 0; t < m->ntri; ++t) {
        const double *v = m->xyz + 9 * t;
        d2 = fmin(d2, dist2_triangle(p, v, v + 3, v + 6));
        double x;
        /* the sampler's inside test: crossings past the point along +x, on the perturbed row */
        if (row_crossing(v, p[1], p[2], &x) && x > p[0])
            ++crossings;
    }
    return crossings & 1u ? -sqrt(d2) : sqrt(d2);
}
