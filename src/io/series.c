/* series.c: a run's snapshots in one directory (snap_NNNNNN.h5) and their XDMF index. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Room kept after the directory for "/snap_NNNNNNNNNN.h5.tmp" and the like. */
#define NAME_ROOM 64

/* mkdir -p: creates every missing component of `dir` (modified in place and restored). */
static int make_dirs(char *dir)
{
    size_t len = strlen(dir);
    for (size_t i = 1; i <= len; ++i) {
        if (dir[i] != '/' && dir[i] != '\0')
            continue;
        if (dir[i - 1] == '/')
            continue; /* "a//b" or a trailing slash */
        char c = dir[i];
        dir[i] = '\0';
        int rc = mkdir(dir, 0777);
        int e = errno;
        if (rc != 0 && e == EEXIST) {
            struct stat st;
            if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
                rc = 0;
            else
                e = ENOTDIR;
        }
        dir[i] = c;
        if (rc != 0) {
            errno = e;
            return -1;
        }
    }
    return 0;
}

/* buf = dir/name; returns -1 when it does not fit (buf then holds a truncated path). */
static int join(char *buf, size_t len, const char *dir, const char *name)
{
    size_t dl = strlen(dir);
    int w = snprintf(buf, len, "%s%s%s", dir, dl > 0 && dir[dl - 1] != '/' ? "/" : "", name);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

int io_series_open(io_series *s, const char *dir, unsigned fields, sl_err *err)
{
    memset(s, 0, sizeof *s);
    if (!dir || !*dir)
        return sl_fail(err, SL_ERR_RUNTIME, "output directory '': empty path");
    if (strlen(dir) + NAME_ROOM >= sizeof s->dir)
        return sl_fail(err, SL_ERR_RUNTIME, "output directory '%.200s...': path too long", dir);
    strcpy(s->dir, dir);
    strcpy(s->xdmf_name, "snapshots.xmf");
    s->fields = fields | OUT_POSITION | OUT_ID;

    if (make_dirs(s->dir) != 0)
        return sl_fail(err, SL_ERR_RUNTIME, "output directory '%s': cannot create: %s", dir,
                       strerror(errno));

    /* Writable? Permission bits do not tell (root, read-only mounts, ACLs): try it. */
    char probe[sizeof s->dir];
    char name[NAME_ROOM];
    snprintf(name, sizeof name, ".sluice_probe_%ld", (long)getpid());
    if (join(probe, sizeof probe, s->dir, name) != 0)
        return sl_fail(err, SL_ERR_RUNTIME, "output directory '%s': path too long", dir);
    int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        return sl_fail(err, SL_ERR_RUNTIME, "output directory '%s': not writable: %s", dir,
                       strerror(errno));
    close(fd);
    if (unlink(probe) != 0)
        return sl_fail(err, SL_ERR_RUNTIME, "output directory '%s': cannot remove '%s': %s", dir,
                       probe, strerror(errno));
    return SL_OK;
}

/* The entry of snapshot number s->count (not yet counted), or NULL with the message in err. */
static io_series_entry *next_entry(io_series *s, size_t n, double time, sl_err *err)
{
    if (s->count >= 999999999) {
        sl_fail(err, SL_ERR_RUNTIME, "output directory '%s': too many snapshots", s->dir);
        return NULL;
    }
    if (s->count == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        io_series_entry *e = realloc(s->entries, (size_t)cap * sizeof *e);
        if (!e) {
            sl_fail(err, SL_ERR_RUNTIME, "output directory '%s': out of memory", s->dir);
            return NULL;
        }
        s->entries = e;
        s->cap = cap;
    }
    io_series_entry *e = &s->entries[s->count];
    memset(e, 0, sizeof *e);
    snprintf(e->file, sizeof e->file, "snap_%06d.h5", s->count);
    e->time = time;
    e->n = n;
    e->grid = s->grid != NULL;
    return e;
}

int io_series_note(io_series *s, size_t n, double time, sl_err *err)
{
    if (!next_entry(s, n, time, err))
        return SL_ERR_RUNTIME;
    s->count++;
    return SL_OK;
}

int io_series_write(io_series *s, const particles *p, const snapshot_info *info, sl_err *err)
{
    io_series_entry *e = next_entry(s, p->n, info->time, err);
    if (!e)
        return SL_ERR_RUNTIME;

    /* The index lists the series' fields, so the snapshot must hold exactly those. */
    snapshot_info inf = *info;
    inf.fields = s->fields;
    inf.grid = s->grid;
    char path[sizeof s->dir + NAME_ROOM];
    if (join(path, sizeof path, s->dir, e->file) != 0)
        return sl_fail(err, SL_ERR_RUNTIME, "output directory '%s': path too long", s->dir);
    int st = io_snapshot_write(path, p, &inf, err);
    if (st != SL_OK)
        return st;
    s->count++;
    /* A failed index leaves the snapshot listed; the next write rewrites the index. */
    st = io_xdmf_write(s->dir, s->xdmf_name, s->entries, s->count, s->fields, err);
    if (st == SL_OK && s->grid)
        st = io_xdmf_write_grid(s->dir, "grid.xmf", s->entries, s->count, s->grid, err);
    return st;
}

void io_series_set_grid(io_series *s, struct p2m_grid *g)
{
    s->grid = g;
}

void io_series_find_grids(io_series *s)
{
    for (int k = 0; k < s->count; ++k) {
        io_series_entry *e = &s->entries[k];
        char path[sizeof s->dir + NAME_ROOM];
        e->grid = s->grid && join(path, sizeof path, s->dir, e->file) == 0 && io_snapshot_has_grid(path, s->grid);
    }
}

void io_series_xdmf_path(const io_series *s, char *buf, size_t len)
{
    if (len > 0 && join(buf, len, s->dir, s->xdmf_name) != 0)
        buf[0] = '\0'; /* never hand out a truncated path */
}

void io_series_close(io_series *s)
{
    free(s->entries);
    s->entries = NULL;
    s->count = s->cap = 0;
}
