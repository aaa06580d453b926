/* checkpoint.c: binary checkpoints (full particle state + run position) for exact restarts.
 *
 * Layout, native byte order: magic "SLUICECK", u32 version, u32 sizeof(real), u32 dimension,
 * char[16] method, u64 particles, u32 fields, f64 time, i64 step, i64 next output index,
 * u32 snapshots, then per snapshot {char[64] file, f64 time, u64 particles}, then per field
 * {char[32] name, real[n]}, then int32 id[n], u8 type[n], u8 tag[n], with floating bodies their
 * states (rigid_body_state[bodies], core/floating.h; the scene says how many), and last a u64 FNV-1a hash
 * of everything before it, so damage and truncation are detected. */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat */
#include "checkpoint.h"

#include "core/floating.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CK_MAGIC "SLUICECK"
#define CK_VERSION 1u
#define CK_NAME 32
#define CK_METHOD 16
#define CK_ENTRY_NAME 64 /* io_series_entry.file */
_Static_assert(sizeof(((io_series_entry *)0)->file) == CK_ENTRY_NAME, "a snapshot name's slot in the file");

uint64_t io_checkpoint_checksum(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* A growing byte buffer (writing) or a cursor over one (reading). */
typedef struct buf {
    unsigned char *data;
    size_t len, cap;
    int failed; /* out of memory, or read past the end */
} buf;

static void put(buf *b, const void *src, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = 1;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, src, n);
    b->len += n;
}

static void get(buf *b, void *dst, size_t n)
{
    if (b->failed || b->len + n > b->cap) {
        b->failed = 1;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, b->data + b->len, n);
    b->len += n;
}

/* A name in a fixed-width, zero-padded slot (cut to width - 1 bytes). */
static void put_name(buf *b, const char *s, size_t width)
{
    char tmp[64] = {0};
    size_t n = s ? strlen(s) : 0;
    if (n > width - 1)
        n = width - 1;
    if (n)
        memcpy(tmp, s, n);
    put(b, tmp, width);
}

int io_checkpoint_write(const char *path, const sim *s, const io_series *series, long next_output,
                        sl_err *err)
{
    const particles *p = &s->p;
    buf b = {0};
    uint32_t version = CK_VERSION, rsize = sizeof(real), dim = (uint32_t)s->sc->dim;
    uint64_t n = p->n;
    uint32_t nfields = (uint32_t)p->nfields, nsnap = (uint32_t)series->count;
    int64_t step = s->step, next = next_output;
    put(&b, CK_MAGIC, 8);
    put(&b, &version, sizeof version);
    put(&b, &rsize, sizeof rsize);
    put(&b, &dim, sizeof dim);
    put_name(&b, s->sc->method, CK_METHOD);
    put(&b, &n, sizeof n);
    put(&b, &nfields, sizeof nfields);
    put(&b, &s->t, sizeof s->t);
    put(&b, &step, sizeof step);
    put(&b, &next, sizeof next);
    put(&b, &nsnap, sizeof nsnap);
    for (int k = 0; k < series->count; ++k) {
        const io_series_entry *e = &series->entries[k];
        uint64_t en = e->n;
        put_name(&b, e->file, sizeof e->file);
        put(&b, &e->time, sizeof e->time);
        put(&b, &en, sizeof en);
    }
    for (int k = 0; k < p->nfields; ++k) {
        put_name(&b, p->fname[k], CK_NAME);
        put(&b, p->f[k], p->n * sizeof(real));
    }
    put(&b, p->id, p->n * sizeof *p->id);
    put(&b, p->type, p->n);
    put(&b, p->tag, p->n);
    if (s->floating) /* the bodies' state: their particles' places follow from it */
        put(&b, s->floating->state, (size_t)s->floating->n * sizeof *s->floating->state);
    uint64_t hash = b.failed ? 0 : io_checkpoint_checksum(b.data, b.len);
    put(&b, &hash, sizeof hash);
    int rc = b.failed ? sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s': out of memory", path)
                      : io_write_file_atomically(path, b.data, b.len, err);
    free(b.data);
    return rc;
}

static int bad(sl_err *err, const char *path, const char *why)
{
    return sl_fail(err, SL_ERR_INPUT, "%s: not a usable checkpoint: %s", path, why);
}

/* A snapshot's file name as io_series_write makes it: "snap_" digits ".h5", NUL-terminated in
 * its slot (the name is joined to the output directory and written into the XDMF index). */
