/* scene_messages.c: the text of the scene loader's messages: the one-line error, numbers and values
 * as the file shows them, the "(accepted: ...)" text of a key, and typo suggestions. */
#include "scene_keys.h"

#include "core/scheme.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t clamp_len(int r, size_t have, size_t size)
{
    if (r < 0)
        return have;
    size_t n = have + (size_t)r;
    return n < size ? n : size - 1;
}

/* The one-line message: NAME[:LINE]: [key 'KEY': ]... ; control characters become '?'. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
int sk_fail(const sk_ctx *c, int line, const char *key, const char *fmt, ...)
{
    char buf[MSG_MAX];
    size_t n;
    if (line > 0)
        n = clamp_len(snprintf(buf, sizeof buf, "%s:%d: ", c->name, line), 0, sizeof buf);
    else
        n = clamp_len(snprintf(buf, sizeof buf, "%s: ", c->name), 0, sizeof buf);
    if (key)
        n = clamp_len(snprintf(buf + n, sizeof buf - n, "key '%s': ", key), n, sizeof buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof buf - n, fmt, ap);
    va_end(ap);
    for (char *p = buf; *p; ++p)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return sl_fail(c->err, SL_ERR_INPUT, "%s", buf);
}

int sk_line_of(const config_setting_t *s)
{
    return s ? (int)config_setting_source_line(s) : 0;
}

/* "1e+06" -> "1e6", "1e-06" -> "1e-6". */
static void short_exponent(char *s)
{
    char *e = strchr(s, 'e');
    if (!e)
        return;
    char *q = e + 1, *w = e + 1;
    if (*q == '-')
        *w++ = *q;
    if (*q == '+' || *q == '-')
        ++q;
    while (*q == '0' && q[1])
        ++q;
    memmove(w, q, strlen(q) + 1);
}

/* A number for messages: the shortest text that reads back as v (at most 10 significant digits,
 * which hides rounding noise such as 0.30000000000000004), in plain notation unless the exponent
 * form is at least 2 characters shorter (1000, 0.001, 1e5, 2e-6). */
const char *sk_fmt_num(double v, char *buf, size_t n)
{
    if (isnan(v)) {
        snprintf(buf, n, "nan");
        return buf;
    }
    if (isinf(v)) {
        snprintf(buf, n, "%s", v > 0 ? "inf" : "-inf");
        return buf;
    }
    char sci[48], plain[48];
    int p = 1;
    for (; p < 10; ++p) {
        snprintf(sci, sizeof sci, "%.*g", p, v);
        if (strtod(sci, NULL) == v)
            break;
    }
    snprintf(sci, sizeof sci, "%.*g", p, v);
    short_exponent(sci);
    int e10 = v != 0 ? (int)floor(log10(fabs(v))) : 0;
    if (e10 >= 0 && e10 < 17 && e10 + 1 > p)
        snprintf(plain, sizeof plain, "%.*g", e10 + 1, v); /* enough digits for plain notation */
    else
        snprintf(plain, sizeof plain, "%s", sci);
    if (strchr(plain, 'e') || strlen(sci) + 2 <= strlen(plain))
        snprintf(buf, n, "%s", sci);
    else
        snprintf(buf, n, "%s", plain);
    return buf;
}

/* A real value as the file would show it: always with a '.' or an exponent (2.0, not 2). */
static const char *fmt_real(double v, char *buf, size_t n)
{
    sk_fmt_num(v, buf, n);
    if (isfinite(v) && !strpbrk(buf, ".e") && strlen(buf) + 3 <= n)
        strcat(buf, ".0");
    return buf;
}

void sk_fmt_string(const char *s, char *buf, size_t n)
{
    if (!s)
        s = "";
    size_t len = strlen(s);
    if (len > 40)
        snprintf(buf, n, "\"%.40s...\"", s);
    else
        snprintf(buf, n, "\"%s\"", s);
}

