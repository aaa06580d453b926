/* probes.c: samples the scene's probes after steps and appends them to DIR/probes.csv, one row per
 * probe interval. Rows are appended with one write() each and nothing is buffered in the process,
 * so a kill -9 leaves every finished row; a failed write (full disk, file size limit) is cut back
 * to the last whole row and stops the run. The per-particle math is in physics/probe_sample.h. */
#define _POSIX_C_SOURCE 200809L

#include "probes.h"

#include "file_read.h"

#include "schemes/mps/mps.h"
#include "physics/probe_sample.h"
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ROW_MAX 64 /* bytes per number in a row, generously */
#define NO_FILE (-1) /* resume_file(): nothing to continue */

static int has_cg(const scene *sc)
{
    return strcmp(sc->method, "mps") == 0;
}

static int ncolumns(const scene *sc)
{
    const scene_probes *pr = &sc->probes;
    return 2 + pr->npressure + pr->ngauges + (pr->front != FRONT_NONE) + 3 * (pr->energy != 0) + 2 * has_cg(sc);
}

/* Appends to buf at *at (bounded). */
static void put(char *buf, size_t len, size_t *at, const char *fmt, const char *a, const char *b)
{
    if (*at >= len)
        return;
    int w = snprintf(buf + *at, len - *at, fmt, a, b);
    if (w > 0)
        *at += (size_t)w;
}

int io_probes_header(const scene *sc, char *buf, size_t len)
{
    const scene_probes *pr = &sc->probes;
    /* 2D quantities of the whole fluid are per metre of depth */
    const char *kg = sc->dim == 2 ? "kg/m" : "kg", *joule = sc->dim == 2 ? "J/m" : "J";
    size_t at = 0;
    buf[0] = '\0';
    put(buf, len, &at, "time[s],step", "", "");
    for (int i = 0; i < pr->npressure; ++i)
        put(buf, len, &at, ",%s%s[Pa]", pr->pressure[i].name, "");
    for (int i = 0; i < pr->ngauges; ++i)
        put(buf, len, &at, ",%s%s[m]", pr->gauges[i].name, "");
    if (pr->front != FRONT_NONE)
        put(buf, len, &at, ",front%s%s[m]", "", "");
    if (pr->energy) {
        put(buf, len, &at, ",mass[%s]%s", kg, "");
        put(buf, len, &at, ",kinetic_energy[%s]%s", joule, "");
        put(buf, len, &at, ",potential_energy[%s]%s", joule, "");
    }
    if (has_cg(sc))
        put(buf, len, &at, ",cg_iterations%s%s,cg_residual", "", "");
    return ncolumns(sc);
}

