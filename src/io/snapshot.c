/* snapshot.c: one HDF5 file per output time, rows in id order. The file is built in memory, written
 * under a temporary name, fsynced and renamed, so that a crash or a full disk never leaves a
 * partial file under the final name. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot.h"

#include "p2m_grid.h"
#include "core/floating.h"
#include "core/motion.h"
#include "core/sim.h"

#include <hdf5.h>

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SLUICE_VERSION
#define SLUICE_VERSION "unknown"
#endif

#define MEM_REAL (sizeof(real) == sizeof(double) ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT)

/* ---- error reporting ------------------------------------------------------------------------ */

/* What went wrong inside HDF5, for the one-line message: the system error a file driver saw
 * when there is one (HDF5 puts "error message = '...'" in its description), else the description
 * of the innermost error on the stack, else errno. HDF5 clears its error stack at the start of
 * every API call, so the stack is read right where a call fails, before any cleanup call; the
 * first failure recorded wins. */
typedef struct h5_reason {
    int set;
    int err_no;
    char sys[160];
    char inner[256];
} h5_reason;

static _Thread_local h5_reason last_error;

static herr_t h5_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    h5_reason *r = data;
    if (!e->desc)
        return 0;
    if (n == 0)
        snprintf(r->inner, sizeof r->inner, "%s", e->desc);
    const char *key = "error message = '";
    const char *s = strstr(e->desc, key);
    if (s && !r->sys[0]) {
        s += strlen(key);
        const char *end = strchr(s, '\'');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len >= sizeof r->sys)
            len = sizeof r->sys - 1;
        memcpy(r->sys, s, len);
        r->sys[len] = '\0';
    }
    return 0;
}

/* Call right after an HDF5 call failed. */
static void note_h5_error(void)
{
    if (last_error.set)
        return;
    last_error.set = 1;
    last_error.err_no = errno;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, h5_walk, &last_error);
}

/* Formats the failure recorded by note_h5_error(). `what` names the step ("writing ..."). */
static int h5_fail(sl_err *err, const char *path, const char *what)
{
    const h5_reason *r = &last_error;
    if (r->sys[0])
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': %s", path, r->sys);
    if (r->inner[0])
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': HDF5 error %s: %s", path, what,
                       r->inner);
    if (r->err_no)
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': %s", path, strerror(r->err_no));
    return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': HDF5 error %s", path, what);
}

/* ---- HDF5 helpers: each returns 0 or -1 and closes what it opened ------------------------- */

static int write_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                         const void *buf)
{
    int rc = -1;
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dset = H5I_INVALID_HID;
    if (space < 0)
        goto out;
    dset = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (dset < 0)
        goto out;
    if (dims[0] > 0 && H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        goto out;
    rc = 0;
out:
    if (rc < 0)
        note_h5_error();
    if (dset >= 0 && H5Dclose(dset) < 0) {
        note_h5_error();
        rc = -1;
    }
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

/* A numeric attribute: a scalar when count is 1, else a 1-D array of count values. */
static int write_attr(hid_t loc, const char *name, hid_t type, size_t count, const void *buf)
{
    int rc = -1;
    hsize_t dims[1] = {count};
    hid_t space = count == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, dims, NULL);
    hid_t attr = H5I_INVALID_HID;
    if (space < 0)
        goto out;
    attr = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0)
        goto out;
    if (H5Awrite(attr, type, buf) < 0)
        goto out;
    rc = 0;
out:
    if (rc < 0)
        note_h5_error();
    if (attr >= 0 && H5Aclose(attr) < 0) {
        note_h5_error();
        rc = -1;
    }
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

static int attr_double(hid_t loc, const char *name, const double *v, size_t count)
{
    return write_attr(loc, name, H5T_NATIVE_DOUBLE, count, v);
}

static int attr_int(hid_t loc, const char *name, int v)
{
    return write_attr(loc, name, H5T_NATIVE_INT, 1, &v);
}

/* A variable-length UTF-8 string (h5py reads it as str; no size limit in the object header). */
static int attr_string(hid_t loc, const char *name, const char *s)
{
    int rc = -1;
    hid_t type = H5Tcopy(H5T_C_S1);
    hid_t space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
    if (type < 0 || H5Tset_size(type, H5T_VARIABLE) < 0 || H5Tset_cset(type, H5T_CSET_UTF8) < 0)
        goto out;
    space = H5Screate(H5S_SCALAR);
    if (space < 0)
        goto out;
    attr = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0)
        goto out;
    if (H5Awrite(attr, type, &s) < 0)
        goto out;
    rc = 0;
out:
    if (rc < 0)
        note_h5_error();
    if (attr >= 0 && H5Aclose(attr) < 0) {
        note_h5_error();
        rc = -1;
    }
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    return rc;
}

