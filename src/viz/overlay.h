/* overlay.h: 2D drawing on top of a frame: text in the built-in font, panels, the colour bar. */
#ifndef SLUICE_VIZ_OVERLAY_H
#define SLUICE_VIZ_OVERLAY_H

#include "base/status.h"
#include "render.h"

#include <stddef.h>

typedef struct viz_overlay {
    unsigned prog, vao, vbo, font;
    float *verts;            /* the batch: 6 vertices per quad */
    size_t n, cap;           /* vertices */
    int scale;               /* font pixels per glyph pixel */
} viz_overlay;

int viz_overlay_init(viz_overlay *o, sl_err *err);
void viz_overlay_free(viz_overlay *o);

/* Starts a batch for a target of height h (picks the font scale). */
void viz_overlay_begin(viz_overlay *o, int h);
/* Pixel coordinates, (0, 0) at the top left. */
void viz_overlay_rect(viz_overlay *o, float x, float y, float w, float h, const float rgba[4]);
/* Text, lines split at '\n', top-left corner at (x, y); returns the width in pixels. */
float viz_overlay_text(viz_overlay *o, float x, float y, const char *s, const float rgba[4]);
/* Size of a text in pixels. */
void viz_overlay_text_size(const viz_overlay *o, const char *s, float *w, float *h);
/* A vertical gradient of the colour map, its top the map's end. */
void viz_overlay_gradient(viz_overlay *o, float x, float y, float w, float h);
/* Draws the batch onto t with colour map k. */
void viz_overlay_draw(viz_overlay *o, const viz_target *t, int colormap);

#endif
