/* test_viz_unit.c: the viewer's parts that need no OpenGL: the camera's fit (the mapping the PNG
 * checks rely on), the colour maps, the host vertex fill and its range, the font atlas. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/particles.h"
#include "base/scene.h"
#include "viz/camera.h"
#include "viz/colormap.h"
#include "viz/fill.h"
#include "viz/font.h"
#include "viz/palette.h"

#include <math.h>
#include <string.h>

/* clip = proj * view * (x, y, z, 1); returns NDC x, y. */
static void project(const float view[16], const float proj[16], const double p[3], double ndc[2])
{
    double v[4] = {p[0], p[1], p[2], 1}, e[4], c[4];
    for (int i = 0; i < 4; ++i)
        e[i] = view[i] * v[0] + view[4 + i] * v[1] + view[8 + i] * v[2] + view[12 + i] * v[3];
    for (int i = 0; i < 4; ++i)
        c[i] = proj[i] * e[0] + proj[4 + i] * e[1] + proj[8 + i] * e[2] + proj[12 + i] * e[3];
    ndc[0] = c[0] / c[3];
    ndc[1] = c[1] / c[3];
}

static void test_camera_2d_fit(void **state)
{
    (void)state;
    viz_camera cam;
    double lo[3] = {0, 0, 0}, hi[3] = {4, 1, 0};
    viz_camera_init(&cam, 2, 0, lo, hi, -30, 25);
    assert_true(cam.ortho);
    float view[16], proj[16];
    viz_camera_matrices(&cam, 16.0 / 9.0, view, proj);
    double ndc[2];
    project(view, proj, hi, ndc); /* width-limited: x reaches 1/1.05 */
    assert_float_equal(ndc[0], 1 / 1.05, 1e-6);
    assert_float_equal(ndc[1], 0.5 / (2 / (16.0 / 9.0)) / 1.05, 1e-6);
    double c[3] = {2, 0.5, 0};
    project(view, proj, c, ndc);
    assert_float_equal(ndc[0], 0, 1e-6);
    assert_float_equal(ndc[1], 0, 1e-6);
    viz_camera_zoom(&cam, 2);
    viz_camera_matrices(&cam, 16.0 / 9.0, view, proj);
    project(view, proj, hi, ndc);
    assert_float_equal(ndc[0], 2 / 1.05, 1e-6);
    viz_camera_reset(&cam);
    assert_float_equal(cam.zoom, 1, 0);
}

static void test_camera_3d_front(void **state)
{
    (void)state;
    viz_camera cam;
    double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 1};
    viz_camera_init(&cam, 3, 1, lo, hi, 0, 0); /* orthographic, looking along +y: x right, z up */
    float view[16], proj[16];
    viz_camera_matrices(&cam, 2.0, view, proj);
    double p[3] = {2, 0.3, 1}, ndc[2];
    project(view, proj, p, ndc);
    assert_float_equal(ndc[0], 1 / 1.05, 1e-6);
    assert_float_equal(ndc[1], 1 / 1.05, 1e-6);
    /* perspective: the whole box in view from any direction */
    viz_camera_init(&cam, 3, 0, lo, hi, -30, 25);
    viz_camera_matrices(&cam, 16.0 / 9.0, view, proj);
    for (int k = 0; k < 8; ++k) {
        double q[3] = {k & 1 ? 2 : 0, k & 2 ? 1 : 0, k & 4 ? 1 : 0};
        project(view, proj, q, ndc);
        assert_true(fabs(ndc[0]) < 1 && fabs(ndc[1]) < 1);
    }
}

static void test_colormap(void **state)
{
    (void)state;
    float rgb[3];
    viz_colormap_eval(VIZ_CMAP_VIRIDIS, 0, rgb);
    assert_float_equal(rgb[0], 0.267004f, 1e-6);
    viz_colormap_eval(VIZ_CMAP_VIRIDIS, 2, rgb); /* clamped */
    assert_float_equal(rgb[1], 0.906157f, 1e-6);
    viz_colormap_eval(VIZ_CMAP_VIRIDIS, 0.0625f, rgb); /* halfway between the first two samples */
    assert_float_equal(rgb[2], 0.5f * (0.329415f + 0.457517f), 1e-6);
    /* perceptual maps: lightness (roughly) grows along the map */
    for (int k = 0; k < VIZ_NCMAPS; ++k) {
        float prev = -1;
        for (int i = 0; i <= 8; ++i) {
            viz_colormap_eval(k, i / 8.0f, rgb);
            float l = 0.2126f * rgb[0] + 0.7152f * rgb[1] + 0.0722f * rgb[2];
            assert_true(l > prev);
            prev = l;
        }
    }
}

