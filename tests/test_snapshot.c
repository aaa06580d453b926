/* test_snapshot.c: HDF5 snapshots (rows in id order, attributes, crash safety) and the XDMF series. */
#define _XOPEN_SOURCE 700

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "io/snapshot.h"
#include "core/floating.h"
#include "test_util.h"

#include <hdf5.h>

#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers -------------------------------------------------------------------------------- */

/* snprintf that fails the test instead of truncating. */
static void fmt(char *buf, size_t len, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int w = vsnprintf(buf, len, format, ap);
    va_end(ap);
    assert_true(w >= 0 && (size_t)w < len);
}

static char tmpdir[256];

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/sluice_test_snapshot_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

/* Also checks that no HDF5 file or object is left open (by the library, or by a test that
 * failed half-way: those are closed so that the next tests still run). */
static int teardown(void **state)
{
    (void)state;
    int rc = 0;
    ssize_t open_ids = H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
    if (open_ids > 0) {
        fprintf(stderr, "%zd HDF5 objects left open\n", open_ids);
        hid_t ids[64];
        ssize_t got = H5Fget_obj_ids((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL, 64, ids);
        for (ssize_t k = 0; k < got; ++k)
            while (H5Iis_valid(ids[k]) > 0 && H5Idec_ref(ids[k]) > 0)
                ;
        rc = -1;
    }
    if (nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        rc = -1;
    return rc;
}

static void in_tmp(char *buf, size_t len, const char *name)
{
    fmt(buf, len, "%s/%s", tmpdir, name);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int tmp_exists(const char *path)
{
    char t[1100];
    fmt(t, sizeof t, "%s.tmp", path);
    return exists(t);
}

/* Values a particle with id k carries, so that a read-back row can be checked. */
static double val(int field, int k)
{
    switch (field) {
    case PF_X: return 0.25 + 1.5 * k;
    case PF_Y: return 1.0 - 2.0 * k;
    case PF_Z: return 3.0 + 0.5 * k;
    case PF_VX: return 0.125 * k;
    case PF_VY: return -0.75 * k;
    case PF_VZ: return 2.0 + k;
    case PF_RHO: return 1000.0 + k;
    case PF_P: return 10.0 * k - 7.0;
    default: return 0.0;
    }
}

/* n particles whose ids are a shuffled permutation of 0..n-1 (storage order != id order). */
static void make_particles(particles *p, size_t n, unsigned seed)
{
    sl_err err;
    assert_int_equal(particles_alloc(p, n, &err), SL_OK);
    for (size_t i = n; i > 1; --i) {
        seed = seed * 1103515245u + 12345u;
        size_t j = (seed >> 8) % i;
        int32_t t = p->id[i - 1];
        p->id[i - 1] = p->id[j];
        p->id[j] = t;
    }
    for (size_t i = 0; i < n; ++i) {
        int k = p->id[i];
        for (int f = 0; f < PF_CORE; ++f)
            p->f[f][i] = (real)val(f, k);
        p->type[i] = (uint8_t)(k % 3);
    }
}

static int shuffled(const particles *p)
{
    for (size_t i = 0; i < p->n; ++i)
        if (p->id[i] != (int32_t)i)
            return 1;
    return 0;
}

static snapshot_info make_info(int dim, unsigned fields)
{
    snapshot_info info;
    memset(&info, 0, sizeof info);
    info.time = 0.375;
    info.step = 1234567890123L;
    info.dim = dim;
    info.fields = fields;
    return info;
}

/* Reads a dataset, converted to doubles; returns its rank and dims. Caller frees. */
static double *read_dataset(hid_t file, const char *name, int *rank, hsize_t dims[2])
{
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t s = H5Dget_space(d);
    *rank = H5Sget_simple_extent_ndims(s);
    assert_true(*rank >= 1 && *rank <= 2);
    H5Sget_simple_extent_dims(s, dims, NULL);
    size_t count = (size_t)dims[0] * (*rank == 2 ? (size_t)dims[1] : 1);
    double *buf = malloc((count ? count : 1) * sizeof *buf);
    assert_non_null(buf);
    if (count)
        assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    H5Sclose(s);
    H5Dclose(d);
    return buf;
}

/* Class and byte size of a dataset's stored type. */
static void dataset_type(hid_t file, const char *name, H5T_class_t *cls, size_t *size,
                         H5T_sign_t *sign)
{
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t t = H5Dget_type(d);
    *cls = H5Tget_class(t);
    *size = H5Tget_size(t);
    *sign = *cls == H5T_INTEGER ? H5Tget_sign(t) : H5T_SGN_NONE;
    H5Tclose(t);
    H5Dclose(d);
}

static int has_dataset(hid_t file, const char *name)
{
    return H5Lexists(file, name, H5P_DEFAULT) > 0;
}

static void read_attr(hid_t file, const char *name, hid_t memtype, void *buf)
{
    hid_t a = H5Aopen(file, name, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Aread(a, memtype, buf) >= 0);
    H5Aclose(a);
}

static double attr_double(hid_t file, const char *name)
{
    double v = 0;
    read_attr(file, name, H5T_NATIVE_DOUBLE, &v);
    return v;
}

/* A string attribute, copied into buf. */
static void attr_string(hid_t file, const char *name, char *buf, size_t len)
{
    hid_t a = H5Aopen(file, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t ft = H5Aget_type(a);
    assert_int_equal(H5Tget_class(ft), H5T_STRING);
    assert_true(H5Tis_variable_str(ft) > 0);
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5T_VARIABLE);
    H5Tset_cset(mt, H5Tget_cset(ft));
    char *s = NULL;
    assert_true(H5Aread(a, mt, &s) >= 0);
    assert_non_null(s);
    fmt(buf, len, "%s", s);
    H5free_memory(s);
    H5Tclose(mt);
    H5Tclose(ft);
    H5Aclose(a);
}

/* Number of elements of an attribute (1 for a scalar). */
static hssize_t attr_npoints(hid_t file, const char *name)
{
    hid_t a = H5Aopen(file, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t s = H5Aget_space(a);
    hssize_t np = H5Sget_simple_extent_npoints(s);
    H5Sclose(s);
    H5Aclose(a);
    return np;
}

/* Checks every row of a snapshot of n particles against val() and the root attributes; dim 2
 * expects z == 0. */
static void check_snapshot_at(const char *path, size_t n, int dim, unsigned fields, double time)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    int rank;
    hsize_t dims[2];
    H5T_class_t cls;
    size_t size;
    H5T_sign_t sign;

    /* position: n x 3, the native type of real */
    double *pos = read_dataset(file, "/particles/position", &rank, dims);
    assert_int_equal(rank, 2);
    assert_int_equal(dims[0], n);
    assert_int_equal(dims[1], 3);
    dataset_type(file, "/particles/position", &cls, &size, &sign);
    assert_int_equal(cls, H5T_FLOAT);
    assert_int_equal(size, sizeof(real));

    /* id: n, int32, row k holds id k */
    double *id = read_dataset(file, "/particles/id", &rank, dims);
    assert_int_equal(rank, 1);
    assert_int_equal(dims[0], n);
    dataset_type(file, "/particles/id", &cls, &size, &sign);
    assert_int_equal(cls, H5T_INTEGER);
    assert_int_equal(size, 4);
    assert_int_equal(sign, H5T_SGN_2);
    for (size_t k = 0; k < n; ++k) {
        assert_int_equal((int)id[k], (int)k);
        assert_true(pos[3 * k + 0] == (double)(real)val(PF_X, (int)k));
        assert_true(pos[3 * k + 1] == (double)(real)val(PF_Y, (int)k));
        assert_true(pos[3 * k + 2] == (dim == 2 ? 0.0 : (double)(real)val(PF_Z, (int)k)));
    }
    free(pos);
    free(id);

    /* body: n, int32, -1 for every particle (the info names no bodies); no /bodies */
    double *body = read_dataset(file, "/particles/body", &rank, dims);
    assert_int_equal(rank, 1);
    assert_int_equal(dims[0], n);
    dataset_type(file, "/particles/body", &cls, &size, &sign);
    assert_int_equal(cls, H5T_INTEGER);
    assert_int_equal(size, 4);
    assert_int_equal(sign, H5T_SGN_2);
    for (size_t k = 0; k < n; ++k)
        assert_int_equal((int)body[k], -1);
    free(body);
    assert_false(has_dataset(file, "/bodies"));

    assert_int_equal(has_dataset(file, "/particles/velocity"), !!(fields & OUT_VELOCITY));
    if (fields & OUT_VELOCITY) {
        double *v = read_dataset(file, "/particles/velocity", &rank, dims);
        assert_int_equal(rank, 2);
        assert_int_equal(dims[0], n);
        assert_int_equal(dims[1], 3);
        for (size_t k = 0; k < n; ++k) {
            assert_true(v[3 * k + 0] == (double)(real)val(PF_VX, (int)k));
            assert_true(v[3 * k + 1] == (double)(real)val(PF_VY, (int)k));
            assert_true(v[3 * k + 2] == (dim == 2 ? 0.0 : (double)(real)val(PF_VZ, (int)k)));
        }
        free(v);
    }
    const struct {
        unsigned bit;
        const char *name;
        int field;
    } scalars[] = {{OUT_PRESSURE, "/particles/pressure", PF_P},
                   {OUT_DENSITY, "/particles/density", PF_RHO}};
    for (int s = 0; s < 2; ++s) {
        assert_int_equal(has_dataset(file, scalars[s].name), !!(fields & scalars[s].bit));
        if (!(fields & scalars[s].bit))
            continue;
        double *v = read_dataset(file, scalars[s].name, &rank, dims);
        assert_int_equal(rank, 1);
        assert_int_equal(dims[0], n);
        dataset_type(file, scalars[s].name, &cls, &size, &sign);
        assert_int_equal(cls, H5T_FLOAT);
        assert_int_equal(size, sizeof(real));
        for (size_t k = 0; k < n; ++k)
            assert_true(v[k] == (double)(real)val(scalars[s].field, (int)k));
        free(v);
    }
    assert_int_equal(has_dataset(file, "/particles/type"), !!(fields & OUT_TYPE));
    if (fields & OUT_TYPE) {
        double *t = read_dataset(file, "/particles/type", &rank, dims);
        assert_int_equal(rank, 1);
        assert_int_equal(dims[0], n);
        dataset_type(file, "/particles/type", &cls, &size, &sign);
        assert_int_equal(cls, H5T_INTEGER);
        assert_int_equal(size, 1);
        assert_int_equal(sign, H5T_SGN_NONE);
        for (size_t k = 0; k < n; ++k)
            assert_int_equal((int)t[k], (int)(k % 3));
        free(t);
    }

    /* root attributes */
    assert_true(attr_double(file, "time") == time);
    int64_t step = 0;
    read_attr(file, "step", H5T_NATIVE_INT64, &step);
    assert_true(step == 1234567890123LL);
    int d = 0;
    read_attr(file, "dimension", H5T_NATIVE_INT, &d);
    assert_int_equal(d, dim);
    char s[64];
    attr_string(file, "precision", s, sizeof s);
    assert_string_equal(s, sizeof(real) == sizeof(double) ? "double" : "float");
    attr_string(file, "sluice_version", s, sizeof s);
    assert_true(s[0] != '\0');
    assert_int_equal(H5Fclose(file), 0);
}

static void check_snapshot(const char *path, size_t n, int dim, unsigned fields)
{
    check_snapshot_at(path, n, dim, fields, 0.375);
}

/* ---- snapshots ------------------------------------------------------------------------------ */

static void test_write_3d(void **state)
{
    (void)state;
    particles p;
    make_particles(&p, 37, 1);
    assert_true(shuffled(&p));
    snapshot_info info = make_info(3, OUT_ALL);
    const char *names[] = {"h", "c0"};
    const double values[] = {0.013, 24.5};
    info.nparams = 2;
    info.param_names = names;
    info.param_values = values;
    char path[512];
    in_tmp(path, sizeof path, "snap3d.h5");
    sl_err err = {{0}};
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_OK);
    assert_false(tmp_exists(path));
    check_snapshot(path, 37, 3, OUT_ALL);

    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    assert_true(attr_double(file, "h") == 0.013);
    assert_true(attr_double(file, "c0") == 24.5);
    assert_false(H5Aexists(file, "scene_text") > 0);
    H5Fclose(file);
    particles_free(&p);
}

static void test_write_2d(void **state)
{
    (void)state;
    particles p;
    make_particles(&p, 20, 7);
    assert_true(shuffled(&p));
    snapshot_info info = make_info(2, OUT_ALL);
    char path[512];
    in_tmp(path, sizeof path, "snap2d.h5");
    sl_err err = {{0}};
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_OK);
    assert_false(tmp_exists(path));
    check_snapshot(path, 20, 2, OUT_ALL); /* z columns are 0 although z, vz are not */
    particles_free(&p);
}

static void test_field_mask(void **state)
{
    (void)state;
    particles p;
    make_particles(&p, 11, 3);
    unsigned fields = OUT_PRESSURE | OUT_TYPE; /* no velocity, no density, position/id implied */
    snapshot_info info = make_info(3, fields);
    char path[512];
    in_tmp(path, sizeof path, "mask.h5");
    sl_err err = {{0}};
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_OK);
    check_snapshot(path, 11, 3, fields);
    particles_free(&p);
}

