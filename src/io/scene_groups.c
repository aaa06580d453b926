/* scene_groups.c: reads the groups and the geometry items of a scene file: which names are known
 * (unknown keys and groups, with where they belong), required keys, and the keys in table order. */
#include "scene_keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENE_GEOM_MAX 10000 /* geometry items */

/* ---- known names -------------------------------------------------------------------------- */

static int key_names(const group_desc *gd, const char **out, int max)
{
    int n = 0;
    for (int i = 0; i < gd->nkeys && n < max; ++i)
        out[n++] = gd->keys[i].name;
    return n;
}

static const scene_key *find_key(const group_desc *gd, const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < gd->nkeys; ++i)
        if (strcmp(gd->keys[i].name, name) == 0)
            return &gd->keys[i];
    return NULL;
}

static const group_desc *find_group(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < SK_NGROUPS; ++i)
        if (strcmp(sk_groups[i].name, name) == 0)
            return &sk_groups[i];
    return NULL;
}

/* The group other than `except` that has a key `name`, or NULL. */
static const group_desc *group_with_key(const char *name, const group_desc *except)
{
    for (int i = 0; i < SK_NGROUPS; ++i)
        if (&sk_groups[i] != except && find_key(&sk_groups[i], name))
            return &sk_groups[i];
    return NULL;
}

static void kinds_text(unsigned kinds, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int i = 0; sk_geom_names[i]; ++i) {
        if (!(kinds & (1u << i)))
            continue;
        if (buf[0])
            sk_append(buf, n, ", ");
        sk_append(buf, n, sk_geom_names[i]);
    }
}

static int unknown_key(sk_ctx *c, const group_desc *gd, const config_setting_t *m, const char *key, const char *name)
{
    const char *names[64];
    char acc[512], sug[96];
    int n = key_names(gd, names, 64);
    sk_join_names(names, n, 0, acc, sizeof acc);
    const group_desc *other = group_with_key(name, gd);
    if (other && other->list)
        return sk_fail(c, sk_line_of(m), key, "unknown key; '%s' is a key of %s items (accepted: %s)", name,
                       other->name, acc);
    if (other)
        return sk_fail(c, sk_line_of(m), key, "unknown key; '%s' belongs in group '%s' (accepted: %s)", name,
                       other->name, acc);
    sk_suggestion(name, names, n, sug, sizeof sug);
    return sk_fail(c, sk_line_of(m), key, "unknown key%s (accepted: %s)", sug, acc);
}

/* Every member of group g must be a key of gd (and, for a geometry item of `kind` >= 0, one that
 * items of that kind take). */
static int check_names(sk_ctx *c, const group_desc *gd, const config_setting_t *g, const char *prefix, int kind)
{
    char key[160], kinds[64];
    int n = g ? config_setting_length(g) : 0;
    for (int i = 0; i < n; ++i) {
        const config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(m);
        snprintf(key, sizeof key, "%s.%.60s", prefix, name ? name : "?");
        const scene_key *k = find_key(gd, name);
        if (!k)
            return unknown_key(c, gd, m, key, name ? name : "?");
        if (kind >= 0 && !(k->kinds & GK(kind))) {
            kinds_text(k->kinds, kinds, sizeof kinds);
            return sk_fail(c, sk_line_of(m), key, "not used by %s %s item (accepted: only in %s items)",
                           strchr("aeiou", sk_geom_names[kind][0]) ? "an" : "a", sk_geom_names[kind], kinds);
        }
    }
    return SL_OK;
}

/* ---- groups and items -------------------------------------------------------------------- */

/* Reads the keys of group g (NULL: absent, only the required keys matter) into base, in table
 * order. kind >= 0: a geometry item of that kind. */
int sk_read_group(sk_ctx *c, const group_desc *gd, const config_setting_t *g, void *base, const char *prefix,
                  int kind)
{
    char key[160], acc[512];
    SL_TRY(check_names(c, gd, g, prefix, kind));
    for (int j = 0; j < gd->nkeys; ++j) {
        const scene_key *k = &gd->keys[j];
        if (kind >= 0 && !(k->kinds & GK(kind)))
            continue;
        snprintf(key, sizeof key, "%s.%s", prefix, k->name);
        const config_setting_t *s = g ? config_setting_get_member(g, k->name) : NULL;
        if (s) {
            SL_TRY(sk_read_key(c, k, s, base, key));
        } else if (k->flags & KF_REQUIRED) {
            sk_describe_accepted(c, k, acc, sizeof acc);
            return sk_fail(c, sk_line_of(g), key, "required key is missing (accepted: %s)", acc);
        }
    }
    return SL_OK;
}

