/* stl.c: reading binary and ASCII STL files into triangles, and the checks that make them a solid. */
#include "stl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIN_HEADER 84
#define BIN_RECORD 50
/* A file larger than this cannot hold an acceptable mesh in either form (ASCII takes at most a few
 * hundred bytes a triangle as exporters write it). */
#define FILE_BYTES_MAX ((size_t)1 << 31)

void stl_free(stl_mesh *m)
{
    free(m->xyz);
    m->xyz = NULL;
    m->ntri = 0;
}

/* ---- binary --------------------------------------------------------------------------------- */

static uint32_t le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static double le_float(const unsigned char *b)
{
    uint32_t u = le32(b);
    float f;
    memcpy(&f, &u, sizeof f);
    return (double)f;
}

static int parse_binary(const char *name, const unsigned char *data, size_t len, stl_mesh *m, sl_err *err)
{
    if (len < BIN_HEADER)
        return sl_fail(err, SL_ERR_INPUT,
                       "%s: truncated: %zu bytes, less than the 84-byte header of a binary STL (accepted: a binary "
                       "STL of 84 + 50 n bytes, or an ASCII STL starting with 'solid')",
                       name, len);
    uint32_t n = le32(data + 80);
    if (n > STL_TRIANGLES_MAX)
        return sl_fail(err, SL_ERR_INPUT, "%s: the header counts %lu triangles (accepted: at most %d)", name,
                       (unsigned long)n, STL_TRIANGLES_MAX);
    size_t want = BIN_HEADER + (size_t)BIN_RECORD * n;
    if (len != want)
        return sl_fail(err, SL_ERR_INPUT,
                       "%s: truncated or padded: %zu bytes, but a binary STL of %lu triangles (as its header says) has "
                       "84 + 50 x %lu = %zu bytes",
                       name, len, (unsigned long)n, (unsigned long)n, want);
    m->ntri = n;
    m->xyz = malloc((size_t)n * 9 * sizeof *m->xyz + 1);
    if (!m->xyz)
        return sl_fail(err, SL_ERR_RUNTIME, "%s: out of memory for %lu triangles", name, (unsigned long)n);
    for (size_t t = 0; t < n; ++t) {
        const unsigned char *r = data + BIN_HEADER + BIN_RECORD * t + 12; /* skip the facet normal */
        for (int k = 0; k < 9; ++k)
            m->xyz[9 * t + (size_t)k] = le_float(r + 4 * k);
    }
    return SL_OK;
}

/* ---- ASCII ---------------------------------------------------------------------------------- */

typedef struct lexer {
    const char *name;
    const unsigned char *p, *end;
    int line;
    char tok[64];
    int tok_line;
    sl_err *err;
} lexer;

/* The next whitespace-separated token into lx->tok; 0 at the end of the data. */
static int next_token(lexer *lx, int *too_long)
{
    *too_long = 0;
    while (lx->p < lx->end && isspace(*lx->p)) {
        lx->line += *lx->p == '\n';
        ++lx->p;
    }
    if (lx->p >= lx->end)
        return 0;
    lx->tok_line = lx->line;
    size_t n = 0;
    while (lx->p < lx->end && !isspace(*lx->p)) {
        if (n + 1 < sizeof lx->tok)
            lx->tok[n++] = (char)(isprint(*lx->p) ? *lx->p : '?');
        else
            *too_long = 1;
        ++lx->p;
    }
    lx->tok[n] = '\0';
    return 1;
}

static void skip_line(lexer *lx)
{
    while (lx->p < lx->end && *lx->p != '\n')
        ++lx->p;
}

static int syntax(lexer *lx, const char *expected, int have)
{
    if (!have)
        return sl_fail(lx->err, SL_ERR_INPUT, "%s:%d: ASCII STL syntax error: unexpected end of file (expected %s)",
                       lx->name, lx->line, expected);
    return sl_fail(lx->err, SL_ERR_INPUT, "%s:%d: ASCII STL syntax error: expected %s, got '%.40s'", lx->name,
                   lx->tok_line, expected, lx->tok);
}

static int expect(lexer *lx, const char *word)
{
    int too_long, have = next_token(lx, &too_long);
    if (!have || strcmp(lx->tok, word) != 0) {
        char what[32];
        snprintf(what, sizeof what, "'%s'", word);
        return syntax(lx, what, have);
    }
    return SL_OK;
}

static int number(lexer *lx, double *v)
{
    int too_long, have = next_token(lx, &too_long);
    char *e;
    errno = 0;
    if (have && !too_long) {
        *v = strtod(lx->tok, &e);
        /* STL numbers are single precision in both forms: an ASCII file gives the particles of the
         * binary file with the same floats. nan, inf and overflows parse: stl_check names their triangle */
        *v = (double)(float)*v;
        if (e != lx->tok && *e == '\0')
            return SL_OK;
    }
    return syntax(lx, "a number", have);
}

