/* test_p2m.c: particle-to-mesh spreading: the B-spline weights, the two algorithms giving the same
 * grid, mass conservation, and the /grid group of a snapshot. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/engine.h"
#include "io/p2m_grid.h"
#include "test_util.h"

#include <hdf5.h>
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string.h>

static uint32_t rng_state = 2024u;

static double uniform(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (rng_state >> 8) / 16777216.0;
}

/* The cardinal B-spline M_p(s) from its textbook piecewise form in the distance |s| (Hockney &
 * Eastwood, sec. 5-3), written independently of p2m_weight()'s offset form. */
static double bspline_ref(int p, double s)
{
    s = fabs(s);
    switch (p) {
    case 1:
        return s < 0.5 ? 1.0 : 0.0;
    case 2:
        return s < 1.0 ? 1.0 - s : 0.0;
    case 3:
        return s < 0.5 ? 0.75 - s * s : s < 1.5 ? 0.5 * (1.5 - s) * (1.5 - s) : 0.0;
    default:
        return s < 1.0 ? 2.0 / 3.0 - s * s + 0.5 * s * s * s : s < 2.0 ? pow(2.0 - s, 3) / 6.0 : 0.0;
    }
}

/* Partition of unity to round-off (1e-15: a handful of double operations on numbers <= 4), the
 * textbook B-spline values (1e-14), and for p >= 2 the first moment sum_k w_k (i0 + k) = u (linear
 * functions are reproduced: the centre of mass stays where the particle is), at 10000 random u. */
static void test_weights(void **state)
{
    (void)state;
    for (int p = 1; p <= 4; ++p)
        for (int trial = 0; trial < 10000; ++trial) {
            double u = -50.0 + 100.0 * uniform(), t;
            long i0 = p2m_stencil(p, u, &t);
            double sum = 0, moment = 0;
            for (int k = 0; k < p; ++k) {
                double w = p2m_weight(p, t, k);
                assert_true(w >= 0.0);
                if (p > 1 || fabs(fabs(u - (double)i0) - 0.5) > 1e-12) /* NGP's tie is either node */
                    assert_true(fabs(w - bspline_ref(p, u - (double)(i0 + k))) <= 1e-14);
                sum += w;
                moment += w * (double)(i0 + k);
            }
            assert_true(fabs(sum - 1.0) <= 1e-15);
            if (p >= 2)
                assert_true(fabs(moment - u) <= 1e-12); /* |u| <= 50: 1e-12 is ~100 ulp */
            /* nodes outside the stencil get nothing: the stencil covers the whole support */
            assert_true(bspline_ref(p, u - (double)(i0 - 1)) == 0.0);
            assert_true(bspline_ref(p, u - (double)(i0 + p)) == 0.0);
        }
}

/* n random fluid particles in [lo, hi]^dim (with some walls and some particles outside the grid). */
static void random_particles(particles *p, size_t n, int dim, double lo, double hi)
{
    sl_err err;
    assert_int_equal(particles_alloc(p, n, &err), SL_OK);
    for (size_t i = 0; i < n; ++i) {
        for (int a = 0; a < dim; ++a)
            p->f[PF_X + a][i] = (real)(lo + (hi - lo) * uniform());
        for (int a = 0; a < 3; ++a)
            p->f[PF_VX + a][i] = (real)(uniform() - 0.5);
        p->f[PF_P][i] = (real)(1000.0 * uniform());
        p->type[i] = i % 7 == 3 ? PT_WALL : PT_FLUID;
    }
}

/* Both algorithms, every order, 2D and 3D: the same sums to 1e-12 of the largest (only the order of
 * the additions differs: ~100 terms per node in double), the same particles spread, and the mass
 * on the grid equal to the mass of the fluid particles spread, to 1e-12 relative (every particle's
 * weights sum to 1 within 1e-15). Particles outside the grid are left out, not wrapped. */