static void test_empty(void **state)
{
    (void)state;
    particles p;
    make_particles(&p, 0, 1);
    snapshot_info info = make_info(3, OUT_ALL);
    char path[512];
    in_tmp(path, sizeof path, "empty.h5");
    sl_err err = {{0}};
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_OK);
    assert_false(tmp_exists(path));
    check_snapshot(path, 0, 3, OUT_ALL);
    particles_free(&p);
}

static void test_bad_ids(void **state)
{
    (void)state;
    particles p;
    make_particles(&p, 9, 5);
    snapshot_info info = make_info(3, OUT_ALL);
    char path[512];
    in_tmp(path, sizeof path, "bad.h5");
    sl_err err = {{0}};

    p.id[4] = p.id[2]; /* a repeated id */
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "permutation"));
    assert_null(strchr(err.msg, '\n'));
    assert_false(exists(path));
    assert_false(tmp_exists(path));

    p.id[4] = 9; /* out of range */
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "permutation"));
    p.id[4] = -1;
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_ERR_RUNTIME);
    assert_false(exists(path));
    assert_false(tmp_exists(path));
    particles_free(&p);
}

/* A derived number named like a fixed attribute is an HDF5 error: one line, no file left. */
static void test_attribute_clash(void **state)
{
    (void)state;
    particles p;
    make_particles(&p, 3, 5);
    snapshot_info info = make_info(3, OUT_ALL);
    const char *names[] = {"time"};
    const double values[] = {1.0};
    info.nparams = 1;
    info.param_names = names;
    info.param_values = values;
    char path[512];
    in_tmp(path, sizeof path, "clash.h5");
    sl_err err = {{0}};
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "attribute"));
    assert_null(strchr(err.msg, '\n'));
    assert_false(exists(path));
    assert_false(tmp_exists(path));
    particles_free(&p);
}

