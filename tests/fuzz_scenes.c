/* fuzz_scenes.c: scene-file fuzzing: mutants of every shipped scene through the loader, a few steps and
 * `sluice check` (issue 22).
 *
 * Seed 22, 4000 mutants by default (argv[4] overrides the count, argv[5] the seed), each in a
 * forked child with an alarm, so a crash or a hang is caught, reported and its mutant saved under
 * WORKDIR for reproduction (`sluice check WORKDIR/crash_N.cfg`). Every 10th mutant (400 by default)
 * also goes through the real `sluice check` binary (fork + exec). Mutations, 1 to 3 per mutant: a
 * number replaced by an extreme (0, -1, +-1e308, nan, inf, 2^31, 2^63, 1e-308, 4.9e-324, 1e999,
 * hex, ...) or scaled, a line deleted, duplicated or swapped with another, the file truncated at a
 * random byte, a key misspelt by one edit, junk inserted (random bytes, punctuation, braces,
 * quotes), a group's braces removed, a key the scenes leave at its default added at an edge value.
 *
 * Usage: fuzz_scenes SCENES_DIR SLUICE_BINARY WORKDIR [COUNT [SEED]]; FUZZ_VERBOSE=1 prints every
 * refusal's message.
 *
 * What is asserted, per mutant:
 *   - no crash, no hang (10 s per mutant in the library, 30 s per `sluice check`);
 *   - the loader returns SL_OK or SL_ERR_INPUT; a rejection's message keeps the promise of
 *     docs/scene-files.md ("Error messages"): one line without control characters, starting with
 *     the file name, then ":LINE: " with LINE inside the file, or ": " alone only where there is no
 *     line to point at (empty file, no settings, a required key or list whose group is missing, the
 *     checks of sim_create that see the scene but not its lines); a key error ("key 'K': ") carries
 *     "(accepted: ...)"; an error without a key is a syntax error (with a line) or also says what
 *     is accepted;
 *   - an accepted mutant is built with sim_create when it has at most FUZZ_MAX_PARTICLES particles
 *     (counted by scene_count_particles, which refuses absurd sizes from the boxes' extents before
 *     any loop: the rule is "run it when its particle count is at most 20000"), then takes up to 3
 *     time steps; sim_create's refusals are checked like the loader's; the steps may fail (a mutant
 *     may be unstable) but only with SL_ERR_INPUT or SL_ERR_RUNTIME and a one-line message;
 *   - `sluice check` exits 0 or 2 only; with 2, its stderr is exactly one line, the library's
 *     message for the same file; with 0 the library accepted the file too.
 * Prints the counts: accepted (run or too big to run), rejected, crashed, hung, broken promises. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_util.h"
#include "base/scene.h"
#include "core/sim.h"
#include "geometry/scene_build.h"
#include "io/p2m_grid.h"
#include "run/sim_create.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

#define FUZZ_MAX_PARTICLES 20000
#define FUZZ_STEPS 3
#define ALARM_LIB 10
#define ALARM_CLI 30
#define CLI_EVERY 10
#define MAX_SCENES 64

static size_t pick(size_t n)
{
    return n ? (size_t)(rng() % n) : 0;
}

/* ---- a growable text ---------------------------------------------------------------------------- */

typedef struct text {
    char *s;
    size_t len;
} text;

/* Replaces [at, at + cut) by `ins` (n bytes). */
static void splice(text *t, size_t at, size_t cut, const char *ins, size_t n)
{
    char *s = xmalloc(t->len - cut + n + 1);
    memcpy(s, t->s, at);
    memcpy(s + at, ins, n);
    memcpy(s + at + n, t->s + at + cut, t->len - at - cut);
    t->len = t->len - cut + n;
    s[t->len] = '\0';
    free(t->s);
    t->s = s;
}

/* Start offsets of the lines (count in *n, plus a final sentinel at len). */
static size_t *line_starts(const text *t, size_t *n)
{
    size_t cnt = 1;
    for (size_t i = 0; i < t->len; ++i)
        cnt += t->s[i] == '\n' && i + 1 < t->len;
    size_t *st = xmalloc((cnt + 1) * sizeof *st);
    size_t k = 0;
    st[k++] = 0;
    for (size_t i = 0; i < t->len; ++i)
        if (t->s[i] == '\n' && i + 1 < t->len)
            st[k++] = i + 1;
    st[k] = t->len;
    *n = cnt;
    return st;
}