void io_probes_sample(const sim *s, double *values)
{
    const scene *sc = s->sc;
    const scene_probes *pr = &sc->probes;
    const particles *p = &s->p;
    const sim_params *P = &s->P;
    int dim = sc->dim, up = dim - 1;
    double sw[SCENE_PROBES_MAX] = {0}, swp[SCENE_PROBES_MAX] = {0}, level[SCENE_PROBES_MAX];
    double ke = 0.0, pe = 0.0, front = -INFINITY;
    size_t nfluid = 0;
    int axis = 0, sign = 1;
    if (pr->front != FRONT_NONE) {
        axis = (pr->front - 1) / 2;
        sign = (pr->front - 1) % 2 ? -1 : 1;
    }
    for (int g = 0; g < pr->ngauges; ++g)
        level[g] = -INFINITY;
    /* The scene's SPH kernel, also for MPS (whose own weights are not normalised interpolants). */
    double h = sc->h_factor * sc->dp;
    real norm = (real)sph_kernel_norm(sc->kernel, dim, h), inv_h = (real)(1.0 / h), r2 = (real)(4.0 * h * h);
    /* One serial pass in particle order: a sample costs O(N) per probe, a few per thousand steps, and a
     * fixed order keeps the rows identical for any thread count and across a restart. */
    for (size_t i = 0; i < p->n; ++i) {
        if (p->type[i] != PT_FLUID)
            continue;
        ++nfluid;
        real x = p->f[PF_X][i], y = p->f[PF_Y][i], z = dim == 3 ? p->f[PF_Z][i] : R(0.0);
        real xv[3] = {x, y, z};
        for (int k = 0; k < pr->npressure; ++k) {
            const double *a = pr->pressure[k].at;
            probe_pressure_add(sc->kernel, norm, inv_h, r2, (real)a[0] - x, (real)a[1] - y,
                               dim == 3 ? (real)a[2] - z : R(0.0), P->mass, p->f[PF_RHO][i], p->f[PF_P][i], &sw[k],
                               &swp[k]);
        }
        for (int g = 0; g < pr->ngauges; ++g) {
            const double *a = pr->gauges[g].at;
            real dx = (real)a[0] - x, dy = dim == 3 ? (real)a[1] - y : R(0.0);
            probe_level_add(dx * dx + dy * dy, P->dp, xv[up], &level[g]);
        }
        if (pr->front != FRONT_NONE)
            probe_front_add(xv[axis], sign, P->dp, &front);
        if (pr->energy)
            probe_energy_add(P->mass, p->f[PF_VX][i], p->f[PF_VY][i], dim == 3 ? p->f[PF_VZ][i] : R(0.0), x, y, z,
                             P->g, &ke, &pe);
    }
    int c = 0;
    values[c++] = s->t;
    values[c++] = (double)s->step;
    for (int k = 0; k < pr->npressure; ++k)
        values[c++] = probe_pressure_value(sw[k], swp[k]);
    for (int g = 0; g < pr->ngauges; ++g)
        values[c++] = isfinite(level[g]) ? level[g] : NAN; /* dry */
    if (pr->front != FRONT_NONE)
        values[c++] = isfinite(front) ? sign * front : NAN;
    if (pr->energy) {
        values[c++] = (double)nfluid * (double)P->mass;
        values[c++] = ke;
        values[c++] = pe;
    }
    if (has_cg(sc)) {
        mps_stats st;
        if (mps_get_stats(s, &st) == 0) {
            values[c++] = st.cg_last_iterations;
            values[c++] = st.cg_last_residual;
        } else {
            values[c++] = NAN;
            values[c++] = NAN;
        }
    }
}

int io_probes_init(io_probes *pr, const scene *sc, const char *dir, int restart, sl_err *err)
{
    memset(pr, 0, sizeof *pr);
    pr->fd = -1;
    pr->sc = sc;
    pr->restart = restart;
    pr->interval = sc->probes.interval > 0 ? sc->probes.interval : sc->out_interval;
    size_t dl = strlen(dir);
    int w = snprintf(pr->path, sizeof pr->path, "%s%sprobes.csv", dir, dl > 0 && dir[dl - 1] != '/' ? "/" : "");
    if (w < 0 || (size_t)w >= sizeof pr->path)
        return sl_fail(err, SL_ERR_RUNTIME, "output directory '%.200s...': path too long", dir);
    pr->ncols = ncolumns(sc);
    pr->values = malloc((size_t)pr->ncols * sizeof *pr->values);
    if (!pr->values)
        return sl_fail(err, SL_ERR_RUNTIME, "probes: out of memory");
    return SL_OK;
}

/* The next row index after a row at time t. */
static long next_after(double t, double interval)
{
    return (long)floor(t / interval + 1e-9) + 1;
}

/* Reads the whole file (malloc'd, NUL-terminated); NULL with errno set on failure. */
static char *read_all(const char *path, size_t *len)
{
    char *buf;
    int e = io_read_whole_file(path, (size_t)-1 / 2, &buf, len);
    if (e) {
        errno = e;
        return NULL;
    }
    return buf;
}

/* Continuing at time t: keeps the header and the rows before t (the run that wrote the file sampled
 * time t after its checkpoint, and the continued run samples it again), rewrites the file
 * atomically, and sets next_k as that run had it. A file of other columns is refused. */