static void test_missing_directory(void **state)
{
    (void)state;
    particles p;
    make_particles(&p, 4, 5);
    snapshot_info info = make_info(3, OUT_ALL);
    char path[512];
    in_tmp(path, sizeof path, "no/such/dir/snap.h5");
    sl_err err = {{0}};
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "No such file or directory"));
    assert_null(strchr(err.msg, '\n'));
    particles_free(&p);
}

/* Overwriting keeps the last write; a write that fails half-way (file size limit: the same path
 * through HDF5 as a full disk) leaves the old file intact and no temporary file. */
static void test_overwrite_and_failure(void **state)
{
    (void)state;
    char path[512];
    in_tmp(path, sizeof path, "over.h5");
    sl_err err = {{0}};
    particles p;
    make_particles(&p, 5, 2);
    snapshot_info info = make_info(3, OUT_ALL);
    info.time = 1.0;
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_OK);
    info.time = 0.375;
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_OK);
    check_snapshot(path, 5, 3, OUT_ALL);
    particles_free(&p);

    make_particles(&p, 40000, 9);
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 64 * 1024;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    info.time = 2.0;
    int st = io_snapshot_write(path, &p, &info, &err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, old_handler);

    assert_int_equal(st, SL_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "File too large"));
    assert_null(strchr(err.msg, '\n'));
    assert_false(tmp_exists(path));
    check_snapshot(path, 5, 3, OUT_ALL); /* the old file, untouched */
    particles_free(&p);
}