/* ---- mutation operators --------------------------------------------------------------------- */

static const char *const extremes[] = {
    "0", "-1", "1e308", "-1e308", "nan", "inf", "-inf", "2147483648", "-2147483649", "2147483647",
    "9223372036854775807", "9223372036854775808", "99999999999999999999999", "1e-308", "4.9e-324",
    "0.0", "-0.0", "1e999", "-1e999", "0x7fffffff", "0xffffffffffffffff", "1L", "1.0e6", "1e-9", "3",
};

/* Number tokens outside strings and comments: [start, end) pairs. */
static size_t find_numbers(const text *t, size_t *at, size_t *end, size_t max)
{
    size_t n = 0;
    int in_str = 0;
    for (size_t i = 0; i < t->len && n < max; ++i) {
        char c = t->s[i];
        if (in_str) {
            if (c == '\\' && i + 1 < t->len)
                ++i;
            else if (c == '"')
                in_str = 0;
            continue;
        }
        if (c == '"') {
            in_str = 1;
            continue;
        }
        if (c == '#') {
            while (i < t->len && t->s[i] != '\n')
                ++i;
            continue;
        }
        int starts = isdigit((unsigned char)c) ||
                     ((c == '-' || c == '+' || c == '.') && i + 1 < t->len && isdigit((unsigned char)t->s[i + 1]));
        if (!starts || (i > 0 && (isalnum((unsigned char)t->s[i - 1]) || t->s[i - 1] == '_')))
            continue;
        size_t j = i + 1;
        while (j < t->len && (isalnum((unsigned char)t->s[j]) || t->s[j] == '.' ||
                              ((t->s[j] == '-' || t->s[j] == '+') && (t->s[j - 1] == 'e' || t->s[j - 1] == 'E'))))
            ++j;
        at[n] = i;
        end[n++] = j;
        i = j - 1;
    }
    return n;
}

/* Identifiers followed by '=' or ':' (setting names). */
static size_t find_keys(const text *t, size_t *at, size_t *end, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < t->len && n < max; ++i) {
        if (!isalpha((unsigned char)t->s[i]) || (i > 0 && (isalnum((unsigned char)t->s[i - 1]) || t->s[i - 1] == '_' ||
                                                         t->s[i - 1] == '"')))
            continue;
        size_t j = i;
        while (j < t->len && (isalnum((unsigned char)t->s[j]) || t->s[j] == '_' || t->s[j] == '-'))
            ++j;
        size_t k = j;
        while (k < t->len && (t->s[k] == ' ' || t->s[k] == '\t'))
            ++k;
        if (k < t->len && (t->s[k] == '=' || t->s[k] == ':')) {
            at[n] = i;
            end[n++] = j;
        }
        i = j;
    }
    return n;
}

static const char *mutate_number(text *t)
{
    size_t at[512], end[512];
    size_t n = find_numbers(t, at, end, 512);
    if (!n)
        return "number (none)";
    size_t k = pick(n);
    char rep[64];
    if (rng() % 3 == 0) { /* scaled: stays a plausible value, so more mutants are accepted */
        static const double f[] = {0.1, 0.5, 2.0, 10.0, -1.0, 0.01, 100.0};
        char tok[64];
        size_t len = end[k] - at[k] < sizeof tok - 1 ? end[k] - at[k] : sizeof tok - 1;
        memcpy(tok, t->s + at[k], len);
        tok[len] = '\0';
        double v = strtod(tok, NULL) * f[pick(sizeof f / sizeof f[0])];
        snprintf(rep, sizeof rep, strchr(tok, '.') || strchr(tok, 'e') ? "%.17g" : "%.0f", v);
        if ((strchr(tok, '.') || strchr(tok, 'e')) && !strpbrk(rep, ".en"))
            strcat(rep, ".0");
        splice(t, at[k], end[k] - at[k], rep, strlen(rep));
        return "number scaled";
    }
    const char *x = extremes[pick(sizeof extremes / sizeof extremes[0])];
    splice(t, at[k], end[k] - at[k], x, strlen(x));
    return "number extreme";
}

