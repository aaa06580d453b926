/* font.h: a tiny built-in bitmap font (printable ASCII, 5x9 glyphs in 6x10 cells) for the overlay. */
#ifndef SLUICE_VIZ_FONT_H
#define SLUICE_VIZ_FONT_H

enum {
    VIZ_FONT_FIRST = 32,  /* ' ' */
    VIZ_FONT_COUNT = 95,  /* ' '..'~' */
    VIZ_FONT_CELL_W = 6,
    VIZ_FONT_CELL_H = 10,
    VIZ_FONT_ATLAS_W = VIZ_FONT_COUNT * VIZ_FONT_CELL_W,
    VIZ_FONT_ATLAS_H = VIZ_FONT_CELL_H
};

/* Writes the glyphs side by side into atlas[VIZ_FONT_ATLAS_H][VIZ_FONT_ATLAS_W], row 0 at the top,
 * 255 where a glyph has ink and 0 elsewhere. */
void viz_font_atlas(unsigned char *atlas);

#endif