/* ---- attributes ----------------------------------------------------------------------------- */

/* Stops at the first failure so that the HDF5 error stack describes it. */
#define TRY(call)          \
    do {                   \
        if ((call) < 0)    \
            return -1;     \
    } while (0)

/* Writes one scene key as a root attribute named "group.key". */
typedef struct attr_ctx {
    hid_t root;
    int failed;
} attr_ctx;

static void write_scene_key(const scene_value *v, void *ctx)
{
    attr_ctx *a = ctx;
    if (a->failed)
        return;
    char name[128];
    snprintf(name, sizeof name, "%s.%s", v->group, v->key);
    int rc = 0;
    switch (v->kind) {
    case SV_REAL:
        rc = attr_double(a->root, name, v->real, (size_t)v->count);
        break;
    case SV_INT:
        rc = attr_int(a->root, name, v->integer);
        break;
    case SV_STRING:
        rc = attr_string(a->root, name, v->string ? v->string : "");
        break;
    }
    a->failed = rc < 0;
}

/* Every scene key under its scene-file name ("group.key"); geometry as its count and the scene text. */
static int write_scene_attrs(hid_t root, const scene *sc)
{
    attr_ctx a = {root, 0};
    scene_visit_keys(sc, write_scene_key, &a);
    if (a.failed)
        return -1;
    TRY(attr_int(root, "geometry.count", sc->ngeom));
    TRY(attr_string(root, "scene_path", sc->path));
    if (sc->text)
        TRY(attr_string(root, "scene_text", sc->text));
    return 0;
}

static int write_root_attrs(hid_t root, const snapshot_info *info)
{
    int64_t step = (int64_t)info->step;
    TRY(attr_double(root, "time", &info->time, 1));
    TRY(write_attr(root, "step", H5T_NATIVE_INT64, 1, &step));
    TRY(attr_int(root, "dimension", info->dim));
    TRY(attr_string(root, "sluice_version", SLUICE_VERSION));
    TRY(attr_string(root, "precision", REAL_NAME));
    if (info->sc && write_scene_attrs(root, info->sc) < 0)
        return -1;
    for (int k = 0; k < info->nparams; ++k)
        if (attr_double(root, info->param_names[k], &info->param_values[k], 1) < 0)
            return -1;
    return 0;
}

/* ---- the particle arrays -------------------------------------------------------------------- */

/* Checks that the ids are a permutation of 0..n-1. Returns 0, or -1 with the message. */
static int check_ids(const particles *p, const char *path, sl_err *err)
{
    if (p->n == 0)
        return 0;
    if (p->n > (size_t)INT32_MAX) {
        sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': %zu particles do not fit 32-bit ids", path,
                p->n);
        return -1;
    }
    unsigned char *seen = calloc(p->n, 1);
    if (!seen) {
        sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': out of memory", path);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < p->n; ++i) {
        int32_t id = p->id[i];
        if (id < 0 || (size_t)id >= p->n || seen[id]) {
            sl_fail(err, SL_ERR_RUNTIME,
                    "cannot write '%s': particle ids are not a permutation of 0..%zu "
                    "(id %ld at index %zu %s)",
                    path, p->n - 1, (long)id, i,
                    id < 0 || (size_t)id >= p->n ? "is out of range" : "is repeated");
            rc = -1;
            break;
        }
        seen[id] = 1;
    }
    free(seen);
    return rc;
}

/* Gathers field(s) into row order: buf[id * ncol + c] = f[first + c][i]; 2D leaves z (c == 2)
 * at zero when zero_z. */
static void gather(const particles *p, int first, int ncol, int zero_z, real *buf)
{
    for (size_t i = 0; i < p->n; ++i) {
        size_t row = (size_t)p->id[i];
        for (int c = 0; c < ncol; ++c)
            buf[row * (size_t)ncol + (size_t)c] =
                zero_z && c == 2 ? (real)0 : p->f[first + c][i];
    }
}

/* /grid: the gridded fields as (nz, ny, nx) arrays in 3D, (ny, nx) in 2D (x fastest, as XDMF reads
 * them), velocity with 3 components per node; the layout as attributes. */