static void test_scene_attributes(void **state)
{
    (void)state;
    static char text[] = "simulation: { method = \"wcsph\"; dim = 2; };\n";
    scene sc;
    memset(&sc, 0, sizeof sc);
    strcpy(sc.path, "scenes/dam.cfg");
    sc.text = text;
    strcpy(sc.method, "wcsph");
    sc.dim = 2;
    sc.end_time = 2.5;
    sc.rho0 = 1000.0;
    sc.gravity[1] = -9.81;
    sc.dp = 0.02;
    sc.kernel = KERNEL_CUBIC_SPLINE;
    sc.h_factor = 1.3;
    sc.ndiv = 2;
    sc.ngeom = 3;
    strcpy(sc.out_dir, "out");
    sc.out_interval = 0.05;
    sc.out_fields = OUT_POSITION | OUT_VELOCITY | OUT_ID;

    particles p;
    make_particles(&p, 6, 4);
    snapshot_info info = make_info(2, OUT_ALL);
    info.sc = &sc;
    char path[512];
    in_tmp(path, sizeof path, "scene.h5");
    sl_err err = {{0}};
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_OK);
    check_snapshot(path, 6, 2, OUT_ALL);

    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    assert_true(attr_double(file, "numerics.spacing") == 0.02);
    assert_true(attr_double(file, "numerics.h_factor") == 1.3);
    assert_true(attr_double(file, "simulation.end_time") == 2.5);
    assert_int_equal(attr_npoints(file, "fluid.gravity"), 2);
    double g[2];
    read_attr(file, "fluid.gravity", H5T_NATIVE_DOUBLE, g);
    assert_true(g[0] == 0.0 && g[1] == -9.81);
    int v = 0;
    read_attr(file, "geometry.count", H5T_NATIVE_INT, &v);
    assert_int_equal(v, 3);
    read_attr(file, "numerics.ndiv", H5T_NATIVE_INT, &v);
    assert_int_equal(v, 2);
    assert_false(H5Aexists(file, "simulation.domain_min") > 0); /* domain not set */
    char s[256];
    attr_string(file, "numerics.kernel", s, sizeof s);
    assert_string_equal(s, scene_kernel_name(KERNEL_CUBIC_SPLINE));
    attr_string(file, "simulation.method", s, sizeof s);
    assert_string_equal(s, "wcsph");
    attr_string(file, "output.fields", s, sizeof s);
    assert_string_equal(s, "position,velocity,id");
    attr_string(file, "scene_text", s, sizeof s);
    assert_string_equal(s, text);
    H5Fclose(file);
    particles_free(&p);
}