static const char *mutate_lines(text *t, int op)
{
    size_t n;
    size_t *st = line_starts(t, &n);
    size_t a = pick(n), b = pick(n);
    size_t la = st[a + 1] - st[a];
    const char *what = "";
    if (op == 0) { /* delete */
        splice(t, st[a], la, "", 0);
        what = "line deleted";
    } else if (op == 1) { /* duplicate */
        char *copy = xmalloc(la + 1);
        memcpy(copy, t->s + st[a], la);
        splice(t, st[a], 0, copy, la);
        free(copy);
        what = "line duplicated";
    } else { /* swap a and b */
        if (a > b) {
            size_t tmp = a;
            a = b;
            b = tmp;
        }
        if (a != b) {
            size_t lb = st[b + 1] - st[b];
            char *A = xmalloc(la + 1), *B = xmalloc(lb + 1);
            memcpy(A, t->s + st[a], la);
            memcpy(B, t->s + st[b], lb);
            size_t sb = st[b];
            splice(t, sb, lb, A, la); /* the later one first: st[a] stays valid */
            splice(t, st[a], la, B, lb);
            free(A);
            free(B);
        }
        what = "lines swapped";
    }
    free(st);
    return what;
}

static const char *mutate_truncate(text *t)
{
    t->len = pick(t->len + 1);
    t->s[t->len] = '\0';
    return "truncated";
}

static const char *mutate_key(text *t)
{
    size_t at[512], end[512];
    size_t n = find_keys(t, at, end, 512);
    if (!n)
        return "key (none)";
    size_t k = pick(n), len = end[k] - at[k];
    size_t p = at[k] + pick(len);
    char c = (char)('a' + pick(26));
    switch (rng() % 4) {
    case 0:
        splice(t, p, 1, "", 0);
        break;
    case 1:
        splice(t, p, 0, &c, 1);
        break;
    case 2:
        splice(t, p, 1, &c, 1);
        break;
    default:
        if (p + 1 < end[k]) {
            char sw[2] = {t->s[p + 1], t->s[p]};
            splice(t, p, 2, sw, 2);
        }
        break;
    }
    return "key misspelt";
}

static const char *mutate_junk(text *t)
{
    static const char punct[] = "{}[]()\";,=:#/*@\\'\n.-+";
    static const char *const words[] = {"{", "}", "\"", ";", ";;", "{ }", "( )", "[ ]", "= 1;", "x = ;",
                                        "/*", "\"\\", "@include \"a\"", "0x", "1e", "\xc3\xa9", "\xff\xfe"};
    char junk[16];
    size_t n;
    switch (rng() % 3) {
    case 0: /* random bytes, no NUL (the loader takes a C string; NUL bytes are fuzzed through files) */
        n = 1 + pick(8);
        for (size_t i = 0; i < n; ++i)
            junk[i] = (char)(1 + pick(255));
        break;
    case 1:
        n = 1 + pick(4);
        for (size_t i = 0; i < n; ++i)
            junk[i] = punct[pick(sizeof punct - 1)];
        break;
    default: {
        const char *w = words[pick(sizeof words / sizeof words[0])];
        n = strlen(w);
        memcpy(junk, w, n);
        break;
    }
    }
    splice(t, pick(t->len + 1), 0, junk, n);
    return "junk inserted";
}

/* Removes a '{' and its matching '}' (strings skipped). */
static const char *mutate_braces(text *t)
{
    size_t opens[256], n = 0;
    for (size_t i = 0; i < t->len && n < 256; ++i)
        if (t->s[i] == '{')
            opens[n++] = i;
    if (!n)
        return "braces (none)";
    size_t o = opens[pick(n)], depth = 0, c = t->len;
    for (size_t i = o; i < t->len; ++i) {
        if (t->s[i] == '{')
            ++depth;
        else if (t->s[i] == '}' && --depth == 0) {
            c = i;
            break;
        }
    }
    if (c < t->len)
        splice(t, c, 1, "", 0);
    splice(t, o, 1, "", 0);
    return "group braces removed";
}