static int write_grid(hid_t file, const p2m_grid *g)
{
    const p2m_layout *L = &g->L;
    int rank = L->dim;
    hsize_t dims[4];
    for (int a = 0; a < rank; ++a)
        dims[a] = (hsize_t)L->n[rank - 1 - a];
    dims[rank] = 3;
    hid_t grp = H5Gcreate2(file, "grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (grp < 0)
        return -1;
    int rc = -1;
    double origin[3] = {L->origin[0], L->origin[1], L->origin[2]};
    int nodes[3] = {L->n[0], L->n[1], L->n[2]};
    double mass = g->fluid_mass;
    const char *method = g->method_used == P2M_MESH ? "mesh" : "particle";
    if (attr_double(grp, "origin", origin, (size_t)L->dim) < 0 ||
        attr_double(grp, "spacing", &L->spacing, 1) < 0 ||
        write_attr(grp, "nodes", H5T_NATIVE_INT, (size_t)L->dim, nodes) < 0 || attr_int(grp, "order", L->order) < 0 ||
        attr_string(grp, "method", method) < 0 || attr_double(grp, "fluid_mass", &mass, 1) < 0)
        goto out;
    if ((g->fields & GRID_DENSITY) && write_dataset(grp, "density", MEM_REAL, rank, dims, g->density) < 0)
        goto out;
    if ((g->fields & GRID_VELOCITY) && write_dataset(grp, "velocity", MEM_REAL, rank + 1, dims, g->velocity) < 0)
        goto out;
    if ((g->fields & GRID_PRESSURE) && write_dataset(grp, "pressure", MEM_REAL, rank, dims, g->pressure) < 0)
        goto out;
    rc = 0;
out:
    if (H5Gclose(grp) < 0)
        rc = -1;
    return rc;
}

/* /bodies: a row per floating body, each quantity a dataset (n, 3), (n, 4) or (n). */
static int write_bodies(hid_t file, int n, const snapshot_body *b)
{
    size_t rows = (size_t)n;
    double *buf = malloc(rows * 4 * sizeof *buf);
    int32_t *items = malloc(rows * sizeof *items);
    hid_t grp = buf && items ? H5Gcreate2(file, "bodies", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : H5I_INVALID_HID;
    int rc = grp < 0 ? -1 : 0;
    static const struct {
        const char *name;
        size_t offset;
        int ncol;
    } cols[] = {
        {"position", offsetof(snapshot_body, position), 3},
        {"orientation", offsetof(snapshot_body, orientation), 4},
        {"velocity", offsetof(snapshot_body, velocity), 3},
        {"angular_velocity", offsetof(snapshot_body, angular_velocity), 3},
        {"force", offsetof(snapshot_body, force), 3},
        {"torque", offsetof(snapshot_body, torque), 3},
        {"mass", offsetof(snapshot_body, mass), 1},
    };
    for (size_t c = 0; rc == 0 && c < sizeof cols / sizeof cols[0]; ++c) {
        for (size_t k = 0; k < rows; ++k)
            memcpy(buf + k * (size_t)cols[c].ncol, (const char *)&b[k] + cols[c].offset,
                   (size_t)cols[c].ncol * sizeof *buf);
        hsize_t dims[2] = {rows, (hsize_t)cols[c].ncol};
        rc = write_dataset(grp, cols[c].name, H5T_NATIVE_DOUBLE, cols[c].ncol > 1 ? 2 : 1, dims, buf);
    }
    if (rc == 0) {
        for (size_t k = 0; k < rows; ++k)
            items[k] = b[k].item;
        hsize_t dims[1] = {rows};
        rc = write_dataset(grp, "item", H5T_NATIVE_INT32, 1, dims, items);
    }
    if (grp >= 0 && H5Gclose(grp) < 0)
        rc = -1;
    free(buf);
    free(items);
    return rc;
}

/* Bytes the file will take, to size the in-memory image in one go (it grows when short). */
static size_t estimate_size(const particles *p, const snapshot_info *info)
{
    size_t per = 3 * sizeof(real) + 2 * sizeof(int32_t); /* position, id, body */
    if (info->fields & OUT_VELOCITY)
        per += 3 * sizeof(real);
    per += (info->fields & OUT_PRESSURE ? sizeof(real) : 0) +
           (info->fields & OUT_DENSITY ? sizeof(real) : 0) + (info->fields & OUT_TYPE ? 1 : 0);
    size_t meta = 64 * 1024 + (info->sc && info->sc->text ? 2 * strlen(info->sc->text) : 0);
    size_t grid = info->grid ? info->grid->nnodes * 5 * sizeof(real) : 0;
    size_t bodies = (size_t)info->nbodies * sizeof(snapshot_body) * 2;
    return p->n * per + meta + grid + bodies;
}

/* Builds the whole file in memory (HDF5's core driver, no backing store) and returns a copy of
 * its image in *image (malloc'd) and *size. Doing the disk I/O ourselves keeps a full disk from
 * failing inside H5Fclose, which HDF5 1.10 cannot recover from (the handle stays half-closed and
 * the library crashes when it shuts down). `name` is the name HDF5 is given, `path` the one used
 * in messages. */
static int build_image(const char *name, const char *path, const particles *p,
                       const snapshot_info *info, void **image, size_t *size, sl_err *err)
{
    size_t n = p->n, m = n ? n : 1;
    unsigned fields = info->fields | OUT_POSITION | OUT_ID;
    int zero_z = info->dim == 2;
    int st = SL_ERR_RUNTIME;
    const char *what = "";
    hid_t fapl = H5I_INVALID_HID, file = H5I_INVALID_HID, grp = H5I_INVALID_HID;
    hsize_t d3[2] = {n, 3}, d1[1] = {n};
    void *img = NULL;
    *image = NULL;
    *size = 0;
    memset(&last_error, 0, sizeof last_error);

    real *rbuf = malloc(3 * m * sizeof *rbuf);
    int32_t *ibuf = malloc(m * sizeof *ibuf);
    uint8_t *tbuf = malloc(m * sizeof *tbuf);
    if (!rbuf || !ibuf || !tbuf) {
        st = sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': out of memory for %zu particles",
                     path, n);
        goto out;
    }

    what = "setting up the in-memory file";
    errno = 0;
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_core(fapl, estimate_size(p, info), 0) < 0)
        goto h5err;
    what = "creating the file";
    errno = 0;
    /* Nothing is created on disk. HDF5 first tries to open an existing file of that name (the
     * core driver would read it whole), hence the temporary name rather than `path`. */
    file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0)
        goto h5err;
    what = "writing the attributes";
    errno = 0;
    if (write_root_attrs(file, info) < 0)
        goto h5err;
    what = "creating /particles";
    errno = 0;
    grp = H5Gcreate2(file, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (grp < 0)
        goto h5err;

    what = "writing /particles/position";
    errno = 0;
    gather(p, PF_X, 3, zero_z, rbuf);
    if (write_dataset(grp, "position", MEM_REAL, 2, d3, rbuf) < 0)
        goto h5err;
    if (fields & OUT_VELOCITY) {
        what = "writing /particles/velocity";
        errno = 0;
        gather(p, PF_VX, 3, zero_z, rbuf);
        if (write_dataset(grp, "velocity", MEM_REAL, 2, d3, rbuf) < 0)
            goto h5err;
    }
    if (fields & OUT_PRESSURE) {
        what = "writing /particles/pressure";
        errno = 0;
        gather(p, PF_P, 1, 0, rbuf);
        if (write_dataset(grp, "pressure", MEM_REAL, 1, d1, rbuf) < 0)
            goto h5err;
    }
    if (fields & OUT_DENSITY) {
        what = "writing /particles/density";
        errno = 0;
        gather(p, PF_RHO, 1, 0, rbuf);
        if (write_dataset(grp, "density", MEM_REAL, 1, d1, rbuf) < 0)
            goto h5err;
    }
    if (fields & OUT_TYPE) {
        what = "writing /particles/type";
        errno = 0;
        for (size_t i = 0; i < n; ++i)
            tbuf[p->id[i]] = p->type[i];
        if (write_dataset(grp, "type", H5T_NATIVE_UINT8, 1, d1, tbuf) < 0)
            goto h5err;
    }
    what = "writing /particles/id";
    errno = 0;
    for (size_t i = 0; i < n; ++i)
        ibuf[p->id[i]] = p->id[i];
    if (write_dataset(grp, "id", H5T_NATIVE_INT32, 1, d1, ibuf) < 0)
        goto h5err;
    what = "writing /particles/body";
    errno = 0;
    for (size_t i = 0; i < n; ++i)
        ibuf[p->id[i]] = info->body && info->body[i] >= 0 ? (int32_t)info->body[i] : -1;
    if (write_dataset(grp, "body", H5T_NATIVE_INT32, 1, d1, ibuf) < 0)
        goto h5err;

    if (info->nbodies > 0) {
        what = "writing /bodies";
        errno = 0;
        if (write_bodies(file, info->nbodies, info->bodies) < 0)
            goto h5err;
    }

    if (info->grid) {
        what = "writing /grid";
        errno = 0;
        if (write_grid(file, info->grid) < 0)
            goto h5err;
    }

    /* The gather buffers are no longer needed: free them before the image is copied. */
    free(rbuf);
    free(ibuf);
    free(tbuf);
    rbuf = NULL;
    ibuf = NULL;
    tbuf = NULL;

    what = "flushing the file";
    errno = 0;
    herr_t closed = H5Gclose(grp);
    grp = H5I_INVALID_HID;
    if (closed < 0 || H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        goto h5err;
    what = "copying the file image";
    errno = 0;
    ssize_t len = H5Fget_file_image(file, NULL, 0);
    if (len <= 0)
        goto h5err;
    img = malloc((size_t)len);
    if (!img) {
        st = sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': out of memory for a %zd-byte image",
                     path, len);
        goto out;
    }
    if (H5Fget_file_image(file, img, (size_t)len) != len)
        goto h5err;
    what = "closing the file";
    errno = 0;
    closed = H5Fclose(file);
    file = H5I_INVALID_HID;
    if (closed < 0)
        goto h5err;
    *image = img;
    *size = (size_t)len;
    img = NULL;
    st = SL_OK;
    goto out;

h5err:
    note_h5_error();
    st = h5_fail(err, path, what);
out:
    if (grp >= 0)
        H5Gclose(grp);
    if (file >= 0)
        H5Fclose(file);
    if (fapl >= 0)
        H5Pclose(fapl);
    free(img);
    free(rbuf);
    free(ibuf);
    free(tbuf);
    return st;
}