/* ---- XDMF and series ------------------------------------------------------------------------ */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

static int count_of(const char *text, const char *needle)
{
    int c = 0;
    for (const char *s = strstr(text, needle); s; s = strstr(s + 1, needle))
        ++c;
    return c;
}

/* Checks that tags open and close in a proper nesting (a small XML well-formedness check:
 * no attribute contains '>' in these files). Returns the number of <Grid> elements. */
static int check_nesting(const char *xml)
{
    const char *stack[32];
    size_t stlen[32];
    int depth = 0, grids = 0;
    for (const char *s = strchr(xml, '<'); s; s = strchr(s + 1, '<')) {
        if (s[1] == '?' || s[1] == '!')
            continue; /* declaration, doctype, comment */
        const char *end = strchr(s, '>');
        assert_non_null(end);
        if (s[1] == '/') {
            size_t len = strcspn(s + 2, " >");
            assert_true(depth > 0);
            --depth;
            assert_int_equal(len, stlen[depth]);
            assert_memory_equal(s + 2, stack[depth], len);
        } else if (end[-1] != '/') {
            assert_true(depth < 32);
            stack[depth] = s + 1;
            stlen[depth] = strcspn(s + 1, " />");
            if (stlen[depth] == 4 && memcmp(s + 1, "Grid", 4) == 0)
                ++grids;
            ++depth;
        }
    }
    assert_int_equal(depth, 0);
    return grids;
}

static void test_series(void **state)
{
    (void)state;
    char dir[512];
    in_tmp(dir, sizeof dir, "run/a/b"); /* parents are created */
    io_series s;
    sl_err err = {{0}};
    unsigned fields = OUT_VELOCITY | OUT_PRESSURE | OUT_DENSITY | OUT_TYPE;
    assert_int_equal(io_series_open(&s, dir, fields, &err), SL_OK);
    char xmf[1024], expect[1024];
    io_series_xdmf_path(&s, xmf, sizeof xmf);
    fmt(expect, sizeof expect, "%s/snapshots.xmf", dir);
    assert_string_equal(xmf, expect);

    const size_t ns[3] = {5, 8, 13};
    const double times[3] = {0.0, 0.5, 1.25};
    char prec[32];
    fmt(prec, sizeof prec, "Precision=\"%d\"", (int)sizeof(real));
    for (int k = 0; k < 3; ++k) {
        particles p;
        make_particles(&p, ns[k], (unsigned)k + 11);
        snapshot_info info = make_info(3, fields);
        info.time = times[k];
        assert_int_equal(io_series_write(&s, &p, &info, &err), SL_OK);
        particles_free(&p);
        assert_int_equal(s.count, k + 1);

        char h5[1024];
        fmt(h5, sizeof h5, "%s/snap_%06d.h5", dir, k);
        assert_true(exists(h5));
        assert_false(tmp_exists(h5));
        assert_false(tmp_exists(xmf));

        /* the index is complete after every write */
        char *text = slurp(xmf);
        assert_int_equal(check_nesting(text), k + 2); /* the collection and one grid per entry */
        assert_int_equal(count_of(text, "<Grid"), k + 2);
        assert_int_equal(count_of(text, "</Grid>"), k + 2);
        assert_int_equal(count_of(text, "<Time Value="), k + 1);
        assert_int_equal(count_of(text, "CollectionType=\"Temporal\""), 1);
        assert_int_equal(count_of(text, "TopologyType=\"Polyvertex\""), k + 1);
        assert_int_equal(count_of(text, "Attribute Name=\"velocity\" AttributeType=\"Vector\""),
                         k + 1);
        assert_int_equal(count_of(text, "NumberType=\"UChar\" Precision=\"1\""), k + 1);
        /* id: the attribute and the topology's connectivity; body */
        assert_int_equal(count_of(text, "NumberType=\"Int\" Precision=\"4\""), 3 * (k + 1));
        assert_int_equal(count_of(text, "Attribute Name=\"body\" AttributeType=\"Scalar\""), k + 1);
        assert_int_equal(count_of(text, "</Topology>"), k + 1);
        /* position, velocity, pressure, density; the two id items and body too when real is float */
        assert_int_equal(count_of(text, prec), (k + 1) * (sizeof(real) == 4 ? 7 : 4));
        for (int j = 0; j <= k; ++j) {
            char needle[128];
            fmt(needle, sizeof needle, "snap_%06d.h5:/particles/position", j);
            assert_int_equal(count_of(text, needle), 1);
            fmt(needle, sizeof needle, "NumberOfElements=\"%zu\"", ns[j]);
            assert_int_equal(count_of(text, needle), 1);
            fmt(needle, sizeof needle, "snap_%06d.h5:/particles/id", j);
            assert_int_equal(count_of(text, needle), 2);
            fmt(needle, sizeof needle, "snap_%06d.h5:/particles/body", j);
            assert_int_equal(count_of(text, needle), 1);
            fmt(needle, sizeof needle, "Dimensions=\"%zu 3\"", ns[j]);
            assert_int_equal(count_of(text, needle), 2); /* position, velocity */
            fmt(needle, sizeof needle, "<Time Value=\"%.17g\"/>", times[j]);
            assert_int_equal(count_of(text, needle), 1);
        }
        free(text);
    }
    io_series_close(&s);
}

