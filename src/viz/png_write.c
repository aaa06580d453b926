/* png_write.c: PNG output through libpng, written to PATH.tmp and renamed. */
#define _POSIX_C_SOURCE 200809L
#include "png_write.h"

#include <png.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* libpng reports errors by longjmp; the message is kept for the caller. */
static void on_png_error(png_structp png, png_const_charp msg)
{
    char *buf = png_get_error_ptr(png);
    snprintf(buf, 256, "%s", msg);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* Separate from viz_png_write so that no local variable lives across setjmp. */
static int write_file(FILE *f, const unsigned char *rgb, int w, int h, char *msg)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, msg, on_png_error, on_png_warning);
    if (!png) {
        snprintf(msg, 256, "out of memory");
        return 0;
    }
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, info ? &info : NULL);
        if (!msg[0])
            snprintf(msg, 256, "out of memory");
        return 0;
    }
    png_init_io(png, f);
    png_set_compression_level(png, 3); /* movies: speed over the last few percent of size */
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < h; ++y)
        png_write_row(png, rgb + (size_t)y * (size_t)w * 3);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 1;
}

int viz_png_write(const char *path, const unsigned char *rgb, int w, int h, sl_err *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return sl_fail(err, SL_ERR_RUNTIME, "viewer: cannot write %s: %s", tmp, strerror(errno));
    char msg[256] = "";
    int ok = write_file(f, rgb, w, h, msg);
    if (fclose(f) != 0 && ok) {
        ok = 0;
        snprintf(msg, sizeof msg, "%s", strerror(errno));
    }
    if (!ok) {
        remove(tmp);
        return sl_fail(err, SL_ERR_RUNTIME, "viewer: cannot write %s: %s", path, msg);
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return sl_fail(err, SL_ERR_RUNTIME, "viewer: cannot rename %s to %s: %s", tmp, path, strerror(e));
    }
    return SL_OK;
}
