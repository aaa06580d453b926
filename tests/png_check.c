/* png_check.c: checks a rendered frame: its size, and the share of fluid-coloured and background
 * pixels in boxes given in world coordinates (the viewer's initial orthographic view of a box).
 *
 * usage: png_check FILE WIDTH HEIGHT VIEW_XMIN VIEW_XMAX VIEW_YMIN VIEW_YMAX [CHECK...]
 *   CHECK: fluid X0 X1 Y0 Y1 MINFRAC       at least MINFRAC of the pixels in the box are fluid-coloured
 *          background X0 X1 Y0 Y1 MINFRAC  at least MINFRAC of them are the background
 *          anyfluid MINFRAC                at least MINFRAC of the whole image is fluid-coloured
 * The view box is what the viewer fits (src/viz/camera.c): its centre at the image centre, the
 * larger of its half height and its half width / aspect times 1.05 filling half the image height.
 * Fluid-coloured: far from the background and saturated (the colour maps are; walls are grey). */
#include <png.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int BG[3] = {237, 240, 245}; /* src/viz/viewer.c BACKGROUND */

static int is_background(const unsigned char *p)
{
    for (int c = 0; c < 3; ++c)
        if (abs(p[c] - BG[c]) > 3)
            return 0;
    return 1;
}

static int is_fluid(const unsigned char *p)
{
    int d = 0, mx = 0, mn = 255;
    for (int c = 0; c < 3; ++c) {
        d += abs(p[c] - BG[c]);
        mx = p[c] > mx ? p[c] : mx;
        mn = p[c] < mn ? p[c] : mn;
    }
    return d > 60 && mx - mn > 25;
}

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: png_check FILE WIDTH HEIGHT VIEW_XMIN VIEW_XMAX VIEW_YMIN VIEW_YMAX [CHECK...]\n");
        return 2;
    }
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, argv[1])) {
        fprintf(stderr, "FAIL %s: not a readable PNG: %s\n", argv[1], img.message);
        return 1;
    }
    img.format = PNG_FORMAT_RGB;
    int w = (int)img.width, h = (int)img.height;
    unsigned char *px = malloc((size_t)w * h * 3);
    if (!px || !png_image_finish_read(&img, NULL, px, 0, NULL)) {
        fprintf(stderr, "FAIL %s: cannot decode: %s\n", argv[1], img.message);
        return 1;
    }
    int fails = 0;
    if (w != atoi(argv[2]) || h != atoi(argv[3])) {
        fprintf(stderr, "FAIL %s: %d x %d pixels, expected %s x %s\n", argv[1], w, h, argv[2], argv[3]);
        return 1;
    }
    double x0 = atof(argv[4]), x1 = atof(argv[5]), y0 = atof(argv[6]), y1 = atof(argv[7]);
    double cx = 0.5 * (x0 + x1), cy = 0.5 * (y0 + y1), aspect = (double)w / h;
    double hh = fmax(0.5 * (y1 - y0), 0.5 * (x1 - x0) / aspect) * 1.05;
    double world_per_px = 2 * hh / h;
    for (int k = 8; k < argc;) {
        const char *what = argv[k];
        char box[160] = "whole image";
        long n = 0, hit = 0;
        double minfrac;
        if (strcmp(what, "anyfluid") == 0 && k + 1 < argc) {
            minfrac = atof(argv[k + 1]);
            for (long i = 0; i < (long)w * h; ++i) {
                n++;
                hit += is_fluid(px + 3 * i);
            }
            k += 2;
        } else if ((strcmp(what, "fluid") == 0 || strcmp(what, "background") == 0) && k + 5 < argc) {
            double bx0 = atof(argv[k + 1]), bx1 = atof(argv[k + 2]), by0 = atof(argv[k + 3]), by1 = atof(argv[k + 4]);
            minfrac = atof(argv[k + 5]);
            snprintf(box, sizeof box, "x %s..%s, y %s..%s", argv[k + 1], argv[k + 2], argv[k + 3], argv[k + 4]);
            for (int j = 0; j < h; ++j)
                for (int i = 0; i < w; ++i) {
                    double x = cx + (i + 0.5 - 0.5 * w) * world_per_px;
                    double y = cy - (j + 0.5 - 0.5 * h) * world_per_px;
                    if (x < bx0 || x > bx1 || y < by0 || y > by1)
                        continue;
                    const unsigned char *p = px + 3 * ((size_t)j * w + i);
                    n++;
                    hit += what[0] == 'f' ? is_fluid(p) : is_background(p);
                }
            k += 6;
        } else {
            fprintf(stderr, "png_check: bad check '%s'\n", what);
            return 2;
        }
        double frac = n ? (double)hit / n : 0;
        if (n == 0 || frac < minfrac) {
            fprintf(stderr, "FAIL %s: %s in %s: %.3f of %ld pixels, expected >= %g\n", argv[1], what, box, frac, n,
                    minfrac);
            fails++;
        } else {
            printf("ok   %s: %s in %s: %.3f of %ld pixels\n", argv[1], what, box, frac, n);
        }
    }
    free(px);
    return fails ? 1 : 0;
}
