/* snapshot_compare.c: for the MPI tests: two snapshots of the same scene (one rank, several) must have
 * the same layout (the same datasets under /particles with the same shapes and types, the same
 * attributes of /) and the same particles, ids and types; prints the largest difference of position
 * (in particle spacings dp, from the file's derived.particle_spacing), velocity (m/s), density and
 * pressure (relative to the largest value), and exits 1 when the position differs by more than TOL dp.
 *   usage: snapshot_compare A.h5 B.h5 TOL */
#include <hdf5.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct names {
    char name[64][64];
    int n;
} names;

static herr_t add_name(hid_t loc, const char *name, const H5L_info_t *info, void *data)
{
    (void)loc;
    (void)info;
    names *l = data;
    if (l->n < 64)
        snprintf(l->name[l->n++], 64, "%s", name);
    return 0;
}

static herr_t add_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)loc;
    (void)info;
    return add_name(loc, name, NULL, data);
}

/* A dataset read whole as doubles (rows x width), or NULL; *rows and *width set. */
static double *read_all(hid_t f, const char *name, hsize_t *rows, hsize_t *width, H5T_class_t *cls)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        return NULL;
    hid_t s = H5Dget_space(d), t = H5Dget_type(d);
    hsize_t dims[2] = {0, 1};
    int nd = H5Sget_simple_extent_dims(s, dims, NULL);
    *rows = dims[0];
    *width = nd > 1 ? dims[1] : 1;
    *cls = H5Tget_class(t);
    double *buf = malloc((*rows * *width + 1) * sizeof *buf);
    if (buf && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        buf = NULL;
    }
    H5Tclose(t);
    H5Sclose(s);
    H5Dclose(d);
    return buf;
}

static int fail(const char *what)
{
    printf("snapshot_compare: %s\n", what);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return fail("usage: snapshot_compare A.h5 B.h5 TOL");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    double tol = atof(argv[3]);
    hid_t a = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT), b = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (a < 0 || b < 0)
        return fail("cannot open both files");
    names la = {0}, lb = {0}, aa = {0}, ab = {0};
    H5Literate(a, H5_INDEX_NAME, H5_ITER_INC, NULL, add_name, &la);
    H5Literate(b, H5_INDEX_NAME, H5_ITER_INC, NULL, add_name, &lb);
    hid_t ga = H5Gopen2(a, "particles", H5P_DEFAULT), gb = H5Gopen2(b, "particles", H5P_DEFAULT);
    names pa = {0}, pb = {0};
    H5Literate(ga, H5_INDEX_NAME, H5_ITER_INC, NULL, add_name, &pa);
    H5Literate(gb, H5_INDEX_NAME, H5_ITER_INC, NULL, add_name, &pb);
    H5Aiterate2(a, H5_INDEX_NAME, H5_ITER_INC, NULL, add_attr, &aa);
    H5Aiterate2(b, H5_INDEX_NAME, H5_ITER_INC, NULL, add_attr, &ab);
    if (memcmp(&la, &lb, sizeof la) || memcmp(&pa, &pb, sizeof pa) || memcmp(&aa, &ab, sizeof aa))
        return fail("the files hold different groups, datasets or attributes");
    double dp = 0;
    hid_t at = H5Aopen(a, "derived.particle_spacing", H5P_DEFAULT);
    if (at < 0 || H5Aread(at, H5T_NATIVE_DOUBLE, &dp) < 0 || !(dp > 0))
        return fail("no derived.particle_spacing attribute");
    H5Aclose(at);
    double worst[4] = {0, 0, 0, 0}; /* position / dp, velocity, density, pressure (relative) */
    for (int k = 0; k < pa.n; ++k) {
        char path[128];
        snprintf(path, sizeof path, "/particles/%s", pa.name[k]);
        hsize_t ra, wa, rb, wb;
        H5T_class_t ca, cb;
        double *x = read_all(a, path, &ra, &wa, &ca), *y = read_all(b, path, &rb, &wb, &cb);
        if (!x || !y || ra != rb || wa != wb || ca != cb) {
            printf("snapshot_compare: %s differs in shape or type\n", path);
            return 1;
        }
        int exact = !strcmp(pa.name[k], "id") || !strcmp(pa.name[k], "type") || !strcmp(pa.name[k], "body");
        int slot = !strcmp(pa.name[k], "position") ? 0 : !strcmp(pa.name[k], "velocity") ? 1
                 : !strcmp(pa.name[k], "density") ? 2 : !strcmp(pa.name[k], "pressure") ? 3 : -1;
        double scale = 0;
        for (hsize_t i = 0; i < ra * wa; ++i)
            scale = fmax(scale, fabs(x[i]));
        for (hsize_t i = 0; i < ra * wa; ++i) {
            double d = fabs(x[i] - y[i]);
            if (exact && d != 0) {
                printf("snapshot_compare: %s differs at row %llu\n", path, (unsigned long long)(i / wa));
                return 1;
            }
            if (slot == 0)
                d /= dp;
            else if (slot >= 2)
                d /= scale > 0 ? scale : 1;
            if (slot >= 0 && !(d <= worst[slot])) /* NaN is the worst */
                worst[slot] = d == d ? d : INFINITY;
        }
        free(x);
        free(y);
    }
    printf("max |dx| = %.3g dp, max |dv| = %.3g m/s, max |drho|/rho = %.3g, max |dp|/p_max = %.3g\n", worst[0],
           worst[1], worst[2], worst[3]);
    H5Gclose(ga);
    H5Gclose(gb);
    H5Fclose(a);
    H5Fclose(b);
    if (!(worst[0] <= tol)) {
        printf("snapshot_compare: positions differ by %.3g dp, more than %.3g dp\n", worst[0], tol);
        return 1;
    }
    return 0;
}
