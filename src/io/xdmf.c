/* xdmf.c: the XDMF 3 index of a snapshot series, a temporal collection of point clouds that
 * ParaView opens directly. Entries without particles are left out (ParaView cannot read
 * zero-sized data items), and from the grid's index those without /grid; a comment records each
 * one left out. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot.h"

#include "p2m_grid.h"
#include "base/real.h"
#include "base/scene.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes s with the five XML special characters escaped. */
static void put_escaped(FILE *f, const char *s)
{
    for (; *s; ++s) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

/* One snapshot's /grid as a co-rectilinear mesh: Dimensions and the origin/spacing are slowest axis
 * first (z y x), as XDMF wants them. A 2D grid is written as a 3D one a single node thick (z = 0):
 * ParaView's Xdmf3 readers load 2DCoRectMesh as an empty grid. */
static void put_grid_mesh(FILE *f, const io_series_entry *e, const p2m_grid *g)
{
    const p2m_layout *L = &g->L;
    const int rp = (int)sizeof(real);
    char dims[64], dims3[80];
    snprintf(dims, sizeof dims, "%d %d %d", L->dim == 3 ? L->n[2] : 1, L->n[1], L->n[0]);
    snprintf(dims3, sizeof dims3, "%s 3", dims);
    double origin[3] = {L->origin[0], L->origin[1], L->dim == 3 ? L->origin[2] : 0.0};
    fputs("      <Grid Name=\"", f);
    put_escaped(f, e->file);
    fputs("\" GridType=\"Uniform\">\n", f);
    fprintf(f, "        <Time Value=\"%.17g\"/>\n", e->time);
    fprintf(f, "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"%s\"/>\n", dims);
    fputs("        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n", f);
    fprintf(f, "          <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">%.17g %.17g "
               "%.17g</DataItem>\n", origin[2], origin[1], origin[0]);
    fprintf(f, "          <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">%.17g %.17g "
               "%.17g</DataItem>\n", L->spacing, L->spacing, L->spacing);
    fputs("        </Geometry>\n", f);
    static const char *const names[] = {"density", "velocity", "pressure"};
    for (int k = 0; k < 3; ++k) {
        if (!(g->fields & (1u << k)))
            continue;
        fprintf(f, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n", names[k],
                k == 1 ? "Vector" : "Scalar");
        fprintf(f, "          <DataItem Dimensions=\"%s\" NumberType=\"Float\" Precision=\"%d\" Format=\"HDF\">",
                k == 1 ? dims3 : dims, rp);
        put_escaped(f, e->file);
        fprintf(f, ":/grid/%s</DataItem>\n        </Attribute>\n", names[k]);
    }
    fputs("      </Grid>\n", f);
}

/* <DataItem> for /particles/<dset> in `file`; ncol 1 gives Dimensions="n", else "n ncol". */
static void put_item(FILE *f, const io_series_entry *e, const char *dset, int ncol,
                     const char *numtype, int precision)
{
    fprintf(f, "          <DataItem Dimensions=\"%zu", e->n);
    if (ncol > 1)
        fprintf(f, " %d", ncol);
    fprintf(f, "\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">", numtype, precision);
    put_escaped(f, e->file);
    fprintf(f, ":/particles/%s</DataItem>\n", dset);
}

static void put_attribute(FILE *f, const io_series_entry *e, const char *name, const char *kind,
                          int ncol, const char *numtype, int precision)
{
    fprintf(f, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n", name, kind);
    put_item(f, e, name, ncol, numtype, precision);
    fputs("        </Attribute>\n", f);
}

static void put_grid(FILE *f, const io_series_entry *e, unsigned fields)
{
    const int rp = (int)sizeof(real);
    fputs("      <Grid Name=\"", f);
    put_escaped(f, e->file);
    fputs("\" GridType=\"Uniform\">\n", f);
    fprintf(f, "        <Time Value=\"%.17g\"/>\n", e->time);
    fprintf(f,
            "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%zu\" "
            "NodesPerElement=\"1\">\n",
            e->n);
    /* One vertex cell per particle: the connectivity is 0..n-1, which is exactly the id column
     * (rows are in id order). Without it ParaView makes points but no cells, and draws nothing. */
    put_item(f, e, "id", 1, "Int", 4);
    fputs("        </Topology>\n", f);
    fputs("        <Geometry GeometryType=\"XYZ\">\n", f);
    put_item(f, e, "position", 3, "Float", rp);
    fputs("        </Geometry>\n", f);
    if (fields & OUT_VELOCITY)
        put_attribute(f, e, "velocity", "Vector", 3, "Float", rp);
    if (fields & OUT_PRESSURE)
        put_attribute(f, e, "pressure", "Scalar", 1, "Float", rp);
    if (fields & OUT_DENSITY)
        put_attribute(f, e, "density", "Scalar", 1, "Float", rp);
    if (fields & OUT_TYPE)
        put_attribute(f, e, "type", "Scalar", 1, "UChar", 1);
    put_attribute(f, e, "id", "Scalar", 1, "Int", 4);
    put_attribute(f, e, "body", "Scalar", 1, "Int", 4); /* the floating body of each particle, -1: none */
    fputs("      </Grid>\n", f);
}

/* A comment for an entry left out; "--" may not appear inside an XML comment. */
static void put_skipped(FILE *f, const io_series_entry *e)
{
    fputs("      <!-- ", f);
    if (!strstr(e->file, "--"))
        fprintf(f, "%s ", e->file);
    fprintf(f, "(time %.17g) has no particles: left out, ParaView cannot read empty arrays -->\n",
            e->time);
}

/* A comment for a snapshot without this grid (written before a restart that added the grid group,
 * or with another grid): listing it would make ParaView fail on the missing /grid. */
static void put_no_grid(FILE *f, const io_series_entry *e)
{
    fputs("      <!-- ", f);
    if (!strstr(e->file, "--"))
        fprintf(f, "%s ", e->file);
    fprintf(f, "(time %.17g) has no /grid of this layout: left out -->\n", e->time);
}

static int sync_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir) {
        errno = ENOMEM;
        return -1;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    free(dir);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    if (rc < 0 && (errno == EINVAL || errno == EROFS || errno == EBADF))
        rc = 0; /* the file system cannot sync directories */
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

static int write_index(const char *dir, const char *name, const io_series_entry *entries, int count,
                       unsigned fields, const p2m_grid *grid, sl_err *err)
{
    if (!dir || !name || !*name)
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write the XDMF index: no directory or name");
    if (count < 0 || (count > 0 && !entries))
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write the XDMF index '%s': no entries", name);

    size_t dl = strlen(dir), nl = strlen(name);
    int sep = dl > 0 && dir[dl - 1] != '/';
    char *path = malloc(dl + (size_t)sep + nl + 1);
    char *tmp = malloc(dl + (size_t)sep + nl + 5);
    if (!path || !tmp) {
        free(path);
        free(tmp);
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write the XDMF index '%s': out of memory", name);
    }
    sprintf(path, "%s%s%s", dir, sep ? "/" : "", name);
    sprintf(tmp, "%s.tmp", path);

    int st = SL_OK;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        st = sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': %s", path, strerror(errno));
        goto out;
    }
    errno = 0; /* a failed buffered write leaves its errno for the check below */
    fputs("<?xml version=\"1.0\" ?>\n"
          "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
          "<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"
          "  <Domain>\n"
          "    <Grid Name=\"",
          f);
    fputs(grid ? "grid" : "particles", f);
    fputs("\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", f);
    for (int k = 0; k < count; ++k) {
        if (grid && entries[k].grid)
            put_grid_mesh(f, &entries[k], grid);
        else if (grid)
            put_no_grid(f, &entries[k]);
        else if (entries[k].n == 0)
            put_skipped(f, &entries[k]);
        else
            put_grid(f, &entries[k], fields);
    }
    fputs("    </Grid>\n"
          "  </Domain>\n"
          "</Xdmf>\n",
          f);

    int bad = ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0;
    int e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        st = sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': %s", path,
                     e ? strerror(e) : "write error");
        unlink(tmp);
        goto out;
    }
    if (rename(tmp, path) != 0) {
        st = sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': rename from '%s': %s", path, tmp,
                     strerror(errno));
        unlink(tmp);
        goto out;
    }
    if (sync_dir_of(path) != 0)
        st = sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': fsync of its directory: %s", path,
                     strerror(errno));
out:
    free(path);
    free(tmp);
    return st;
}

int io_xdmf_write(const char *dir, const char *name, const io_series_entry *entries, int count,
                  unsigned fields, sl_err *err)
{
    return write_index(dir, name, entries, count, fields, NULL, err);
}

int io_xdmf_write_grid(const char *dir, const char *name, const io_series_entry *entries, int count,
                       const p2m_grid *g, sl_err *err)
{
    if (!g)
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write the grid index '%s': no grid", name ? name : "");
    return write_index(dir, name, entries, count, 0, g, err);
}