/* Keys the shipped scenes leave at their defaults, at edge or extreme values: mutants of the
 * scenes alone never reach them (no shipped scene sets a domain, for one). */
static const char *const added[][2] = {
    {"simulation", "domain_min = [-1e300, -1e300]; domain_max = [1e300, 1e300];"},
    {"simulation", "domain_min = [-1e6, -1e6]; domain_max = [1e6, 1e6];"},
    {"simulation", "domain_min = [-1e6, -1e6, -1e6]; domain_max = [1e6, 1e6, 1e6];"},
    {"simulation", "domain_min = [0.0, 0.0]; domain_max = [1e-300, 1e-300];"},
    {"simulation", "domain_min = [0.1, 0.1]; domain_max = [0.2, 0.2];"},
    {"simulation", "end_time = 1e-300;"},
    {"simulation", "end_time = 1e6;"},
    {"simulation", "dimension = 3;"},
    {"simulation", "method = \"emps\";"},
    {"fluid", "sound_speed = 1e5;"},
    {"fluid", "sound_speed = 0.01;"},
    {"fluid", "gravity = [0.0, 0.0];"},
    {"fluid", "gravity = [1000.0, -1000.0];"},
    {"fluid", "eos_gamma = 1.0;"},
    {"fluid", "viscosity = 10.0;"},
    {"numerics", "h_factor = 4.0;"},
    {"numerics", "h_factor = 0.5;"},
    {"numerics", "ndiv = 1;"},
    {"numerics", "ndiv = 3;"},
    {"numerics", "packing = true; packing_iterations = 3;"},
    {"numerics", "cfl = 1.0;"},
    {"numerics", "integrator = \"verlet\"; verlet_steps = 1;"},
    {"numerics", "viscosity = \"laminar\";"},
    {"numerics", "kernel = \"cubic\";"},
    {"numerics", "diffusion = \"molteni\"; delta = 1.0;"},
    {"mps", "re_density = 1.0; re_laplacian = 1.0;"},
    {"mps", "re_density = 6.0; re_laplacian = 6.0;"},
    {"mps", "operators = \"lsmps\"; lsmps_scale = 0.1;"},
    {"mps", "cg_max_iterations = 1; cg_tolerance = 1e-14;"},
    {"mps", "surface_beta = 1.0; compressibility = 1e-3;"},
    {"mps", "source = \"density\"; relaxation = 1.0;"},
    {"mps", "source = \"ecs\"; compressibility = 0.0;"},
    {"output", "interval = 1e-300;"},
    {"output", "fields = [];"},
    {"output", "checkpoint_every = 0;"},
    {"output", "directory = \"/dev/null/x\";"},
    {"gpu", "sort = \"radix\"; strategy = \"par-part-sym\";"},
    {"viewer", "range_min = 1e30; range_max = -1e30;"},
    {"viewer", "width = 8192; height = 64; particle_size = 20.0;"},
    {"probes", "interval = 1e-9; front = \"+y\";"},
    {"probes", "pressure = ( { name = \"P\"; at = [1e300, 0.0]; } );"},
    {"probes", "gauges = ( { name = \"G\"; at = -1e300; } );"},
    {"grid", "spacing = 1e-9; order = 1;"},
    {"grid", "spacing = 10.0; order = 4; method = \"mesh\";"},
    {"grid", "spacing = 1e-4;"},
};

/* Inserts one of `added` into its group (after the group's '{'), or as a new group at the end. */
static const char *mutate_add_key(text *t)
{
    const char *const *a = added[pick(sizeof added / sizeof added[0])];
    char head[64], ins[320];
    snprintf(head, sizeof head, "%s = {", a[0]);
    const char *at = strstr(t->s, head);
    while (at && at != t->s && at[-1] != '\n')
        at = strstr(at + 1, head);
    if (at) {
        snprintf(ins, sizeof ins, "\n  %s", a[1]);
        splice(t, (size_t)(at - t->s) + strlen(head), 0, ins, strlen(ins));
    } else {
        snprintf(ins, sizeof ins, "\n%s = { %s };\n", a[0], a[1]);
        splice(t, t->len, 0, ins, strlen(ins));
    }
    return "key added";
}

