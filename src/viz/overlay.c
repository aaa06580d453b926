/* overlay.c: one shader for the overlay's quads: solid colour (panels), font atlas (text), or the
 * colour map along v (the colour bar). Quads are batched on the host and drawn at once. */
#include "overlay.h"

#include "colormap.h"
#include "font.h"
#include "gl.h"

#include <stdlib.h>
#include <string.h>

enum { MODE_SOLID = 0, MODE_TEXT = 1, MODE_GRADIENT = 2, FLOATS = 9 }; /* x y u v r g b a mode */

static const char vs_src[] =
    "#version 330 core\n"
    "layout(location = 0) in vec2 pos;\n"
    "layout(location = 1) in vec2 uv_in;\n"
    "layout(location = 2) in vec4 color_in;\n"
    "layout(location = 3) in float mode_in;\n"
    "uniform vec2 size;\n"
    "out vec2 uv;\n"
    "out vec4 color;\n"
    "flat out int mode;\n"
    "void main() {\n"
    "    uv = uv_in;\n"
    "    color = color_in;\n"
    "    mode = int(mode_in + 0.5);\n"
    "    gl_Position = vec4(2.0 * pos.x / size.x - 1.0, 1.0 - 2.0 * pos.y / size.y, 0.0, 1.0);\n"
    "}\n";

static const char fs_src[] =
    "#version 330 core\n" VIZ_COLORMAP_GLSL
    "in vec2 uv;\n"
    "in vec4 color;\n"
    "flat in int mode;\n"
    "uniform sampler2D font;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "    if (mode == 1) {\n"
    "        if (texture(font, uv).r < 0.5) discard;\n"
    "        frag = color;\n"
    "    } else if (mode == 2) {\n"
    "        frag = vec4(colormap(uv.y), 1.0);\n"
    "    } else {\n"
    "        frag = color;\n"
    "    }\n"
    "}\n";

int viz_overlay_init(viz_overlay *o, sl_err *err)
{
    memset(o, 0, sizeof *o);
    o->scale = 1;
    o->prog = viz_gl_program("overlay", vs_src, fs_src, err);
    if (!o->prog)
        return SL_ERR_RUNTIME;
    glGenVertexArrays(1, &o->vao);
    glBindVertexArray(o->vao);
    glGenBuffers(1, &o->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
    GLsizei stride = FLOATS * sizeof(float);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, stride, (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, stride, (void *)(2 * sizeof(float)));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, stride, (void *)(4 * sizeof(float)));
    glEnableVertexAttribArray(3);
    glVertexAttribPointer(3, 1, GL_FLOAT, GL_FALSE, stride, (void *)(8 * sizeof(float)));
    glBindVertexArray(0);

    unsigned char atlas[VIZ_FONT_ATLAS_W * VIZ_FONT_ATLAS_H];
    viz_font_atlas(atlas);
    glGenTextures(1, &o->font);
    glBindTexture(GL_TEXTURE_2D, o->font);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, VIZ_FONT_ATLAS_W, VIZ_FONT_ATLAS_H, 0, GL_RED, GL_UNSIGNED_BYTE, atlas);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D, 0);
    return viz_gl_check("setting up the overlay", err);
}

void viz_overlay_free(viz_overlay *o)
{
    if (o->prog) {
        glDeleteProgram(o->prog);
        glDeleteBuffers(1, &o->vbo);
        glDeleteVertexArrays(1, &o->vao);
        glDeleteTextures(1, &o->font);
    }
    free(o->verts);
    memset(o, 0, sizeof *o);
}

void viz_overlay_begin(viz_overlay *o, int h)
{
    o->n = 0;
    o->scale = h >= 1000 ? 3 : h >= 480 ? 2 : 1;
}

static void quad(viz_overlay *o, float x, float y, float w, float h, float u0, float v0, float u1, float v1,
                 const float rgba[4], int mode)
{
    if (o->n + 6 > o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 6 * 256;
        float *nv = realloc(o->verts, cap * FLOATS * sizeof(float));
        if (!nv)
            return; /* the overlay loses quads, the frame is still drawn */
        o->verts = nv;
        o->cap = cap;
    }
    const float px[6] = {x, x + w, x + w, x, x + w, x};
    const float py[6] = {y, y, y + h, y, y + h, y + h};
    const float pu[6] = {u0, u1, u1, u0, u1, u0};
    const float pv[6] = {v0, v0, v1, v0, v1, v1};
    static const float none[4] = {0, 0, 0, 0};
    if (!rgba)
        rgba = none;
    for (int k = 0; k < 6; ++k) {
        float *d = o->verts + (o->n + (size_t)k) * FLOATS;
        d[0] = px[k], d[1] = py[k], d[2] = pu[k], d[3] = pv[k];
        memcpy(d + 4, rgba, 4 * sizeof(float));
        d[8] = (float)mode;
    }
    o->n += 6;
}

void viz_overlay_rect(viz_overlay *o, float x, float y, float w, float h, const float rgba[4])
{
    quad(o, x, y, w, h, 0, 0, 0, 0, rgba, MODE_SOLID);
}

void viz_overlay_gradient(viz_overlay *o, float x, float y, float w, float h)
{
    quad(o, x, y, w, h, 0, 1, 0, 0, NULL, MODE_GRADIENT);
}

void viz_overlay_text_size(const viz_overlay *o, const char *s, float *w, float *h)
{
    int cols = 0, maxc = 0, lines = 1;
    for (; *s; ++s) {
        if (*s == '\n') {
            ++lines;
            cols = 0;
        } else if (++cols > maxc) {
            maxc = cols;
        }
    }
    *w = (float)(maxc * VIZ_FONT_CELL_W * o->scale);
    *h = (float)(lines * (VIZ_FONT_CELL_H + 1) * o->scale);
}

float viz_overlay_text(viz_overlay *o, float x, float y, const char *s, const float rgba[4])
{
    float cw = (float)(VIZ_FONT_CELL_W * o->scale), ch = (float)(VIZ_FONT_CELL_H * o->scale);
    float cx = x, wmax = 0;
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '\n') {
            y += ch + (float)o->scale;
            cx = x;
            continue;
        }
        if (c < VIZ_FONT_FIRST || c >= VIZ_FONT_FIRST + VIZ_FONT_COUNT)
            c = '?';
        if (c != ' ') {
            float u0 = (float)((c - VIZ_FONT_FIRST) * VIZ_FONT_CELL_W) / VIZ_FONT_ATLAS_W;
            float u1 = u0 + (float)VIZ_FONT_CELL_W / VIZ_FONT_ATLAS_W;
            quad(o, cx, y, cw, ch, u0, 0, u1, 1, rgba, MODE_TEXT);
        }
        cx += cw;
        if (cx - x > wmax)
            wmax = cx - x;
    }
    return wmax;
}

void viz_overlay_draw(viz_overlay *o, const viz_target *t, int colormap)
{
    if (o->n == 0)
        return;
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glViewport(0, 0, t->w, t->h);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(o->prog);
    glUniform2f(glGetUniformLocation(o->prog, "size"), (float)t->w, (float)t->h);
    glUniform3fv(glGetUniformLocation(o->prog, "cmap"), VIZ_CMAP_SAMPLES, viz_colormap_samples(colormap));
    glUniform1i(glGetUniformLocation(o->prog, "font"), 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, o->font);
    glBindVertexArray(o->vao);
    glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(o->n * FLOATS * sizeof(float)), o->verts, GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, (GLsizei)o->n);
    glBindVertexArray(0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glUseProgram(0);
    glDisable(GL_BLEND);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}
