/* colormap.h: perceptual colour maps (matplotlib's viridis, magma, plasma) as 9 samples each; the
 * walls' colour and the floating bodies' categorical palette. */
#ifndef SLUICE_VIZ_COLORMAP_H
#define SLUICE_VIZ_COLORMAP_H

enum { VIZ_CMAP_SAMPLES = 9 };

/* The samples of map k (enum viz_colormap_kind) at 0, 1/8, ..., 1: rgb in [0, 1]. */
const float *viz_colormap_samples(int k);

/* Colour of t in [0, 1] (clamped), linear between samples, as the shaders compute it. */
void viz_colormap_eval(int k, float t, float rgb[3]);

/* Display name and units of a viewer field (enum viz_field_kind). */
const char *viz_field_label(int field);
const char *viz_field_units(int field);



/* The walls' colour (when they do not take the colour map). */
extern const float viz_wall_color[3];

/* Floating body b's colour (b >= 0): matplotlib's tab10, its grey darkened so that no body looks
 * like a wall, cycled every VIZ_BODY_COLORS bodies (src/viz/palette.h). */
void viz_body_color(int b, float rgb[3]);

/* The VIZ_BODY_COLORS colours, rgb, for the shader's uniform. */
const float *viz_body_palette(void);

/* GLSL: `uniform vec3 cmap[9]; vec3 colormap(float t)`, set with viz_colormap_uniform(). */
#define VIZ_COLORMAP_GLSL                                                                              \
    "uniform vec3 cmap[9];\n"                                                                          \
    "vec3 colormap(float t) {\n"                                                                       \
    "    t = clamp(t, 0.0, 1.0) * 8.0;\n"                                                              \
    "    int i = min(int(t), 7);\n"                                                                    \
    "    return mix(cmap[i], cmap[i + 1], t - float(i));\n"                                            \
    "}\n"
#endif
