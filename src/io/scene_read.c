/* scene_read.c: reads the value of one key of a scene file (number, integer, bool, name, string,
 * scheme, vector, flags, probe points, a nested group) against its descriptor, and applies the tables' defaults. */
#include "scene_keys.h"

#include "core/scheme.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- integer literals libconfig 1.5 would wrap ------------------------------------------------ */

/* When s is an int setting that holds a wrapped literal: the error. */
static int check_overflow(sk_ctx *c, const config_setting_t *s, const scene_key *k, const char *key)
{
    if (c->ovf.count == 0 || config_setting_type(s) != CONFIG_TYPE_INT)
        return SL_OK;
    long long v = config_setting_get_int(s);
    int line = sk_line_of(s), best = -1;
    for (int i = 0; i < c->ovf.count; ++i) {
        const scene_int_overflow *r = &c->ovf.items[i];
        if (!r->claimed && r->stored == v && r->line >= line && (best < 0 || r->line < c->ovf.items[best].line))
            best = i;
    }
    if (best < 0)
        return SL_OK;
    scene_int_overflow *r = &c->ovf.items[best];
    r->claimed = 1;
    char acc[512];
    sk_describe_accepted(c, k, acc, sizeof acc);
    return sk_fail(c, r->line, key, "%s does not fit in a 32-bit integer%s (accepted: %s)", r->tok,
                   k->type == KT_INT ? "" : "; write it as a real number, e.g. 1.0e10", acc);
}

/* ---- reading keys ------------------------------------------------------------------------- */

static int in_range(const scene_key *k, double v)
{
    if ((k->flags & KF_ZERO_OK) && v == 0)
        return 1;
    if ((k->flags & KF_LO_OPEN) ? !(v > k->lo) : !(v >= k->lo))
        return 0;
    return v <= k->hi;
}

/* A number setting (int, int64 or float) as a double; `what` prefixes the message. */
static int get_number(sk_ctx *c, const config_setting_t *s, const scene_key *k, const char *key, const char *what,
                      double *out)
{
    char acc[512], val[160];
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
        SL_TRY(check_overflow(c, s, k, key));
        *out = config_setting_get_int(s);
        return SL_OK;
    case CONFIG_TYPE_INT64:
        *out = (double)config_setting_get_int64(s);
        return SL_OK;
    case CONFIG_TYPE_FLOAT:
        *out = config_setting_get_float(s);
        if (isfinite(*out))
            return SL_OK;
        sk_describe_accepted(c, k, acc, sizeof acc);
        sk_value_text(s, val, sizeof val);
        return sk_fail(c, sk_line_of(s), key, "%s%s is not a finite number (accepted: %s)", what, val, acc);
    default:
        sk_describe_accepted(c, k, acc, sizeof acc);
        sk_describe_value(s, val, sizeof val);
        return sk_fail(c, sk_line_of(s), key, "%sexpected a number, got %s (accepted: %s)", what, val, acc);
    }
}

static int find_name(const char *const *names, const char *s)
{
    for (int i = 0; names[i]; ++i)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

static int read_vec(sk_ctx *c, const scene_key *k, const config_setting_t *s, double *dst, const char *key)
{
    char acc[512], val[160], what[32], num[40];
    int dim = c->sc->dim;
    int t = config_setting_type(s);
    sk_describe_accepted(c, k, acc, sizeof acc);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
        sk_describe_value(s, val, sizeof val);
        return sk_fail(c, sk_line_of(s), key, "expected %d numbers %s, got %s (accepted: %s)", dim,
                       dim == 3 ? "[x, y, z]" : "[x, y]", val, acc);
    }
    int n = config_setting_length(s);
    if (n != dim)
        return sk_fail(c, sk_line_of(s), key,
                       "has %d number%s, but simulation.dimension = %d needs %d (accepted: %s)", n,
                       n == 1 ? "" : "s", dim, dim, acc);
    double v[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < n; ++i) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        snprintf(what, sizeof what, "component %s: ", sk_axis_name(i));
        SL_TRY(get_number(c, e, k, key, what, &v[i]));
        if ((k->flags & KF_ABS) && !(fabs(v[i]) <= k->hi))
            return sk_fail(c, sk_line_of(e), key, "component %s = %s is out of range (accepted: %s)", sk_axis_name(i),
                           sk_fmt_num(v[i], num, sizeof num), acc);
    }
    memcpy(dst, v, sizeof v);
    return SL_OK;
}

