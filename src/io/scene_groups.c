/* scene_groups.c: reads the groups and the geometry items of a scene file: which names are known
 * (unknown keys and groups, with where they belong), required keys, and the keys in table order. */
#include "scene_keys.h"

#include "geometry/shapes.h"

#include <math.h>
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

/* ---- shapes ------------------------------------------------------------------------------- */

#define SH(shape) (1u << (shape))
#define SH_PLACED (SH(SHAPE_MESH) | SH(SHAPE_CYLINDER) | SH(SHAPE_SPHERE) | SH(SHAPE_WEDGE) | SH(SHAPE_PLANE))

/* The geometry keys that only some shapes take (`takes`), those some require (`needs`), and those
 * only 3D takes; keys not listed here go with every shape. */
static const struct shape_key {
    const char *name;
    unsigned takes, needs;
    int only_3d;
} shape_keys[] = {
    {"min", SH(SHAPE_BOX) | SH(SHAPE_WEDGE), SH(SHAPE_BOX) | SH(SHAPE_WEDGE), 0},
    {"max", SH(SHAPE_BOX) | SH(SHAPE_WEDGE), SH(SHAPE_BOX) | SH(SHAPE_WEDGE), 0},
    {"mesh", SH(SHAPE_MESH), SH(SHAPE_MESH), 1},
    {"center", SH(SHAPE_CYLINDER) | SH(SHAPE_SPHERE), SH(SHAPE_CYLINDER) | SH(SHAPE_SPHERE), 0},
    {"radius", SH(SHAPE_CYLINDER) | SH(SHAPE_SPHERE), SH(SHAPE_CYLINDER) | SH(SHAPE_SPHERE), 0},
    {"axis", SH(SHAPE_CYLINDER), 0, 1},
    {"length", SH(SHAPE_CYLINDER), SH(SHAPE_CYLINDER), 1},
    {"slope", SH(SHAPE_WEDGE), 0, 0},
    {"point", SH(SHAPE_PLANE), SH(SHAPE_PLANE), 0},
    {"normal", SH(SHAPE_PLANE), SH(SHAPE_PLANE), 0},
    {"closed_top", ~SH(SHAPE_PLANE), 0, 0},
    {"scale", SH_PLACED, 0, 0},
    {"rotate", SH_PLACED, 0, 0},
    {"translate", SH_PLACED, 0, 0},
    {"motion", ~SH(SHAPE_PLANE), 0, 0}, /* a plane reaches the domain's edges: it has nowhere to go */
    {"floating", ~SH(SHAPE_PLANE), 0, 0},
};

static const struct shape_key *shape_key_of(const char *name)
{
    for (size_t i = 0; i < sizeof shape_keys / sizeof shape_keys[0]; ++i)
        if (strcmp(shape_keys[i].name, name) == 0)
            return &shape_keys[i];
    return NULL;
}

static void shapes_text(const char *const *names, unsigned shapes, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int i = 0; names[i]; ++i) {
        if (!(shapes & (1u << i)))
            continue;
        if (buf[0])
            sk_append(buf, n, ", ");
        sk_append(buf, n, names[i]);
    }
}

/* A vector of `dim` numbers, not all 0, made a unit vector (an axis or a normal). */
static int unit_vector(sk_ctx *c, const config_setting_t *s, double *v, const char *key, const char *what)
{
    double n2 = 0;
    for (int d = 0; d < c->sc->dim; ++d)
        n2 += v[d] * v[d];
    if (!(n2 > 0) || !isfinite(n2))
        return sk_fail(c, sk_line_of(s), key, "has no direction (accepted: %s, numbers not all 0)", what);
    for (int d = 0; d < 3; ++d)
        v[d] = d < c->sc->dim ? v[d] / sqrt(n2) : 0.0;
    return SL_OK;
}

/* ---- motion ------------------------------------------------------------------------------- */

#define LAW(law) (1u << (law))
#define LAW_PERIODIC (LAW(MOTION_SINE) | LAW(MOTION_ROTATION))

/* The motion keys only some laws take (`takes`) and those some require (`needs`); `frequency` and
 * `period` are checked apart (one of the two). Keys not listed go with every law. */
