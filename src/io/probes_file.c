/* probes_file.c: DIR/probes.csv, one row per probe interval (the rows are probes.c's): opened with
 * its header, or continued after a restart with the rows before the checkpoint's time kept. Rows are
 * appended with one write() each and nothing is buffered in the process, so a kill -9 leaves every
 * finished row; a failed write (full disk, file size limit) is cut back to the last whole row and
 * stops the run. On several MPI ranks every rank samples, the root writes.
 *
 * On one rank, where the backend picks the probes' particles into memory of its own (the CUDA
 * backend), a row's host work (the sums, the CSV line, the write) runs on a thread of its own while
 * the simulation steps on: the device no longer waits for it (docs/performance.md). The next row,
 * a checkpoint (io_probes_settle, before the engine writes one) and io_probes_close wait for it, so
 * a checkpoint never has rows missing before its time. SLUICE_PROBES_SYNC=1 keeps every row on the
 * calling thread (measurements). */
#define _POSIX_C_SOURCE 200809L

#include "probes.h"

#include "file_read.h"
#include "schedule.h"
#include "snapshot.h"

#include "parallel/domain.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define ROW_MAX 64 /* bytes per number in a row, generously */

#define NO_FILE (-1) /* resume_file(): nothing to continue */

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
    const char *sync = getenv("SLUICE_PROBES_SYNC");
    pr->background = !(sync && strcmp(sync, "1") == 0);
    pr->ncols = io_probes_columns(sc);
    pr->values = malloc((size_t)pr->ncols * sizeof *pr->values);
    if (!pr->values)
        return sl_fail(err, SL_ERR_RUNTIME, "probes: out of memory");
    return SL_OK;
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
        pr->next_k = io_index_after(tr, pr->interval);
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
        else if (isnan(pr->values[c]) && c < 2 + pr->sc->probes.npressure + pr->sc->probes.ngauges)
            w = snprintf(row + at, sizeof row - at, ","); /* a dry sensor or gauge: an empty field */
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

/* The row in pr->row computed and appended: on the worker thread, or on the caller's. */
static int finish_row(io_probes *pr, sl_err *err)
{
    SL_TRY(io_probes_compute(pr->s, &pr->row, pr->values, err));
    return domain_is_root(pr->s) ? append_row(pr, err) : SL_OK;
}

static void *row_worker(void *arg)
{
    io_probes *pr = arg;
#ifdef _OPENMP
    /* on this thread alone: a team here would be a new pool of threads for every row (a new thread
     * each row), spinning beside the run's own (on an H200's host 16 threads made each MPS step of
     * SPHERIC Test 2 take 19.6 ms instead of 5.9 with the rows on the run's thread) */
    omp_set_num_threads(1);
#endif
    pr->worker_rc = finish_row(pr, &pr->worker_err);
    return NULL;
}

int io_probes_settle(void *ctx, sl_err *err)
{
    io_probes *pr = ctx;
    if (!pr->busy)
        return SL_OK;
    pthread_join(pr->worker, NULL);
    pr->busy = 0;
    if (pr->worker_rc && err)
        *err = pr->worker_err;
    return pr->worker_rc;
}

int io_probes_after_step(void *ctx, sim *s, sl_err *err)
{
    io_probes *pr = ctx;
    int root = domain_is_root(s); /* on several MPI ranks every rank samples its particles, the root writes */
    if (pr->fd < 0 && root)
        SL_TRY(open_file(pr, s, err));
    /* the root decides: only its next_k knows the rows a continued file already holds */
    if (!domain_any(s, root && io_output_due(s->t, pr->next_k, pr->interval)))
        return SL_OK;
    pr->next_k = io_index_after(s->t, pr->interval);
    SL_TRY(io_probes_settle(pr, err)); /* the last row done: its particles' memory is the backend's next pick */
    pr->s = s;
    SL_TRY(io_probes_gather(s, &pr->row, err));
    if (pr->background && pr->row.from_backend && domain_world_size() == 1) {
        pr->worker_rc = SL_OK;
        if (pthread_create(&pr->worker, NULL, row_worker, pr) == 0) {
            pr->busy = 1;
            pr->background_rows++;
            return SL_OK;
        } /* no thread to be had: the row on this one */
    }
    return finish_row(pr, err);
}

void io_probes_close(io_probes *pr)
{
    io_probes_settle(pr, NULL);
    if (pr->fd >= 0) {
        fsync(pr->fd);
        close(pr->fd);
    }
    pr->fd = -1;
    free(pr->values);
    pr->values = NULL;
}
