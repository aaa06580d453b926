/* test_geometry.c: geometry beyond boxes: the STL reader (binary and ASCII alike, every broken-mesh
 * error naming its triangle), the inside test and wall bands of meshes against boxes and volumes,
 * placement (scale, rotation, translation), the primitives against their analytic size, and the
 * shipped STL scene for a few steps.
 *
 * Lattice tolerance: each lattice point owns the cube of side dp around it, and those cubes differ
 * from the body only within half a cell diagonal of its surface, so |N dp^3 - V| <= sqrt(3) dp A in
 * 3D (A the surface area) and |N dp^2 - S| <= sqrt(2) dp P in 2D (P the perimeter). */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "base/scene.h"
#include "geometry/scene_build.h"
#include "geometry/stl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PI 3.14159265358979323846

/* ---- meshes written by the test ---------------------------------------------------------------- */

typedef struct tri_list {
    size_t n;
    double v[4096][9];
} tri_list;

static tri_list mesh; /* the mesh a test writes */
static char tmpdir[64];

static void add_tri(tri_list *m, const double *a, const double *b, const double *c)
{
    assert_true(m->n < 4096);
    for (int d = 0; d < 3; ++d) {
        m->v[m->n][d] = a[d];
        m->v[m->n][3 + d] = b[d];
        m->v[m->n][6 + d] = c[d];
    }
    m->n++;
}

/* The box lo..hi as 12 outward triangles. */
static void cube(tri_list *m, const double lo[3], const double hi[3])
{
    m->n = 0;
    double p[8][3];
    for (int c = 0; c < 8; ++c)
        for (int d = 0; d < 3; ++d)
            p[c][d] = (c >> d) & 1 ? hi[d] : lo[d];
    /* faces as corner indices, counter-clockwise from outside */
    static const int f[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int k = 0; k < 6; ++k) {
        add_tri(m, p[f[k][0]], p[f[k][1]], p[f[k][2]]);
        add_tri(m, p[f[k][0]], p[f[k][2]], p[f[k][3]]);
    }
}

/* An icosphere of radius r about c: the icosahedron split `levels` times, vertices rounded to float
 * (so that binary and ASCII files hold the same numbers). */