static int resume_file(io_probes *pr, double t, const char *header, sl_err *err)
{
    size_t len = 0;
    char *text = read_all(pr->path, &len);
    if (!text) {
        if (errno != ENOENT)
            return sl_fail(err, SL_ERR_RUNTIME, "cannot read '%s': %s", pr->path, strerror(errno));
        return NO_FILE;
    }
    size_t hl = strlen(header);
    if (len < hl + 1 || strncmp(text, header, hl) != 0 || text[hl] != '\n') {
        free(text);
        return sl_fail(err, SL_ERR_RUNTIME,
                       "cannot continue '%s': its columns are not those of the scene's probes (move the file away "
                       "to start a new one)",
                       pr->path);
    }
    size_t keep = hl + 1;
    pr->next_k = 0;
    for (char *row = text + hl + 1; *row;) {
        char *nl = strchr(row, '\n');
        if (!nl)
            break; /* a row without its newline is not a finished row */
        char *end;
        double tr = strtod(row, &end);
        if (end == row || *end != ',' || !(tr < t))
            break;
        pr->next_k = next_after(tr, pr->interval);
        keep = (size_t)(nl + 1 - text);
        row = nl + 1;
    }
    int rc = io_write_file_atomically(pr->path, text, keep, err);
    free(text);
    return rc;
}

/* Opens the file for appending: a new one with its header, or the continued one. */
static int open_file(io_probes *pr, const sim *s, sl_err *err)
{
    char header[SCENE_PROBES_MAX * 2 * (SCENE_PROBE_NAME_MAX + 8) + 256];
    io_probes_header(pr->sc, header, sizeof header);
    int rc = pr->restart ? resume_file(pr, s->t, header, err) : NO_FILE;
    if (rc == NO_FILE) {
        size_t hl = strlen(header);
        header[hl] = '\n';
        rc = io_write_file_atomically(pr->path, header, hl + 1, err);
        pr->next_k = 0;
    }
    if (rc)
        return rc;
    pr->fd = open(pr->path, O_WRONLY | O_APPEND);
    if (pr->fd < 0)
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': %s", pr->path, strerror(errno));
    return SL_OK;
}

/* Formats a row and appends it with one write(); on failure the file is cut back to its old end. */
static int append_row(io_probes *pr, sl_err *err)
{
    char row[ROW_MAX * (2 * SCENE_PROBES_MAX + 8)];
    size_t at = 0;
    const int digits = REAL_IS_DOUBLE ? 17 : 9; /* enough to read back every real exactly */
    for (int c = 0; c < pr->ncols; ++c) {
        int w;
        if (c == 0)
            w = snprintf(row + at, sizeof row - at, "%.17g", pr->values[c]);
        else if (c == 1)
            w = snprintf(row + at, sizeof row - at, ",%.0f", pr->values[c]);
        else
            w = snprintf(row + at, sizeof row - at, ",%.*g", digits, pr->values[c]);
        if (w > 0)
            at += (size_t)w;
    }
    row[at++] = '\n';
    struct stat st;
    if (fstat(pr->fd, &st) != 0)
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': %s", pr->path, strerror(errno));
    size_t done = 0;
    while (done < at) {
        ssize_t w = write(pr->fd, row + done, at - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            int cut = ftruncate(pr->fd, st.st_size); /* keep whole rows only */
            return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': %s%s", pr->path, strerror(e),
                           cut ? " (and the partial row could not be removed)" : "");
        }
        done += (size_t)w;
    }
    pr->rows++;
    return SL_OK;
}

int io_probes_after_step(void *ctx, sim *s, sl_err *err)
{
    io_probes *pr = ctx;
    if (pr->fd < 0)
        SL_TRY(open_file(pr, s, err));
    if (!(s->t >= pr->next_k * pr->interval * (1 - 1e-12)))
        return SL_OK;
    sim_sync_host(s);
    io_probes_sample(s, pr->values);
    pr->next_k = next_after(s->t, pr->interval);
    return append_row(pr, err);
}

void io_probes_close(io_probes *pr)
{
    if (pr->fd >= 0) {
        fsync(pr->fd);
        close(pr->fd);
    }
    pr->fd = -1;
    free(pr->values);
    pr->values = NULL;
}