static void test_methods_agree_and_conserve_mass(void **state)
{
    (void)state;
    for (int dim = 2; dim <= 3; ++dim)
        for (int order = 1; order <= 4; ++order) {
            double dmin[3] = {0, 0, 0}, dmax[3] = {1, 0.5, 0.7};
            p2m_grid a, b;
            sl_err err;
            assert_int_equal(p2m_grid_init(&a, dim, order, 0.05, dmin, dmax, GRID_ALL, P2M_MAX_NODES, &err), SL_OK);
            assert_int_equal(p2m_grid_init(&b, dim, order, 0.05, dmin, dmax, GRID_ALL, P2M_MAX_NODES, &err), SL_OK);
            particles p;
            random_particles(&p, dim == 3 ? 20000 : 5000, dim, -0.5, 1.0); /* some below the grid's margin */
            /* the fluid inside the domain: all of it must land on the grid */
            size_t inside = 0, outside_grid = 0;
            for (size_t i = 0; i < p.n; ++i) {
                if (p.type[i] != PT_FLUID)
                    continue;
                int in = 1, far = 0;
                for (int d = 0; d < dim; ++d) {
                    double x = p.f[PF_X + d][i];
                    in &= x >= dmin[d] && x <= dmax[d];
                    far |= x < a.L.origin[d]; /* not even the stencil start on the grid */
                }
                inside += in;
                outside_grid += far;
            }
            real mass = R(0.25);
            assert_int_equal(p2m_spread(&a, &p, mass, P2M_PARTICLE, &err), SL_OK);
            assert_int_equal(p2m_spread(&b, &p, mass, P2M_MESH, &err), SL_OK);
            assert_int_equal(a.spread, b.spread);
            assert_true(a.spread >= inside);
            assert_true(a.spread + outside_grid <= p.n);
            double big = 0, total = 0;
            for (size_t c = 0; c < a.nnodes; ++c) {
                big = fmax(big, fabs(a.mass[c]));
                total += a.mass[c];
            }
            for (size_t c = 0; c < a.nnodes; ++c) {
                if (fabs(a.mass[c] - b.mass[c]) > 1e-12 * big || fabs(a.pmass[c] - b.pmass[c]) > 1e-12 * big * 1000 ||
                    fabs(a.mom[0][c] - b.mom[0][c]) > 1e-12 * big || fabs(a.mom[1][c] - b.mom[1][c]) > 1e-12 * big)
                    fail_msg("dim %d order %d node %zu: particle %.17g mesh %.17g", dim, order, c, a.mass[c],
                             b.mass[c]);
            }
            double want = (double)a.spread * (double)mass;
            if (fabs(total - want) > 1e-12 * want)
                fail_msg("dim %d order %d: grid mass %.17g, particles %.17g", dim, order, total, want);
            particles_free(&p);
            p2m_grid_free(&a);
            p2m_grid_free(&b);
        }
}

/* Fluid moving at one velocity with one pressure: the gridded velocity and pressure are those values
 * wherever mass arrived (a mass-weighted mean of equal values; 1e-5 relative covers float output). */
static void test_uniform_fields(void **state)
{
    (void)state;
    double dmin[3] = {0, 0, 0}, dmax[3] = {1, 1, 1};
    p2m_grid g;
    sl_err err;
    assert_int_equal(p2m_grid_init(&g, 3, 4, 0.1, dmin, dmax, GRID_ALL, P2M_MAX_NODES, &err), SL_OK);
    particles p;
    random_particles(&p, 3000, 3, 0.0, 1.0);
    for (size_t i = 0; i < p.n; ++i) {
        p.f[PF_VX][i] = R(0.5);
        p.f[PF_VY][i] = R(-2.0);
        p.f[PF_VZ][i] = R(1.0);
        p.f[PF_P][i] = R(1234.0);
    }
    for (int method = P2M_PARTICLE; method <= P2M_MESH; ++method) {
        assert_int_equal(p2m_spread(&g, &p, R(1.0), method, &err), SL_OK);
        size_t wet = 0;
        for (size_t c = 0; c < g.nnodes; ++c) {
            if (!(g.mass[c] > 0)) {
                assert_true(g.velocity[3 * c] == 0 && g.pressure[c] == 0);
                continue;
            }
            ++wet;
            assert_true(fabs(g.velocity[3 * c] - 0.5) <= 1e-5 && fabs(g.velocity[3 * c + 1] + 2.0) <= 2e-5 &&
                        fabs(g.velocity[3 * c + 2] - 1.0) <= 1e-5 && fabs(g.pressure[c] - 1234.0) <= 1234.0 * 1e-5);
        }
        assert_true(wet >= 11 * 11 * 11); /* every node of [0, 1]^3 has particles within its support */
    }
    particles_free(&p);
    p2m_grid_free(&g);
}