static void icosphere(tri_list *m, double r, const double c[3], int levels)
{
    static double vert[2562][3];
    static int tri[5120][3], next[5120][3];
    double t = (1.0 + sqrt(5.0)) / 2.0;
    double base[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                          {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    static const int faces[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                                     {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
                                     {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    int nv = 12, nt = 20;
    for (int i = 0; i < 12; ++i) {
        double l = sqrt(base[i][0] * base[i][0] + base[i][1] * base[i][1] + base[i][2] * base[i][2]);
        for (int d = 0; d < 3; ++d)
            vert[i][d] = base[i][d] / l;
    }
    memcpy(tri, faces, sizeof faces);
    for (int lv = 0; lv < levels; ++lv) {
        int nn = 0;
        for (int k = 0; k < nt; ++k) {
            int mid[3];
            for (int e = 0; e < 3; ++e) { /* the edge's midpoint, shared: found by position */
                int a = tri[k][e], b = tri[k][(e + 1) % 3];
                double q[3];
                for (int d = 0; d < 3; ++d)
                    q[d] = 0.5 * (vert[a][d] + vert[b][d]);
                double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
                for (int d = 0; d < 3; ++d)
                    q[d] /= l;
                int found = -1;
                for (int i = 0; i < nv && found < 0; ++i)
                    if (fabs(vert[i][0] - q[0]) + fabs(vert[i][1] - q[1]) + fabs(vert[i][2] - q[2]) < 1e-12)
                        found = i;
                if (found < 0) {
                    memcpy(vert[nv], q, sizeof q);
                    found = nv++;
                }
                mid[e] = found;
            }
            int a = tri[k][0], b = tri[k][1], cc = tri[k][2];
            int sub[4][3] = {{a, mid[0], mid[2]}, {b, mid[1], mid[0]}, {cc, mid[2], mid[1]}, {mid[0], mid[1], mid[2]}};
            memcpy(next[nn], sub, sizeof sub);
            nn += 4;
        }
        nt = nn;
        memcpy(tri, next, (size_t)nt * sizeof tri[0]);
    }
    m->n = 0;
    for (int k = 0; k < nt; ++k) {
        double p[3][3];
        for (int e = 0; e < 3; ++e)
            for (int d = 0; d < 3; ++d)
                p[e][d] = (double)(float)(c[d] + r * vert[tri[k][e]][d]);
        add_tri(m, p[0], p[1], p[2]);
    }
}

static double mesh_area(const tri_list *m)
{
    double a = 0;
    for (size_t t = 0; t < m->n; ++t) {
        const double *v = m->v[t];
        double u[3], w[3];
        for (int d = 0; d < 3; ++d) {
            u[d] = v[3 + d] - v[d];
            w[d] = v[6 + d] - v[d];
        }
        double cx = u[1] * w[2] - u[2] * w[1], cy = u[2] * w[0] - u[0] * w[2], cz = u[0] * w[1] - u[1] * w[0];
        a += 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
    }
    return a;
}

static void put_le32(FILE *f, uint32_t u)
{
    unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
    assert_int_equal(fwrite(b, 1, 4, f), 4);
}

static void put_float(FILE *f, double x)
{
    float v = (float)x;
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    put_le32(f, u);
}

/* The mesh as a binary STL; header_count: the count written in the header. */
static void write_binary(const char *path, const tri_list *m, uint32_t header_count)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    char header[80] = "test_geometry binary";
    assert_int_equal(fwrite(header, 1, 80, f), 80);
    put_le32(f, header_count);
    for (size_t t = 0; t < m->n; ++t) {
        for (int k = 0; k < 3; ++k)
            put_float(f, 0.0);
        for (int k = 0; k < 9; ++k)
            put_float(f, m->v[t][k]);
        assert_int_equal(fwrite("\0\0", 1, 2, f), 2);
    }
    assert_int_equal(fclose(f), 0);
}

static void write_ascii(const char *path, const tri_list *m)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "solid test\n");
    for (size_t t = 0; t < m->n; ++t) {
        fprintf(f, "  facet normal 0 0 0\n    outer loop\n");
        for (int k = 0; k < 3; ++k)
            fprintf(f, "      vertex %.9g %.9g %.9g\n", m->v[t][3 * k], m->v[t][3 * k + 1], m->v[t][3 * k + 2]);
        fprintf(f, "    endloop\n  endfacet\n");
    }
    fprintf(f, "endsolid test\n");
    assert_int_equal(fclose(f), 0);
}

static const char *tmp_path(const char *name)
{
    static char buf[8][128];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

/* ---- scenes ------------------------------------------------------------------------------------ */

/* Loads a 3D (or 2D) scene of spacing dp with the given geometry items; fails with the message. */
static void load(scene *sc, int dim, double dp, const char *items)
{
    char text[8192];
    snprintf(text, sizeof text,
             "simulation = { dimension = %d; domain_min = [%s]; domain_max = [%s]; };\n"
             "numerics = { spacing = %.17g; };\ngeometry = (\n%s\n);\n",
             dim, dim == 3 ? "-2.0, -2.0, -2.0" : "-2.0, -2.0", dim == 3 ? "2.0, 2.0, 2.0" : "2.0, 2.0", dp, items);
    sl_err err;
    if (scene_load_string(sc, text, tmp_path("scene.cfg"), &err))
        fail_msg("%s", err.msg);
}

/* The loader's message for a scene that must be refused. */
static const char *refused(const char *items, int dim)
{
    static sl_err err;
    char text[8192];
    snprintf(text, sizeof text, "simulation = { dimension = %d; };\nnumerics = { spacing = 0.05; };\ngeometry = (\n%s\n);\n",
             dim, items);
    scene sc;
    if (scene_load_string(&sc, text, "refused.cfg", &err) == SL_OK) {
        scene_free(&sc);
        fail_msg("accepted: %s", items);
    }
    assert_null(strchr(err.msg, '\n'));
    return err.msg;
}

static void assert_has(const char *msg, const char *frag)
{
    if (!strstr(msg, frag))
        fail_msg("message \"%s\" lacks \"%s\"", msg, frag);
}

static scene_counts counts(const scene *sc)
{
    scene_counts c;
    sl_err err;
    if (scene_count_particles(sc, &c, &err))
        fail_msg("%s", err.msg);
    return c;
}

/* A fluid box far from everything, so that scenes whose item under test is a wall are valid. */
#define FAR_FLUID "{ type = \"fluid\"; min = [1.5, 1.5, 1.5]; max = [1.6, 1.6, 1.6]; }"
#define FAR_FLUID_2D "{ type = \"fluid\"; min = [1.5, 1.5]; max = [1.6, 1.6]; }"

/* |count - V / dp^n| against the lattice tolerance sqrt(n) A / dp^(n-1). */
static void assert_lattice_size(size_t count, double size, double surface, double dp, int dim)
{
    double expect = size / pow(dp, dim), tol = sqrt((double)dim) * surface / pow(dp, dim - 1);
    if (fabs((double)count - expect) > tol)
        fail_msg("%zu particles, %.1f expected within %.1f", count, expect, tol);
    print_message("  %zu particles, %.1f expected (tolerance %.1f)\n", count, expect, tol);
}

/* ---- the STL reader ---------------------------------------------------------------------------- */

static void ascii_and_binary_agree(void **state)
{
    (void)state;
    double c[3] = {0.0, 0.0, 0.0};
    icosphere(&mesh, 0.3, c, 3);
    write_binary(tmp_path("s.stl"), &mesh, (uint32_t)mesh.n);
    write_ascii(tmp_path("s_ascii.stl"), &mesh);
    stl_mesh a, b;
    sl_err err;
    if (stl_read(tmp_path("s.stl"), &a, &err) || stl_read(tmp_path("s_ascii.stl"), &b, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(a.ntri, 1280);
    assert_int_equal(b.ntri, 1280);
    assert_memory_equal(a.xyz, b.xyz, 9 * a.ntri * sizeof *a.xyz);
    stl_free(&a);
    stl_free(&b);
    /* and the same particles, in the same order */
    scene s1, s2;
    char items[512];
    snprintf(items, sizeof items, "{ type = \"fluid\"; mesh = \"%s\"; }", tmp_path("s.stl"));
    load(&s1, 3, 0.03, items);
    snprintf(items, sizeof items, "{ type = \"fluid\"; mesh = \"%s\"; }", tmp_path("s_ascii.stl"));
    load(&s2, 3, 0.03, items);
    particles p1, p2;
    if (scene_build_particles(&s1, &p1, &err) || scene_build_particles(&s2, &p2, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(p1.n, p2.n);
    for (int k = PF_X; k <= PF_Z; ++k)
        assert_memory_equal(p1.f[k], p2.f[k], p1.n * sizeof(real));
    particles_free(&p1);
    particles_free(&p2);
    scene_free(&s1);
    scene_free(&s2);
}

/* Writes the mesh, reads it back, and checks the error names the file and `frag`. */
static void assert_broken(const char *name, const char *frag1, const char *frag2)
{
    stl_mesh m;
    sl_err err;
    assert_int_equal(stl_read(tmp_path(name), &m, &err), SL_ERR_INPUT);
    assert_null(m.xyz);
    assert_null(strchr(err.msg, '\n'));
    assert_int_equal(strncmp(err.msg, tmp_path(name), strlen(tmp_path(name))), 0);
    assert_has(err.msg, frag1);
    if (frag2)
        assert_has(err.msg, frag2);
    print_message("  %s\n", err.msg + strlen(tmpdir) + 1);
}

static void broken_meshes(void **state)
{
    (void)state;
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    /* a hole: the last triangle missing */
    cube(&mesh, lo, hi);
    mesh.n--;
    write_binary(tmp_path("open.stl"), &mesh, (uint32_t)mesh.n);
    assert_broken("open.stl", "not closed", "triangle ");
    /* one triangle flipped */
    cube(&mesh, lo, hi);
    double t[9];
    memcpy(t, mesh.v[5], sizeof t);
    memcpy(mesh.v[5] + 3, t + 6, 3 * sizeof *t);
    memcpy(mesh.v[5] + 6, t + 3, 3 * sizeof *t);
    write_binary(tmp_path("flipped.stl"), &mesh, (uint32_t)mesh.n);
    assert_broken("flipped.stl", "inconsistent orientation", "triangle 5");
    /* all flipped: inverted */
    cube(&mesh, lo, hi);
    for (size_t k = 0; k < mesh.n; ++k) {
        memcpy(t, mesh.v[k], sizeof t);
        memcpy(mesh.v[k] + 3, t + 6, 3 * sizeof *t);
        memcpy(mesh.v[k] + 6, t + 3, 3 * sizeof *t);
    }
    write_binary(tmp_path("inverted.stl"), &mesh, (uint32_t)mesh.n);
    assert_broken("inverted.stl", "inverted", "triangle 0");
    /* empty */
    mesh.n = 0;
    write_binary(tmp_path("empty.stl"), &mesh, 0);
    assert_broken("empty.stl", "empty", NULL);
    /* a degenerate triangle (a repeated vertex) */
    cube(&mesh, lo, hi);
    memcpy(mesh.v[3] + 3, mesh.v[3], 3 * sizeof(double));
    write_binary(tmp_path("degenerate.stl"), &mesh, (uint32_t)mesh.n);
    assert_broken("degenerate.stl", "triangle 3: degenerate", NULL);
    /* a non-finite coordinate */
    cube(&mesh, lo, hi);
    mesh.v[2][4] = NAN;
    write_binary(tmp_path("nan.stl"), &mesh, (uint32_t)mesh.n);
    assert_broken("nan.stl", "triangle 2: vertex 1 has a non-finite coordinate", NULL);
    /* truncated, and a header that counts too many */
    cube(&mesh, lo, hi);
    write_binary(tmp_path("short.stl"), &mesh, (uint32_t)mesh.n + 1);
    assert_broken("short.stl", "truncated", "13 triangles");
    write_binary(tmp_path("huge.stl"), &mesh, 4000000000u);
    assert_broken("huge.stl", "4000000000 triangles", "at most 5000000");
    /* an edge of three triangles: a fin on the cube */
    cube(&mesh, lo, hi);
    double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0.5, -1, 0.5};
    add_tri(&mesh, a, b, c);
    write_binary(tmp_path("fin.stl"), &mesh, (uint32_t)mesh.n);
    assert_broken("fin.stl", "not closed", "triangle ");
    /* ASCII syntax errors, with their line */
    FILE *f = fopen(tmp_path("syntax.stl"), "w");
    assert_non_null(f);
    fprintf(f, "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n   vertx 0 1 0\n");
    fclose(f);
    assert_broken("syntax.stl", "syntax.stl:6: ASCII STL syntax error: expected 'vertex', got 'vertx'", NULL);
    f = fopen(tmp_path("cut.stl"), "w");
    assert_non_null(f);
    fprintf(f, "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0");
    fclose(f);
    assert_broken("cut.stl", "unexpected end of file", NULL);
    f = fopen(tmp_path("word.stl"), "w");
    assert_non_null(f);
    fprintf(f, "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 zero\n");
    fclose(f);
    assert_broken("word.stl", "word.stl:4:", "expected a number, got 'zero'");
    /* through the scene loader: the scene's line and key, then the mesh's message */
    char items[512];
    snprintf(items, sizeof items, FAR_FLUID ",\n{ type = \"obstacle\";\n  mesh = \"%s\"; }", tmp_path("flipped.stl"));
    const char *msg = refused(items, 3);
    assert_has(msg, "refused.cfg:6: key 'geometry[1].mesh': ");
    assert_has(msg, "flipped.stl: triangle 5: inconsistent orientation");
    snprintf(items, sizeof items, FAR_FLUID ",\n{ type = \"obstacle\"; mesh = \"%s\"; }", tmp_path("missing.stl"));
    assert_has(refused(items, 3), "cannot read");
    /* a mesh placed beyond the domain */
    cube(&mesh, (double[3]){0, 0, 0}, (double[3]){1, 1, 1});
    write_binary(tmp_path("unit.stl"), &mesh, (uint32_t)mesh.n);
    char text[1024];
    snprintf(text, sizeof text,
             "simulation = { dimension = 3; domain_min = [-1.0, -1.0, -1.0]; domain_max = [3.0, 3.0, 3.0]; };\n"
             "numerics = { spacing = 0.05; };\ngeometry = (\n%s,\n{ type = \"obstacle\"; mesh = \"%s\"; scale = 4.0; }\n);\n",
             FAR_FLUID, tmp_path("unit.stl"));
    scene sc;
    sl_err err;
    assert_int_equal(scene_load_string(&sc, text, "domain.cfg", &err), SL_ERR_INPUT);
    assert_has(err.msg, "domain.cfg:5: key 'geometry[1]': obstacle outside the domain: the box [0, 0, 0]..[4, 4, 4]");
}

/* ---- meshes as items ---------------------------------------------------------------------------- */

static void compare_particles(const particles *a, const particles *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; ++i) {
        for (int k = PF_X; k <= PF_Z; ++k)
            assert_true(fabs((double)a->f[k][i] - (double)b->f[k][i]) < 1e-9);
        assert_int_equal(a->type[i], b->type[i]);
        assert_int_equal(a->tag[i], b->tag[i]);
    }
}

/* A mesh cube on lattice-cell boundaries gives the box's particles: fluid, obstacle walls, tank walls
 * (the tank's corners aside: a box tank's shell has square corners, a mesh's band round ones). */
static void cube_mesh_is_the_box(void **state)
{
    (void)state;
    double lo[3] = {0.1, 0.2, 0.0}, hi[3] = {0.5, 0.4, 0.3};
    cube(&mesh, lo, hi);
    write_binary(tmp_path("cube.stl"), &mesh, (uint32_t)mesh.n);
    const char *kinds[2] = {"fluid", "obstacle"};
    for (int k = 0; k < 2; ++k) {
        char a[512], b[512];
        snprintf(a, sizeof a, "%s, { type = \"%s\"; mesh = \"%s\"; layers = 2; }", FAR_FLUID, kinds[k],
                 tmp_path("cube.stl"));
        snprintf(b, sizeof b, "%s, { type = \"%s\"; min = [0.1, 0.2, 0.0]; max = [0.5, 0.4, 0.3]; layers = 2; }",
                 FAR_FLUID, kinds[k]);
        if (k == 0) {
            snprintf(a, sizeof a, "{ type = \"fluid\"; mesh = \"%s\"; }", tmp_path("cube.stl"));
            snprintf(b, sizeof b, "{ type = \"fluid\"; min = [0.1, 0.2, 0.0]; max = [0.5, 0.4, 0.3]; }");
        }
        scene s1, s2;
        load(&s1, 3, 0.05, a);
        load(&s2, 3, 0.05, b);
        int last = s1.ngeom - 1;
        for (int d = 0; d < 3; ++d) { /* the loader's bounding box */
            assert_true(fabs(s1.geom[last].min[d] - lo[d]) < 1e-7);
            assert_true(fabs(s1.geom[last].max[d] - hi[d]) < 1e-7);
        }
        particles p1, p2;
        sl_err err;
        if (scene_build_particles(&s1, &p1, &err) || scene_build_particles(&s2, &p2, &err))
            fail_msg("%s", err.msg);
        compare_particles(&p1, &p2);
        print_message("  cube %s: %zu particles, as the box\n", kinds[k], p1.n);
        particles_free(&p1);
        particles_free(&p2);
        scene_free(&s1);
        scene_free(&s2);
    }
}

/* A box obstacle's particles end within dp/2 of each face: SPHERIC Test 2's box (0.161 m, 0.403 m wide)
 * at dp = 27.5 mm is 5.85 spacings tall and 14.65 wide, so 6 and 15 layers, whose surface (the outer
 * particles' centres plus dp/2) lies 4 mm above and 9 mm beyond the given faces; the floor of the
 * lattice gave 5 and 14, 23.5 and 18 mm short, where the pressure sensors sit. A box thinner than
 * half a spacing still gets one layer. Tolerance 1e-9 m: the positions are min + (i + 1/2) dp. */
static void obstacle_box_faces(void **state)
{
    (void)state;
    const double dp = 0.0275, lo[3] = {0.6635, 0.2985, 0.0}, hi[3] = {0.8245, 0.7015, 0.161};
    scene sc;
    load(&sc, 3, dp, FAR_FLUID ", { type = \"obstacle\"; min = [0.6635, 0.2985, 0.0]; max = [0.8245, 0.7015, 0.161]; "
                     "layers = 3; }");
    particles p;
    sl_err err;
    if (scene_build_particles(&sc, &p, &err))
        fail_msg("%s", err.msg);
    double top[3] = {-1e9, -1e9, -1e9}, bottom[3] = {1e9, 1e9, 1e9};
    for (size_t i = 0; i < p.n; ++i)
        if (p.type[i] == PT_OBSTACLE)
            for (int d = 0; d < 3; ++d) {
                top[d] = fmax(top[d], (double)p.f[PF_X + d][i]);
                bottom[d] = fmin(bottom[d], (double)p.f[PF_X + d][i]);
            }
    for (int d = 0; d < 3; ++d) {
        double layers = floor((hi[d] - lo[d]) / dp + 0.5), surface = top[d] + dp / 2;
        print_message("  axis %d: %.0f layers, surface %.4f m against the face at %.4f m\n", d, layers, surface, hi[d]);
        assert_true(fabs(bottom[d] - (lo[d] + dp / 2)) < 1e-6); /* float positions */
        assert_true(fabs(top[d] - (lo[d] + (layers - 0.5) * dp)) < 1e-6);
        assert_true(fabs(surface - hi[d]) <= dp / 2 + 1e-6);
    }
    assert_true(fabs(top[0] + dp / 2 - 0.8285) < 1e-6 && fabs(top[2] + dp / 2 - 0.165) < 1e-6); /* 6 layers */
    particles_free(&p);
    scene_free(&sc);
    /* a plate 0.3 dp thick: one layer across its thickness (the floor of the lattice gave none) */
    load(&sc, 3, 0.05, FAR_FLUID ", { type = \"obstacle\"; min = [0.0, 0.0, 0.0]; max = [0.5, 0.5, 0.015]; }");
    assert_int_equal(counts(&sc).obstacle, 10 * 10 * 1);
    scene_free(&sc);
}

/* A mesh tank's walls: the box tank's shell without its square corners (the band is Euclidean), the
 * same layers where both have a particle, none above the open top. */
static void cube_mesh_tank(void **state)
{
    (void)state;
    double lo[3] = {0.0, 0.0, 0.0}, hi[3] = {0.4, 0.3, 0.3};
    cube(&mesh, lo, hi);
    write_binary(tmp_path("cavity.stl"), &mesh, (uint32_t)mesh.n);
    char a[512];
    snprintf(a, sizeof a, "{ type = \"tank\"; mesh = \"%s\"; layers = 2; },\n"
             "{ type = \"fluid\"; min = [0.1, 0.1, 0.0]; max = [0.2, 0.2, 0.1]; }", tmp_path("cavity.stl"));
    scene s1, s2;
    load(&s1, 3, 0.05, a);
    load(&s2, 3, 0.05, "{ type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [0.4, 0.3, 0.3]; layers = 2; },\n"
                       "{ type = \"fluid\"; min = [0.1, 0.1, 0.0]; max = [0.2, 0.2, 0.1]; }");
    particles p1, p2;
    sl_err err;
    if (scene_build_particles(&s1, &p1, &err) || scene_build_particles(&s2, &p2, &err))
        fail_msg("%s", err.msg);
    size_t walls = 0, box_walls = 0;
    for (size_t i = 0; i < p2.n; ++i)
        box_walls += p2.type[i] == PT_WALL;
    for (size_t i = 0; i < p1.n; ++i) {
        if (p1.type[i] != PT_WALL)
            continue;
        walls++;
        assert_true(p1.f[PF_Z][i] < 0.3);
        int found = 0;
        for (size_t j = 0; j < p2.n && !found; ++j)
            if (p2.type[j] == PT_WALL && fabs(p1.f[PF_X][i] - p2.f[PF_X][j]) < 1e-6 &&
                fabs(p1.f[PF_Y][i] - p2.f[PF_Y][j]) < 1e-6 && fabs(p1.f[PF_Z][i] - p2.f[PF_Z][j]) < 1e-6) {
                found = 1;
                assert_int_equal(p1.tag[i], p2.tag[j]);
            }
        assert_true(found);
    }
    /* what the box shell has beyond the band (inner box 8 x 6 x 6 cells, 2 layers, open top): of the
     * 2 x 2 cross-section of each edge column the point 2.12 dp away, of each 2 x 2 x 2 corner the 4
     * points 2.18 dp or more away: vertical edges 4 x 6, bottom edges 2 x 8 + 2 x 6, bottom corners
     * 4 x 4 (the open top has neither edges nor corners) */
    assert_int_equal(box_walls - walls, 4 * 6 + 2 * 8 + 2 * 6 + 4 * 4);
    print_message("  mesh tank: %zu wall particles, the box tank %zu\n", walls, box_walls);
    particles_free(&p1);
    particles_free(&p2);
    scene_free(&s1);
    scene_free(&s2);
}

static void sphere_mesh_volume(void **state)
{
    (void)state;
    double c[3] = {0.013, -0.021, 0.007};
    icosphere(&mesh, 0.35, c, 3);
    write_binary(tmp_path("ball.stl"), &mesh, (uint32_t)mesh.n);
    stl_mesh m;
    sl_err err;
    if (stl_read(tmp_path("ball.stl"), &m, &err))
        fail_msg("%s", err.msg);
    double vol = stl_signed_volume(&m), area = mesh_area(&mesh);
    stl_free(&m);
    /* the polyhedron is a little smaller than the sphere */
    assert_true(vol < 4.0 / 3.0 * PI * 0.35 * 0.35 * 0.35 && vol > 0.97 * 4.0 / 3.0 * PI * 0.35 * 0.35 * 0.35);
    char items[512];
    snprintf(items, sizeof items, "{ type = \"fluid\"; mesh = \"%s\"; }", tmp_path("ball.stl"));
    scene sc;
    load(&sc, 3, 0.02, items);
    assert_lattice_size(counts(&sc).fluid, vol, area, 0.02, 3);
    scene_free(&sc);
    /* its wall band: the shell between the surface and the sphere 3 dp smaller */
    snprintf(items, sizeof items, FAR_FLUID ", { type = \"obstacle\"; mesh = \"%s\"; layers = 3; }",
             tmp_path("ball.stl"));
    load(&sc, 3, 0.02, items);
    double inner = 0.35 - 0.06, shell = vol - 4.0 / 3.0 * PI * inner * inner * inner;
    assert_lattice_size(counts(&sc).obstacle, shell, area + 4 * PI * inner * inner, 0.02, 3);
    scene_free(&sc);
}

/* scale, rotate, translate: a 1 x 0.5 x 0.5 block scaled by 0.4, turned 90 degrees about z and moved. */
static void mesh_placement(void **state)
{
    (void)state;
    double lo[3] = {0, 0, 0}, hi[3] = {1, 0.5, 0.5};
    cube(&mesh, lo, hi);
    write_ascii(tmp_path("block.stl"), &mesh);
    char items[512];
    snprintf(items, sizeof items,
             "{ type = \"fluid\"; mesh = \"%s\"; scale = 0.4; rotate = [0.0, 0.0, 90.0]; translate = [0.3, 0.1, 0.2]; }",
             tmp_path("block.stl"));
    scene sc;
    load(&sc, 3, 0.05, items);
    /* x in [0.3 - 0.2, 0.3], y in [0.1, 0.5], z in [0.2, 0.4] */
    double elo[3] = {0.1, 0.1, 0.2}, ehi[3] = {0.3, 0.5, 0.4};
    for (int d = 0; d < 3; ++d) {
        assert_true(fabs(sc.geom[0].min[d] - elo[d]) < 1e-7);
        assert_true(fabs(sc.geom[0].max[d] - ehi[d]) < 1e-7);
    }
    assert_int_equal(counts(&sc).fluid, 4 * 8 * 4);
    scene_free(&sc);
    /* turned by 30 degrees about x and 20 about y: the volume stays */
    snprintf(items, sizeof items, "{ type = \"fluid\"; mesh = \"%s\"; scale = 0.4; rotate = [30.0, 20.0, 0.0]; }",
             tmp_path("block.stl"));
    load(&sc, 3, 0.02, items);
    assert_lattice_size(counts(&sc).fluid, 0.4 * 0.2 * 0.2, 2 * (0.4 * 0.2 * 2 + 0.2 * 0.2), 0.02, 3);
    scene_free(&sc);
}

/* ---- primitives ------------------------------------------------------------------------------- */

static void primitives_3d(void **state)
{
    (void)state;
    double dp = 0.02, r = 0.3;
    scene sc;
    load(&sc, 3, dp, "{ type = \"fluid\"; shape = \"sphere\"; center = [0.011, 0.0, -0.013]; radius = 0.3; }");
    assert_lattice_size(counts(&sc).fluid, 4.0 / 3.0 * PI * r * r * r, 4 * PI * r * r, dp, 3);
    scene_free(&sc);
    load(&sc, 3, dp,
         "{ type = \"fluid\"; shape = \"cylinder\"; center = [0.0, 0.1, 0.0]; axis = \"x\"; radius = 0.2; length = 0.5; }");
    assert_lattice_size(counts(&sc).fluid, PI * 0.04 * 0.5, 2 * PI * 0.2 * 0.5 + 2 * PI * 0.04, dp, 3);
    scene_free(&sc);
    /* a tilted cylinder: the axis as a vector */
    load(&sc, 3, dp,
         "{ type = \"fluid\"; shape = \"cylinder\"; center = [0.0, 0.0, 0.0]; axis = [1.0, 1.0, 1.0]; radius = 0.15; "
         "length = 0.6; }");
    assert_lattice_size(counts(&sc).fluid, PI * 0.0225 * 0.6, 2 * PI * 0.15 * 0.6 + 2 * PI * 0.0225, dp, 3);
    scene_free(&sc);
    /* a wedge sloping along +y, turned about z */
    load(&sc, 3, dp,
         "{ type = \"fluid\"; shape = \"wedge\"; min = [0.0, 0.0, 0.0]; max = [0.4, 0.6, 0.3]; slope = \"+y\"; "
         "rotate = [0.0, 0.0, 25.0]; }");
    assert_lattice_size(counts(&sc).fluid, 0.4 * 0.6 * 0.3 / 2,
                        0.4 * 0.6 + 0.4 * 0.3 + 0.6 * 0.3 + 0.4 * sqrt(0.36 + 0.09), dp, 3);
    scene_free(&sc);
    /* an obstacle sphere: the shell of 2 layers */
    load(&sc, 3, dp, FAR_FLUID ", { type = \"obstacle\"; shape = \"sphere\"; center = [0.0, 0.0, 0.0]; radius = 0.3; "
                     "layers = 2; }");
    double ri = r - 2 * dp;
    assert_lattice_size(counts(&sc).obstacle, 4.0 / 3.0 * PI * (r * r * r - ri * ri * ri),
                        4 * PI * (r * r + ri * ri), dp, 3);
    scene_free(&sc);
    /* a plane: layers x the domain's cross-section, exactly (the plane lies on cell boundaries) */
    load(&sc, 3, 0.05, FAR_FLUID ", { type = \"obstacle\"; shape = \"plane\"; point = [0.0, 0.0, 0.1]; "
                       "normal = [0.0, 0.0, 1.0]; layers = 3; }");
    assert_int_equal(counts(&sc).obstacle, 3 * 80 * 80);
    scene_free(&sc);
    /* an open cylinder tank: no wall above its top, none inside */
    load(&sc, 3, dp, "{ type = \"tank\"; shape = \"cylinder\"; center = [0.0, 0.0, 0.0]; radius = 0.3; length = 0.4; "
                     "layers = 2; },\n{ type = \"fluid\"; shape = \"cylinder\"; center = [0.0, 0.0, -0.1]; radius = 0.2; "
                     "length = 0.2; }");
    particles p;
    sl_err err;
    if (scene_build_particles(&sc, &p, &err))
        fail_msg("%s", err.msg);
    size_t walls = 0;
    for (size_t i = 0; i < p.n; ++i) {
        if (p.type[i] != PT_WALL)
            continue;
        double x = p.f[PF_X][i], y = p.f[PF_Y][i], z = p.f[PF_Z][i], rr = sqrt(x * x + y * y);
        assert_true(z <= 0.2 + 1e-9);
        assert_true(rr > 0.3 - 1e-9 || z < -0.2 + 1e-9);
        assert_true(p.tag[i] <= 1);
        walls++;
    }
    assert_true(walls > 0);
    particles_free(&p);
    scene_free(&sc);
}

static void primitives_2d(void **state)
{
    (void)state;
    double dp = 0.01;
    scene sc;
    load(&sc, 2, dp, "{ type = \"fluid\"; shape = \"sphere\"; center = [0.003, -0.004]; radius = 0.25; }");
    assert_lattice_size(counts(&sc).fluid, PI * 0.0625, 2 * PI * 0.25, dp, 2);
    scene_free(&sc);
    load(&sc, 2, dp, "{ type = \"fluid\"; shape = \"cylinder\"; center = [0.0, 0.0]; radius = 0.25; }");
    assert_lattice_size(counts(&sc).fluid, PI * 0.0625, 2 * PI * 0.25, dp, 2);
    scene_free(&sc);
    /* a triangle sloping towards -x, turned by 40 degrees and scaled */
    load(&sc, 2, dp, "{ type = \"fluid\"; shape = \"wedge\"; min = [0.0, 0.0]; max = [0.5, 0.3]; slope = \"-x\"; "
                     "rotate = 40.0; scale = 1.5; translate = [0.1, 0.1]; }");
    double w = 0.75, h = 0.45;
    assert_lattice_size(counts(&sc).fluid, w * h / 2, w + h + sqrt(w * w + h * h), dp, 2);
    scene_free(&sc);
    /* a plane wall in 2D: layers x the domain's width */
    load(&sc, 2, 0.05, FAR_FLUID_2D ", { type = \"tank\"; shape = \"plane\"; point = [0.0, -0.5]; normal = [0.0, 1.0]; "
                       "layers = 2; }");
    assert_int_equal(counts(&sc).wall, 2 * 80);
    scene_free(&sc);
}

static void shape_keys_checked(void **state)
{
    (void)state;
    assert_has(refused("{ type = \"fluid\"; shape = \"sphere\"; center = [0.0, 0.0]; }", 2),
               "key 'geometry[0].radius': required key is missing");
    assert_has(refused("{ type = \"fluid\"; shape = \"sphere\"; center = [0.0, 0.0]; radius = 0.1; min = [0.0, 0.0]; }", 2),
               "key 'geometry[0].min': not used by a sphere item (accepted: only with shape box, wedge)");
    assert_has(refused("{ type = \"fluid\"; shape = \"cylinder\"; center = [0.0, 0.0]; radius = 0.1; length = 1.0; }", 2),
               "key 'geometry[0].length': not used in 2D");
    assert_has(refused("{ type = \"fluid\"; mesh = \"x.stl\"; }", 2), "key 'geometry[0].mesh': not used in 2D");
    assert_has(refused(FAR_FLUID ", { type = \"obstacle\"; shape = \"cylinder\"; center = [0.0, 0.0, 0.0]; radius = 0.1; "
                       "length = 0.2; axis = \"w\"; }", 3),
               "key 'geometry[1].axis': \"w\" is not an axis");
    assert_has(refused(FAR_FLUID ", { type = \"obstacle\"; shape = \"cylinder\"; center = [0.0, 0.0, 0.0]; radius = 0.1; "
                       "length = 0.2; axis = [0.0, 0.0, 0.0]; }", 3),
               "key 'geometry[1].axis': has no direction");
    assert_has(refused("{ type = \"fluid\"; shape = \"plane\"; point = [0.0, 0.0]; normal = [0.0, 1.0]; }", 2),
               "key 'geometry[0].point': not used by a fluid item");
    assert_has(refused("{ type = \"fluid\"; shape = \"plane\"; }", 2), "a plane is a wall");
    assert_has(refused(FAR_FLUID_2D ", { type = \"obstacle\"; shape = \"plane\"; point = [0.0, 0.0]; normal = [0.0, 1.0]; }", 2),
               "needs simulation.domain_min");
    assert_has(refused("{ type = \"fluid\"; shape = \"wedge\"; min = [0.0, 0.0]; max = [1.0, 1.0]; slope = \"+y\"; }", 2),
               "in 2D a wedge slopes along x");
    assert_has(refused("{ type = \"fluid\"; min = [0.0, 0.0]; max = [1.0, 1.0]; scale = 2.0; }", 2),
               "key 'geometry[0].scale': not used by a box item");
    assert_has(refused("{ type = \"fluid\"; shape = \"disc\"; }", 2), "key 'geometry[0].shape': \"disc\" is not accepted");
}

/* ---- the shipped scene ---------------------------------------------------------------------------- */

static void stl_scene_runs(void **state)
{
    (void)state;
    const char *path = SLUICE_SCENES "/stl_obstacle_3d.cfg";
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *at = strstr(text, "spacing = 0.01;");
    assert_non_null(at);
    memcpy(at, "spacing = 0.04;", 15); /* coarse: a few thousand particles */
    scene sc;
    sim s;
    sl_err err;
    if (scene_load_string(&sc, text, path, &err))
        fail_msg("%s", err.msg);
    if (sim_create(&s, &sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
    size_t obstacle = 0;
    for (size_t i = 0; i < s.p.n; ++i)
        obstacle += s.p.type[i] == PT_OBSTACLE;
    assert_true(obstacle > 0);
    print_message("  %zu particles, %zu of the pier\n", s.p.n, obstacle);
    for (int k = 0; k < 5; ++k) {
        double dt;
        if (sim_time_step(&s, &dt, &err) || sim_step(&s, dt, &err))
            fail_msg("%s", err.msg);
    }
    sim_free(&s);
    scene_free(&sc);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sluice_test_geometry_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ascii_and_binary_agree), cmocka_unit_test(broken_meshes),
        cmocka_unit_test(cube_mesh_is_the_box),   cmocka_unit_test(cube_mesh_tank),
        cmocka_unit_test(obstacle_box_faces),
        cmocka_unit_test(sphere_mesh_volume),
        cmocka_unit_test(mesh_placement),         cmocka_unit_test(primitives_3d),
        cmocka_unit_test(primitives_2d),          cmocka_unit_test(shape_keys_checked),
        cmocka_unit_test(stl_scene_runs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
