/* snapshot_check.c: for the command-line test: exits 0 when every file named is a readable snapshot
 * (HDF5 opens it and reads /particles/position, /particles/id and /particles/body whole, with as many
 * rows), and with
 * --grid also holds /grid with at least one gridded field read whole; else prints the first bad file
 * and exits 1.   usage: snapshot_check [--grid] FILE.h5... */
#include <hdf5.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rows_of(hid_t f, const char *name, size_t width)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        return -1;
    hid_t s = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    long rows = -1;
    if (s >= 0 && H5Sget_simple_extent_dims(s, dims, NULL) >= 1) {
        double *buf = malloc((dims[0] ? dims[0] : 1) * width * sizeof *buf);
        if (buf && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
            rows = (long)dims[0];
        free(buf);
    }
    if (s >= 0)
        H5Sclose(s);
    H5Dclose(d);
    return rows;
}

/* Values read from a whole dataset of any shape, or -1. */
static long values_of(hid_t f, const char *name)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        return -1;
    hid_t s = H5Dget_space(d);
    hssize_t count = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    long got = -1;
    if (count > 0) {
        double *buf = malloc((size_t)count * sizeof *buf);
        if (buf && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
            got = (long)count;
        free(buf);
    }
    if (s >= 0)
        H5Sclose(s);
    H5Dclose(d);
    return got;
}

/* Every field /grid holds is read whole, and it holds at least one. */
static int has_grid(hid_t f)
{
    if (H5Lexists(f, "/grid", H5P_DEFAULT) <= 0)
        return 0;
    static const char *const names[] = {"/grid/density", "/grid/velocity", "/grid/pressure"};
    int found = 0;
    for (int k = 0; k < 3; ++k) {
        if (H5Lexists(f, names[k], H5P_DEFAULT) <= 0)
            continue;
        if (values_of(f, names[k]) <= 0)
            return 0;
        ++found;
    }
    return found > 0;
}

int main(int argc, char **argv)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int grid = argc > 1 && strcmp(argv[1], "--grid") == 0;
    for (int k = 1 + grid; k < argc; ++k) {
        hid_t f = H5Fopen(argv[k], H5F_ACC_RDONLY, H5P_DEFAULT);
        long pos = f >= 0 ? rows_of(f, "/particles/position", 3) : -1;
        long id = f >= 0 ? rows_of(f, "/particles/id", 1) : -1;
        long body = f >= 0 ? rows_of(f, "/particles/body", 1) : -1;
        int grid_ok = !grid || (f >= 0 && has_grid(f));
        if (f >= 0)
            H5Fclose(f);
        if (pos < 0 || id != pos || body != pos) {
            printf("%s: not a readable snapshot\n", argv[k]);
            return 1;
        }
        if (!grid_ok) {
            printf("%s: no readable /grid\n", argv[k]);
            return 1;
        }
    }
    return 0;
}