/* The value of a scalar setting as written ("5", "2.5", "\"abc\"", "true"). */
void sk_value_text(const config_setting_t *s, char *buf, size_t n)
{
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
        snprintf(buf, n, "%d", config_setting_get_int(s));
        break;
    case CONFIG_TYPE_INT64:
        snprintf(buf, n, "%lldL", config_setting_get_int64(s));
        break;
    case CONFIG_TYPE_FLOAT:
        fmt_real(config_setting_get_float(s), buf, n);
        break;
    case CONFIG_TYPE_STRING:
        sk_fmt_string(config_setting_get_string(s), buf, n);
        break;
    case CONFIG_TYPE_BOOL:
        snprintf(buf, n, "%s", config_setting_get_bool(s) ? "true" : "false");
        break;
    default:
        snprintf(buf, n, "?");
        break;
    }
}

/* What a setting is, for "expected X, got Y". */
void sk_describe_value(const config_setting_t *s, char *buf, size_t n)
{
    char v[96];
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
        sk_value_text(s, v, sizeof v);
        snprintf(buf, n, "the integer %s", v);
        break;
    case CONFIG_TYPE_FLOAT:
        sk_value_text(s, v, sizeof v);
        snprintf(buf, n, "the real number %s", v);
        break;
    case CONFIG_TYPE_STRING:
        sk_value_text(s, v, sizeof v);
        snprintf(buf, n, "the string %s", v);
        break;
    case CONFIG_TYPE_BOOL:
        sk_value_text(s, v, sizeof v);
        snprintf(buf, n, "the boolean %s", v);
        break;
    case CONFIG_TYPE_GROUP:
        snprintf(buf, n, "a group { ... }");
        break;
    case CONFIG_TYPE_ARRAY:
        snprintf(buf, n, "an array [ ... ] of %d element(s)", config_setting_length(s));
        break;
    case CONFIG_TYPE_LIST:
        snprintf(buf, n, "a list ( ... ) of %d item(s)", config_setting_length(s));
        break;
    default:
        snprintf(buf, n, "a value of unknown type");
        break;
    }
}

/* Appends `s` to buf (of size n, NUL-terminated), truncating. */
void sk_append(char *buf, size_t n, const char *s)
{
    size_t len = strlen(buf);
    if (len + 1 < n)
        snprintf(buf + len, n - len, "%s", s);
}

/* "\"a\", \"b\"" (quoted) or "a, b" from a NULL-terminated list or from `count` names. */
void sk_join_names(const char *const *names, int count, int quoted, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int i = 0; count < 0 ? names[i] != NULL : i < count; ++i) {
        if (i)
            sk_append(buf, n, ", ");
        if (quoted)
            sk_append(buf, n, "\"");
        sk_append(buf, n, names[i]);
        if (quoted)
            sk_append(buf, n, "\"");
    }
}

/* Splits scheme_names() ("wcsph|mps") into `out` (pointers into `store`); returns the count. */
int sk_scheme_list(char *store, size_t n, const char **out, int max)
{
    const char *all = scheme_names();
    snprintf(store, n, "%s", all ? all : "");
    int count = 0;
    char *p = store;
    while (*p && count < max) {
        out[count++] = p;
        char *bar = strchr(p, '|');
        if (!bar)
            break;
        *bar = '\0';
        p = bar + 1;
    }
    return count;
}

const char *sk_axis_name(int d)
{
    static const char *const axes[] = {"x", "y", "z"};
    return d >= 0 && d < 3 ? axes[d] : "?";
}