/* The automatic choice follows the contributions per node around the measured threshold. */
static void test_pick(void **state)
{
    (void)state;
    double dmin[3] = {0, 0, 0}, dmax[3] = {1, 1, 0};
    p2m_grid g;
    sl_err err;
    assert_int_equal(p2m_grid_init(&g, 2, 4, 0.1, dmin, dmax, GRID_ALL, P2M_MAX_NODES, &err), SL_OK);
#ifdef _OPENMP
    int threads = omp_get_max_threads();
    omp_set_num_threads(16); /* many threads: the gather at any density */
    assert_true(p2m_mesh_threshold(0) == 0.0);
    omp_set_num_threads(P2M_FEW_THREADS);
#endif
    assert_true(p2m_mesh_threshold(0) == P2M_MESH_THRESHOLD);
    assert_true(p2m_mesh_threshold(1) == P2M_MESH_THRESHOLD_GPU);
    for (int dev = 0; dev <= 1; ++dev) {
        size_t few = (size_t)(0.5 * p2m_mesh_threshold(dev) * (double)g.nnodes / 16.0);
        size_t many = (size_t)(2.0 * p2m_mesh_threshold(dev) * (double)g.nnodes / 16.0);
        assert_int_equal(p2m_pick(&g, GRID_METHOD_AUTO, few, dev), P2M_PARTICLE);
        assert_int_equal(p2m_pick(&g, GRID_METHOD_AUTO, many, dev), P2M_MESH);
        assert_int_equal(p2m_pick(&g, GRID_METHOD_MESH, few, dev), P2M_MESH);
        assert_int_equal(p2m_pick(&g, GRID_METHOD_PARTICLE, many, dev), P2M_PARTICLE);
    }
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    /* a grid too fine for the node limit is refused with the key to change */
    p2m_grid big;
    assert_int_equal(p2m_grid_init(&big, 2, 4, 1e-5, dmin, dmax, GRID_ALL, P2M_MAX_NODES, &err), SL_ERR_INPUT);
    assert_non_null(strstr(err.msg, "grid.spacing"));
    p2m_grid_free(&g);
}

/* A run of a scene with a grid group: /grid in the snapshot holds the declared layout, and its
 * density integrates to the fluid's mass (float output: 1e-5 relative). */
static void test_snapshot_grid(void **state)
{
    (void)state;
    char dir[] = "/tmp/sluice_test_p2m_XXXXXX";
    make_temp_dir(dir);
    char text[1024];
    snprintf(text, sizeof text,
             "numerics = { spacing = 0.01; };\n"
             "geometry = ( { type = \"tank\"; min = [0.0, 0.0]; max = [0.3, 0.2]; },\n"
             "             { type = \"fluid\"; min = [0.0, 0.0]; max = [0.1, 0.1]; } );\n"
             "output = { directory = \"%s\"; interval = 0.01; };\n"
             "grid = { spacing = 0.02; order = 3; fields = [\"density\", \"velocity\"]; method = \"mesh\"; };\n",
             dir);
    scene sc;
    sim s;
    sl_err err;
    if (scene_load_string(&sc, text, "grid.cfg", &err) || sim_create(&s, &sc, &backend_cpu, &err))
        fail_msg("%s", err.msg);
    run_options ro = {.until = 0.01, .max_steps = -1, .quiet = 1};
    run_summary sum;
    if (engine_run(&s, &ro, &sum, &err))
        fail_msg("%s", err.msg);
    char path[256];
    snprintf(path, sizeof path, "%s/snap_000001.h5", dir);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t d = H5Dopen2(f, "/grid/density", H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t sp = H5Dget_space(d);
    hsize_t dims[4];
    assert_int_equal(H5Sget_simple_extent_ndims(sp), 2);
    H5Sget_simple_extent_dims(sp, dims, NULL);
    p2m_grid g;
    assert_int_equal(p2m_grid_for_sim(&g, &s, &err), SL_OK);
    assert_int_equal((int)dims[0], g.L.n[1]); /* (ny, nx): x fastest */
    assert_int_equal((int)dims[1], g.L.n[0]);
    double *rho = malloc(dims[0] * dims[1] * sizeof *rho);
    assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, rho) >= 0);
    double m = 0;
    for (size_t c = 0; c < dims[0] * dims[1]; ++c)
        m += rho[c] * 0.02 * 0.02;
    double fluid = (double)particles_count_type(&s.p, PT_FLUID) * (double)s.P.mass;
    assert_true(fabs(m - fluid) <= 1e-5 * fluid);
    assert_true(H5Lexists(f, "/grid/velocity", H5P_DEFAULT) > 0);
    assert_true(H5Lexists(f, "/grid/pressure", H5P_DEFAULT) == 0); /* not in grid.fields */
    free(rho);
    H5Sclose(sp);
    H5Dclose(d);
    H5Fclose(f);
    snprintf(path, sizeof path, "%s/grid.xmf", dir);
    FILE *x = fopen(path, "r");
    assert_non_null(x);
    fclose(x);
    p2m_grid_free(&g);
    sim_free(&s);
    scene_free(&sc);
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weights),
        cmocka_unit_test(test_methods_agree_and_conserve_mass),
        cmocka_unit_test(test_uniform_fields),
        cmocka_unit_test(test_pick),
        cmocka_unit_test(test_snapshot_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