static int read_flags(sk_ctx *c, const scene_key *k, const config_setting_t *s, unsigned *dst, const char *key)
{
    char acc[512], val[160], sug[96];
    int t = config_setting_type(s);
    sk_describe_accepted(c, k, acc, sizeof acc);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
        sk_describe_value(s, val, sizeof val);
        return sk_fail(c, sk_line_of(s), key, "expected an array of strings, got %s (accepted: %s)", val, acc);
    }
    unsigned bits = 0;
    int n = config_setting_length(s);
    for (int i = 0; i < n; ++i) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        if (config_setting_type(e) != CONFIG_TYPE_STRING) {
            sk_describe_value(e, val, sizeof val);
            return sk_fail(c, sk_line_of(e), key, "element %d: expected a string, got %s (accepted: %s)", i, val, acc);
        }
        const char *str = config_setting_get_string(e);
        int idx = find_name(k->names, str);
        sk_fmt_string(str, val, sizeof val);
        if (idx < 0) {
            sk_suggestion(str, k->names, -1, sug, sizeof sug);
            return sk_fail(c, sk_line_of(e), key, "%s is not a field name%s (accepted: %s)", val, sug, acc);
        }
        if (bits & (1u << idx))
            return sk_fail(c, sk_line_of(e), key, "%s is listed twice (accepted: %s)", val, acc);
        bits |= 1u << idx;
    }
    bits |= k->always;
    memcpy(dst, &bits, sizeof bits);
    return SL_OK;
}

static int probe_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= SCENE_PROBE_NAME_MAX)
        return 0;
    for (; *s; ++s)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
            return 0;
    return 1;
}

/* KT_POINTS: ( { name = "P1"; at = [x, y, z]; }, ... ) into base + k->offset, the count into
 * base + k->count_offset. `at` has dimension numbers, or dimension - 1 with KF_HORIZONTAL (a bare
 * number is fine when that is one). Names are checked for their characters here and for being
 * unique in sk_probes_after(). */
static int read_points(sk_ctx *c, const scene_key *k, const config_setting_t *s, void *base, const char *key)
{
    char acc[512], val[160], ikey[200], what[32];
    scene_probe_point *pts = (scene_probe_point *)(void *)((char *)base + k->offset);
    int *count = (int *)(void *)((char *)base + k->count_offset);
    int nat = c->sc->dim - ((k->flags & KF_HORIZONTAL) ? 1 : 0);
    sk_describe_accepted(c, k, acc, sizeof acc);
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_LIST) {
        sk_describe_value(s, val, sizeof val);
        return sk_fail(c, sk_line_of(s), key, "expected a list ( {...}, ... ), got %s (accepted: %s)", val, acc);
    }
    int n = config_setting_length(s);
    if (n > SCENE_PROBES_MAX)
        return sk_fail(c, sk_line_of(s), key, "%d items (accepted: %s)", n, acc);
    /* pressure sensors also take a wall normal, an offset and a diameter, checked in sk_probes_after() */
    static const char *const point_keys[] = {"name", "at", NULL},
                             *const sensor_keys[] = {"name", "at", "normal", "offset", "diameter", NULL};
    const char *const *item_keys = (k->flags & KF_HORIZONTAL) ? point_keys : sensor_keys;
    for (int i = 0; i < n; ++i) {
        const config_setting_t *item = config_setting_get_elem(s, (unsigned)i);
        scene_probe_point *pt = &pts[i];
        memset(pt, 0, sizeof *pt);
        pt->line = sk_line_of(item);
        snprintf(ikey, sizeof ikey, "%s[%d]", key, i);
        if (config_setting_type(item) != CONFIG_TYPE_GROUP) {
            sk_describe_value(item, val, sizeof val);
            return sk_fail(c, pt->line, ikey, "expected a group { name = ...; at = [...]; }, got %s (accepted: %s)",
                           val, acc);
        }
        for (int m = 0; m < config_setting_length(item); ++m) {
            const config_setting_t *e = config_setting_get_elem(item, (unsigned)m);
            const char *name = config_setting_name(e);
            if (find_name(item_keys, name ? name : "") < 0) {
                char sug[96];
                sk_suggestion(name, item_keys, -1, sug, sizeof sug);
                snprintf(ikey, sizeof ikey, "%s[%d].%.60s", key, i, name ? name : "?");
                return sk_fail(c, sk_line_of(e), ikey, "unknown key%s (accepted: name, at%s)", sug,
                               (k->flags & KF_HORIZONTAL) ? "" : ", normal, offset");
            }
        }
        const config_setting_t *ns = config_setting_get_member(item, "name");
        const config_setting_t *as = config_setting_get_member(item, "at");
        snprintf(ikey, sizeof ikey, "%s[%d].name", key, i);
        if (!ns)
            return sk_fail(c, pt->line, ikey, "required key is missing (accepted: %s)", acc);
        if (config_setting_type(ns) != CONFIG_TYPE_STRING) {
            sk_describe_value(ns, val, sizeof val);
            return sk_fail(c, sk_line_of(ns), ikey, "expected a string, got %s (accepted: %s)", val, acc);
        }
        const char *str = config_setting_get_string(ns);
        if (!str || !probe_name_ok(str)) {
            sk_fmt_string(str, val, sizeof val);
            return sk_fail(c, sk_line_of(ns), ikey, "%s is not a usable name (accepted: %s)", val, acc);
        }
        snprintf(pt->name, sizeof pt->name, "%s", str);
        snprintf(ikey, sizeof ikey, "%s[%d].at", key, i);
        if (!as)
            return sk_fail(c, pt->line, ikey, "required key is missing (accepted: %s)", acc);
        int at = config_setting_type(as);
        if (nat == 1 && (at == CONFIG_TYPE_INT || at == CONFIG_TYPE_INT64 || at == CONFIG_TYPE_FLOAT)) {
            SL_TRY(get_number(c, as, k, ikey, "", &pt->at[0]));
            continue;
        }
        if (at != CONFIG_TYPE_ARRAY && at != CONFIG_TYPE_LIST) {
            sk_describe_value(as, val, sizeof val);
            return sk_fail(c, sk_line_of(as), ikey, "expected %d number%s, got %s (accepted: %s)", nat,
                           nat == 1 ? "" : "s", val, acc);
        }
        int len = config_setting_length(as);
        if (len != nat)
            return sk_fail(c, sk_line_of(as), ikey, "has %d number%s, but simulation.dimension = %d needs %d here "
                           "(accepted: %s)", len, len == 1 ? "" : "s", c->sc->dim, nat, acc);
        for (int d = 0; d < nat; ++d) {
            snprintf(what, sizeof what, "component %s: ", sk_axis_name(d));
            SL_TRY(get_number(c, config_setting_get_elem(as, (unsigned)d), k, ikey, what, &pt->at[d]));
        }
    }
    *count = n;
    return SL_OK;
}

