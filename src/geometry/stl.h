/* stl.h: triangle meshes read from STL files (binary or ASCII) and checked to bound a solid: closed,
 * consistently oriented outwards, finite, without degenerate triangles. */
#ifndef SLUICE_STL_H
#define SLUICE_STL_H

#include "base/status.h"

#include <stddef.h>

/* The most triangles a mesh may have (a binary file of 250 MB; 72 bytes each in memory). */
#define STL_TRIANGLES_MAX 5000000
/* A triangle whose area is below this fraction of its longest edge squared is degenerate. */
#define STL_DEGENERATE_RATIO 1e-10

typedef struct stl_mesh {
    size_t ntri;
    double *xyz; /* 9 per triangle: the three vertices in file order (the right-hand rule gives the
                  * outward normal; the facet normals of the file are ignored) */
} stl_mesh;

/* Reads `path` and checks it (stl_check); on failure a one-line message starting with `path` (and
 * the line of an ASCII syntax error, or the index of the offending triangle) and nothing kept. */
int stl_read(const char *path, stl_mesh *m, sl_err *err);

/* The same from memory; `name` is used in messages. Binary when the size is 84 + 50 n for the
 * header's n, or when the data does not start with "solid"; ASCII otherwise. */
int stl_parse(const char *name, const unsigned char *data, size_t len, stl_mesh *m, sl_err *err);

/* Finite, non-degenerate triangles; every edge shared by exactly two triangles that run it in
 * opposite directions (vertices welded where their coordinates are equal); positive volume. */
int stl_check(const char *name, const stl_mesh *m, sl_err *err);

/* The enclosed volume (positive when the normals point outwards). */
double stl_signed_volume(const stl_mesh *m);

void stl_free(stl_mesh *m);

#endif