static void test_series_mask_and_empty(void **state)
{
    (void)state;
    char dir[512];
    in_tmp(dir, sizeof dir, "run2");
    io_series s;
    sl_err err = {{0}};
    assert_int_equal(io_series_open(&s, dir, OUT_DENSITY, &err), SL_OK);
    const size_t ns[3] = {4, 0, 6};
    for (int k = 0; k < 3; ++k) {
        particles p;
        make_particles(&p, ns[k], (unsigned)k + 3);
        snapshot_info info = make_info(2, OUT_ALL); /* the series' fields win */
        info.time = 0.25 * k;
        assert_int_equal(io_series_write(&s, &p, &info, &err), SL_OK);
        particles_free(&p);
    }
    char path[1024];
    fmt(path, sizeof path, "%s/snap_000002.h5", dir);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    assert_false(has_dataset(file, "/particles/velocity"));
    assert_false(has_dataset(file, "/particles/type"));
    assert_true(has_dataset(file, "/particles/density"));
    H5Fclose(file);
    fmt(path, sizeof path, "%s/snap_000001.h5", dir);
    check_snapshot_at(path, 0, 2, OUT_DENSITY, 0.25); /* the empty snapshot exists ... */

    io_series_xdmf_path(&s, path, sizeof path);
    char *text = slurp(path);
    assert_int_equal(check_nesting(text), 3); /* ... but is left out of the index */
    assert_int_equal(count_of(text, "<Time Value="), 2);
    assert_int_equal(count_of(text, "snap_000001.h5:"), 0);
    assert_int_equal(count_of(text, "snap_000001.h5 (time 0.25) has no particles"), 1);
    assert_int_equal(count_of(text, "Dimensions=\"0"), 0);
    assert_int_equal(count_of(text, "Name=\"velocity\""), 0);
    assert_int_equal(count_of(text, "Name=\"type\""), 0);
    assert_int_equal(count_of(text, "Name=\"density\""), 2);
    assert_int_equal(count_of(text, "Name=\"id\""), 2);
    assert_int_equal(count_of(text, "Name=\"body\""), 2);
    free(text);
    io_series_close(&s);
}

/* A snapshot that cannot be written is not listed, and its number is used by the next one. */
static void test_series_failed_write(void **state)
{
    (void)state;
    char dir[512];
    in_tmp(dir, sizeof dir, "run3");
    io_series s;
    sl_err err = {{0}};
    assert_int_equal(io_series_open(&s, dir, OUT_ALL, &err), SL_OK);
    particles p;
    make_particles(&p, 6, 1);
    snapshot_info info = make_info(3, OUT_ALL);
    assert_int_equal(io_series_write(&s, &p, &info, &err), SL_OK);
    int32_t keep = p.id[0];
    p.id[0] = p.id[1];
    assert_int_equal(io_series_write(&s, &p, &info, &err), SL_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "snap_000001.h5"));
    assert_int_equal(s.count, 1);
    p.id[0] = keep;
    info.time = 0.5;
    assert_int_equal(io_series_write(&s, &p, &info, &err), SL_OK);
    assert_int_equal(s.count, 2);
    particles_free(&p);

    char path[1024];
    io_series_xdmf_path(&s, path, sizeof path);
    char *text = slurp(path);
    assert_int_equal(check_nesting(text), 3);
    assert_int_equal(count_of(text, "snap_000001.h5:/particles/position"), 1);
    assert_int_equal(count_of(text, "snap_000002.h5"), 0);
    free(text);
    io_series_close(&s);
}

static void test_series_unwritable(void **state)
{
    (void)state;
    char file[512], dir[600];
    in_tmp(file, sizeof file, "plain_file");
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    fmt(dir, sizeof dir, "%s/sub", file);
    io_series s;
    sl_err err = {{0}};
    assert_int_equal(io_series_open(&s, dir, OUT_ALL, &err), SL_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, dir));
    assert_non_null(strstr(err.msg, "Not a directory"));
    assert_null(strchr(err.msg, '\n'));
    io_series_close(&s);

    /* the directory itself being a regular file */
    assert_int_equal(io_series_open(&s, file, OUT_ALL, &err), SL_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, file));
    assert_non_null(strstr(err.msg, "Not a directory"));
    io_series_close(&s);

    assert_int_equal(io_series_open(&s, "", OUT_ALL, &err), SL_ERR_RUNTIME);
    io_series_close(&s);
}