/* ---- durability ----------------------------------------------------------------------------- */

/* Writes buf to a new file `name` and fsyncs it. Returns 0, or -1 with errno set. */
static int write_durably(const char *name, const void *buf, size_t len)
{
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        return -1;
    const char *b = buf;
    while (len > 0) {
        size_t chunk = len < ((size_t)1 << 30) ? len : ((size_t)1 << 30);
        ssize_t w = write(fd, b, chunk);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            errno = e;
            return -1;
        }
        b += w;
        len -= (size_t)w;
    }
    if (fsync(fd) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return close(fd);
}

/* fsyncs the directory holding `path`. */
static int fsync_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t len = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(len + 1);
    if (!dir) {
        errno = ENOMEM;
        return -1;
    }
    if (slash)
        memcpy(dir, path, len);
    else
        dir[0] = '.';
    dir[len] = '\0';
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    free(dir);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    /* Some file systems cannot sync a directory; the rename is then as durable as it gets. */
    if (rc < 0 && (errno == EINVAL || errno == EROFS || errno == EBADF))
        rc = 0;
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int io_write_file_atomically(const char *path, const void *buf, size_t len, sl_err *err)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 5);
    if (!tmp)
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': out of memory", path);
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp", 5);
    int st = SL_OK;
    if (write_durably(tmp, buf, len) != 0) {
        st = sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': %s", path, strerror(errno));
        unlink(tmp);
    } else if (rename(tmp, path) != 0) {
        st = sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': rename from '%s': %s", path, tmp,
                     strerror(errno));
        unlink(tmp);
    } else if (fsync_parent(path) != 0) {
        st = sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': fsync of its directory: %s", path,
                     strerror(errno));
    }
    free(tmp);
    return st;
}

