/* viz_interop.h: the viewer's vertex buffer written on the GPU (CUDA-OpenGL interop), plain C interface. */
#ifndef SLUICE_GPU_VIZ_INTEROP_H
#define SLUICE_GPU_VIZ_INTEROP_H

#include "base/real.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "base/status.h" /* C linkage for sl_fail */

/* What the value of a vertex is. */
enum gpu_viz_mode {
    GPU_VIZ_SCALAR,    /* val[i] */
    GPU_VIZ_MAGNITUDE, /* |(val, val_y, val_z)| (val_z NULL in 2D) */
    GPU_VIZ_TYPE       /* type[i] */
};

/* Device arrays of n particles (the CUDA backend's, in its order). */
typedef struct gpu_viz_source {
    const real *x, *y, *z;           /* z NULL in 2D: 0 */
    const real *val, *val_y, *val_z; /* see enum gpu_viz_mode */
    const unsigned char *type;
    size_t n;
    enum gpu_viz_mode mode;
    const real *body;                /* each particle's motion body (core/motion.h), or NULL: none */
    int nfloat;                      /* bodies [0, nfloat) float: their tag (src/viz/palette.h) */
} gpu_viz_source;

typedef struct gpu_viz_buffer gpu_viz_buffer;

/* Registers the OpenGL buffer object `gl_buffer` (name from glGenBuffers, current context) with
 * CUDA, write-discard. Once per buffer: again only after its storage was reallocated. */
int gpu_viz_register(unsigned int gl_buffer, gpu_viz_buffer **out, sl_err *err);

/* Maps the buffer, writes src->n vertices (x, y, z, value, tag: 5 floats each, the viewer's
 * viz_vertex; the tag is viz_vertex_tag of src/viz/palette.h) with a kernel, unmaps it. range gets the smallest and largest value over fluid
 * particles (type 0; over all particles when there is no fluid). */
int gpu_viz_fill(gpu_viz_buffer *b, const gpu_viz_source *src, float range[2], sl_err *err);

/* The same kernel into a plain device buffer of src->n * 5 floats (no OpenGL). */
int gpu_viz_write(void *dst, const gpu_viz_source *src, float range[2], sl_err *err);

void gpu_viz_unregister(gpu_viz_buffer *b);

/* CUDA devices present (0 when none or no driver). */
int gpu_viz_device_count(void);

#ifdef __cplusplus
}
#endif

#endif