static const struct law_key {
    const char *name;
    unsigned takes, needs;
    int only_3d;
    const char *wanted; /* the accepted text when a law needs it */
} law_keys[] = {
    {"amplitude", LAW(MOTION_SINE), LAW(MOTION_SINE), 0, "a displacement amplitude [ax, ay(, az)], in m"},
    {"frequency", LAW_PERIODIC, 0, 0, ""},
    {"period", LAW_PERIODIC, 0, 0, ""},
    {"phase", LAW_PERIODIC, 0, 0, ""},
    {"angle", LAW(MOTION_ROTATION), LAW(MOTION_ROTATION), 0, "an angular amplitude > 0 and <= 180, in degrees"},
    {"axis", LAW(MOTION_ROTATION), 0, 1, ""},
    {"pivot", LAW(MOTION_ROTATION), LAW(MOTION_ROTATION), 0, "a point [x, y(, z)] on the axis, in m"},
    {"velocity", LAW(MOTION_GATE), LAW(MOTION_GATE), 0, "a velocity [vx, vy(, vz)], in m/s"},
    {"ramp", LAW(MOTION_GATE), 0, 0, ""},
};

static void laws_text(unsigned laws, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int i = MOTION_NONE; i <= MOTION_GATE; ++i)
        if (laws & LAW(i)) {
            if (buf[0])
                sk_append(buf, n, ", ");
            sk_append(buf, n, scene_motion_law_name((enum motion_law)i));
        }
}

/* The keys of a motion group against its law, and the values that depend on one another: one of
 * frequency and period, stop after start, the ramps within the run, a unit axis. */
static int check_motion(sk_ctx *c, const config_setting_t *g, scene_motion *m, const char *prefix)
{
    char key[128], laws[64], a[40], b[40];
    m->line = sk_line_of(g);
    for (size_t i = 0; i < sizeof law_keys / sizeof law_keys[0]; ++i) {
        const struct law_key *lk = &law_keys[i];
        const config_setting_t *s = config_setting_get_member(g, lk->name);
        snprintf(key, sizeof key, "%.100s.%s", prefix, lk->name);
        if (s && !(lk->takes & LAW(m->law))) {
            laws_text(lk->takes, laws, sizeof laws);
            return sk_fail(c, sk_line_of(s), key, "not used by the %s law (accepted: only with law %s)",
                           scene_motion_law_name(m->law), laws);
        }
        if (s && lk->only_3d && c->sc->dim != 3)
            return sk_fail(c, sk_line_of(s), key,
                           "not used in 2D (accepted: only with simulation.dimension = 3; in 2D the axis is z)");
        if (!s && (lk->needs & LAW(m->law)))
            return sk_fail(c, m->line, key, "required key is missing for the %s law (accepted: %s)",
                           scene_motion_law_name(m->law), lk->wanted);
    }
    const config_setting_t *fs = config_setting_get_member(g, "frequency"), *ps = config_setting_get_member(g, "period");
    if ((LAW_PERIODIC & LAW(m->law)) && fs && ps) {
        snprintf(key, sizeof key, "%.100s.period", prefix);
        return sk_fail(c, sk_line_of(ps), key, "given with frequency (accepted: frequency or period, not both)");
    }
    if ((LAW_PERIODIC & LAW(m->law)) && !fs && !ps) {
        snprintf(key, sizeof key, "%.100s.frequency", prefix);
        return sk_fail(c, m->line, key, "required key is missing for the %s law (accepted: frequency in Hz > 0, or "
                       "period in s > 0)", scene_motion_law_name(m->law));
    }
    const config_setting_t *ss = config_setting_get_member(g, "stop");
    if (ss && !(m->stop > m->start)) {
        snprintf(key, sizeof key, "%.100s.stop", prefix);
        return sk_fail(c, sk_line_of(ss), key, "%s s is not after start = %s s (accepted: stop > start)",
                       sk_fmt_num(m->stop, a, sizeof a), sk_fmt_num(m->start, b, sizeof b));
    }
    const config_setting_t *rs = config_setting_get_member(g, "ramp");
    double ramps = ss ? 2.0 * m->ramp : m->ramp;
    if (rs && m->law == MOTION_GATE && ramps > m->stop - m->start) {
        snprintf(key, sizeof key, "%.100s.ramp", prefix);
        return sk_fail(c, sk_line_of(rs), key, "%s s of ramp%s do not fit in start..stop = %s s (accepted: %s)",
                       sk_fmt_num(m->ramp, a, sizeof a), ss ? " at each end" : "",
                       sk_fmt_num(m->stop - m->start, b, sizeof b),
                       ss ? "2 ramp <= stop - start" : "ramp <= stop - start");
    }
    if (m->law == MOTION_ROTATION && c->sc->dim == 3) {
        snprintf(key, sizeof key, "%.100s.axis", prefix);
        const config_setting_t *as = config_setting_get_member(g, "axis");
        SL_TRY(unit_vector(c, as ? as : g, m->axis, key, "a vector [x, y, z]"));
    } else if (m->law == MOTION_ROTATION) {
        m->axis[0] = m->axis[1] = 0.0;
        m->axis[2] = 1.0;
    }
    return SL_OK;
}

