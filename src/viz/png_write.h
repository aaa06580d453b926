/* png_write.h: writing RGB images as PNG files (libpng). */
#ifndef SLUICE_VIZ_PNG_WRITE_H
#define SLUICE_VIZ_PNG_WRITE_H

#include "base/status.h"

/* Writes w x h RGB pixels (top row first) to path, through a temporary name and a rename, so a
 * reader never sees half a file. */
int viz_png_write(const char *path, const unsigned char *rgb, int w, int h, sl_err *err);

#endif
