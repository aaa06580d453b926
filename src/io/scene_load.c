/* scene_load.c: reads a libconfig scene file into a validated struct scene: the driver and the
 * public API (scene_load(), scene_load_string(), scene_defaults(), scene_free(), scene_visit_keys()).
 *
 * Table-driven: the key tables (scene_tables.c) say what each group holds; scene_keys.h says how the
 * loader's files share the work. Every error is one line:
 * FILE:LINE: key 'group.key': what is wrong (accepted: ...).
 * libconfig sees the text only once scene_syntax.c has checked its syntax (that file says why).
 */
#include "scene_keys.h"

#include "file_read.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENE_FILE_MAX ((size_t)64 << 20) /* bytes: larger files are refused */

/* ---- the loader ------------------------------------------------------------------------ */

static int is_blank(const char *s)
{
    for (; *s; ++s)
        if (!isspace((unsigned char)*s))
            return 0;
    return 1;
}

/* The start of line `line` (1-based) of text, or its end. */
static const char *line_start(const char *text, int line)
{
    for (int l = 1; l < line && *text; ++text)
        if (*text == '\n')
            ++l;
    return text;
}

/* Only white space and # or // comments from s on (what a truncated file leaves after the error). */
static int is_blank_or_comment(const char *s)
{
    while (*s) {
        if (*s == '#' || (s[0] == '/' && s[1] == '/')) {
            while (*s && *s != '\n')
                ++s;
        } else if (isspace((unsigned char)*s)) {
            ++s;
        } else {
            return 0;
        }
    }
    return 1;
}

static int parse_and_read(sk_ctx *c, config_t *cfg)
{
    char msg[MSG_MAX];
    int syntax_line = 0;
    int rc = scene_syntax_check(c->text, &c->ovf, &syntax_line, msg, sizeof msg);
    if (rc == SL_ERR_RUNTIME)
        return sl_fail(c->err, SL_ERR_RUNTIME, "%s: out of memory", c->name);
    if (rc != SL_OK)
        return sk_fail(c, syntax_line, NULL, "%s", msg);
    /* The syntax is fine, so libconfig should fail only in its parser actions (a duplicate name, an
     * array of mixed types); the generic cases stay in case the two grammars ever differ. */
    if (!config_read_string(cfg, c->text)) {
        const char *what = config_error_text(cfg);
        int line = config_error_line(cfg);
        if (!what || strcmp(what, "syntax error") == 0) {
            if (line > 0 && is_blank_or_comment(line_start(c->text, line)))
                return sk_fail(c, line, NULL,
                               "syntax error at the end of the file (an unclosed group, list, array, string or "
                               "comment?)");
            return sk_fail(c, line, NULL,
                           "syntax error (look for a missing ';', '=', quote or bracket here or just before)");
        }
        if (strstr(what, "mismatched element type"))
            return sk_fail(c, line, NULL,
                           "syntax error: %s (the numbers of an array must all be written alike: [0.0, -9.81], not "
                           "[0, -9.81])",
                           what);
        return sk_fail(c, line, NULL, "syntax error: %s", what);
    }
    const config_setting_t *root = config_root_setting(cfg);
    if (config_setting_length(root) == 0)
        return sk_fail(c, 0, NULL,
                       "%s (accepted: a scene with at least numerics.spacing and a geometry list; see "
                       "docs/scene-files.md)",
                       is_blank(c->text) ? "the file is empty" : "the file has no settings");
    SL_TRY(sk_check_root(c, root));
    for (int i = 0; i < SK_NGROUPS; ++i) {
        const group_desc *gd = &sk_groups[i];
        const config_setting_t *g = config_setting_get_member(root, gd->name);
        if (gd->list)
            SL_TRY(sk_read_items(c, gd, g));
        else
            SL_TRY(sk_read_group(c, gd, g, c->sc, gd->name, -1));
        if (gd->after)
            SL_TRY(gd->after(c, g));
    }
    SL_TRY(sk_check_geometry(c));
    for (int i = 0; i < c->ovf.count; ++i) /* a wrapped literal no key claimed: still an error */
        if (!c->ovf.items[i].claimed)
            return sk_fail(c, c->ovf.items[i].line, NULL,
                           "integer %s does not fit in 32 bits (accepted: -2147483648..2147483647, or a real number)",
                           c->ovf.items[i].tok);
    return SL_OK;
}

/* The default output directory: output/<base name of `name` without its extension>. */
static void default_out_dir(scene *sc, const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t len = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        len = (size_t)(dot - base);
    if (len == 0 || (len == 1 && base[0] == '.') || (len == 2 && strncmp(base, "..", 2) == 0))
        snprintf(sc->out_dir, sizeof sc->out_dir, "output/scene");
    else
        snprintf(sc->out_dir, sizeof sc->out_dir, "output/%.*s", (int)(len < 4000 ? len : 4000), base);
}

/* Loads `text` (owned: kept as sc->text on success, freed on failure). */
static int load_owned(scene *sc, char *text, const char *name, sl_err *err)
{
    scene_defaults(sc);
    snprintf(sc->path, sizeof sc->path, "%s", name);
    default_out_dir(sc, name);
    sk_ctx c = {.name = name, .text = text, .sc = sc, .err = err};
    config_t cfg;
    config_init(&cfg);
    int rc = parse_and_read(&c, &cfg);
    config_destroy(&cfg);
    free(c.ovf.items);
    if (rc != SL_OK) {
        free(text);
        free(sc->geom);
        sc->geom = NULL;
        sc->ngeom = 0;
        sc->text = NULL;
        return rc;
    }
    sc->text = text;
    return SL_OK;
}

/* ---- public API ------------------------------------------------------------------------ */