/* ---- floating ----------------------------------------------------------------------------- */

/* A floating group: in 2D `inertia` and `omega` are one number each (about z), so the group is read
 * through a copy of its table with those rows made single reals at their z slot. */
static int read_floating(sk_ctx *c, const scene_key *k, const config_setting_t *s, scene_geom *g, const char *key)
{
    scene_key rows[16], group = *k;
    if (c->sc->dim == 2 && k->nsub <= (int)(sizeof rows / sizeof rows[0])) {
        for (int i = 0; i < k->nsub; ++i) {
            rows[i] = k->sub[i];
            int inertia = strcmp(rows[i].name, "inertia") == 0, omega = strcmp(rows[i].name, "omega") == 0;
            if (inertia || omega) {
                rows[i].type = KT_REAL;
                rows[i].offset = inertia ? FL(inertia[2]) : FL(omega[2]);
                rows[i].lo = -1e30;
                rows[i].hi = 1e30;
                rows[i].flags = 0;
            }
        }
        group.sub = rows;
    }
    SL_TRY(sk_read_key(c, &group, s, g, key));
    scene_floating *f = &g->floating;
    char sub[192], a[40];
    f->enabled = 1;
    f->line = sk_line_of(s);
    const config_setting_t *ds = config_setting_get_member(s, "density"), *ms = config_setting_get_member(s, "mass");
    const config_setting_t *is = config_setting_get_member(s, "inertia");
    f->center_set = config_setting_get_member(s, "center") != NULL;
    f->inertia_set = is != NULL;
    if (ds && ms) {
        snprintf(sub, sizeof sub, "%.150s.mass", key);
        return sk_fail(c, sk_line_of(ms), sub, "given with density (accepted: density or mass, not both)");
    }
    if (!ds && !ms) {
        snprintf(sub, sizeof sub, "%.150s.density", key);
        return sk_fail(c, f->line, sub, "required key is missing (accepted: density in kg/m^3 > 0, or mass in "
                       "kg > 0)");
    }
    if (ms && !(f->mass > 0)) {
        snprintf(sub, sizeof sub, "%.150s.mass", key);
        return sk_fail(c, sk_line_of(ms), sub, "%s is not a mass (accepted: a mass in kg > 0%s)",
                       sk_fmt_num(f->mass, a, sizeof a), c->sc->dim == 2 ? ", per metre of depth in 2D" : "");
    }
    if (ds && !(f->density > 0)) {
        snprintf(sub, sizeof sub, "%.150s.density", key);
        return sk_fail(c, sk_line_of(ds), sub, "%s is not a density (accepted: a density in kg/m^3 > 0)",
                       sk_fmt_num(f->density, a, sizeof a));
    }
    if (is) { /* principal moments: positive definite, and each no more than the sum of the other two */
        const double *I = f->inertia;
        int ok = c->sc->dim == 2 ? I[2] > 0 && isfinite(I[2])
                                 : I[0] > 0 && I[1] > 0 && I[2] > 0 && isfinite(I[0] + I[1] + I[2]) &&
                                       I[0] <= I[1] + I[2] && I[1] <= I[0] + I[2] && I[2] <= I[0] + I[1];
        if (!ok) {
            snprintf(sub, sizeof sub, "%.150s.inertia", key);
            return sk_fail(c, sk_line_of(is), sub, "is not positive definite (accepted: %s)",
                           c->sc->dim == 2 ? "one moment Izz in kg m > 0"
                                           : "principal moments [Ixx, Iyy, Izz] in kg m^2, each > 0 and no more than "
                                             "the sum of the other two");
        }
    }
    if (c->sc->dim == 2) { /* a 2D body moves in its plane and turns about z */
        f->fix_translation |= FLOAT_AXIS_Z;
        f->fix_rotation |= FLOAT_AXIS_X | FLOAT_AXIS_Y;
    }
    return SL_OK;
}

/* The keys that do not fit a table row: `axis` as a name, `rotate` as one number in 2D, the checks
 * of a `motion` group. */