/* ---- entry point ---------------------------------------------------------------------------- */

int io_snapshot_write(const char *path, const particles *p, const snapshot_info *info, sl_err *err)
{
    if (!path || !*path)
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write a snapshot: empty file name");
    if (!p || !info)
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': no particles or no info", path);
    if (info->dim != 2 && info->dim != 3)
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': dimension %d is not 2 or 3", path,
                       info->dim);
    if (info->nparams > 0 && (!info->param_names || !info->param_values))
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': %d parameters without names/values",
                       path, info->nparams);
    if (info->nbodies < 0 || (info->nbodies > 0 && !info->bodies))
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': %d bodies without their rows", path, info->nbodies);
    if (check_ids(p, path, err) < 0)
        return SL_ERR_RUNTIME;

    size_t len = strlen(path);
    char *tmp = malloc(len + 5); /* the name HDF5 is given for the in-memory file */
    if (!tmp)
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': out of memory", path);
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);

    /* HDF5 prints its error stack on stderr by default; we report one line instead. */
    H5E_auto2_t old_func = NULL;
    void *old_data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    void *image = NULL;
    size_t size = 0;
    int st = build_image(tmp, path, p, info, &image, &size, err);
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    if (st != SL_OK) {
        free(tmp);
        return st;
    }

    st = io_write_file_atomically(path, image, size, err);
    free(image);
    free(tmp);
    return st;
}