static int parse_ascii(const char *name, const unsigned char *data, size_t len, stl_mesh *m, sl_err *err)
{
    lexer lx = {.name = name, .p = data, .end = data + len, .line = 1, .err = err};
    size_t cap = 0;
    int too_long, have;
    SL_TRY(expect(&lx, "solid"));
    skip_line(&lx); /* the solid's name */
    for (;;) {
        have = next_token(&lx, &too_long);
        if (have && strcmp(lx.tok, "endsolid") == 0) {
            skip_line(&lx);
            have = next_token(&lx, &too_long);
            if (!have)
                break;
            if (strcmp(lx.tok, "solid") == 0) { /* several solids in one file: one mesh */
                skip_line(&lx);
                continue;
            }
            return syntax(&lx, "the end of the file or 'solid'", have);
        }
        if (!have || strcmp(lx.tok, "facet") != 0)
            return syntax(&lx, "'facet' or 'endsolid'", have);
        if (m->ntri == STL_TRIANGLES_MAX)
            return sl_fail(err, SL_ERR_INPUT, "%s:%d: more than %d triangles (accepted: at most %d)", name,
                           lx.tok_line, STL_TRIANGLES_MAX, STL_TRIANGLES_MAX);
        if (m->ntri == cap) {
            cap = cap ? 2 * cap : 64;
            double *grown = realloc(m->xyz, cap * 9 * sizeof *grown);
            if (!grown)
                return sl_fail(err, SL_ERR_RUNTIME, "%s: out of memory", name);
            m->xyz = grown;
        }
        double normal;
        SL_TRY(expect(&lx, "normal"));
        for (int k = 0; k < 3; ++k)
            SL_TRY(number(&lx, &normal));
        SL_TRY(expect(&lx, "outer"));
        SL_TRY(expect(&lx, "loop"));
        double *v = m->xyz + 9 * m->ntri;
        for (int k = 0; k < 3; ++k) {
            SL_TRY(expect(&lx, "vertex"));
            for (int d = 0; d < 3; ++d)
                SL_TRY(number(&lx, &v[3 * k + d]));
        }
        SL_TRY(expect(&lx, "endloop"));
        SL_TRY(expect(&lx, "endfacet"));
        m->ntri++;
    }
    return SL_OK;
}

/* ---- the checks ----------------------------------------------------------------------------- */

static const double *vertex(const stl_mesh *m, size_t t, int k)
{
    return m->xyz + 9 * t + 3 * (size_t)k;
}

double stl_signed_volume(const stl_mesh *m)
{
    if (m->ntri == 0)
        return 0.0;
    const double *o = vertex(m, 0, 0); /* a reference point on the mesh keeps the sum well scaled */
    double vol = 0.0;
    for (size_t t = 0; t < m->ntri; ++t) {
        double a[3], b[3], c[3];
        for (int d = 0; d < 3; ++d) {
            a[d] = vertex(m, t, 0)[d] - o[d];
            b[d] = vertex(m, t, 1)[d] - o[d];
            c[d] = vertex(m, t, 2)[d] - o[d];
        }
        vol += a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
               a[2] * (b[0] * c[1] - b[1] * c[0]);
    }
    return vol / 6.0;
}

static const double *sort_base; /* qsort has no context argument in C11 */

static int cmp_vertex(const void *pa, const void *pb)
{
    const double *a = sort_base + 3 * *(const uint32_t *)pa, *b = sort_base + 3 * *(const uint32_t *)pb;
    for (int d = 0; d < 3; ++d)
        if (a[d] != b[d])
            return a[d] < b[d] ? -1 : 1;
    uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
    return x < y ? -1 : x > y;
}

typedef struct edge {
    uint32_t lo, hi, tri;
    uint32_t forward; /* bit 0: the triangle runs it from lo to hi; bits 1-2: its local edge k */
} edge;

static int cmp_edge(const void *pa, const void *pb)
{
    const edge *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return a->tri < b->tri ? -1 : a->tri > b->tri;
}

static void point_text(const double *p, char *buf, size_t n)
{
    snprintf(buf, n, "(%.9g, %.9g, %.9g)", p[0], p[1], p[2]);
}

