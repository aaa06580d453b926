/* fill.h: "fill the particle vertex buffer": from the host arrays (upload), or on the GPU from the
 * CUDA backend's device arrays through CUDA-OpenGL interop. */
#ifndef SLUICE_VIZ_FILL_H
#define SLUICE_VIZ_FILL_H

#include "base/particles.h"
#include "core/sim.h"
#include "render.h"

typedef struct viz_filler {
    viz_vertex *host;          /* staging for the host path */
    size_t cap;
    void *gpu;                 /* struct gpu_viz_buffer: the registered vertex buffer */
    unsigned gpu_vbo;
    size_t gpu_capacity;       /* the buffer's capacity when it was registered */
    int gpu_off;               /* interop failed: the host path from then on */
    int used_gpu;              /* the last fill ran on the GPU */
    char note[1024];           /* why interop is off, for the user */
} viz_filler;

/* Writes the particles of s into r's vertex buffer, each with the value of `field` (enum
 * viz_field_kind) and its tag (type, or floating body: src/viz/palette.h); range gets the smallest and largest value over the fluid particles. Uses the
 * device arrays when the backend has them (s->be->device_view) and the build has CUDA, otherwise
 * sim_sync_host() and an upload. */
int viz_fill(viz_filler *f, viz_renderer *r, sim *s, int field, float range[2], sl_err *err);

void viz_filler_free(viz_filler *f);

/* The host path's vertices, n = p->n (also used by the tests); no particle belongs to a floating body. */
void viz_fill_vertices(const particles *p, int field, viz_vertex *out, float range[2]);

/* The same with each particle's motion body (body[i], core/motion.h; NULL: none): a particle of a
 * floating body b < nfloat is tagged VIZ_TAG_BODY0 + b (src/viz/palette.h) instead of its type. */
void viz_fill_vertices_bodies(const particles *p, int field, const real *body, int nfloat, viz_vertex *out,
                              float range[2]);

#endif