static const char *mutate_once(text *t)
{
    switch (rng() % 11) {
    case 9:
    case 10:
        return mutate_add_key(t);
    case 0:
    case 1:
        return mutate_number(t);
    case 2:
        return mutate_lines(t, 0);
    case 3:
        return mutate_lines(t, 1);
    case 4:
        return mutate_lines(t, 2);
    case 5:
        return mutate_truncate(t);
    case 6:
        return mutate_key(t);
    case 7:
        return mutate_junk(t);
    default:
        return mutate_braces(t);
    }
}

/* ---- the promise of an error message --------------------------------------------------------- */

static int count_lines(const char *s)
{
    int n = 1;
    for (; *s; ++s)
        n += *s == '\n';
    return n;
}

/* NULL when `msg` keeps the promise for a file called `name` with `nlines` lines; otherwise why
 * not. `no_line_ok`: the message comes from a check that does not see the file's lines (sim_create). */
static const char *msg_problem(const char *msg, const char *name, int nlines, int no_line_ok)
{
    if (!msg[0])
        return "empty message";
    for (const char *p = msg; *p; ++p)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return "a control character or a second line";
    size_t nl = strlen(name);
    if (strncmp(msg, name, nl) != 0 || msg[nl] != ':')
        return "does not start with the file name and ':'";
    const char *p = msg + nl + 1;
    int line = 0;
    if (isdigit((unsigned char)*p)) {
        char *e;
        long v = strtol(p, &e, 10);
        if (*e != ':' || e[1] != ' ')
            return "line number not followed by ': '";
        if (v < 1 || v > nlines)
            return "line number outside the file";
        line = (int)v;
        p = e + 2;
    } else if (*p == ' ') {
        ++p;
    } else {
        return "file name not followed by ':LINE: ' or ': '";
    }
    if (strncmp(p, "key '", 5) == 0) {
        const char *q = strstr(p + 5, "': ");
        if (!q || q == p + 5)
            return "key '...' not closed by \"': \" or empty";
        const char *acc = strstr(q, "(accepted: ");
        if (!acc || acc[11] == ')' || acc[11] == '\0')
            return "key error without \"(accepted: ...)\"";
        if (!line && !no_line_ok && !strstr(q, "required key is missing") && !strstr(q, "required list is missing"))
            return "key error without a line, though the key is in the file";
        return NULL;
    }
    if (strncmp(p, "syntax error", 12) == 0)
        return line ? NULL : "syntax error without a line";
    if (strstr(p, "(accepted: "))
        return NULL;
    return "neither a key error nor a syntax error, and no \"(accepted: ...)\"";
}

/* ---- one mutant in a child ------------------------------------------------------------------- */

enum outcome { OUT_RUN, OUT_BIG, OUT_REJECTED, OUT_BROKEN, OUT_CRASH, OUT_HANG, OUT_COUNT };
static const char *const outcome_names[] = {"accepted and run", "accepted, too big to run", "rejected",
                                            "broken promise", "crashed", "hung"};

/* Exit codes of the child. */
#define CHILD_RUN 10
#define CHILD_BIG 11
#define CHILD_REJECTED 12
#define CHILD_BROKEN 13

static int child_fail(const char *what, const char *msg)
{
    fprintf(stderr, "  BROKEN: %s: %s\n", what, msg);
    return CHILD_BROKEN;
}

/* Load, build, step: the child's whole job; its return is the exit code. *rejection gets the
 * loader's or sim_create's message (for the comparison with `sluice check`). */