static int check_triangles(const char *name, const stl_mesh *m, sl_err *err)
{
    for (size_t t = 0; t < m->ntri; ++t) {
        const double *v = m->xyz + 9 * t;
        for (int k = 0; k < 9; ++k)
            if (!isfinite(v[k]))
                return sl_fail(err, SL_ERR_INPUT,
                               "%s: triangle %zu: vertex %d has a non-finite coordinate (%g) (accepted: finite "
                               "numbers)",
                               name, t, k / 3, v[k]);
        double e1[3], e2[3], e3[3], c[3];
        for (int d = 0; d < 3; ++d) {
            e1[d] = v[3 + d] - v[d];
            e2[d] = v[6 + d] - v[d];
            e3[d] = v[6 + d] - v[3 + d];
        }
        c[0] = e1[1] * e2[2] - e1[2] * e2[1];
        c[1] = e1[2] * e2[0] - e1[0] * e2[2];
        c[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double longest = fmax(fmax(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2],
                                   e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]),
                              e3[0] * e3[0] + e3[1] * e3[1] + e3[2] * e3[2]);
        double area2 = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        if (!(area2 > STL_DEGENERATE_RATIO * longest) || !isfinite(area2) || !isfinite(longest))
            return sl_fail(err, SL_ERR_INPUT,
                           "%s: triangle %zu: degenerate (no area: repeated or collinear vertices) (accepted: "
                           "triangles with area)",
                           name, t);
    }
    return SL_OK;
}

/* Welds equal vertices into ids (id[3 t + k]); returns NULL when out of memory. */
static uint32_t *weld(const stl_mesh *m)
{
    size_t nv = 3 * m->ntri;
    uint32_t *order = malloc(nv * sizeof *order), *id = malloc(nv * sizeof *id);
    if (!order || !id) {
        free(order);
        free(id);
        return NULL;
    }
    for (size_t i = 0; i < nv; ++i)
        order[i] = (uint32_t)i;
    sort_base = m->xyz;
    qsort(order, nv, sizeof *order, cmp_vertex);
    uint32_t next = 0;
    for (size_t i = 0; i < nv; ++i) {
        if (i > 0) {
            const double *a = m->xyz + 3 * (size_t)order[i - 1], *b = m->xyz + 3 * (size_t)order[i];
            next += !(a[0] == b[0] && a[1] == b[1] && a[2] == b[2]);
        }
        id[order[i]] = next;
    }
    free(order);
    return id;
}

/* An edge's end points as text, from triangle t's local edge k. */
static void edge_text(const stl_mesh *m, size_t t, int k, char *buf, size_t n)
{
    char pa[96], pb[96];
    point_text(vertex(m, t, k), pa, sizeof pa);
    point_text(vertex(m, t, (k + 1) % 3), pb, sizeof pb);
    snprintf(buf, n, "%s-%s", pa, pb);
}

/* Closed: every edge in exactly two triangles. Consistent: a walk over neighbours from the lowest
 * triangle of each piece finds each neighbour running the shared edge the other way; the first that
 * does not is the flipped one. */
static int check_topology(const char *name, const stl_mesh *m, sl_err *err)
{
    size_t ne = 3 * m->ntri;
    uint32_t *id = weld(m);
    edge *e = malloc(ne * sizeof *e);
    uint32_t *nb = malloc(ne * sizeof *nb), *queue = malloc(m->ntri * sizeof *queue);
    unsigned char *flip = malloc(m->ntri), *seen = calloc(m->ntri, 1), *same = malloc(ne);
    int rc = SL_OK;
    char et[200];
    if (!id || !e || !nb || !queue || !flip || !seen || !same) {
        rc = sl_fail(err, SL_ERR_RUNTIME, "%s: out of memory for the edges of %zu triangles", name, m->ntri);
        goto out;
    }
    for (size_t t = 0; t < m->ntri; ++t)
        for (int k = 0; k < 3; ++k) {
            uint32_t a = id[3 * t + (size_t)k], b = id[3 * t + (size_t)((k + 1) % 3)];
            uint32_t forward = (uint32_t)(a < b) | (uint32_t)k << 1;
            e[3 * t + (size_t)k] = (edge){a < b ? a : b, a < b ? b : a, (uint32_t)t, forward};
        }
    qsort(e, ne, sizeof *e, cmp_edge);
    for (size_t i = 0; i < ne && rc == SL_OK;) {
        size_t j = i + 1;
        while (j < ne && e[j].lo == e[i].lo && e[j].hi == e[i].hi)
            ++j;
        size_t t = e[i].tri;
        int k = (int)(e[i].forward >> 1);
        if (j - i != 2) {
            edge_text(m, t, k, et, sizeof et);
            if (j - i == 1)
                rc = sl_fail(err, SL_ERR_INPUT,
                             "%s: triangle %zu: not closed: its edge %s belongs to no other triangle (a hole or a "
                             "crack) (accepted: a closed mesh, each edge shared by exactly two triangles)",
                             name, t, et);
            else
                rc = sl_fail(err, SL_ERR_INPUT,
                             "%s: triangle %zu: not closed: its edge %s is shared by %zu triangles (accepted: a "
                             "closed mesh, each edge shared by exactly two triangles)",
                             name, t, et, j - i);
        } else { /* each triangle's neighbour across its edge k, and whether they run it alike */
            size_t u = e[i + 1].tri;
            int ku = (int)(e[i + 1].forward >> 1), alike = (e[i].forward & 1) == (e[i + 1].forward & 1);
            nb[3 * t + (size_t)k] = (uint32_t)u;
            nb[3 * u + (size_t)ku] = (uint32_t)t;
            same[3 * t + (size_t)k] = same[3 * u + (size_t)ku] = (unsigned char)alike;
        }
        i = j;
    }
    for (size_t start = 0; start < m->ntri && rc == SL_OK; ++start) {
        if (seen[start])
            continue;
        size_t head = 0, tail = 0;
        queue[tail++] = (uint32_t)start;
        seen[start] = 1;
        flip[start] = 0;
        while (head < tail && rc == SL_OK) {
            size_t t = queue[head++];
            for (int k = 0; k < 3 && rc == SL_OK; ++k) {
                size_t u = nb[3 * t + (size_t)k];
                unsigned char want = (unsigned char)(same[3 * t + (size_t)k] ^ flip[t]);
                if (!seen[u]) {
                    seen[u] = 1;
                    flip[u] = want;
                    queue[tail++] = (uint32_t)u;
                }
                if (flip[u] != want || want) { /* flip[start] is 0 */
                    edge_text(m, t, k, et, sizeof et);
                    rc = sl_fail(err, SL_ERR_INPUT,
                                 "%s: triangle %zu: inconsistent orientation: it runs its edge %s the same way as "
                                 "its neighbour, triangle %zu (it is flipped) (accepted: every triangle "
                                 "counter-clockwise seen from outside)",
                                 name, u, et, t);
                }
            }
        }
    }
out:
    free(id), free(e), free(nb), free(queue), free(flip), free(seen), free(same);
    return rc;
}