/* A string setting, or the error. */
static int get_string(sk_ctx *c, const scene_key *k, const config_setting_t *s, const char *key, const char **out)
{
    if (config_setting_type(s) == CONFIG_TYPE_STRING) {
        *out = config_setting_get_string(s);
        if (!*out)
            *out = "";
        return SL_OK;
    }
    char acc[512], val[160];
    sk_describe_accepted(c, k, acc, sizeof acc);
    sk_describe_value(s, val, sizeof val);
    return sk_fail(c, sk_line_of(s), key, "expected a string, got %s (accepted: %s)", val, acc);
}

/* Reads setting s of key k into base + k->offset; `key` names it in messages. */
int sk_read_key(sk_ctx *c, const scene_key *k, const config_setting_t *s, void *base, const char *key)
{
    char *dst = (char *)base + k->offset;
    char acc[512], val[160], sug[96];
    int line = sk_line_of(s), t = config_setting_type(s);
    const char *str = "";
    switch (k->type) {
    case KT_REAL: {
        double v;
        SL_TRY(get_number(c, s, k, key, "", &v));
        if (!in_range(k, v)) {
            sk_describe_accepted(c, k, acc, sizeof acc);
            return sk_fail(c, line, key, "%s is out of range (accepted: %s)", sk_fmt_num(v, val, sizeof val), acc);
        }
        memcpy(dst, &v, sizeof v);
        return SL_OK;
    }
    case KT_INT: {
        long long v;
        sk_describe_accepted(c, k, acc, sizeof acc);
        if (t == CONFIG_TYPE_INT) {
            SL_TRY(check_overflow(c, s, k, key));
            v = config_setting_get_int(s);
        } else if (t == CONFIG_TYPE_INT64) {
            v = config_setting_get_int64(s);
        } else if (t == CONFIG_TYPE_FLOAT) {
            sk_value_text(s, val, sizeof val);
            return sk_fail(c, line, key, "%s is a real number, an integer is expected (accepted: %s)", val, acc);
        } else {
            sk_describe_value(s, val, sizeof val);
            return sk_fail(c, line, key, "expected an integer, got %s (accepted: %s)", val, acc);
        }
        if ((double)v < k->lo || (double)v > k->hi)
            return sk_fail(c, line, key, "%lld is out of range (accepted: %s)", v, acc);
        int iv = (int)v;
        memcpy(dst, &iv, sizeof iv);
        return SL_OK;
    }
    case KT_BOOL: {
        if (t != CONFIG_TYPE_BOOL) {
            sk_describe_accepted(c, k, acc, sizeof acc);
            sk_describe_value(s, val, sizeof val);
            return sk_fail(c, line, key, "expected true or false, got %s (accepted: %s)", val, acc);
        }
        int b = config_setting_get_bool(s) ? 1 : 0;
        memcpy(dst, &b, sizeof b);
        return SL_OK;
    }
    case KT_ENUM: {
        SL_TRY(get_string(c, k, s, key, &str));
        int idx = find_name(k->names, str);
        if (idx < 0) {
            sk_describe_accepted(c, k, acc, sizeof acc);
            sk_fmt_string(str, val, sizeof val);
            sk_suggestion(str, k->names, -1, sug, sizeof sug);
            return sk_fail(c, line, key, "%s is not accepted%s (accepted: %s)", val, sug, acc);
        }
        memcpy(dst, &idx, sizeof idx);
        return SL_OK;
    }
    case KT_STRING:
        SL_TRY(get_string(c, k, s, key, &str));
        if ((k->flags & KF_NONEMPTY) && str[0] == '\0') {
            sk_describe_accepted(c, k, acc, sizeof acc);
            return sk_fail(c, line, key, "the string is empty (accepted: %s)", acc);
        }
        if (strlen(str) >= k->size) {
            sk_describe_accepted(c, k, acc, sizeof acc);
            return sk_fail(c, line, key, "the string has %zu characters (accepted: %s)", strlen(str), acc);
        }
        memcpy(dst, str, strlen(str) + 1);
        return SL_OK;
    case KT_SCHEME: {
        SL_TRY(get_string(c, k, s, key, &str));
        if (!scheme_find(str) || strlen(str) >= k->size) {
            char store[256];
            const char *names[32];
            int count = sk_scheme_list(store, sizeof store, names, 32);
            sk_describe_accepted(c, k, acc, sizeof acc);
            sk_fmt_string(str, val, sizeof val);
            sk_suggestion(str, names, count, sug, sizeof sug);
            return sk_fail(c, line, key, "%s is not a known method%s (accepted: %s)", val, sug, acc);
        }
        memcpy(dst, str, strlen(str) + 1);
        return SL_OK;
    }
    case KT_VEC:
        return read_vec(c, k, s, (double *)(void *)dst, key);
    case KT_FLAGS:
        return read_flags(c, k, s, (unsigned *)(void *)dst, key);
    case KT_POINTS:
        return read_points(c, k, s, base, key);
    case KT_GROUP: {
        if (t != CONFIG_TYPE_GROUP) {
            sk_describe_accepted(c, k, acc, sizeof acc);
            sk_describe_value(s, val, sizeof val);
            return sk_fail(c, line, key, "expected a group { ... }, got %s (accepted: %s)", val, acc);
        }
        group_desc sub = {k->name, k->sub, k->nsub, 0, 0, k->doc, NULL, 0};
        return sk_read_group(c, &sub, s, dst, key, -1);
    }
    }
    return SL_OK;
}

void sk_apply_defaults(const scene_key *keys, int nkeys, void *base)
{
    for (int i = 0; i < nkeys; ++i) {
        const scene_key *k = &keys[i];
        char *dst = (char *)base + k->offset;
        switch (k->type) {
        case KT_REAL:
            memcpy(dst, &k->def[0], sizeof(double));
            break;
        case KT_INT:
        case KT_BOOL:
        case KT_ENUM: {
            int v = (int)k->def[0];
            memcpy(dst, &v, sizeof v);
            break;
        }
        case KT_STRING:
        case KT_SCHEME:
            snprintf(dst, k->size, "%s", k->sdef ? k->sdef : "");
            break;
        case KT_VEC:
            memcpy(dst, k->def, 3 * sizeof(double));
            break;
        case KT_FLAGS: {
            unsigned v = (unsigned)k->def[0] | k->always;
            memcpy(dst, &v, sizeof v);
            break;
        }
        case KT_POINTS: {
            int zero = 0;
            memcpy((char *)base + k->count_offset, &zero, sizeof zero);
            break;
        }
        case KT_GROUP:
            sk_apply_defaults(k->sub, k->nsub, dst);
            break;
        }
    }
}