void scene_defaults(scene *sc)
{
    memset(sc, 0, sizeof *sc);
    for (int i = 0; i < SK_NGROUPS; ++i)
        if (!sk_groups[i].list)
            sk_apply_defaults(sk_groups[i].keys, sk_groups[i].nkeys, sc);
}

int scene_load_string(scene *sc, const char *text, const char *name, sl_err *err)
{
    if (!name)
        name = "(string)";
    if (!sc)
        return sl_fail(err, SL_ERR_INPUT, "%s: no scene to fill", name);
    if (!text) {
        scene_defaults(sc);
        return sl_fail(err, SL_ERR_INPUT, "%s: no scene text", name);
    }
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (!copy) {
        scene_defaults(sc);
        return sl_fail(err, SL_ERR_RUNTIME, "%s: out of memory", name);
    }
    memcpy(copy, text, len + 1);
    return load_owned(sc, copy, name, err);
}

int scene_load(scene *sc, const char *path, sl_err *err)
{
    if (!path)
        return sl_fail(err, SL_ERR_INPUT, "scene: no file name given");
    if (!sc)
        return sl_fail(err, SL_ERR_INPUT, "%s: no scene to fill", path);
    scene_defaults(sc);
    if (strlen(path) >= SCENE_PATH_MAX)
        return sl_fail(err, SL_ERR_INPUT, "%.200s...: path too long (accepted: fewer than %d characters)", path,
                       SCENE_PATH_MAX);
    char *buf;
    size_t len;
    int read_errno = io_read_whole_file(path, SCENE_FILE_MAX, &buf, &len);
    if (read_errno == ENOMEM)
        return sl_fail(err, SL_ERR_RUNTIME, "%s: out of memory", path);
    if (read_errno == EFBIG)
        return sl_fail(err, SL_ERR_INPUT, "%s: file too large (accepted: at most %zu MiB)", path,
                       SCENE_FILE_MAX >> 20);
    if (read_errno)
        return sl_fail(err, SL_ERR_INPUT, "%s: cannot read: %s", path, strerror(read_errno));
    const char *nul = memchr(buf, '\0', len);
    if (nul) {
        int line = 1;
        size_t at = (size_t)(nul - buf);
        for (const char *p = buf; p < nul; ++p)
            line += *p == '\n';
        free(buf);
        return sl_fail(err, SL_ERR_INPUT, "%s:%d: not a text file (NUL byte at offset %zu) (accepted: a libconfig "
                       "text file)", path, line, at);
    }
    return load_owned(sc, buf, path, err);
}

void scene_free(scene *sc)
{
    if (!sc)
        return;
    free(sc->text);
    free(sc->geom);
    sc->text = NULL;
    sc->geom = NULL;
    sc->ngeom = 0;
}

void scene_visit_keys(const scene *sc, void (*fn)(const scene_value *v, void *ctx), void *ctx)
{
    char points[SCENE_PROBES_MAX * 96];
    for (int g = 0; g < SK_NGROUPS; ++g) {
        if (sk_groups[g].list)
            continue;
        if (sk_groups[g].enabled_at && !*(const int *)(const void *)((const char *)sc + sk_groups[g].enabled_at))
            continue;
        for (int k = 0; k < sk_groups[g].nkeys; ++k) {
            const scene_key *d = &sk_groups[g].keys[k];
            const char *at = (const char *)sc + d->offset;
            scene_value v = {sk_groups[g].name, d->name, SV_INT, 0, NULL, 0, NULL};
            char flags[256] = "";
            switch (d->type) {
            case KT_REAL:
                v.kind = SV_REAL;
                v.count = 1;
                v.real = (const double *)at;
                break;
            case KT_VEC:
                v.kind = SV_REAL;
                v.count = sc->dim == 3 ? 3 : 2;
                v.real = (const double *)at;
                break;
            case KT_INT:
            case KT_BOOL:
                v.integer = *(const int *)at;
                break;
            case KT_ENUM:
                v.kind = SV_STRING;
                v.string = d->names[*(const int *)at];
                break;
            case KT_STRING:
            case KT_SCHEME:
                v.kind = SV_STRING;
                v.string = at;
                break;
            case KT_FLAGS:
                v.kind = SV_STRING;
                for (int b = 0; d->names[b]; ++b)
                    if (*(const unsigned *)at & (1u << b)) {
                        if (flags[0])
                            strcat(flags, ",");
                        strcat(flags, d->names[b]);
                    }
                v.string = flags;
                break;
            case KT_POINTS: {
                /* "P1 [0.8, 0.5, 0.02]; P2 [...]" */
                const scene_probe_point *pts = (const void *)at;
                int n = *(const int *)(const void *)((const char *)sc + d->count_offset);
                int nat = sc->dim - ((d->flags & KF_HORIZONTAL) ? 1 : 0);
                char num[48];
                points[0] = '\0';
                for (int i = 0; i < n; ++i) {
                    if (i)
                        sk_append(points, sizeof points, "; ");
                    sk_append(points, sizeof points, pts[i].name);
                    sk_append(points, sizeof points, " [");
                    for (int a = 0; a < nat; ++a) {
                        if (a)
                            sk_append(points, sizeof points, ", ");
                        sk_append(points, sizeof points, sk_fmt_num(pts[i].at[a], num, sizeof num));
                    }
                    sk_append(points, sizeof points, "]");
                }
                v.kind = SV_STRING;
                v.string = points;
                break;
            }
            case KT_GROUP: /* only geometry items have groups, and they are not visited */
                continue;
            }
            /* domain_min/max mean nothing unless given */
            if (d->type == KT_VEC && sk_groups[g].name[0] == 's' && !sc->domain_set)
                continue;
            fn(&v, ctx);
        }
    }
}
