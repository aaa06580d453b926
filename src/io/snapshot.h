/* snapshot.h: one HDF5 file per output time and the XDMF index that lets ParaView play the series. */
#ifndef SLUICE_SNAPSHOT_H
#define SLUICE_SNAPSHOT_H

#include "base/particles.h"
#include "base/scene.h"
#include "base/status.h"

#include <stddef.h>

struct p2m_grid;
struct sim;

/* One floating body in /bodies (core/floating.h: its state after the step, its force and torque at
 * the step's last force evaluation, as bodies.csv has them). */
typedef struct snapshot_body {
    double position[3];         /* centre of mass, m (z 0 in 2D) */
    double orientation[4];      /* unit quaternion w, x, y, z: the body's turn from its initial placement */
    double velocity[3];         /* of the centre of mass, m/s */
    double angular_velocity[3]; /* rad/s, world axes */
    double force[3];            /* N: the fluid's and the contacts' (gravity not included) */
    double torque[3];           /* N m about the centre of mass */
    double mass;                /* kg */
    int item;                   /* the scene's geometry item it came from (geometry[item]) */
} snapshot_body;

/* What goes into a snapshot besides the particle arrays. */
typedef struct snapshot_info {
    double time;                /* s */
    long step;
    int dim;                    /* 2: z is written as 0 */
    unsigned fields;            /* OUT_* bits; position and id are always written */
    const scene *sc;            /* its keys and text become root attributes */
    int nparams;                /* derived numbers (h, c0, particle mass, ...) written as root attributes */
    const char *const *param_names;
    const double *param_values;
    const struct p2m_grid *grid; /* gridded fields for /grid, or NULL (src/io/p2m_grid.h) */
    const real *body;           /* per particle (p's order): the moving body it belongs to (core/motion.h:
                                 * floating bodies first, numbered as /bodies' rows) as a real, < 0 none;
                                 * NULL: none belongs to a body. Written as /particles/body, -1 for none */
    int nbodies;                /* rows of /bodies; 0: no /bodies group */
    const snapshot_body *bodies;
} snapshot_info;

/* Fills info->body, nbodies and bodies from s (its motion field and floating bodies); *buf gets the
 * malloc'd rows (NULL without floating bodies), to be freed after the write. */
int io_snapshot_bodies(const struct sim *s, snapshot_info *info, snapshot_body **buf, sl_err *err);

/* Writes `path` (an .h5 file): /particles/{position,velocity,pressure,density,type,id,body} with rows
 * in id order, /bodies when info->nbodies > 0, and the root attributes. The file is written as `path` + ".tmp" and renamed, so `path`
 * is either the old file or the complete new one. */
int io_snapshot_write(const char *path, const particles *p, const snapshot_info *info, sl_err *err);

/* Writes buf to path + ".tmp", fsyncs it, renames it over path and fsyncs the directory: path is
 * either its old content or all of buf. On failure the temporary file is removed. */
int io_write_file_atomically(const char *path, const void *buf, size_t len, sl_err *err);

/* A run's series of snapshots in one directory, indexed by an XDMF file. */
typedef struct io_series_entry {
    char file[64];   /* file name relative to the directory */
    double time;
    size_t n;
    int grid;        /* the file holds /grid in the series' grid layout (listed in grid.xmf) */
} io_series_entry;

typedef struct io_series {
    char dir[4096];
    char xdmf_name[64];   /* "snapshots.xmf" */
    unsigned fields;
    struct p2m_grid *grid; /* set by io_series_set_grid: snapshots written from now on have /grid */
    int count, cap;
    io_series_entry *entries;
} io_series;

/* Creates the directory (and parents) when missing and checks that it is writable. */
int io_series_open(io_series *s, const char *dir, unsigned fields, sl_err *err);

/* Declares that every snapshot the series writes carries the gridded fields of g (its layout and
 * fields do not change during a run); the grid's XDMF index grid.xmf is then written beside
 * snapshots.xmf, listing the entries whose `grid` is set. */
void io_series_set_grid(io_series *s, struct p2m_grid *g);

/* After a restart has restored the entries of an earlier run (io_checkpoint_read): sets each
 * entry's `grid` when its file holds /grid in the layout of s->grid, so that grid.xmf lists those
 * only (the earlier run may have had no grid group, or another grid). */
void io_series_find_grids(io_series *s);

/* 1 when the snapshot at `path` has /grid with g's layout (nodes, order, origin, spacing) and every
 * field of g->fields; 0 otherwise, also when the file cannot be read. Prints nothing. */
int io_snapshot_has_grid(const char *path, const struct p2m_grid *g);

/* Writes snapshot number s->count as snap_NNNNNN.h5, then rewrites the XDMF index atomically. */
int io_series_write(io_series *s, const particles *p, const snapshot_info *info, sl_err *err);

/* Lists snapshot number s->count (n particles at `time`) without writing anything: the ranks of an
 * MPI run other than the root, which writes it, keep the same list (it times the checkpoints). */
int io_series_note(io_series *s, size_t n, double time, sl_err *err);

/* Path of the XDMF file (for the summary line). */
void io_series_xdmf_path(const io_series *s, char *buf, size_t len);

void io_series_close(io_series *s);

/* Writes the XDMF index for the entries (atomically: temporary name, then rename). */
int io_xdmf_write(const char *dir, const char *name, const io_series_entry *entries, int count,
                  unsigned fields, sl_err *err);

/* Writes the XDMF index of the gridded fields: a temporal collection of co-rectilinear meshes
 * pointing at /grid of every entry whose `grid` is set (atomically); the others get a comment. */
int io_xdmf_write_grid(const char *dir, const char *name, const io_series_entry *entries, int count,
                       const struct p2m_grid *g, sl_err *err);

#endif
