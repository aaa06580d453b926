/* render.c: particles as camera-facing quads (instanced), shaded as spheres in the fragment shader
 * with their true depth; fluid (and floating bodies, each in its palette colour) first, then walls
 * (translucent: blended, without depth writes). */
#include "render.h"

#include "base/scene.h"
#include "colormap.h"
#include "gl.h"
#include "palette.h"

#include <string.h>

_Static_assert(VIZ_BODY_COLORS == 10, "the shaders' body_colors[10] and % 10");

static const char vs_src[] =
    "#version 330 core\n"
    "layout(location = 0) in vec2 corner;\n"
    "layout(location = 1) in vec4 inst;\n" /* x, y, z, value */
    "layout(location = 2) in float ptype;\n"
    "uniform mat4 view, proj;\n"
    "uniform float radius, vmin, vinv;\n"
    "uniform int walls_pass, show_bodies;\n"
    "out vec2 uv;\n"
    "out vec3 center;\n"
    "out float t;\n"
    "flat out int body;\n"
    "void main() {\n"
    /* ptype: the particle type, or 3 + b for floating body b (palette.h); shown bodies are drawn
     * opaque with the fluid, in their own colours; hidden ones are walls like the others */
    "    bool is_body = show_bodies == 1 && ptype > 2.5;\n"
    "    bool wall = ptype > 0.5 && !is_body;\n"
    "    if (wall != (walls_pass == 1)) { gl_Position = vec4(2.0, 2.0, 2.0, 1.0); return; }\n"
    "    body = is_body ? int(ptype - 3.0 + 0.5) % 10 : -1;\n"
    "    vec4 c = view * vec4(inst.xyz, 1.0);\n"
    "    center = c.xyz;\n"
    "    uv = corner;\n"
    "    t = (inst.w - vmin) * vinv;\n"
    "    gl_Position = proj * (c + vec4(corner * radius, 0.0, 0.0));\n"
    "}\n";

static const char fs_src[] =
    "#version 330 core\n" VIZ_COLORMAP_GLSL
    "in vec2 uv;\n"
    "in vec3 center;\n"
    "in float t;\n"
    "flat in int body;\n"
    "uniform mat4 proj;\n"
    "uniform float radius, alpha;\n"
    "uniform int use_cmap;\n"
    "uniform vec3 wall_color;\n"
    "uniform vec3 body_colors[10];\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "    float r2 = dot(uv, uv);\n"
    "    if (r2 > 1.0) discard;\n"
    "    vec3 n = vec3(uv, sqrt(1.0 - r2));\n"
    "    vec4 clip = proj * vec4(center + n * radius, 1.0);\n"
    "    gl_FragDepth = 0.5 * clip.z / clip.w + 0.5;\n"
    "    vec3 base = body >= 0 ? body_colors[body] : use_cmap == 1 ? colormap(t) : wall_color;\n"
    "    vec3 l = normalize(vec3(0.4, 0.6, 1.0));\n"
    "    float d = max(dot(n, l), 0.0);\n"
    "    float s = pow(max(reflect(-l, n).z, 0.0), 24.0);\n"
    "    frag = vec4(base * (0.45 + 0.55 * d) + 0.2 * s, alpha);\n"
    "}\n";

int viz_target_resize(viz_target *t, int w, int h, sl_err *err)
{
    if (t->fbo && t->w == w && t->h == h)
        return SL_OK;
    if (!t->fbo) {
        glGenFramebuffers(1, &t->fbo);
        glGenRenderbuffers(1, &t->color);
        glGenRenderbuffers(1, &t->depth);
    }
    t->w = w;
    t->h = h;
    glBindRenderbuffer(GL_RENDERBUFFER, t->color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    glBindRenderbuffer(GL_RENDERBUFFER, t->depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, w, h);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t->color);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, t->depth);
    GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (st != GL_FRAMEBUFFER_COMPLETE)
        return sl_fail(err, SL_ERR_RUNTIME, "viewer: a %d x %d framebuffer is incomplete (status 0x%x)", w, h,
                       (unsigned)st);
    return viz_gl_check("creating the framebuffer", err);
}

void viz_target_free(viz_target *t)
{
    if (t->fbo) {
        glDeleteFramebuffers(1, &t->fbo);
        glDeleteRenderbuffers(1, &t->color);
        glDeleteRenderbuffers(1, &t->depth);
    }
    memset(t, 0, sizeof *t);
}

void viz_target_read_rgb(const viz_target *t, unsigned char *rgb)
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, t->fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    /* Row by row from the bottom: GL's first row is the image's last. */
    unsigned char *row = rgb;
    for (int y = t->h - 1; y >= 0; --y, row += (size_t)t->w * 3)
        glReadPixels(0, y, t->w, 1, GL_RGB, GL_UNSIGNED_BYTE, row);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
}