int stl_check(const char *name, const stl_mesh *m, sl_err *err)
{
    if (m->ntri == 0)
        return sl_fail(err, SL_ERR_INPUT, "%s: empty: the mesh has no triangle (accepted: a closed mesh of 4 to %d "
                       "triangles)", name, STL_TRIANGLES_MAX);
    SL_TRY(check_triangles(name, m, err));
    SL_TRY(check_topology(name, m, err));
    double vol = stl_signed_volume(m);
    if (!(vol > 0))
        return sl_fail(err, SL_ERR_INPUT,
                       "%s: triangle 0 and all others: inverted: the signed volume is %g, so the normals point "
                       "inwards (accepted: triangles counter-clockwise seen from outside, a positive volume)",
                       name, vol);
    return SL_OK;
}

/* ---- entry points --------------------------------------------------------------------------- */

/* Whether the data starts, after white space, with the word "solid". */
static int starts_with_solid(const unsigned char *data, size_t len)
{
    size_t i = 0;
    while (i < len && isspace(data[i]))
        ++i;
    return len - i >= 5 && memcmp(data + i, "solid", 5) == 0;
}

int stl_parse(const char *name, const unsigned char *data, size_t len, stl_mesh *m, sl_err *err)
{
    m->ntri = 0;
    m->xyz = NULL;
    int binary = !starts_with_solid(data, len) ||
                 (len >= BIN_HEADER && BIN_HEADER + (uint64_t)BIN_RECORD * le32(data + 80) == len);
    int rc = binary ? parse_binary(name, data, len, m, err) : parse_ascii(name, data, len, m, err);
    if (rc == SL_OK)
        rc = stl_check(name, m, err);
    if (rc != SL_OK)
        stl_free(m);
    return rc;
}

int stl_read(const char *path, stl_mesh *m, sl_err *err)
{
    m->ntri = 0;
    m->xyz = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return sl_fail(err, SL_ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
    unsigned char *data = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            if (cap >= FILE_BYTES_MAX) {
                fclose(f);
                free(data);
                return sl_fail(err, SL_ERR_INPUT, "%s: larger than %zu bytes (accepted: at most %d triangles)", path,
                               FILE_BYTES_MAX, STL_TRIANGLES_MAX);
            }
            cap = cap ? 2 * cap : 1 << 16;
            unsigned char *grown = realloc(data, cap);
            if (!grown) {
                fclose(f);
                free(data);
                return sl_fail(err, SL_ERR_RUNTIME, "%s: out of memory", path);
            }
            data = grown;
        }
        size_t got = fread(data + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(data);
        return sl_fail(err, SL_ERR_INPUT, "%s: cannot read: I/O error", path);
    }
    int rc = stl_parse(path, data, len, m, err);
    free(data);
    return rc;
}