static int try_mutant(const char *src, const char *name, int from_file, sl_err *msg_out, int *stage)
{
    int nlines = count_lines(src);
    scene sc;
    sl_err err = {{0}};
    *stage = 0;
    int rc = from_file ? scene_load(&sc, name, &err) : scene_load_string(&sc, src, name, &err);
    *msg_out = err;
    if (rc != SL_OK && getenv("FUZZ_VERBOSE"))
        printf("  message: %s\n", err.msg);
    if (rc == SL_ERR_INPUT) {
        const char *why = msg_problem(err.msg, name, nlines, 0);
        if (sc.text || sc.geom)
            return child_fail("a refused scene left memory behind", err.msg);
        return why ? child_fail(why, err.msg) : CHILD_REJECTED;
    }
    if (rc != SL_OK)
        return child_fail("the loader returned neither SL_OK nor SL_ERR_INPUT", err.msg);
    if (sc.ngeom < 1 || !sc.text) {
        scene_free(&sc);
        return child_fail("an accepted scene without geometry or text", name);
    }
    scene_counts cnt;
    *stage = 1;
    rc = scene_count_particles(&sc, &cnt, &err);
    if (rc == SL_OK && cnt.total > FUZZ_MAX_PARTICLES) {
        scene_free(&sc);
        return CHILD_BIG;
    }
    if (rc == SL_OK) {
        sim s;
        rc = sim_create(&s, &sc, &backend_cpu, &err);
        if (rc == SL_OK && sc.grid.enabled) { /* the gridded fields, as the engine lays them out first */
            p2m_grid grid;
            rc = p2m_grid_for_sim(&grid, &s, &err);
            if (rc == SL_OK)
                p2m_grid_free(&grid);
            else
                sim_free(&s);
        }
        if (rc == SL_OK) {
            for (int k = 0; k < FUZZ_STEPS && rc == SL_OK; ++k) {
                double dt = 0;
                rc = sim_time_step(&s, &dt, &err);
                if (rc == SL_OK && !(dt > 0))
                    break; /* the engine refuses such a step; nothing to take */
                if (rc == SL_OK)
                    rc = sim_step(&s, dt, &err);
            }
            sim_free(&s);
            scene_free(&sc);
            if (rc != SL_OK && rc != SL_ERR_INPUT && rc != SL_ERR_RUNTIME)
                return child_fail("a step returned an unknown status", err.msg);
            if (rc != SL_OK && (!err.msg[0] || strchr(err.msg, '\n')))
                return child_fail("a failed step without a one-line message", err.msg);
            return CHILD_RUN;
        }
    }
    *msg_out = err;
    *stage = 2;
    if (getenv("FUZZ_VERBOSE"))
        printf("  message: %s\n", err.msg);
    scene_free(&sc);
    if (rc != SL_ERR_INPUT)
        return child_fail("sim_create failed with a status other than SL_ERR_INPUT", err.msg);
    const char *why = msg_problem(err.msg, name, nlines, 1);
    return why ? child_fail(why, err.msg) : CHILD_REJECTED;
}

static int write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(data, 1, len, f);
    return (fclose(f) == 0 && w == len) ? 0 : -1;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *s = xmalloc(cap);
    size_t got;
    while ((got = fread(s + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len < 2) {
            cap *= 2;
            char *t = realloc(s, cap);
            if (!t)
                die("out of memory");
            s = t;
        }
    }
    fclose(f);
    s[len] = '\0';
    return s;
}