/* The "(accepted: ...)" text of a key. */
void sk_describe_accepted(const sk_ctx *c, const scene_key *k, char *buf, size_t n)
{
    char lo[40], hi[40], list[256];
    const char *zero = (k->flags & KF_ZERO_OK) ? "0, or " : "";
    sk_fmt_num(k->lo, lo, sizeof lo);
    sk_fmt_num(k->hi, hi, sizeof hi);
    buf[0] = '\0';
    switch (k->type) {
    case KT_REAL:
        if (k->hi == NO_LIMIT)
            snprintf(buf, n, "%sa number %s %s", zero, (k->flags & KF_LO_OPEN) ? ">" : ">=", lo);
        else if (k->flags & KF_LO_OPEN)
            snprintf(buf, n, "%sa number > %s and <= %s", zero, lo, hi);
        else
            snprintf(buf, n, "%sa number %s..%s", zero, lo, hi);
        break;
    case KT_INT:
        snprintf(buf, n, "%san integer %s..%s", zero, lo, hi);
        break;
    case KT_BOOL:
        snprintf(buf, n, "true or false");
        break;
    case KT_ENUM:
        sk_join_names(k->names, -1, 1, list, sizeof list);
        snprintf(buf, n, "one of %s", list);
        break;
    case KT_STRING:
        snprintf(buf, n, "a %sstring of at most %zu characters", (k->flags & KF_NONEMPTY) ? "non-empty " : "",
                 k->size - 1);
        break;
    case KT_SCHEME: {
        char store[256];
        const char *names[32];
        int count = sk_scheme_list(store, sizeof store, names, 32);
        sk_join_names(names, count, 1, list, sizeof list);
        snprintf(buf, n, "one of %s", list);
        break;
    }
    case KT_VEC: {
        const char *shape = c->sc->dim == 3 ? "[x, y, z]" : "[x, y]";
        if (k->flags & KF_ABS)
            snprintf(buf, n, "%s, each number -%s..%s", shape, hi, hi);
        else
            snprintf(buf, n, "%s of finite numbers", shape);
        break;
    }
    case KT_FLAGS:
        sk_join_names(k->names, -1, 1, list, sizeof list);
        snprintf(buf, n, "an array of distinct names from %s", list);
        break;
    case KT_POINTS: {
        int nat = c->sc->dim - ((k->flags & KF_HORIZONTAL) ? 1 : 0);
        const char *shape = nat == 1 ? "[x]" : nat == 2 ? "[x, y]" : "[x, y, z]";
        snprintf(buf, n, "a list of at most %d items ( { name = \"...\"; at = %s; }, ... ), names of 1..%d "
                 "letters, digits, '_', '-' or '.'", SCENE_PROBES_MAX, shape, SCENE_PROBE_NAME_MAX - 1);
        break;
    }
    case KT_GROUP: {
        const char *names[32];
        int count = 0;
        for (int i = 0; i < k->nsub && count < 32; ++i)
            names[count++] = k->sub[i].name;
        sk_join_names(names, count, 0, list, sizeof list);
        snprintf(buf, n, "a group { key = value; ... } of the keys %s", list);
        break;
    }
    }
    if (k->units && k->units[0]) {
        sk_append(buf, n, ", in ");
        sk_append(buf, n, k->units);
    }
}

/* ---- typo suggestions ----------------------------------------------------------------------- */

static int same_char(char a, char b)
{
    if (a == '-')
        a = '_';
    if (b == '-')
        b = '_';
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

/* Levenshtein distance, ignoring case and '-' vs '_'; INT_MAX for long words. */
static int edit_distance(const char *a, const char *b)
{
    enum { W = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= W || lb >= W)
        return INT_MAX;
    int prev[W], cur[W];
    for (size_t j = 0; j <= lb; ++j)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; ++i) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; ++j) {
            int best = prev[j - 1] + (same_char(a[i - 1], b[j - 1]) ? 0 : 1);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            cur[j] = best;
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

/* The candidate closest to `word` when it is close enough to be a typo, else NULL. */
static const char *closest(const char *word, const char *const *cands, int count)
{
    const char *best = NULL;
    int bestd = INT_MAX;
    if (!word)
        return NULL;
    for (int i = 0; count < 0 ? cands[i] != NULL : i < count; ++i) {
        int d = edit_distance(word, cands[i]);
        if (d < bestd) {
            bestd = d;
            best = cands[i];
        }
    }
    if (best && bestd <= 2 && 2 * bestd <= (int)strlen(best))
        return best;
    return NULL;
}

/* "; did you mean 'x'?" or "". */
void sk_suggestion(const char *word, const char *const *cands, int count, char *buf, size_t n)
{
    const char *s = closest(word, cands, count);
    if (s)
        snprintf(buf, n, "; did you mean '%s'?", s);
    else
        buf[0] = '\0';
}