static int read_special(sk_ctx *c, const scene_key *k, const config_setting_t *s, scene_geom *g, const char *key,
                        int *done)
{
    *done = 0;
    if (strcmp(k->name, "axis") == 0 && config_setting_type(s) == CONFIG_TYPE_STRING) {
        static const char *const axes[] = {"x", "y", "z", NULL};
        const char *str = config_setting_get_string(s);
        int a = -1;
        for (int i = 0; axes[i] && str; ++i)
            if (strcmp(axes[i], str) == 0)
                a = i;
        if (a < 0) {
            char val[160];
            sk_fmt_string(str ? str : "", val, sizeof val);
            return sk_fail(c, sk_line_of(s), key, "%s is not an axis (accepted: \"x\", \"y\", \"z\" or a vector "
                           "[x, y, z], not all 0)", val);
        }
        for (int d = 0; d < 3; ++d)
            g->axis[d] = d == a;
        *done = 1;
    } else if (strcmp(k->name, "rotate") == 0 && c->sc->dim == 2) {
        scene_key one = *k; /* one angle, about z */
        one.type = KT_REAL;
        one.offset = G(rotate[2]);
        one.lo = -360;
        one.hi = 360;
        one.flags = 0;
        SL_TRY(sk_read_key(c, &one, s, g, key));
        *done = 1;
    } else if (strcmp(k->name, "motion") == 0) {
        SL_TRY(sk_read_key(c, k, s, g, key));
        SL_TRY(check_motion(c, s, &g->motion, key));
        *done = 1;
    } else if (strcmp(k->name, "floating") == 0) {
        SL_TRY(read_floating(c, k, s, g, key));
        *done = 1;
    }
    return SL_OK;
}

/* The keys of one geometry item of `kind` and `shape`, in table order: sk_read_group's work, with
 * the keys each shape takes and requires. */
static int read_item(sk_ctx *c, const group_desc *gd, const config_setting_t *item, scene_geom *g,
                     const char *prefix, int kind)
{
    char key[160], acc[512], shapes[128];
    const char *const *shape_names = NULL;
    for (int j = 0; j < gd->nkeys; ++j)
        if (strcmp(gd->keys[j].name, "shape") == 0)
            shape_names = gd->keys[j].names;
    SL_TRY(check_names(c, gd, item, prefix, kind));
    int n = config_setting_length(item);
    for (int i = 0; i < n; ++i) { /* keys of other shapes, or of 3D only */
        const config_setting_t *m = config_setting_get_elem(item, (unsigned)i);
        const struct shape_key *sk = shape_key_of(config_setting_name(m));
        if (!sk)
            continue;
        snprintf(key, sizeof key, "%s.%s", prefix, sk->name);
        if (!(sk->takes & SH(g->shape))) {
            shapes_text(shape_names, sk->takes, shapes, sizeof shapes);
            return sk_fail(c, sk_line_of(m), key, "not used by a %s item (accepted: only with shape %s)",
                           shape_names[g->shape], shapes);
        }
        if (sk->only_3d && c->sc->dim != 3)
            return sk_fail(c, sk_line_of(m), key, "not used in 2D (accepted: only with simulation.dimension = 3; %s)",
                           g->shape == SHAPE_MESH ? "STL meshes are 3D" : "in 2D a cylinder is a disc: center, radius");
    }
    for (int j = 0; j < gd->nkeys; ++j) {
        const scene_key *k = &gd->keys[j];
        if (!(k->kinds & GK(kind)))
            continue;
        const struct shape_key *sk = shape_key_of(k->name);
        if (sk && !(sk->takes & SH(g->shape)))
            continue;
        snprintf(key, sizeof key, "%s.%s", prefix, k->name);
        const config_setting_t *s = config_setting_get_member(item, k->name);
        if (s) {
            int done;
            SL_TRY(read_special(c, k, s, g, key, &done));
            if (!done)
                SL_TRY(sk_read_key(c, k, s, g, key));
        } else if ((k->flags & KF_REQUIRED) ||
                   (sk && (sk->needs & SH(g->shape)) && !(sk->only_3d && c->sc->dim != 3))) {
            sk_describe_accepted(c, k, acc, sizeof acc);
            return sk_fail(c, sk_line_of(item), key, "required key is missing (accepted: %s)", acc);
        }
    }
    return SL_OK;
}

/* What a non-box item needs beyond its keys: a plane is a wall; directions; its bounding box (which
 * reads and checks a mesh) into g->min..max. */
