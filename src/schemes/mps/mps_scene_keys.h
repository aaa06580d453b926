/* mps_scene_keys.h: the keys of the scene file's `mps = { ... }` group, a table the MPS scheme owns
 * and the scene loader (src/io/scene_tables.c) reads the group with. */
#ifndef SLUICE_MPS_SCENE_KEYS_H
#define SLUICE_MPS_SCENE_KEYS_H

#include "base/scene_key.h"

/* A number rather than an extern const int: the loader's group table is a static initializer and
 * needs the count as a constant. mps_scene_keys.c does not compile when its rows and this count
 * differ, so a new key means bumping it. */
#define MPS_SCENE_KEY_COUNT 21

extern const scene_key mps_scene_keys[]; /* MPS_SCENE_KEY_COUNT rows */

#endif
