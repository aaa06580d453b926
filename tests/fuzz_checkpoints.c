/* fuzz_checkpoints.c: damaged and foreign checkpoints through io_checkpoint_read and `sluice run --restart`
 * (issue 22).
 *
 * Seed 22. From a real checkpoint of scenes/hydrostatic_2d.cfg (3 steps), about 850 mutants:
 * truncations (every length 0..100, 150 random lengths, the last 8), single bit flips (one in
 * every header byte, 300 at random, every bit of the stored hash's first byte), 100 bytes
 * overwritten at random, 30 structured changes with the checksum recomputed (impossible header
 * values, snapshot names, field names, ids, types, lengths: what the checksum cannot catch), and
 * foreign files (empty, a scene file, an HDF5 snapshot, random bytes, the magic alone, the
 * checkpoint of the MPS scene with the same particles, a directory, /dev/zero, a missing file).
 *
 * Usage: fuzz_checkpoints SCENES_DIR SLUICE_BINARY WORKDIR [SEED]
 *
 * Asserted for every mutant, each in a forked child with a 10 s alarm (a crash or a hang is
 * reported and the mutant kept under WORKDIR): io_checkpoint_read refuses it with SL_ERR_INPUT and
 * a one-line message that names the file, and changes nothing: every particle array, the time, the
 * step, the next output index and the series are as before. (The FNV-1a checksum covers every byte
 * but itself and any single-byte change alters it, so no flip may be accepted.) The intact
 * checkpoint is accepted (the control). Every 15th mutant and every foreign file also goes through
 * `sluice run SCENE --restart FILE --out DIR` on a copy of the reference run: exit status 2, one
 * line on stderr naming the file, and DIR unchanged (names, sizes, contents); the intact
 * checkpoint restarts there with exit status 0. Prints the counts. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_util.h"
#include "base/scene.h"
#include "core/sim.h"
#include "io/checkpoint.h"
#include "run/engine.h"
#include "run/sim_create.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define ALARM_LIB 10
#define ALARM_CLI 60
#define CLI_EVERY 15

/* Offsets of the header (src/io/checkpoint.c's layout). */
enum { O_VERSION = 8, O_RSIZE = 12, O_DIM = 16, O_METHOD = 20, O_N = 36, O_NFIELDS = 44, O_T = 48, O_STEP = 56,
       O_NEXT = 64, O_NSNAP = 72, O_ENTRIES = 76, ENTRY = 80, FIELD_NAME = 32 };

static void rehash(unsigned char *d, size_t len)
{
    uint64_t h = io_checkpoint_checksum(d, len - 8);
    memcpy(d + len - 8, &h, 8);
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    unsigned char *d = malloc(cap);
    while (d && (got = fread(d + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *e = realloc(d, cap *= 2);
            if (!e)
                free(d);
            d = e;
        }
    }
    fclose(f);
    if (!d)
        die("out of memory");
    *len = n;
    return d;
}

static void write_file(const char *path, const void *d, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(d, 1, len, f) != len || fclose(f) != 0)
        die("cannot write %s", path);
}

/* A signature of a directory's plain files: names, sizes and contents (order-independent sum). */
static uint64_t dir_signature(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    uint64_t sig = 0;
    *count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && (e->d_name[1] == 0 || (e->d_name[1] == '.' && e->d_name[2] == 0)))
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len = 0;
        unsigned char *data = read_file(path, &len);
        uint64_t h = io_checkpoint_checksum((const unsigned char *)e->d_name, strlen(e->d_name)) * 31 + len;
        if (data)
            h ^= io_checkpoint_checksum(data, len);
        free(data);
        sig += h * 0x9e3779b97f4a7c15ULL;
        ++*count;
    }
    closedir(d);
    return sig;
}

/* ---- the reference run and a state to compare against ------------------------------------------ */