static void test_xdmf_unwritable(void **state)
{
    (void)state;
    char dir[512];
    in_tmp(dir, sizeof dir, "missing");
    io_series_entry e = {"snap_000000.h5", 0.0, 3, 0};
    sl_err err = {{0}};
    assert_int_equal(io_xdmf_write(dir, "x.xmf", &e, 1, OUT_ALL, &err), SL_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, dir));
    assert_non_null(strstr(err.msg, "x.xmf"));
    assert_non_null(strstr(err.msg, "No such file or directory"));

    /* an empty series is still a well-formed file */
    assert_int_equal(io_xdmf_write(tmpdir, "empty.xmf", NULL, 0, OUT_ALL, &err), SL_OK);
    char path[600];
    in_tmp(path, sizeof path, "empty.xmf");
    char *text = slurp(path);
    assert_int_equal(check_nesting(text), 1);
    free(text);
}

/* ---- floating bodies -------------------------------------------------------------------------- */

/* Reads a whole dataset as doubles and checks its shape (rows, cols; cols 1: rank 1). */
static double *read_shaped(hid_t file, const char *name, size_t rows, size_t cols)
{
    int rank;
    hsize_t dims[2];
    double *v = read_dataset(file, name, &rank, dims);
    assert_int_equal(rank, cols > 1 ? 2 : 1);
    assert_int_equal(dims[0], rows);
    if (cols > 1)
        assert_int_equal(dims[1], cols);
    return v;
}

/* /particles/body in id order from the per-particle array, /bodies row for row (doubles: exact). */
static void test_body_rows(void **state)
{
    (void)state;
    particles p;
    make_particles(&p, 23, 5);
    assert_true(shuffled(&p));
    real body[23];
    for (size_t i = 0; i < p.n; ++i) /* by id: 0, 1 floating bodies, 2 a moving wall, -1 none */
        body[i] = (real)(p.id[i] % 4 == 3 ? -1 : p.id[i] % 4);
    snapshot_body rows[2];
    memset(rows, 0, sizeof rows);
    for (int b = 0; b < 2; ++b) {
        for (int a = 0; a < 3; ++a) {
            rows[b].position[a] = 0.1 * (b + 1) + a;
            rows[b].velocity[a] = -0.5 * b + 0.25 * a;
            rows[b].angular_velocity[a] = 1e-3 * (a + 1) * (b + 1);
            rows[b].force[a] = 12.5 * (a - b);
            rows[b].torque[a] = 1.0 / 3.0 * (b + a);
        }
        double c = cos(0.1 * (b + 1)), sn = sin(0.1 * (b + 1));
        rows[b].orientation[0] = c;
        rows[b].orientation[3] = sn;
        rows[b].mass = 5.0 + b;
        rows[b].item = 3 + 2 * b;
    }
    snapshot_info info = make_info(3, OUT_ALL);
    info.body = body;
    info.nbodies = 2;
    info.bodies = rows;
    char path[512];
    in_tmp(path, sizeof path, "bodies.h5");
    sl_err err = {{0}};
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_OK);
    assert_false(tmp_exists(path));

    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    double *b = read_shaped(file, "/particles/body", p.n, 1);
    for (size_t k = 0; k < p.n; ++k)
        assert_int_equal((int)b[k], k % 4 == 3 ? -1 : (int)(k % 4));
    free(b);
    static const struct {
        const char *name;
        size_t offset, cols;
    } cols[] = {
        {"/bodies/position", offsetof(snapshot_body, position), 3},
        {"/bodies/orientation", offsetof(snapshot_body, orientation), 4},
        {"/bodies/velocity", offsetof(snapshot_body, velocity), 3},
        {"/bodies/angular_velocity", offsetof(snapshot_body, angular_velocity), 3},
        {"/bodies/force", offsetof(snapshot_body, force), 3},
        {"/bodies/torque", offsetof(snapshot_body, torque), 3},
        {"/bodies/mass", offsetof(snapshot_body, mass), 1},
    };
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; ++c) {
        double *v = read_shaped(file, cols[c].name, 2, cols[c].cols);
        for (int r = 0; r < 2; ++r)
            assert_memory_equal(v + r * cols[c].cols, (const char *)&rows[r] + cols[c].offset,
                                cols[c].cols * sizeof(double));
        free(v);
    }
    double *item = read_shaped(file, "/bodies/item", 2, 1);
    assert_true(item[0] == 3 && item[1] == 5);
    free(item);
    H5Fclose(file);

    info.bodies = NULL; /* rows promised but not given */
    assert_int_equal(io_snapshot_write(path, &p, &info, &err), SL_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "2 bodies without their rows"));
    particles_free(&p);
}