/* ---- from the simulation -------------------------------------------------------------------- */

int io_snapshot_bodies(const sim *s, snapshot_info *info, snapshot_body **buf, sl_err *err)
{
    *buf = NULL;
    info->body = s->motion && s->args.motion.body >= 0 ? s->p.f[s->args.motion.body] : NULL;
    info->nbodies = 0;
    info->bodies = NULL;
    const floating *fl = s->floating;
    if (!fl || fl->n == 0)
        return SL_OK;
    snapshot_body *b = calloc((size_t)fl->n, sizeof *b);
    if (!b)
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the snapshot's %d bodies", fl->n);
    for (int k = 0; k < fl->n; ++k) {
        const rigid_body_state *st = &fl->state[k];
        memcpy(b[k].position, st->x, sizeof b[k].position);
        memcpy(b[k].orientation, st->q, sizeof b[k].orientation);
        memcpy(b[k].velocity, st->v, sizeof b[k].velocity);
        memcpy(b[k].angular_velocity, st->w, sizeof b[k].angular_velocity);
        memcpy(b[k].force, fl->force[k], sizeof b[k].force);
        memcpy(b[k].torque, fl->torque[k], sizeof b[k].torque);
        b[k].mass = fl->props[k].mass;
        b[k].item = s->motion ? s->motion->item[k] : -1;
    }
    info->nbodies = fl->n;
    info->bodies = b;
    *buf = b;
    return SL_OK;
}

/* ---- reading back ---------------------------------------------------------------------------- */

/* Reads a numeric attribute of `count` values into buf (as `type`); -1 when missing or of another
 * size. */
static int read_attr(hid_t loc, const char *name, hid_t type, size_t count, void *buf)
{
    if (H5Aexists(loc, name) <= 0)
        return -1;
    hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    if (attr < 0)
        return -1;
    hid_t space = H5Aget_space(attr);
    hssize_t have = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    int rc = have == (hssize_t)count && H5Aread(attr, type, buf) >= 0 ? 0 : -1;
    if (space >= 0)
        H5Sclose(space);
    H5Aclose(attr);
    return rc;
}

static int grid_matches(hid_t file, const p2m_grid *g)
{
    const p2m_layout *L = &g->L;
    if (H5Lexists(file, "grid", H5P_DEFAULT) <= 0)
        return 0;
    hid_t grp = H5Gopen2(file, "grid", H5P_DEFAULT);
    if (grp < 0)
        return 0;
    int nodes[3] = {0, 0, 0}, order = 0;
    double origin[3] = {0, 0, 0}, spacing = 0;
    int ok = read_attr(grp, "nodes", H5T_NATIVE_INT, (size_t)L->dim, nodes) == 0 &&
             read_attr(grp, "order", H5T_NATIVE_INT, 1, &order) == 0 &&
             read_attr(grp, "origin", H5T_NATIVE_DOUBLE, (size_t)L->dim, origin) == 0 &&
             read_attr(grp, "spacing", H5T_NATIVE_DOUBLE, 1, &spacing) == 0 && order == L->order &&
             spacing == L->spacing;
    for (int a = 0; a < L->dim && ok; ++a)
        ok = nodes[a] == L->n[a] && origin[a] == L->origin[a];
    static const char *const names[] = {"density", "velocity", "pressure"};
    for (int k = 0; k < 3 && ok; ++k)
        if (g->fields & (1u << k))
            ok = H5Lexists(grp, names[k], H5P_DEFAULT) > 0;
    H5Gclose(grp);
    return ok;
}

int io_snapshot_has_grid(const char *path, const p2m_grid *g)
{
    H5E_auto2_t old_func = NULL;
    void *old_data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    int ok = file >= 0 && grid_matches(file, g);
    if (file >= 0)
        H5Fclose(file);
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    return ok;
}
