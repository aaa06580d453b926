/* fuzz_stl.c: STL fuzzing: mutants of a valid binary and a valid ASCII mesh through the reader, the
 * lattice sampler and the scene loader (issue 20).
 *
 * Seed 20, 3000 mutants by default (argv[2] overrides the count, argv[3] the seed), half from each
 * form, each in a forked child with an alarm, so a crash or a hang is caught, reported and its
 * mutant saved under WORKDIR (crash_N.stl). Mutations, 1 to 3 per mutant: the file truncated at a
 * random byte, random bytes flipped, the binary header's count replaced (0, n - 1, n + 1, 2^32 - 1,
 * the limit + 1, random), a coordinate replaced by NaN, an infinity, an extreme or a random number,
 * a record or a line deleted or duplicated, two vertices of a triangle swapped, a vertex moved (every
 * copy of it), an ASCII number replaced by an extreme token (nan, 1e999, 0x1p3, "1e", "--1", ...),
 * junk inserted.
 *
 * Usage: fuzz_stl WORKDIR [COUNT [SEED]]; FUZZ_VERBOSE=1 prints every refusal's message.
 *
 * Asserted per mutant: no crash, no hang (10 s); stl_read returns SL_OK or SL_ERR_INPUT, and a
 * refusal is one line without control characters starting with the file's path; an accepted mesh
 * is sampled on a lattice of 24 points along its longest side (fill and both wall bands) without a
 * crash; every 4th mutant also goes through the scene loader as an obstacle's mesh, which accepts it
 * or refuses it with one line starting with the scene's name. Prints the counts. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_util.h"
#include "base/scene.h"
#include "geometry/mesh_sample.h"
#include "geometry/scene_build.h"
#include "geometry/stl.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define ALARM_S 10
#define LOADER_EVERY 4

enum { CHILD_ACCEPTED = 0, CHILD_REJECTED = 1, CHILD_BROKEN = 3 };

typedef struct bytes {
    unsigned char *b;
    size_t n;
} bytes;

static size_t pick(size_t n)
{
    return n ? (size_t)(rng() % n) : 0;
}

static void splice(bytes *t, size_t at, size_t cut, const void *ins, size_t n)
{
    unsigned char *s = xmalloc(t->n - cut + n + 1);
    memcpy(s, t->b, at);
    memcpy(s + at, ins, n);
    memcpy(s + at + n, t->b + at + cut, t->n - at - cut);
    t->n = t->n - cut + n;
    free(t->b);
    t->b = s;
}

/* ---- the seeds: an octahedron split twice (128 triangles), in both forms ----------------------- */

static double seed_tri[128][9];