static void open_sim(const char *scene_path, scene *sc, sim *s)
{
    sl_err err;
    if (scene_load(sc, scene_path, &err) || sim_create(s, sc, &backend_cpu, &err))
        die("%s", err.msg);
}

/* 3 steps of scene_path into dir (in a child: OpenMP's threads must not exist before a fork). */
static void reference_run(const char *scene_path, const char *dir)
{
    pid_t pid = fork();
    if (pid == 0) {
        scene sc;
        sim s;
        open_sim(scene_path, &sc, &s);
        run_options o = {.out_dir = dir, .until = -1.0, .max_steps = 3, .quiet = 1};
        run_summary sum;
        sl_err err;
        if (engine_run(&s, &o, &sum, &err))
            die("reference run of %s: %s", scene_path, err.msg);
        sim_free(&s);
        scene_free(&sc);
        _exit(0);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        die("the reference run of %s failed", scene_path);
}

typedef struct state {
    real **f;
    int32_t *id;
    uint8_t *type, *tag;
    double t;
    long step;
} state;

static void state_take(state *c, const sim *s)
{
    const particles *p = &s->p;
    c->f = malloc((size_t)p->nfields * sizeof *c->f);
    for (int k = 0; k < p->nfields; ++k) {
        c->f[k] = malloc(p->n * sizeof(real));
        memcpy(c->f[k], p->f[k], p->n * sizeof(real));
    }
    c->id = malloc(p->n * sizeof *c->id);
    memcpy(c->id, p->id, p->n * sizeof *c->id);
    c->type = malloc(p->n);
    memcpy(c->type, p->type, p->n);
    c->tag = malloc(p->n);
    memcpy(c->tag, p->tag, p->n);
    c->t = s->t;
    c->step = s->step;
}

static const char *state_differs(const state *c, const sim *s)
{
    const particles *p = &s->p;
    for (int k = 0; k < p->nfields; ++k)
        if (memcmp(c->f[k], p->f[k], p->n * sizeof(real)) != 0)
            return "a particle field changed";
    if (memcmp(c->id, p->id, p->n * sizeof *c->id) != 0)
        return "the ids changed";
    if (memcmp(c->type, p->type, p->n) != 0 || memcmp(c->tag, p->tag, p->n) != 0)
        return "the types or tags changed";
    if (c->t != s->t || c->step != s->step)
        return "the time or the step changed";
    return NULL;
}

/* ---- one mutant --------------------------------------------------------------------------------- */

enum { CHILD_REFUSED = 10, CHILD_ACCEPTED = 11, CHILD_BROKEN = 13 };

static int broken(const char *what, const char *msg)
{
    printf("  BROKEN: %s: %s\n", what, msg);
    return CHILD_BROKEN;
}

/* io_checkpoint_read on `path` into a fresh simulation of the scene; the child's exit code. */
static int lib_read(const char *scene_path, const char *path, int expect_ok)
{
    scene sc;
    sim s;
    open_sim(scene_path, &sc, &s);
    state before;
    state_take(&before, &s);
    io_series series;
    memset(&series, 0, sizeof series);
    long next = 777;
    sl_err err = {{0}};
    int rc = io_checkpoint_read(path, &s, &series, &next, &err);
    int code;
    if (expect_ok) {
        if (rc != SL_OK)
            code = broken("the intact checkpoint was refused", err.msg);
        else if (series.count < 1 || !(s.t > 0) || s.step != 3)
            code = broken("the intact checkpoint did not restore the run's position", path);
        else
            code = CHILD_ACCEPTED;
    } else if (rc == SL_OK) {
        code = broken("a damaged or foreign checkpoint was accepted", path);
    } else if (rc != SL_ERR_INPUT) {
        code = broken("refused with a status other than SL_ERR_INPUT", err.msg);
    } else if (!err.msg[0] || strchr(err.msg, '\n') || strncmp(err.msg, path, strlen(path)) != 0 ||
               err.msg[strlen(path)] != ':') {
        code = broken("the refusal is not one line starting with the file name", err.msg);
    } else {
        const char *d = state_differs(&before, &s);
        if (d)
            code = broken(d, err.msg);
        else if (series.count != 0 || series.entries != NULL || next != 777)
            code = broken("the series or the next output index changed", err.msg);
        else
            code = CHILD_REFUSED;
    }
    if (getenv("FUZZ_VERBOSE") && rc != SL_OK)
        printf("  message: %s\n", err.msg);
    io_series_close(&series);
    sim_free(&s);
    scene_free(&sc);
    return code;
}

/* `sluice run --restart path` on a fresh copy of the reference run's directory. */
static int cli_restart(const char *bin, const char *scene_path, const char *ref_dir, const char *work, const char *path,
                       int expect_ok)
{
    char dir[4200], cmd[12800], errp[4200];
    snprintf(dir, sizeof dir, "%s/cli_run", work);
    snprintf(errp, sizeof errp, "%s/cli.err", work);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", dir, ref_dir, dir);
    if (system(cmd) != 0)
        return broken("cannot copy the reference run", cmd);
    int nbefore = 0, nafter = 0;
    uint64_t before = dir_signature(dir, &nbefore);
    pid_t pid = fork();
    if (pid < 0)
        return broken("fork failed", strerror(errno));
    if (pid == 0) {
        int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644), fo = open("/dev/null", O_WRONLY);
        if (fe < 0 || fo < 0)
            _exit(127);
        dup2(fo, 1);
        dup2(fe, 2);
        alarm(ALARM_CLI);
        execl(bin, bin, "run", scene_path, "--restart", path, "--out", dir, "--steps", "2", "--quiet", "--threads",
              "1", "--backend", "cpu", (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    size_t elen = 0;
    unsigned char *eo = read_file(errp, &elen);
    char text[2200];
    snprintf(text, sizeof text, "%.*s", (int)(elen < 2000 ? elen : 2000), eo ? (const char *)eo : "");
    free(eo);
    if (WIFSIGNALED(st))
        return broken(WTERMSIG(st) == SIGALRM ? "sluice run --restart hung" : "sluice run --restart crashed", text);
    int code = WEXITSTATUS(st);
    if (expect_ok)
        return code == 0 ? CHILD_ACCEPTED : broken("sluice run --restart refused the intact checkpoint", text);
    if (code != 2)
        return broken("sluice run --restart did not exit with 2", text);
    char *nl = strchr(text, '\n');
    if (!nl || nl[1] != '\0' || !strstr(text, path))
        return broken("sluice run --restart's refusal is not one line naming the file", text);
    uint64_t after = dir_signature(dir, &nafter);
    if (after != before || nafter != nbefore)
        return broken("sluice run --restart wrote into the output directory of a refused restart", text);
    return CHILD_REFUSED;
}

/* ---- mutants ------------------------------------------------------------------------------------ */

typedef struct mutant {
    char what[96];
    unsigned char *data; /* NULL: `path` names an existing thing (directory, device, missing file) */
    size_t len;
    char path[4200];
    int via_cli;
} mutant;

static mutant *muts;
static size_t nmuts, capmuts;

static mutant *add(const char *what, const unsigned char *src, size_t len)
{
    if (nmuts == capmuts) {
        capmuts = capmuts ? 2 * capmuts : 256;
        muts = realloc(muts, capmuts * sizeof *muts);
        if (!muts)
            die("out of memory");
    }
    mutant *m = &muts[nmuts++];
    memset(m, 0, sizeof *m);
    snprintf(m->what, sizeof m->what, "%s", what);
    if (src) {
        m->data = malloc(len ? len : 1);
        memcpy(m->data, src, len);
        m->len = len;
    }
    return m;
}

/* A copy of ck with `n` bytes at `off` replaced, the checksum recomputed. */
static void add_structured(const char *what, const unsigned char *ck, size_t len, size_t off, const void *v, size_t n)
{
    mutant *m = add(what, ck, len);
    memcpy(m->data + off, v, n);
    rehash(m->data, m->len);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        die("usage: fuzz_checkpoints SCENES_DIR SLUICE_BINARY WORKDIR [SEED]");
    const char *scenes = argv[1], *bin = argv[2], *work = argv[3];
    uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 22;
    fuzz_name = "fuzz_checkpoints";
    rng_state = seed;
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", work, work);
    if (system(cmd) != 0)
        die("cannot make %s", work);
    char scene_path[4200], mps_scene[4200], ref[4200], other[4200], ckpath[4400], otherck[4400];
    snprintf(scene_path, sizeof scene_path, "%s/hydrostatic_2d.cfg", scenes);
    snprintf(mps_scene, sizeof mps_scene, "%s/hydrostatic_2d_mps.cfg", scenes);
    snprintf(ref, sizeof ref, "%s/ref", work);
    snprintf(other, sizeof other, "%s/other", work);
    time_t t0 = time(NULL);
    reference_run(scene_path, ref);
    reference_run(mps_scene, other);
    snprintf(ckpath, sizeof ckpath, "%s/checkpoint.bin", ref);
    snprintf(otherck, sizeof otherck, "%s/checkpoint.bin", other);
    size_t len = 0, olen = 0;
    unsigned char *ck = read_file(ckpath, &len), *ock = read_file(otherck, &olen);
    if (!ck || !ock || len < O_ENTRIES + 8)
        die("no reference checkpoint");
    uint32_t nsnap, nfields;
    uint64_t n;
    memcpy(&nsnap, ck + O_NSNAP, 4);
    memcpy(&nfields, ck + O_NFIELDS, 4);
    memcpy(&n, ck + O_N, 8);
    size_t fields_at = O_ENTRIES + (size_t)nsnap * ENTRY;
    size_t field_bytes = FIELD_NAME + (size_t)n * sizeof(real);
    size_t ids_at = fields_at + nfields * field_bytes, types_at = ids_at + n * 4;
    if (types_at + 2 * n + 8 != len || nsnap < 1)
        die("the reference checkpoint does not have the layout this test knows (%zu bytes)", len);

    /* the intact file first: the control */
    add("intact", ck, len);
    char what[96];
    for (size_t k = 0; k <= 100; ++k) {
        snprintf(what, sizeof what, "truncated to %zu bytes", k);
        add(what, ck, k);
    }
    for (int k = 0; k < 150; ++k) {
        size_t at = 101 + rng() % (len - 101);
        snprintf(what, sizeof what, "truncated to %zu bytes", at);
        add(what, ck, at);
    }
    for (size_t k = 1; k <= 8; ++k) {
        snprintf(what, sizeof what, "truncated to %zu bytes", len - k);
        add(what, ck, len - k);
    }
    for (size_t at = 0; at < O_ENTRIES + ENTRY; ++at) { /* every header byte and the first snapshot's */
        int bit = (int)(rng() % 8);
        snprintf(what, sizeof what, "bit %d of byte %zu flipped", bit, at);
        add(what, ck, len)->data[at] ^= (unsigned char)(1u << bit);
    }
    for (int k = 0; k < 300; ++k) {
        size_t at = rng() % len;
        int bit = (int)(rng() % 8);
        snprintf(what, sizeof what, "bit %d of byte %zu flipped", bit, at);
        add(what, ck, len)->data[at] ^= (unsigned char)(1u << bit);
    }
    for (int bit = 0; bit < 8; ++bit) {
        snprintf(what, sizeof what, "bit %d of the checksum's first byte flipped", bit);
        add(what, ck, len)->data[len - 8] ^= (unsigned char)(1u << bit);
    }
    for (int k = 0; k < 100; ++k) {
        size_t at = rng() % len;
        unsigned char v = (unsigned char)(rng() % 256);
        if (v == ck[at])
            v ^= 0x55;
        snprintf(what, sizeof what, "byte %zu set to 0x%02x", at, v);
        add(what, ck, len)->data[at] = v;
    }

    /* structured, checksum recomputed */
    uint32_t u32;
    uint64_t u64;
    int64_t i64;
    double dv;
    int32_t i32;
#define S(name, off, val) add_structured(name, ck, len, off, &(val), sizeof(val))
    u32 = 2; S("version 2", O_VERSION, u32);
    u32 = sizeof(real) == 4 ? 8 : 4; S("reals of the other precision", O_RSIZE, u32);
    u32 = 0; S("0-byte reals", O_RSIZE, u32);
    u32 = 3; S("dimension 3", O_DIM, u32);
    u32 = 0xffffffffu; S("dimension 2^32-1", O_DIM, u32);
    S("method 'mps'", O_METHOD, "mps\0\0\0\0\0\0\0\0\0\0\0\0");
    S("method without a NUL", O_METHOD, "AAAAAAAAAAAAAAAA");
    u64 = n + 1; S("one particle more", O_N, u64);
    u64 = 0; S("no particles", O_N, u64);
    u64 = UINT64_MAX; S("2^64-1 particles", O_N, u64);
    u32 = nfields + 1; S("one field more", O_NFIELDS, u32);
    u32 = 0xffffffffu; S("2^32-1 fields", O_NFIELDS, u32);
    dv = NAN; S("time NaN", O_T, dv);
    dv = -1.0; S("time -1", O_T, dv);
    dv = INFINITY; S("time inf", O_T, dv);
    i64 = -1; S("step -1", O_STEP, i64);
    i64 = INT64_MIN; S("step INT64_MIN", O_STEP, i64);
    i64 = -5; S("next output -5", O_NEXT, i64);
    u32 = 0xffffffffu; S("2^32-1 snapshots", O_NSNAP, u32);
    u32 = nsnap + 1; S("one snapshot more", O_NSNAP, u32);
    u32 = 0; S("no snapshots", O_NSNAP, u32);
    S("snapshot name ../../x.h5", O_ENTRIES, "../../x.h5\0");
    S("snapshot name <x>", O_ENTRIES, "snap_<x>.h5\0");
    {
        char full[64];
        memset(full, 'a', sizeof full);
        S("snapshot name without a NUL", O_ENTRIES, full);
    }
    dv = NAN; S("snapshot time NaN", O_ENTRIES + 64, dv);
    S("field 0 renamed", fields_at, "nonsense\0");
    S("last field renamed", fields_at + (nfields - 1) * field_bytes, "nonsense\0");
    i32 = -1; S("id -1", ids_at, i32);
    i32 = (int32_t)n; S("id n", ids_at, i32);
    memcpy(&i32, ck + ids_at, 4); S("two particles with one id", ids_at + 4, i32);
    {
        unsigned char t7 = 7;
        S("type 7", types_at, t7);
    }
#undef S
    {
        mutant *m = add("one byte short, checksum recomputed", ck, len - 1);
        memcpy(m->data + len - 9, ck + len - 8, 8);
        rehash(m->data, m->len);
        m = add("one byte longer, checksum recomputed", ck, len);
        m->data = realloc(m->data, len + 1);
        m->data[len - 8] = 0;
        m->len = len + 1;
        rehash(m->data, m->len);
    }

    /* foreign files */
    size_t flen = 0;
    unsigned char *fdata = read_file(scene_path, &flen);
    add("foreign: the scene file", fdata, flen)->via_cli = 1;
    free(fdata);
    char snap[4400];
    snprintf(snap, sizeof snap, "%s/snap_000000.h5", ref);
    fdata = read_file(snap, &flen);
    if (!fdata)
        die("no snapshot %s", snap);
    add("foreign: an HDF5 snapshot", fdata, flen)->via_cli = 1;
    free(fdata);
    add("foreign: an empty file", (const unsigned char *)"", 0)->via_cli = 1;
    {
        unsigned char rnd[4096];
        for (size_t k = 0; k < sizeof rnd; ++k)
            rnd[k] = (unsigned char)rng();
        add("foreign: 4096 random bytes", rnd, sizeof rnd)->via_cli = 1;
        memcpy(rnd, "SLUICECK", 8);
        add("foreign: the magic and random bytes", rnd, sizeof rnd)->via_cli = 1;
        add("foreign: the magic alone", (const unsigned char *)"SLUICECK", 8)->via_cli = 1;
    }
    add("foreign: the checkpoint of the MPS scene (same particles)", ock, olen)->via_cli = 1;
    mutant *m = add("foreign: a directory", NULL, 0);
    snprintf(m->path, sizeof m->path, "%s", ref);
    m->via_cli = 1;
    m = add("foreign: /dev/zero", NULL, 0);
    snprintf(m->path, sizeof m->path, "/dev/zero");
    m->via_cli = 1;
    m = add("foreign: a missing file", NULL, 0);
    snprintf(m->path, sizeof m->path, "%s/no_such_checkpoint.bin", work);
    m->via_cli = 1;

    printf("fuzz_checkpoints: seed %llu, %zu mutants of a %zu-byte checkpoint (%llu particles, %u fields, %u "
           "snapshots), every %dth and the foreign files also through sluice run --restart\n",
           (unsigned long long)seed, nmuts - 1, len, (unsigned long long)n, nfields, nsnap, CLI_EVERY);
    long refused = 0, accepted = 0, crashed = 0, hung = 0, nbroken = 0, cli = 0;
    for (size_t i = 0; i < nmuts; ++i) {
        mutant *mu = &muts[i];
        int expect_ok = i == 0;
        int via_cli = mu->via_cli || i % CLI_EVERY == 0;
        if (mu->data) {
            snprintf(mu->path, sizeof mu->path, "%s/mutant_%zu.bin", work, i);
            write_file(mu->path, mu->data, mu->len);
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0)
            die("fork: %s", strerror(errno));
        if (pid == 0) {
#ifdef _OPENMP
            omp_set_num_threads(1);
#endif
            alarm(ALARM_LIB);
            int code = lib_read(scene_path, mu->path, expect_ok);
            alarm(0);
            if (via_cli && code != CHILD_BROKEN &&
                cli_restart(bin, scene_path, ref, work, mu->path, expect_ok) == CHILD_BROKEN)
                code = CHILD_BROKEN;
            fflush(stdout);
            _exit(code);
        }
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        cli += via_cli;
        int bad = 0;
        if (WIFSIGNALED(st)) {
            bad = 1;
            if (WTERMSIG(st) == SIGALRM)
                ++hung;
            else
                ++crashed;
        } else if (WEXITSTATUS(st) == CHILD_REFUSED) {
            ++refused;
        } else if (WEXITSTATUS(st) == CHILD_ACCEPTED) {
            ++accepted;
        } else {
            ++nbroken;
            bad = 1;
        }
        if (bad) {
            printf("mutant %zu (%s): %s; kept as %s\n", i, mu->what,
                   WIFSIGNALED(st) ? (WTERMSIG(st) == SIGALRM ? "hung" : "crashed") : "broken", mu->path);
        } else if (mu->data) {
            unlink(mu->path);
        }
        free(mu->data);
    }
    free(muts);
    free(ck);
    free(ock);
    printf("fuzz_checkpoints: %zu mutants in %lds: %ld refused, %ld accepted (1 expected: the intact control), %ld "
           "crashed, %ld hung, %ld broke a promise; %ld also through sluice run --restart\n",
           nmuts - 1, (long)(time(NULL) - t0), refused, accepted, crashed, hung, nbroken, cli);
    int failed = crashed + hung + nbroken > 0 || accepted != 1;
    printf("fuzz_checkpoints: %s\n", failed ? "FAILED" : "passed");
    if (!failed) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
        if (system(cmd) != 0)
            return 1;
    }
    return failed;
}
