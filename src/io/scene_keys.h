/* scene_keys.h: the scene loader's internal header: group descriptors, the loader state and the
 * helpers its files share. Only src/io/scene_*.c include it; other layers use base/scene.h.
 *
 * The loader is table-driven: each group of the file has a table of key descriptors (scene_key,
 * base/scene_key.h: name, type, where the value lands in the struct, accepted range, default,
 * units, one line of documentation). scene_defaults() applies the defaults of the tables, and the
 * loader checks every setting of the file against them. A new key is a new table row (plus its
 * struct field); a new group is a new table plus a row in `sk_groups`. docs/scene-files.md
 * documents the same tables: keep them in step.
 *
 * The files: scene_tables.c (the tables and name lists; the `mps` table is the MPS scheme's,
 * src/schemes/mps/mps_scene_keys.c), scene_messages.c (message text, typo suggestions),
 * scene_read.c (one key's value), scene_groups.c (groups, items, unknown names), scene_check.c
 * (cross-checks once keys are read), scene_load.c (the driver and the public API).
 *
 * Every error is one line: FILE:LINE: key 'group.key': what is wrong (accepted: ...). */
#ifndef SLUICE_SCENE_KEYS_H
#define SLUICE_SCENE_KEYS_H

#include "base/scene.h"
#include "base/scene_key.h"
#include "base/status.h"
#include "scene_syntax.h"

#include <libconfig.h>

#include <stddef.h>

#define GK_ALL (GK(GEOM_FLUID) | GK(GEOM_TANK) | GK(GEOM_OBSTACLE))

#define S(field) offsetof(scene, field)
#define G(field) offsetof(scene_geom, field)
#define M(field) offsetof(scene_motion, field)
#define FL(field) offsetof(scene_floating, field)
#define NKEYS(t) ((int)(sizeof(t) / sizeof((t)[0])))

#define MSG_MAX sizeof(((sl_err *)0)->msg)

struct sk_ctx;

typedef struct group_desc {
    const char *name;
    const scene_key *keys;
    int nkeys;
    int list;     /* 1: a list of items ( {...}, {...} ) read into sc->geom; 0: one group { ... } */
    int required; /* the group (list) must be present */
    const char *doc;
    /* Runs once the group's keys are read (g is NULL when the group is absent). */
    int (*after)(struct sk_ctx *c, const config_setting_t *g);
    size_t enabled_at; /* > 0: an optional feature; its keys are visited only when this int is set */
} group_desc;

/* ---- loader state --------------------------------------------------------------------------- */

typedef struct sk_ctx {
    const char *name; /* file name in messages */
    const char *text;
    scene *sc;
    sl_err *err;
    /* Integer literals that libconfig 1.5 wraps to 32 bits without an error (found by
     * scene_syntax_check()), kept so that the key holding one is reported. */
    scene_int_overflows ovf;
} sk_ctx;

/* ---- scene_tables.c -------------------------------------------------------------------------- */

/* A number so that arrays can be sized by it; scene_tables.c does not compile when the rows of
 * sk_groups and this count differ. */
#define SK_NGROUPS 10

/* Read in this order (see scene_tables.c). */
extern const group_desc sk_groups[]; /* SK_NGROUPS rows */
extern const char *const sk_geom_names[];  /* enum geom_kind */
extern const char *const sk_front_names[]; /* enum probe_front */

/* ---- scene_messages.c ------------------------------------------------------------------------ */

/* The one-line message: NAME[:LINE]: [key 'KEY': ]... ; control characters become '?'. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
int sk_fail(const sk_ctx *c, int line, const char *key, const char *fmt, ...);
int sk_line_of(const config_setting_t *s);
/* A number for messages: the shortest text that reads back as v. */
const char *sk_fmt_num(double v, char *buf, size_t n);
void sk_fmt_string(const char *s, char *buf, size_t n);
/* The value of a scalar setting as written ("5", "2.5", "\"abc\"", "true"). */
void sk_value_text(const config_setting_t *s, char *buf, size_t n);
/* What a setting is, for "expected X, got Y". */
void sk_describe_value(const config_setting_t *s, char *buf, size_t n);
/* Appends `s` to buf (of size n, NUL-terminated), truncating. */
void sk_append(char *buf, size_t n, const char *s);
/* "\"a\", \"b\"" (quoted) or "a, b" from a NULL-terminated list (count < 0) or from `count` names. */
void sk_join_names(const char *const *names, int count, int quoted, char *buf, size_t n);
/* Splits scheme_names() ("wcsph|mps") into `out` (pointers into `store`); returns the count. */
int sk_scheme_list(char *store, size_t n, const char **out, int max);
const char *sk_axis_name(int d);
/* The "(accepted: ...)" text of a key. */
void sk_describe_accepted(const sk_ctx *c, const scene_key *k, char *buf, size_t n);
/* "; did you mean 'x'?" or "". */
void sk_suggestion(const char *word, const char *const *cands, int count, char *buf, size_t n);

/* ---- scene_read.c ---------------------------------------------------------------------------- */

/* Reads setting s of key k into base + k->offset; `key` names it in messages. */
int sk_read_key(sk_ctx *c, const scene_key *k, const config_setting_t *s, void *base, const char *key);
void sk_apply_defaults(const scene_key *keys, int nkeys, void *base);

/* ---- scene_groups.c -------------------------------------------------------------------------- */

/* Reads the keys of group g (NULL: absent) into base, in table order; kind >= 0: a geometry item. */
int sk_read_group(sk_ctx *c, const group_desc *gd, const config_setting_t *g, void *base, const char *prefix,
                  int kind);
/* The geometry list into sc->geom (freed by the caller on failure). */
int sk_read_items(sk_ctx *c, const group_desc *gd, const config_setting_t *list);
/* Every top-level setting is a known group of the right shape. */
int sk_check_root(sk_ctx *c, const config_setting_t *root);

/* ---- scene_check.c --------------------------------------------------------------------------- */

/* The groups' `after` callbacks. */
int sk_simulation_after(sk_ctx *c, const config_setting_t *g);
int sk_viewer_after(sk_ctx *c, const config_setting_t *g);
int sk_probes_after(sk_ctx *c, const config_setting_t *g);
int sk_grid_after(sk_ctx *c, const config_setting_t *g);
int sk_numerics_after(sk_ctx *c, const config_setting_t *g);
/* The geometry items against each other, the domain and the spacing (after everything is read). */
int sk_check_geometry(sk_ctx *c);

#endif