/* A small floating scene after a few steps: the snapshot's body field is the simulation's motion
 * field particle for particle, and /bodies holds s->floating's state bit for bit. 2D at spacing
 * 0.02 m (about 600 particles): 5 steps take well under a second; the comparison is exact (the
 * writer copies doubles and writes the body index, a small integer held exactly by a real). */
static void test_floating_scene(void **state)
{
    (void)state;
    static const char text[] =
        "simulation = { method = \"wcsph\"; dimension = 2; end_time = 1.0; };\n"
        "fluid = { gravity = [0.0, -9.81]; sound_speed_coef = 10.0; };\n"
        "numerics = { spacing = 0.02; integrator = \"symplectic\"; viscosity = \"artificial\"; alpha = 0.1; };\n"
        "geometry = (\n"
        "  { type = \"tank\"; min = [0.0, 0.0]; max = [0.8, 0.4]; layers = 3; },\n"
        "  { type = \"fluid\"; min = [0.0, 0.0]; max = [0.8, 0.14]; },\n"
        "  { type = \"obstacle\"; min = [0.2, 0.14]; max = [0.3, 0.24]; layers = 2; floating = { density = 500.0; }; },\n"
        "  { type = \"obstacle\"; min = [0.5, 0.14]; max = [0.6, 0.24]; layers = 2; floating = { density = 700.0; }; } );\n";
    scene sc;
    sim s;
    load_sim_string(text, &sc, &s);
    const floating *fl = s.floating;
    assert_non_null(fl);
    assert_int_equal(fl->n, 2);
    sl_err err = {{0}};
    for (int k = 0; k < 5; ++k) {
        double dt;
        assert_int_equal(sim_time_step(&s, &dt, &err), SL_OK);
        assert_int_equal(sim_step(&s, dt, &err), SL_OK);
        s.step++;
        s.t += dt;
    }
    sim_sync_host(&s);
    snapshot_info info = make_info(2, OUT_ALL);
    snapshot_body *rows = NULL;
    assert_int_equal(io_snapshot_bodies(&s, &info, &rows, &err), SL_OK);
    assert_non_null(rows);
    char path[512];
    in_tmp(path, sizeof path, "floating.h5");
    assert_int_equal(io_snapshot_write(path, &s.p, &info, &err), SL_OK);
    free(rows);

    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    size_t n = s.p.n;
    double *body = read_shaped(file, "/particles/body", n, 1);
    size_t per[2] = {0, 0};
    const real *mb = s.p.f[s.args.motion.body];
    for (size_t i = 0; i < n; ++i) {
        int b = (int)body[s.p.id[i]];
        assert_int_equal(b, (int)mb[i]);
        if (s.p.type[i] == PT_FLUID || s.p.type[i] == PT_WALL) /* fluid and the (fixed) tank */
            assert_int_equal(b, -1);
        else
            assert_true(b == 0 || b == 1);
        if (b >= 0)
            per[b]++;
    }
    assert_true(per[0] > 0 && per[0] == per[1]); /* the same box twice */
    free(body);
    double *x = read_shaped(file, "/bodies/position", 2, 3), *q = read_shaped(file, "/bodies/orientation", 2, 4);
    double *v = read_shaped(file, "/bodies/velocity", 2, 3), *w = read_shaped(file, "/bodies/angular_velocity", 2, 3);
    double *f = read_shaped(file, "/bodies/force", 2, 3), *t = read_shaped(file, "/bodies/torque", 2, 3);
    double *m = read_shaped(file, "/bodies/mass", 2, 1), *item = read_shaped(file, "/bodies/item", 2, 1);
    for (int b = 0; b < 2; ++b) {
        const rigid_body_state *st = &fl->state[b];
        assert_memory_equal(x + 3 * b, st->x, sizeof st->x);
        assert_memory_equal(q + 4 * b, st->q, sizeof st->q);
        assert_memory_equal(v + 3 * b, st->v, sizeof st->v);
        assert_memory_equal(w + 3 * b, st->w, sizeof st->w);
        assert_memory_equal(f + 3 * b, fl->force[b], sizeof fl->force[b]);
        assert_memory_equal(t + 3 * b, fl->torque[b], sizeof fl->torque[b]);
        assert_true(m[b] == fl->props[b].mass);
        assert_int_equal((int)item[b], 2 + b);
        assert_true(fabs(f[3 * b + 1]) > 0); /* the fluid has pushed: a real state, not zeros */
    }
    assert_true(m[1] > m[0]); /* density 700 against 500 */
    free(x), free(q), free(v), free(w), free(f), free(t), free(m), free(item);
    H5Fclose(file);
    sim_free(&s);
    scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_write_3d, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_2d, setup, teardown),
        cmocka_unit_test_setup_teardown(test_field_mask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_attribute_clash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overwrite_and_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_attributes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_series, setup, teardown),
        cmocka_unit_test_setup_teardown(test_series_mask_and_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_series_failed_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_series_unwritable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_xdmf_unwritable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_body_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_floating_scene, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
