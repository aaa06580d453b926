/* render.h: particles as shaded sphere impostors, drawn into framebuffer objects (one renderer for the
 * window, offscreen frames and both backends). */
#ifndef SLUICE_VIZ_RENDER_H
#define SLUICE_VIZ_RENDER_H

#include "base/status.h"

#include <stddef.h>

/* One particle in the vertex buffer: position, the value the colour map shows, and its tag:
 * the particle type (enum particle_type, as a float), or VIZ_TAG_BODY0 + b for a particle of floating
 * body b (palette.h). Written by fill.c on the host or by
 * src/gpu/viz_interop.cu on the device. */
typedef struct viz_vertex {
    float x, y, z, value, type; /* type: the tag */
} viz_vertex;

/* A framebuffer object with a colour and a depth buffer. */
typedef struct viz_target {
    unsigned fbo, color, depth;
    int w, h;
} viz_target;

int viz_target_resize(viz_target *t, int w, int h, sl_err *err);
void viz_target_free(viz_target *t);
/* Reads the target into rgb (w * h * 3 bytes, top row first). */
void viz_target_read_rgb(const viz_target *t, unsigned char *rgb);

/* What to draw and how. */
typedef struct viz_style {
    float view[16], proj[16];  /* column-major */
    float radius;              /* sphere radius, world units */
    float vmin, vmax;          /* colour range of viz_vertex.value */
    int colormap;              /* enum viz_colormap_kind */
    int walls;                 /* enum viz_walls_kind */
    int color_walls;           /* walls take the colour map too (colouring by type) */
    int show_bodies;           /* floating bodies drawn opaque in their own colours (palette.h); 0: as walls */
    float background[3];
} viz_style;

typedef struct viz_renderer {
    unsigned prog, vao, quad, vbo;
    size_t capacity;           /* vertices the buffer holds */
    size_t count;              /* vertices drawn */
} viz_renderer;

int viz_renderer_init(viz_renderer *r, sl_err *err);
/* Makes the vertex buffer hold n vertices (keeps its name when it is big enough already). */
int viz_renderer_reserve(viz_renderer *r, size_t n, sl_err *err);
/* Copies n host vertices into the buffer (the CPU path). */
void viz_renderer_upload(viz_renderer *r, const viz_vertex *v, size_t n);
void viz_renderer_draw(const viz_renderer *r, const viz_target *t, const viz_style *s);
void viz_renderer_free(viz_renderer *r);

#endif