/* The geometry list into sc->geom (freed by the caller on failure). */
int sk_read_items(sk_ctx *c, const group_desc *gd, const config_setting_t *list)
{
    scene *sc = c->sc;
    char prefix[32], key[64], val[160], a[40], b[40];
    if (!list && !gd->required)
        return SL_OK;
    if (!list)
        return sk_fail(c, 0, gd->name,
                       "required list is missing (accepted: %s = ( { type = \"fluid\"; min = [...]; max = [...]; }, "
                       "... ))",
                       gd->name);
    int n = config_setting_length(list);
    if (n == 0)
        return sk_fail(c, sk_line_of(list), gd->name,
                       "the list is empty (accepted: 1..%d items, at least one of type \"fluid\")", SCENE_GEOM_MAX);
    if (n > SCENE_GEOM_MAX)
        return sk_fail(c, sk_line_of(config_setting_get_elem(list, SCENE_GEOM_MAX)), gd->name,
                       "%d items (accepted: at most %d items)", n, SCENE_GEOM_MAX);
    sc->geom = calloc((size_t)n, sizeof *sc->geom);
    if (!sc->geom)
        return sl_fail(c->err, SL_ERR_RUNTIME, "%s: out of memory", c->name);
    sc->ngeom = n;
    int nfluid = 0;
    const scene_key *type_key = find_key(gd, "type");
    for (int i = 0; i < n; ++i) {
        const config_setting_t *item = config_setting_get_elem(list, (unsigned)i);
        scene_geom *g = &sc->geom[i];
        snprintf(prefix, sizeof prefix, "%s[%d]", gd->name, i);
        sk_apply_defaults(gd->keys, gd->nkeys, g);
        g->line = sk_line_of(item);
        if (config_setting_type(item) != CONFIG_TYPE_GROUP) {
            sk_describe_value(item, val, sizeof val);
            return sk_fail(c, g->line, prefix,
                           "expected a group { type = ...; min = [...]; max = [...]; }, got %s (accepted: a group "
                           "per item)",
                           val);
        }
        SL_TRY(check_names(c, gd, item, prefix, -1));
        const config_setting_t *ts = config_setting_get_member(item, "type");
        snprintf(key, sizeof key, "%s.type", prefix);
        if (!ts) {
            char acc[256];
            sk_describe_accepted(c, type_key, acc, sizeof acc);
            return sk_fail(c, g->line, key, "required key is missing (accepted: %s)", acc);
        }
        SL_TRY(sk_read_key(c, type_key, ts, g, key));
        SL_TRY(sk_read_group(c, gd, item, g, prefix, (int)g->kind));
        for (int d = 0; d < sc->dim; ++d)
            if (!(g->max[d] > g->min[d])) {
                snprintf(key, sizeof key, "%s.max", prefix);
                return sk_fail(c, sk_line_of(config_setting_get_member(item, "max")), key,
                               "empty box: max %s = %s is not above min %s = %s (accepted: max > min in every "
                               "component)",
                               sk_axis_name(d), sk_fmt_num(g->max[d], a, sizeof a), sk_axis_name(d),
                               sk_fmt_num(g->min[d], b, sizeof b));
            }
        nfluid += g->kind == GEOM_FLUID;
    }
    if (nfluid == 0)
        return sk_fail(c, sk_line_of(list), gd->name,
                       "no item of type \"fluid\" (accepted: at least one fluid item)");
    return SL_OK;
}

/* ---- the top level ------------------------------------------------------------------------ */

int sk_check_root(sk_ctx *c, const config_setting_t *root)
{
    const char *gnames[SK_NGROUPS];
    char acc[256], val[160], sug[96];
    for (int i = 0; i < SK_NGROUPS; ++i)
        gnames[i] = sk_groups[i].name;
    sk_join_names(gnames, SK_NGROUPS, 0, acc, sizeof acc);
    int n = config_setting_length(root);
    for (int i = 0; i < n; ++i) {
        const config_setting_t *m = config_setting_get_elem(root, (unsigned)i);
        const char *name = config_setting_name(m);
        char key[80];
        snprintf(key, sizeof key, "%.60s", name ? name : "?");
        const group_desc *gd = find_group(name);
        if (!gd) {
            const group_desc *owner = group_with_key(name, NULL);
            if (owner && owner->list)
                return sk_fail(c, sk_line_of(m), key,
                               "unknown group; '%s' is a key of %s items, which go inside %s = ( {...}, ... ) "
                               "(accepted: %s)",
                               key, owner->name, owner->name, acc);
            if (owner)
                return sk_fail(c, sk_line_of(m), key,
                               "unknown group; keys go inside their group: did you mean '%s.%s'? (accepted: %s)",
                               owner->name, key, acc);
            sk_suggestion(name, gnames, SK_NGROUPS, sug, sizeof sug);
            return sk_fail(c, sk_line_of(m), key, "unknown group%s (accepted: %s)", sug, acc);
        }
        int t = config_setting_type(m);
        if (gd->list && t != CONFIG_TYPE_LIST) {
            sk_describe_value(m, val, sizeof val);
            return sk_fail(c, sk_line_of(m), key,
                           "expected a list ( {...}, {...} ) of items, got %s (accepted: %s = ( "
                           "{ type = ...; min = [...]; max = [...]; }, ... ))", val, key);
        }
        if (!gd->list && t != CONFIG_TYPE_GROUP) {
            sk_describe_value(m, val, sizeof val);
            return sk_fail(c, sk_line_of(m), key,
                           "expected a group { ... }, got %s (accepted: %s = { key = value; ... })", val, key);
        }
    }
    return SL_OK;
}