static int snapshot_name_ok(const char *slot)
{
    if (memchr(slot, 0, CK_ENTRY_NAME) == NULL || strncmp(slot, "snap_", 5) != 0)
        return 0;
    const char *q = slot + 5;
    while (*q >= '0' && *q <= '9')
        ++q;
    return q > slot + 5 && strcmp(q, ".h5") == 0;
}

/* The ids must be a permutation of 0..n-1 (snapshots write particle id i to row i) and the types
 * known ones (the passes branch on them). */
static int check_ids_and_types(const unsigned char *ids, const unsigned char *types, size_t n, const char *path,
                               sl_err *err)
{
    unsigned char *seen = calloc(n ? n : 1, 1);
    if (!seen)
        return sl_fail(err, SL_ERR_RUNTIME, "%s: out of memory", path);
    int rc = SL_OK;
    char why[160];
    for (size_t i = 0; i < n && rc == SL_OK; ++i) {
        int32_t id;
        memcpy(&id, ids + i * sizeof id, sizeof id);
        if (id < 0 || (size_t)id >= n || seen[id]) {
            snprintf(why, sizeof why, "particle %zu has the id %ld, %s", i, (long)id,
                     id < 0 || (size_t)id >= n ? "outside 0..n-1" : "which another particle has");
            rc = bad(err, path, why);
        } else if (types[i] > PT_OBSTACLE) {
            snprintf(why, sizeof why, "particle %zu has the unknown type %u", i, types[i]);
            rc = bad(err, path, why);
        } else {
            seen[id] = 1;
        }
    }
    free(seen);
    return rc;
}