static void test_fill_vertices(void **state)
{
    (void)state;
    particles p;
    sl_err err;
    assert_int_equal(particles_alloc(&p, 3, &err), SL_OK);
    for (int i = 0; i < 3; ++i) {
        p.f[PF_X][i] = (real)i;
        p.f[PF_VX][i] = (real)(3 * i);
        p.f[PF_VY][i] = (real)(4 * i);
        p.f[PF_P][i] = (real)(100 - 10 * i);
        p.f[PF_RHO][i] = 1000;
    }
    p.type[0] = PT_FLUID, p.type[1] = PT_FLUID, p.type[2] = PT_WALL;
    viz_vertex v[3];
    float range[2];
    viz_fill_vertices(&p, VIZ_FIELD_VELOCITY, v, range);
    assert_float_equal(v[1].value, 5, 1e-6);
    assert_float_equal(v[2].type, 1, 0);
    assert_float_equal(range[0], 0, 0); /* over the fluid only: the wall's 10 m/s is left out */
    assert_float_equal(range[1], 5, 1e-6);
    viz_fill_vertices(&p, VIZ_FIELD_PRESSURE, v, range);
    assert_float_equal(range[0], 90, 1e-6);
    assert_float_equal(range[1], 100, 1e-6);
    p.type[0] = p.type[1] = PT_WALL; /* no fluid: the range over everything */
    viz_fill_vertices(&p, VIZ_FIELD_PRESSURE, v, range);
    assert_float_equal(range[0], 80, 1e-6);
    particles_free(&p);
}

static void test_font(void **state)
{
    (void)state;
    static unsigned char atlas[VIZ_FONT_ATLAS_W * VIZ_FONT_ATLAS_H];
    viz_font_atlas(atlas);
    for (int g = 1; g < VIZ_FONT_COUNT; ++g) { /* every glyph but the space has ink */
        int ink = 0;
        for (int y = 0; y < VIZ_FONT_CELL_H; ++y)
            for (int x = 0; x < VIZ_FONT_CELL_W; ++x)
                ink += atlas[y * VIZ_FONT_ATLAS_W + g * VIZ_FONT_CELL_W + x] != 0;
        assert_true(ink > 0);
    }
    for (int y = 0; y < VIZ_FONT_CELL_H; ++y) /* the spacing column stays empty */
        for (int g = 0; g < VIZ_FONT_COUNT; ++g)
            assert_int_equal(atlas[y * VIZ_FONT_ATLAS_W + g * VIZ_FONT_CELL_W + VIZ_FONT_CELL_W - 1], 0);
}

/* Floating bodies coloured apart: bodies 0..9 get ten distinct colours, none near the walls' grey,
 * repeating from body 10; the vertex tag names the body for floating bodies only, and keeps the type
 * of fluid, fixed walls and walls with a prescribed motion (bodies >= nfloat). */
static void test_body_palette(void **state)
{
    (void)state;
    float c[VIZ_BODY_COLORS][3], again[3];
    for (int b = 0; b < VIZ_BODY_COLORS; ++b) {
        viz_body_color(b, c[b]);
        for (int a = 0; a < 3; ++a)
            assert_true(c[b][a] >= 0 && c[b][a] <= 1);
    }
    /* 0.1 in rgb distance: well apart on screen (tab10's closest pair is about 0.3 apart) */
    for (int b = 0; b < VIZ_BODY_COLORS; ++b) {
        float dw = 0;
        for (int a = 0; a < 3; ++a)
            dw += (c[b][a] - viz_wall_color[a]) * (c[b][a] - viz_wall_color[a]);
        assert_true(sqrtf(dw) > 0.1f);
        for (int o = 0; o < b; ++o) {
            float d = 0;
            for (int a = 0; a < 3; ++a)
                d += (c[b][a] - c[o][a]) * (c[b][a] - c[o][a]);
            assert_true(sqrtf(d) > 0.1f);
        }
    }
    viz_body_color(VIZ_BODY_COLORS + 3, again);
    assert_memory_equal(again, c[3], sizeof again);
    assert_memory_equal(viz_body_palette() + 3 * 7, c[7], sizeof c[7]);
    assert_float_equal(viz_wall_color[0], 0.55f, 0); /* the walls' grey, as before the bodies */

    /* tags: fluid 0, tank wall 1, fixed obstacle 2, floating bodies 0 and 1, a wall moved by a law
     * (motion body 2 of 2 floating) */
    particles p;
    sl_err err;
    assert_int_equal(particles_alloc(&p, 6, &err), SL_OK);
    const uint8_t type[6] = {PT_FLUID, PT_WALL, PT_OBSTACLE, PT_OBSTACLE, PT_OBSTACLE, PT_WALL};
    const real body[6] = {-1, -1, -1, 0, 1, 2};
    for (int i = 0; i < 6; ++i)
        p.type[i] = type[i];
    viz_vertex v[6];
    float range[2];
    viz_fill_vertices_bodies(&p, VIZ_FIELD_TYPE, body, 2, v, range);
    const float want[6] = {0, 1, 2, VIZ_TAG_BODY0, VIZ_TAG_BODY0 + 1, 1};
    for (int i = 0; i < 6; ++i) {
        assert_float_equal(v[i].type, want[i], 0);
        assert_float_equal(v[i].value, (float)type[i], 0); /* the value is still the type */
    }
    viz_fill_vertices(&p, VIZ_FIELD_TYPE, v, range); /* no bodies: the types */
    for (int i = 0; i < 6; ++i)
        assert_float_equal(v[i].type, (float)type[i], 0);
    particles_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_camera_2d_fit), cmocka_unit_test(test_camera_3d_front),
        cmocka_unit_test(test_colormap),      cmocka_unit_test(test_fill_vertices),
        cmocka_unit_test(test_font),          cmocka_unit_test(test_body_palette),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