int viz_renderer_init(viz_renderer *r, sl_err *err)
{
    memset(r, 0, sizeof *r);
    r->prog = viz_gl_program("particle", vs_src, fs_src, err);
    if (!r->prog)
        return SL_ERR_RUNTIME;
    static const float corners[] = {-1, -1, 1, -1, -1, 1, 1, 1};
    glGenVertexArrays(1, &r->vao);
    glBindVertexArray(r->vao);
    glGenBuffers(1, &r->quad);
    glBindBuffer(GL_ARRAY_BUFFER, r->quad);
    glBufferData(GL_ARRAY_BUFFER, sizeof corners, corners, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
    glGenBuffers(1, &r->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(viz_vertex), (void *)0);
    glVertexAttribDivisor(1, 1);
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, sizeof(viz_vertex), (void *)offsetof(viz_vertex, type));
    glVertexAttribDivisor(2, 1);
    glBindVertexArray(0);
    return viz_gl_check("setting up the particle renderer", err);
}

int viz_renderer_reserve(viz_renderer *r, size_t n, sl_err *err)
{
    if (n > r->capacity) {
        glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(n * sizeof(viz_vertex)), NULL, GL_DYNAMIC_DRAW);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        int rc = viz_gl_check("allocating the particle vertex buffer", err);
        if (rc)
            return rc;
        r->capacity = n;
    }
    r->count = n;
    return SL_OK;
}

void viz_renderer_upload(viz_renderer *r, const viz_vertex *v, size_t n)
{
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(n * sizeof *v), v);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

static void draw_pass(const viz_renderer *r, int walls_pass, int use_cmap, float alpha)
{
    glUniform1i(glGetUniformLocation(r->prog, "walls_pass"), walls_pass);
    glUniform1i(glGetUniformLocation(r->prog, "use_cmap"), use_cmap);
    glUniform1f(glGetUniformLocation(r->prog, "alpha"), alpha);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, (GLsizei)r->count);
}

void viz_renderer_draw(const viz_renderer *r, const viz_target *t, const viz_style *s)
{
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glViewport(0, 0, t->w, t->h);
    glClearColor(s->background[0], s->background[1], s->background[2], 1);
    glDepthMask(GL_TRUE);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    if (r->count > 0) {
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
        glDisable(GL_BLEND);
        glUseProgram(r->prog);
        glUniformMatrix4fv(glGetUniformLocation(r->prog, "view"), 1, GL_FALSE, s->view);
        glUniformMatrix4fv(glGetUniformLocation(r->prog, "proj"), 1, GL_FALSE, s->proj);
        glUniform1f(glGetUniformLocation(r->prog, "radius"), s->radius);
        float span = s->vmax - s->vmin;
        glUniform1f(glGetUniformLocation(r->prog, "vmin"), s->vmin);
        glUniform1f(glGetUniformLocation(r->prog, "vinv"), span > 0 ? 1.0f / span : 0.0f);
        glUniform3fv(glGetUniformLocation(r->prog, "cmap"), VIZ_CMAP_SAMPLES, viz_colormap_samples(s->colormap));
        glUniform3fv(glGetUniformLocation(r->prog, "wall_color"), 1, viz_wall_color);
        glUniform3fv(glGetUniformLocation(r->prog, "body_colors"), VIZ_BODY_COLORS, viz_body_palette());
        glUniform1i(glGetUniformLocation(r->prog, "show_bodies"), s->show_bodies);
        glBindVertexArray(r->vao);
        draw_pass(r, 0, 1, 1.0f);
        if (s->walls == VIZ_WALLS_OPAQUE) {
            draw_pass(r, 1, s->color_walls, 1.0f);
        } else if (s->walls == VIZ_WALLS_TRANSLUCENT) {
            glEnable(GL_BLEND);
            glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
            glDepthMask(GL_FALSE);
            draw_pass(r, 1, s->color_walls, 0.3f);
            glDepthMask(GL_TRUE);
            glDisable(GL_BLEND);
        }
        glBindVertexArray(0);
        glUseProgram(0);
        glDisable(GL_DEPTH_TEST);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

void viz_renderer_free(viz_renderer *r)
{
    if (r->prog) {
        glDeleteProgram(r->prog);
        glDeleteBuffers(1, &r->quad);
        glDeleteBuffers(1, &r->vbo);
        glDeleteVertexArrays(1, &r->vao);
    }
    memset(r, 0, sizeof *r);
}