static void make_seed_mesh(void)
{
    static const double v[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    static const int f[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
    double tri[128][9];
    int n = 8;
    for (int k = 0; k < 8; ++k)
        for (int e = 0; e < 3; ++e)
            for (int d = 0; d < 3; ++d)
                tri[k][3 * e + d] = v[f[k][e]][d];
    for (int lv = 0; lv < 2; ++lv) {
        double next[128][9];
        int m = 0;
        for (int k = 0; k < n; ++k) {
            double p[6][3];
            for (int e = 0; e < 3; ++e)
                for (int d = 0; d < 3; ++d) {
                    p[e][d] = tri[k][3 * e + d];
                    p[3 + e][d] = 0.5 * (tri[k][3 * e + d] + tri[k][3 * ((e + 1) % 3) + d]);
                }
            static const int sub[4][3] = {{0, 3, 5}, {3, 1, 4}, {5, 4, 2}, {3, 4, 5}};
            for (int s = 0; s < 4; ++s, ++m)
                for (int e = 0; e < 3; ++e)
                    for (int d = 0; d < 3; ++d)
                        next[m][3 * e + d] = p[sub[s][e]][d];
        }
        n = m;
        memcpy(tri, next, sizeof tri);
    }
    memcpy(seed_tri, tri, sizeof tri);
}

static void put32(unsigned char *b, uint32_t u)
{
    for (int k = 0; k < 4; ++k)
        b[k] = (unsigned char)(u >> (8 * k));
}

static void put_float(unsigned char *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    put32(b, u);
}

static bytes seed_binary(void)
{
    bytes t = {xmalloc(84 + 50 * 128), 84 + 50 * 128};
    memset(t.b, 0, t.n);
    memcpy(t.b, "fuzz_stl seed", 13);
    put32(t.b + 80, 128);
    for (int k = 0; k < 128; ++k)
        for (int c = 0; c < 9; ++c)
            put_float(t.b + 84 + 50 * k + 12 + 4 * c, (float)seed_tri[k][c]);
    return t;
}

static bytes seed_ascii(void)
{
    size_t cap = 128 * 256 + 64, n = 0;
    char *s = xmalloc(cap);
    n += (size_t)snprintf(s + n, cap - n, "solid seed\n");
    for (int k = 0; k < 128; ++k) {
        n += (size_t)snprintf(s + n, cap - n, "facet normal 0 0 0\n outer loop\n");
        for (int e = 0; e < 3; ++e)
            n += (size_t)snprintf(s + n, cap - n, "  vertex %g %g %g\n", seed_tri[k][3 * e], seed_tri[k][3 * e + 1],
                                  seed_tri[k][3 * e + 2]);
        n += (size_t)snprintf(s + n, cap - n, " endloop\nendfacet\n");
    }
    n += (size_t)snprintf(s + n, cap - n, "endsolid seed\n");
    return (bytes){(unsigned char *)s, n};
}

/* ---- mutations ------------------------------------------------------------------------------- */

static const char *const tokens[] = {"nan", "-nan", "inf", "-inf", "1e999", "-1e999", "1e308", "1e-320", "-0",
                                     "0x1p3", "1e", "--1", "", "1.5.5", "vertex", "facet", "endsolid", "9e9"};

static void mutate_binary(bytes *t)
{
    size_t nrec = t->n > 84 ? (t->n - 84) / 50 : 0;
    switch (pick(8)) {
    case 0: /* truncation */
        t->n = pick(t->n + 1);
        break;
    case 1: /* byte flips */
        for (int k = 1 + (int)pick(8); k > 0 && t->n; --k)
            t->b[pick(t->n)] ^= (unsigned char)(1 + pick(255));
        break;
    case 2: { /* the header's count */
        if (t->n < 84)
            break;
        uint32_t counts[] = {0, (uint32_t)nrec - 1, (uint32_t)nrec + 1, 0xffffffffu, STL_TRIANGLES_MAX + 1,
                             (uint32_t)rng()};
        put32(t->b + 80, counts[pick(6)]);
        break;
    }
    case 3: { /* a coordinate */
        if (!nrec)
            break;
        float vals[] = {NAN, INFINITY, -INFINITY, 3e38f, -3e38f, 1e-45f, 0.0f, (float)(rng() % 1000) / 7.0f};
        put_float(t->b + 84 + 50 * pick(nrec) + 12 + 4 * pick(9), vals[pick(8)]);
        break;
    }
    case 4: { /* a record deleted or duplicated, the count kept right */
        if (!nrec)
            break;
        size_t r = pick(nrec), at = 84 + 50 * r;
        if (pick(2)) {
            splice(t, at, 50, "", 0);
            put32(t->b + 80, (uint32_t)nrec - 1);
        } else {
            unsigned char rec[50];
            memcpy(rec, t->b + at, 50);
            splice(t, at, 0, rec, 50);
            put32(t->b + 80, (uint32_t)nrec + 1);
        }
        break;
    }
    case 5: { /* two vertices of a triangle swapped: flipped */
        if (!nrec)
            break;
        unsigned char *r = t->b + 84 + 50 * pick(nrec) + 24, tmp[12];
        memcpy(tmp, r, 12);
        memcpy(r, r + 12, 12);
        memcpy(r + 12, tmp, 12);
        break;
    }
    case 6: { /* a vertex moved, every copy of it: the mesh may stay closed, the sampler sees a new shape */
        if (!nrec)
            break;
        unsigned char was[12], now[12];
        memcpy(was, t->b + 84 + 50 * pick(nrec) + 12 + 12 * pick(3), 12);
        memcpy(now, was, 12);
        put_float(now + 4 * pick(3), (float)((double)(rng() % 4001) / 1000.0 - 2.0));
        for (size_t r = 0; r < nrec; ++r)
            for (int v = 0; v < 3; ++v) {
                unsigned char *at = t->b + 84 + 50 * r + 12 + 12 * v;
                if (memcmp(at, was, 12) == 0)
                    memcpy(at, now, 12);
            }
        break;
    }
    default: { /* junk inserted */
        unsigned char junk[16];
        size_t n = 1 + pick(sizeof junk);
        for (size_t i = 0; i < n; ++i)
            junk[i] = (unsigned char)rng();
        splice(t, pick(t->n + 1), 0, junk, n);
        break;
    }
    }
}

/* The start of a random line and its length (without the newline). */
static size_t random_line(const bytes *t, size_t *len)
{
    size_t at = pick(t->n + 1);
    while (at > 0 && t->b[at - 1] != '\n')
        --at;
    size_t end = at;
    while (end < t->n && t->b[end] != '\n')
        ++end;
    *len = end - at;
    return at;
}

static void mutate_ascii(bytes *t)
{
    size_t len, at;
    switch (pick(6)) {
    case 0:
        t->n = pick(t->n + 1);
        break;
    case 1:
        for (int k = 1 + (int)pick(8); k > 0 && t->n; --k)
            t->b[pick(t->n)] ^= (unsigned char)(1 + pick(255));
        break;
    case 2: { /* a token replaced by an extreme one */
        if (!t->n)
            break;
        at = pick(t->n);
        while (at > 0 && t->b[at - 1] != ' ' && t->b[at - 1] != '\n')
            --at;
        size_t end = at;
        while (end < t->n && t->b[end] != ' ' && t->b[end] != '\n')
            ++end;
        const char *tok = tokens[pick(sizeof tokens / sizeof tokens[0])];
        splice(t, at, end - at, tok, strlen(tok));
        break;
    }
    case 3: /* a line deleted */
        at = random_line(t, &len);
        splice(t, at, len + (at + len < t->n), "", 0);
        break;
    case 4: { /* a line duplicated */
        at = random_line(t, &len);
        char *copy = xmalloc(len + 1);
        memcpy(copy, t->b + at, len);
        copy[len] = '\n';
        splice(t, at, 0, copy, len + 1);
        free(copy);
        break;
    }
    default: {
        static const char *const junk[] = {"\0", "}", "solid", "\n\n", "\xff\xfe", "facet normal", " 1 2 3 "};
        const char *j = junk[pick(sizeof junk / sizeof junk[0])];
        splice(t, pick(t->n + 1), 0, j, j[0] ? strlen(j) : 1);
        break;
    }
    }
}

/* ---- one mutant -------------------------------------------------------------------------------- */

/* A refusal keeps the promise: one line, no control characters, starting with `name`. */
static int message_ok(const char *msg, const char *name)
{
    if (strncmp(msg, name, strlen(name)) != 0)
        return 0;
    for (const char *p = msg; *p; ++p)
        if ((unsigned char)*p < 0x20)
            return 0;
    return 1;
}

static void count_point(void *ctx, const double pos[3], int layer)
{
    (void)pos;
    (void)layer;
    ++*(size_t *)ctx;
}

static int run_child(const char *path, const char *scene_name, int through_loader)
{
    stl_mesh m;
    sl_err err;
    int rc = stl_read(path, &m, &err);
    if (rc != SL_OK && rc != SL_ERR_INPUT)
        return CHILD_BROKEN;
    if (rc != SL_OK) {
        if (getenv("FUZZ_VERBOSE"))
            fprintf(stderr, "  %s\n", err.msg);
        if (!message_ok(err.msg, path)) {
            fprintf(stderr, "broken message: %s\n", err.msg);
            return CHILD_BROKEN;
        }
    } else {
        double lo[3], hi[3], ext = 0;
        mesh_bounds(&m, lo, hi);
        for (int d = 0; d < 3; ++d)
            ext = fmax(ext, hi[d] - lo[d]);
        double dp = ext / 24;
        for (int mode = 0; mode < 3 && dp > 0 && isfinite(dp); ++mode) {
            size_t n = 0;
            if (mesh_sample(&m, dp, (enum sample_mode)mode, 2, count_point, &n, path, &err) != SL_OK &&
                !message_ok(err.msg, path))
                return CHILD_BROKEN;
        }
        stl_free(&m);
    }
    if (through_loader) {
        char text[8400];
        snprintf(text, sizeof text,
                 "simulation = { dimension = 3; };\nnumerics = { spacing = 0.1; };\ngeometry = (\n"
                 "  { type = \"fluid\"; min = [5.0, 5.0, 5.0]; max = [5.5, 5.5, 5.5]; },\n"
                 "  { type = \"obstacle\"; mesh = \"%s\"; layers = 2; }\n);\n",
                 path);
        scene sc;
        int lrc = scene_load_string(&sc, text, scene_name, &err);
        if (lrc != SL_OK && lrc != SL_ERR_INPUT)
            return CHILD_BROKEN;
        if (lrc != SL_OK && !message_ok(err.msg, scene_name)) {
            fprintf(stderr, "broken loader message: %s\n", err.msg);
            return CHILD_BROKEN;
        }
        if (lrc == SL_OK) {
            scene_counts c;
            double est = scene_item_particles_estimate(&sc, &sc.geom[1]);
            if (est < 2e5 && scene_count_particles(&sc, &c, &err) != SL_OK && !message_ok(err.msg, scene_name) &&
                strstr(err.msg, path) == NULL)
                return CHILD_BROKEN;
            scene_free(&sc);
        }
    }
    return rc == SL_OK ? CHILD_ACCEPTED : CHILD_REJECTED;
}

static void save(const char *dir, const char *what, long k, const bytes *t)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s_%ld.stl", dir, what, k);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(t->b, 1, t->n, f) != t->n || fclose(f) != 0)
        die("cannot write %s", path);
    fprintf(stderr, "%s: mutant %ld kept as %s\n", what, k, path);
}

int main(int argc, char **argv)
{
    fuzz_name = "fuzz_stl";
    if (argc < 2)
        die("usage: fuzz_stl WORKDIR [COUNT [SEED]]");
    const char *dir = argv[1];
    long count = argc > 2 ? atol(argv[2]) : 3000;
    rng_state = argc > 3 ? strtoull(argv[3], NULL, 0) : 20;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        die("cannot create %s: %s", dir, strerror(errno));
    make_seed_mesh();
    bytes seeds[2] = {seed_binary(), seed_ascii()};
    char path[4200], scene_name[4200];
    snprintf(path, sizeof path, "%s/mutant.stl", dir);
    snprintf(scene_name, sizeof scene_name, "%s/mutant_scene.cfg", dir);
    /* the seeds themselves are valid */
    for (int s = 0; s < 2; ++s) {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(seeds[s].b, 1, seeds[s].n, f) != seeds[s].n || fclose(f) != 0)
            die("cannot write %s", path);
        stl_mesh m;
        sl_err err;
        if (stl_read(path, &m, &err) != SL_OK)
            die("the %s seed is refused: %s", s ? "ASCII" : "binary", err.msg);
        stl_free(&m);
    }
    long accepted = 0, rejected = 0, crashed = 0, hung = 0, broken = 0;
    for (long k = 0; k < count; ++k) {
        const bytes *seed = &seeds[k & 1];
        bytes t = {xmalloc(seed->n), seed->n};
        memcpy(t.b, seed->b, seed->n);
        for (int n = 1 + (int)pick(3); n > 0; --n)
            (k & 1) ? mutate_ascii(&t) : mutate_binary(&t);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(t.b, 1, t.n, f) != t.n || fclose(f) != 0)
            die("cannot write %s", path);
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0)
            die("fork: %s", strerror(errno));
        if (pid == 0) {
            alarm(ALARM_S);
            _exit(run_child(path, scene_name, k % LOADER_EVERY == 0));
        }
        int st;
        if (waitpid(pid, &st, 0) < 0)
            die("waitpid: %s", strerror(errno));
        if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
            hung++;
            save(dir, "hang", k, &t);
        } else if (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) > CHILD_BROKEN)) {
            crashed++;
            save(dir, "crash", k, &t);
        } else if (WEXITSTATUS(st) == CHILD_BROKEN) {
            broken++;
            save(dir, "broken", k, &t);
        } else if (WEXITSTATUS(st) == CHILD_ACCEPTED) {
            accepted++;
        } else {
            rejected++;
        }
        free(t.b);
    }
    free(seeds[0].b);
    free(seeds[1].b);
    printf("fuzz_stl: %ld mutants: %ld accepted, %ld rejected, %ld crashed, %ld hung, %ld broken promises\n", count,
           accepted, rejected, crashed, hung, broken);
    return crashed || hung || broken ? 1 : 0;
}