int io_checkpoint_read(const char *path, sim *s, io_series *series, long *next_output, sl_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return sl_fail(err, SL_ERR_INPUT, "%s: cannot read the checkpoint: %s", path, strerror(errno));
    /* Only a regular file: a directory reads as an error without a word, a device such as
     * /dev/zero or a FIFO may never end. */
    struct stat st;
    memset(&st, 0, sizeof st);
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return bad(err, path, S_ISDIR(st.st_mode) ? "it is a directory" : "it is not a regular file");
    }
    buf b = {0};
    unsigned char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        put(&b, chunk, got);
    int read_error = ferror(f);
    fclose(f);
    if (read_error || b.failed) {
        free(b.data);
        return sl_fail(err, SL_ERR_RUNTIME, "%s: cannot read the checkpoint", path);
    }
    int rc = SL_OK;
    size_t total = b.len;
    uint64_t stored_hash = 0;
    if (total < 8 + sizeof stored_hash || memcmp(b.data, CK_MAGIC, 8) != 0) {
        rc = bad(err, path, "it does not start like a sluice checkpoint");
        goto out;
    }
    memcpy(&stored_hash, b.data + total - sizeof stored_hash, sizeof stored_hash);
    if (io_checkpoint_checksum(b.data, total - sizeof stored_hash) != stored_hash) {
        rc = bad(err, path, "it is damaged or truncated (checksum mismatch)");
        goto out;
    }
    /* read through a cursor that ends before the hash */
    b.cap = total - sizeof stored_hash;
    b.len = 8;
    uint32_t version, rsize, dim, nfields, nsnap;
    uint64_t n;
    char method[CK_METHOD];
    double t;
    int64_t step, next;
    get(&b, &version, sizeof version);
    get(&b, &rsize, sizeof rsize);
    get(&b, &dim, sizeof dim);
    get(&b, method, CK_METHOD);
    method[CK_METHOD - 1] = 0;
    get(&b, &n, sizeof n);
    get(&b, &nfields, sizeof nfields);
    get(&b, &t, sizeof t);
    get(&b, &step, sizeof step);
    get(&b, &next, sizeof next);
    get(&b, &nsnap, sizeof nsnap);
    particles *p = &s->p;
    char why[256];
    if (version != CK_VERSION) {
        snprintf(why, sizeof why, "format version %u (this sluice reads %u)", version, CK_VERSION);
        rc = bad(err, path, why);
    } else if (rsize != sizeof(real)) {
        snprintf(why, sizeof why, "written with %u-byte reals, this build uses %zu", rsize, sizeof(real));
        rc = bad(err, path, why);
    } else if (dim != (uint32_t)s->sc->dim || strcmp(method, s->sc->method) != 0 || n != p->n ||
               nfields != (uint32_t)p->nfields) {
        snprintf(why, sizeof why,
                 "written for %uD %s with %llu particles and %u fields; this scene is %dD %s with %zu and %d",
                 dim, method, (unsigned long long)n, nfields, s->sc->dim, s->sc->method, p->n, p->nfields);
        rc = bad(err, path, why);
    }
    if (rc)
        goto out;
    /* Everything is checked before anything is changed: a refused file leaves the simulation and
     * the series as they were (the caller may report and go on, and a half-restored state would
     * look like a valid one). The checksum catches damage; these checks catch a file whose
     * checksum is right but whose content is not a state (another program's bug, a crafted file). */
    size_t entry_bytes = CK_ENTRY_NAME + sizeof(double) + sizeof(uint64_t);
    size_t field_bytes = CK_NAME + p->n * sizeof(real);
    size_t left = b.cap - b.len;
    size_t body_bytes = s->floating ? (size_t)s->floating->n * sizeof *s->floating->state : 0;
    if (nsnap > left / entry_bytes ||
        left != (size_t)nsnap * entry_bytes + (size_t)p->nfields * field_bytes + p->n * (sizeof *p->id + 2) +
                    body_bytes) {
        rc = bad(err, path, "its length does not match its header");
        goto out;
    }
    if (!(t >= 0 && t < 1e300) || step < 0 || next < 0 || nsnap > (uint32_t)INT32_MAX) {
        snprintf(why, sizeof why,
                 "its run position is impossible (t = %g s, step %lld, next output %lld, %u snapshots)",
                 t, (long long)step, (long long)next, nsnap);
        rc = bad(err, path, why);
        goto out;
    }
    const unsigned char *entries_at = b.data + b.len;
    for (uint32_t k = 0; k < nsnap; ++k) {
        const unsigned char *e = entries_at + (size_t)k * entry_bytes;
        double et;
        memcpy(&et, e + CK_ENTRY_NAME, sizeof et);
        if (!snapshot_name_ok((const char *)e) || !(et >= 0 && et <= t)) {
            snprintf(why, sizeof why, "snapshot %u of its list is not a snapshot of this run", k);
            rc = bad(err, path, why);
            goto out;
        }
    }
    const unsigned char *fields_at = entries_at + (size_t)nsnap * entry_bytes;
    for (int k = 0; k < p->nfields; ++k) {
        char name[CK_NAME];
        memcpy(name, fields_at + (size_t)k * field_bytes, CK_NAME);
        name[CK_NAME - 1] = 0;
        if (strcmp(name, p->fname[k]) != 0) {
            snprintf(why, sizeof why, "field %d is '%.31s', the scene's is '%s'", k, name, p->fname[k]);
            rc = bad(err, path, why);
            goto out;
        }
    }
    const unsigned char *ids_at = fields_at + (size_t)p->nfields * field_bytes;
    const unsigned char *types_at = ids_at + p->n * sizeof *p->id;
    rc = check_ids_and_types(ids_at, types_at, p->n, path, err);
    if (rc)
        goto out;
    io_series_entry *entries = nsnap ? calloc(nsnap, sizeof *entries) : NULL;
    if (nsnap && !entries) {
        rc = sl_fail(err, SL_ERR_RUNTIME, "%s: out of memory", path);
        goto out;
    }
    for (uint32_t k = 0; k < nsnap; ++k) {
        uint64_t en;
        get(&b, entries[k].file, CK_ENTRY_NAME);
        entries[k].file[sizeof entries[k].file - 1] = 0;
        get(&b, &entries[k].time, sizeof entries[k].time);
        get(&b, &en, sizeof en);
        entries[k].n = (size_t)en;
    }
    for (int k = 0; k < p->nfields; ++k) {
        char name[CK_NAME];
        get(&b, name, CK_NAME);
        get(&b, p->f[k], p->n * sizeof(real));
    }
    get(&b, p->id, p->n * sizeof *p->id);
    get(&b, p->type, p->n);
    get(&b, p->tag, p->n);
    if (s->floating) {
        get(&b, s->floating->state, body_bytes);
        memcpy(s->floating->state0, s->floating->state, body_bytes);
    }
    s->t = t;
    s->step = (long)step;
    *next_output = (long)next;
    free(series->entries);
    series->entries = entries;
    series->count = series->cap = (int)nsnap;
out:
    free(b.data);
    return rc;
}