/* `sluice check path`: its exit status against the library's verdict on the same file. */
static int cli_check(const char *bin, const char *path, const char *workdir, int lib_code, const sl_err *lib_msg,
                     int lib_stage)
{
    char out[4200], errp[4200];
    snprintf(out, sizeof out, "%s/check.out", workdir);
    snprintf(errp, sizeof errp, "%s/check.err", workdir);
    pid_t pid = fork();
    if (pid < 0)
        return child_fail("fork failed", strerror(errno));
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0)
            _exit(127);
        dup2(fo, 1);
        dup2(fe, 2);
        alarm(ALARM_CLI); /* survives exec: a hanging check dies of SIGALRM */
        execl(bin, bin, "check", path, "--backend", "cpu", "--threads", "1", (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(st)) {
        char sig[64];
        snprintf(sig, sizeof sig, "signal %d%s", WTERMSIG(st), WTERMSIG(st) == SIGALRM ? " (hang)" : "");
        return child_fail("sluice check died", sig);
    }
    int code = WEXITSTATUS(st);
    char *eo = read_all(errp), *so = read_all(out);
    int result = 0;
    char detail[2400];
    if (code != 0 && code != 2) {
        snprintf(detail, sizeof detail, "exit %d, stderr: %.1000s", code, eo ? eo : "");
        result = child_fail("sluice check exited neither 0 nor 2", detail);
    } else if (code == 0) {
        if (!so || !strstr(so, ": valid"))
            result = child_fail("sluice check exited 0 without \"valid\"", so ? so : "");
        else if (lib_code == CHILD_REJECTED) {
            snprintf(detail, sizeof detail, "the library said: %.1000s", lib_msg->msg);
            result = child_fail("sluice check accepted what the library refused", detail);
        }
    } else {
        size_t len = eo ? strlen(eo) : 0;
        if (len == 0 || eo[len - 1] != '\n' || strchr(eo, '\n') != eo + len - 1) {
            snprintf(detail, sizeof detail, "%.2000s", eo ? eo : "");
            result = child_fail("sluice check's refusal is not exactly one line on stderr", detail);
        } else {
            eo[len - 1] = '\0';
            if (lib_code == CHILD_RUN) {
                snprintf(detail, sizeof detail, "%.1000s", eo);
                result = child_fail("sluice check refused what the library accepted and ran", detail);
            } else if (lib_code == CHILD_REJECTED && lib_stage != 1 && strcmp(eo, lib_msg->msg) != 0) {
                snprintf(detail, sizeof detail, "check: %.1000s | library: %.1000s", eo, lib_msg->msg);
                result = child_fail("sluice check's message differs from the library's", detail);
            } else if (lib_code != CHILD_RUN && lib_code != CHILD_REJECTED) {
                /* too big for the library run: judge the message alone */
            }
        }
    }
    free(eo);
    free(so);
    return result;
}

/* ---- main ------------------------------------------------------------------------------------- */

typedef struct source {
    char name[256];
    char *text;
} source;

