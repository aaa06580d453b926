/* scene_key.h: the descriptor of one key of a scene file (plain data), shared by the loader's tables
 * in src/io and the tables that schemes own (src/schemes/mps/mps_scene_keys.c).
 *
 * A low-level header of its own so that a scheme can describe its keys without including src/io:
 * the loader (src/io/scene_*.c) reads, checks, documents and defaults every key from these rows. */
#ifndef SLUICE_SCENE_KEY_H
#define SLUICE_SCENE_KEY_H

#include <math.h>
#include <stddef.h>

#define NO_LIMIT HUGE_VAL /* scene_key.hi: no upper bound */

enum scene_key_type {
    KT_REAL,   /* double; an integer literal is fine */
    KT_INT,    /* int; a real literal is an error */
    KT_BOOL,   /* int 0/1 from true/false */
    KT_ENUM,   /* a string from `names`, stored as its index (an enum) */
    KT_STRING, /* char[size] */
    KT_SCHEME, /* char[size]: a name known to scheme_find() */
    KT_VEC,    /* double[3]: `simulation.dimension` numbers, z = 0 in 2D */
    KT_FLAGS,  /* unsigned: an array of distinct strings from `names`, names[i] sets bit i */
    KT_POINTS, /* scene_probe_point[SCENE_PROBES_MAX] + an int count at count_offset: a list of
                * ( { name = "..."; at = [...]; }, ... ) */
    KT_GROUP   /* a group { ... } whose keys are the rows `sub` (nsub), offsets within the struct at
                * `offset` (a geometry item's `motion`) */
};

enum {
    KF_REQUIRED = 1u << 0, /* no default: the key must be given */
    KF_LO_OPEN = 1u << 1,  /* value > lo (otherwise value >= lo) */
    KF_ZERO_OK = 1u << 2,  /* 0 is accepted besides lo..hi */
    KF_ABS = 1u << 3,      /* KT_VEC: every |component| <= hi */
    KF_NONEMPTY = 1u << 4, /* KT_STRING: "" is an error */
    KF_HORIZONTAL = 1u << 5 /* KT_POINTS: `at` has dimension - 1 numbers (the horizontal axes) */
};

#define GK(kind) (1u << (kind)) /* scene_key.kinds: the geometry item types (enum geom_kind) that take the key */

typedef struct scene_key {
    const char *name;
    enum scene_key_type type;
    size_t offset;            /* in struct scene, or in struct scene_geom for geometry items */
    size_t size;              /* KT_STRING, KT_SCHEME: size of the buffer */
    double lo, hi;            /* accepted range (see KF_*); KT_VEC with KF_ABS: hi bounds |component| */
    unsigned flags;           /* KF_* */
    const char *const *names; /* KT_ENUM, KT_FLAGS: accepted strings, NULL-terminated */
    double def[3];            /* default: the number, enum index, bool, bit set, or vector */
    const char *sdef;         /* default of KT_STRING, KT_SCHEME */
    unsigned always;          /* KT_FLAGS: bits set whatever the file says */
    const char *units;        /* SI units, "" when dimensionless */
    const char *doc;          /* one line */
    unsigned kinds;           /* geometry items: GK() bits */
    size_t count_offset;      /* KT_POINTS: the int that counts the points */
    const struct scene_key *sub; /* KT_GROUP: the keys of the group */
    int nsub;
} scene_key;

#endif