static int finish_shape(sk_ctx *c, const config_setting_t *item, scene_geom *g, const char *prefix)
{
    char key[160], acc[160];
    const config_setting_t *s;
    if (g->shape == SHAPE_PLANE && g->kind == GEOM_FLUID) {
        snprintf(key, sizeof key, "%s.shape", prefix);
        return sk_fail(c, sk_line_of(config_setting_get_member(item, "shape")), key,
                       "a plane is a wall, not a fluid volume (accepted: a plane in tank or obstacle items)");
    }
    if (g->shape == SHAPE_WEDGE && c->sc->dim == 2 && g->slope >= SLOPE_PLUS_Y) {
        snprintf(key, sizeof key, "%s.slope", prefix);
        return sk_fail(c, sk_line_of(config_setting_get_member(item, "slope")), key,
                       "in 2D a wedge slopes along x (accepted: \"+x\", \"-x\")");
    }
    if (g->shape == SHAPE_CYLINDER && c->sc->dim == 3) {
        snprintf(key, sizeof key, "%s.axis", prefix);
        s = config_setting_get_member(item, "axis");
        SL_TRY(unit_vector(c, s ? s : item, g->axis, key, "\"x\", \"y\", \"z\" or a vector [x, y, z]"));
    }
    if (g->shape == SHAPE_PLANE) {
        snprintf(key, sizeof key, "%s.normal", prefix);
        snprintf(acc, sizeof acc, "%s pointing to the fluid side", c->sc->dim == 3 ? "[nx, ny, nz]" : "[nx, ny]");
        SL_TRY(unit_vector(c, config_setting_get_member(item, "normal"), g->normal, key, acc));
    }
    sl_err err;
    double lo[3], hi[3];
    if (shape_bounds(c->sc, g, lo, hi, &err) != SL_OK) {
        const char *name = g->shape == SHAPE_MESH ? "mesh" : "shape";
        s = config_setting_get_member(item, name);
        snprintf(key, sizeof key, "%s.%s", prefix, name);
        if (g->shape == SHAPE_MESH && strstr(err.msg, "(accepted:"))
            return sk_fail(c, sk_line_of(s ? s : item), key, "%s", err.msg);
        return sk_fail(c, sk_line_of(s ? s : item), key, "%s (accepted: %s)", err.msg,
                       g->shape == SHAPE_MESH ? "a readable binary or ASCII STL file of a closed mesh"
                                              : "a plane in a scene with simulation.domain_min and domain_max");
    }
    double pad = (g->layers + 1) * c->sc->dp; /* a tank's walls */
    for (int d = 0; d < 3; ++d) {
        if (!lattice_fits(lo[d] - pad, hi[d] + pad, c->sc->dp)) {
            char num[40];
            return sk_fail(c, g->line, prefix,
                           "the shape reaches beyond %g spacings (%s m) from the origin (accepted: shapes nearer the "
                           "origin, or a coarser spacing)",
                           LATTICE_INDEX_MAX, sk_fmt_num(LATTICE_INDEX_MAX * c->sc->dp, num, sizeof num));
        }
        g->min[d] = d < c->sc->dim ? lo[d] : 0.0;
        g->max[d] = d < c->sc->dim ? hi[d] : 0.0;
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
    const scene_key *type_key = find_key(gd, "type"), *shape_key = find_key(gd, "shape");
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
        const config_setting_t *ss = config_setting_get_member(item, "shape");
        snprintf(key, sizeof key, "%s.shape", prefix);
        if (ss)
            SL_TRY(sk_read_key(c, shape_key, ss, g, key));
        else if (config_setting_get_member(item, "mesh"))
            g->shape = SHAPE_MESH;
        SL_TRY(read_item(c, gd, item, g, prefix, (int)g->kind));
        if (g->shape != SHAPE_BOX && g->shape != SHAPE_WEDGE) {
            SL_TRY(finish_shape(c, item, g, prefix));
            nfluid += g->kind == GEOM_FLUID;
            continue;
        }
        for (int d = 0; d < sc->dim; ++d)
            if (!(g->max[d] > g->min[d])) {
                snprintf(key, sizeof key, "%s.max", prefix);
                return sk_fail(c, sk_line_of(config_setting_get_member(item, "max")), key,
                               "empty box: max %s = %s is not above min %s = %s (accepted: max > min in every "
                               "component)",
                               sk_axis_name(d), sk_fmt_num(g->max[d], a, sizeof a), sk_axis_name(d),
                               sk_fmt_num(g->min[d], b, sizeof b));
            }
        if (g->shape == SHAPE_WEDGE) {
            memcpy(g->wedge_min, g->min, sizeof g->wedge_min);
            memcpy(g->wedge_max, g->max, sizeof g->wedge_max);
            SL_TRY(finish_shape(c, item, g, prefix)); /* g->min..max: the placed wedge's box */
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