static int cmp_source(const void *a, const void *b)
{
    return strcmp(((const source *)a)->name, ((const source *)b)->name);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        die("usage: fuzz_scenes SCENES_DIR SLUICE_BINARY WORKDIR [COUNT [SEED]]");
    const char *scenes_dir = argv[1], *bin = argv[2], *workdir = argv[3];
    long count = argc > 4 ? strtol(argv[4], NULL, 10) : 4000;
    uint64_t seed = argc > 5 ? strtoull(argv[5], NULL, 10) : 22;
    fuzz_name = "fuzz_scenes";
    rng_state = seed;
    if (mkdir(workdir, 0777) != 0 && errno != EEXIST)
        die("cannot create %s: %s", workdir, strerror(errno));

    /* the scenes, in name order so the mutants do not depend on the directory's order */
    source src[MAX_SCENES];
    int nsrc = 0;
    DIR *d = opendir(scenes_dir);
    if (!d)
        die("cannot open %s: %s", scenes_dir, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)) != NULL && nsrc < MAX_SCENES) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || strcmp(dot, ".cfg") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", scenes_dir, e->d_name);
        snprintf(src[nsrc].name, sizeof src[nsrc].name, "%s", e->d_name);
        src[nsrc].text = read_all(path);
        if (!src[nsrc].text)
            die("cannot read %s", path);
        ++nsrc;
    }
    closedir(d);
    if (nsrc == 0)
        die("no scene in %s", scenes_dir);
    qsort(src, (size_t)nsrc, sizeof src[0], cmp_source);

    printf("fuzz_scenes: seed %llu, %ld mutants of %d scenes, every %dth also through `sluice check`\n",
           (unsigned long long)seed, count, nsrc, CLI_EVERY);
    fflush(stdout);
    long counts[OUT_COUNT] = {0}, cli_runs = 0;
    time_t t0 = time(NULL);
    for (long i = 0; i < count; ++i) {
        const source *s = &src[i % nsrc];
        text t = {NULL, strlen(s->text)};
        t.s = xmalloc(t.len + 1);
        memcpy(t.s, s->text, t.len + 1);
        int nmut = rng() % 10 < 7 ? 1 : 2 + (int)pick(2);
        char ops[256] = "";
        for (int k = 0; k < nmut; ++k) {
            const char *what = mutate_once(&t);
            if (strlen(ops) + strlen(what) + 3 < sizeof ops) {
                if (k)
                    strcat(ops, ", ");
                strcat(ops, what);
            }
        }
        int via_cli = i % CLI_EVERY == 0;
        char path[4400];
        snprintf(path, sizeof path, "%s/mutant_%ld.cfg", workdir, i);
        if (via_cli && write_file(path, t.s, t.len) != 0)
            die("cannot write %s", path);
        char name[300];
        snprintf(name, sizeof name, "%s.mutant%ld", s->name, i);
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0)
            die("fork: %s", strerror(errno));
        if (pid == 0) {
#ifdef _OPENMP
            omp_set_num_threads(1); /* one core each; the steps are few and the scenes small */
#endif
            alarm(ALARM_LIB);
            sl_err msg;
            int stage;
            int code = try_mutant(t.s, via_cli ? path : name, via_cli, &msg, &stage);
            if (via_cli && (code == CHILD_RUN || code == CHILD_REJECTED)) { /* never a huge scene */
                alarm(0);
                if (cli_check(bin, path, workdir, code, &msg, stage) == CHILD_BROKEN)
                    code = CHILD_BROKEN;
            }
            fflush(stdout);
            fflush(stderr);
            _exit(code);
        }
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        enum outcome o;
        if (WIFSIGNALED(st))
            o = WTERMSIG(st) == SIGALRM ? OUT_HANG : OUT_CRASH;
        else if (WEXITSTATUS(st) == CHILD_RUN)
            o = OUT_RUN;
        else if (WEXITSTATUS(st) == CHILD_BIG)
            o = OUT_BIG;
        else if (WEXITSTATUS(st) == CHILD_REJECTED)
            o = OUT_REJECTED;
        else
            o = OUT_BROKEN;
        counts[o]++;
        cli_runs += via_cli;
        if (o >= OUT_BROKEN) {
            char keep[4400];
            const char *kind = o == OUT_BROKEN ? "broken" : o == OUT_HANG ? "hang" : "crash";
            snprintf(keep, sizeof keep, "%s/%s_%ld.cfg", workdir, kind, i);
            write_file(keep, t.s, t.len);
            printf("mutant %ld of %s (%s): %s", i, s->name, ops, outcome_names[o]);
            if (WIFSIGNALED(st))
                printf(" (signal %d)", WTERMSIG(st));
            printf("; saved as %s\n", keep);
            fflush(stdout);
        }
        if (via_cli)
            unlink(path);
        free(t.s);
    }
    char leftover[4400];
    snprintf(leftover, sizeof leftover, "%s/check.out", workdir);
    unlink(leftover);
    snprintf(leftover, sizeof leftover, "%s/check.err", workdir);
    unlink(leftover);
    for (int k = 0; k < nsrc; ++k)
        free(src[k].text);

    long accepted = counts[OUT_RUN] + counts[OUT_BIG];
    printf("fuzz_scenes: %ld mutants in %lds: %ld accepted (%ld run %d steps, %ld over %d particles), %ld rejected, "
           "%ld crashed, %ld hung, %ld broke the message promise; %ld also through sluice check\n",
           count, (long)(time(NULL) - t0), accepted, counts[OUT_RUN], FUZZ_STEPS, counts[OUT_BIG], FUZZ_MAX_PARTICLES,
           counts[OUT_REJECTED], counts[OUT_CRASH], counts[OUT_HANG], counts[OUT_BROKEN], cli_runs);
    /* the fuzzer itself must work: some mutants accepted and run, most rejected */
    if (counts[OUT_RUN] == 0 || counts[OUT_REJECTED] == 0) {
        printf("fuzz_scenes: FAILED: the mutants did not reach both outcomes (accepted and run, rejected)\n");
        return 1;
    }
    int failed = counts[OUT_CRASH] + counts[OUT_HANG] + counts[OUT_BROKEN] > 0;
    printf("fuzz_scenes: %s\n", failed ? "FAILED" : "passed");
    if (!failed)
        rmdir(workdir); /* empty when nothing failed; kept (with the failing mutants) otherwise */
    return failed;
}
