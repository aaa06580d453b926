/* viewer.c: the engine observer that drives the viewer. After every step it writes a frame when the
 * simulated time reaches the next frame time, and redraws the window when 1/60 s of wall time has
 * passed, so the simulation advances as many steps per frame as keep the window responsive. While
 * paused it waits for input inside the observer; q/Esc return SL_INTERRUPTED (a clean end). */
#define _POSIX_C_SOURCE 200809L
#include "viz.h"

#include "core/floating.h"
#include "geometry/scene_build.h"

#include "camera.h"
#include "colormap.h"
#include "context.h"
#include "fill.h"
#include "gl.h"
#include "input.h"
#include "overlay.h"
#include "palette.h"
#include "png_write.h"
#include "render.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define FRAME_INTERVAL (1.0 / 60.0) /* s of wall time between window redraws */

static const float BACKGROUND[3] = {0.93f, 0.94f, 0.96f};

static const char help_text[] =
    "mouse  left drag: orbit (2D: pan)\n"
    "       right/middle or shift-left drag: pan\n"
    "       wheel: zoom\n"
    "space  pause / resume\n"
    "n      one step (when paused)\n"
    "c      next field\n"
    "b      floating bodies in their own colours / as walls\n"
    "r      reset the view\n"
    "+ -    particle size\n"
    "s      screenshot (PNG)\n"
    "h      this help\n"
    "q Esc  quit (final snapshot + checkpoint)";

struct viz {
    viz_options o;
    scene_viewer cfg;
    int dim;
    double dp;
    size_t nparticles;
    char scene_name[256];

    viz_context ctx;
    viz_renderer r;
    viz_overlay ov;
    viz_filler fill;
    viz_input in;
    viz_camera cam;
    viz_target win, frame;
    unsigned char *rgb;
    size_t rgb_cap;

    int field;
    int nbodies;               /* floating bodies (coloured apart, src/viz/palette.h) */
    int show_bodies;
    float size_scale;
    int paused, step_once, help, quit, finished;
    int whole;                 /* o.ranks: s's host arrays hold every particle now (viz_state_whole) */
    long filled_step;          /* the vertex buffer holds this step ... */
    int filled_field;          /* ... coloured by this field; -1: nothing yet */
    float range[2];            /* raw range of the filled values */

    double last_draw, last_title;
    long frames_drawn;
    double rate_wall;          /* rates: wall time, step and frame count at the last update */
    long rate_step, rate_frames;
    double steps_per_s, frames_per_s;

    double frame_every;        /* s */
    long next_frame;           /* index of the next --frames image */
    long frames_written;
    long shots;
    double t_fill, t_draw, t_png; /* wall seconds spent filling, drawing (+ showing or reading back), encoding */
    long n_fill, n_draw;
    char describe[2400];
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int make_dir(const char *dir, sl_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; ++p) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return sl_fail(err, SL_ERR_RUNTIME, "viewer: cannot create %s: %s", path, strerror(errno));
        *p = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return sl_fail(err, SL_ERR_RUNTIME, "viewer: cannot create %s: %s", path, strerror(errno));
    return SL_OK;
}

int viz_open(viz **out, const sim *s, const viz_options *o, sl_err *err)
{
    *out = NULL;
    viz *v = calloc(1, sizeof *v);
    if (!v)
        return sl_fail(err, SL_ERR_RUNTIME, "viewer: out of memory");
    v->o = *o;
    v->cfg = s->sc->viewer;
    if (o->width > 0)
        v->cfg.width = o->width;
    if (o->height > 0)
        v->cfg.height = o->height;
    v->dim = s->sc->dim;
    v->dp = s->sc->dp;
    v->nparticles = s->p.n;
    const char *base = strrchr(s->sc->path, '/');
    snprintf(v->scene_name, sizeof v->scene_name, "%.255s", base ? base + 1 : s->sc->path);
    v->field = o->field >= 0 ? o->field : (int)v->cfg.field;
    v->size_scale = 1;
    v->filled_field = -1;
    v->nbodies = s->floating ? s->floating->n : 0;
    v->show_bodies = 1;
    v->frame_every = o->frame_every > 0 ? o->frame_every
                   : v->cfg.frame_every > 0 ? v->cfg.frame_every : s->sc->out_interval;
    v->next_frame = (long)floor(s->t / v->frame_every + 1e-9);
    if (s->t > v->next_frame * v->frame_every * (1 + 1e-9) + 1e-300)
        v->next_frame++;

    int rc = SL_OK;
    if (o->frames_dir)
        rc = make_dir(o->frames_dir, err);
    if (rc == SL_OK) {
        if (o->window) {
            char title[400];
            snprintf(title, sizeof title, "sluice: %s", v->scene_name);
            rc = viz_context_window(&v->ctx, v->cfg.width, v->cfg.height, title, err);
        } else {
            rc = viz_context_offscreen(&v->ctx, err);
        }
    }
    if (rc) {
        free(v);
        return rc;
    }
    rc = viz_renderer_init(&v->r, err);
    if (rc == SL_OK)
        rc = viz_overlay_init(&v->ov, err);
    if (rc == SL_OK)
        rc = viz_renderer_reserve(&v->r, s->p.n, err);
    if (rc) {
        viz_close(v);
        return rc;
    }
    if (o->ranks) { /* the device holds this rank's particles only: draw the gathered host arrays */
        v->fill.gpu_off = 1;
        snprintf(v->fill.note, sizeof v->fill.note,
                 "the run is split among MPI ranks: drawn from the state gathered on this rank");
    }
    int ortho = v->cfg.projection == VIZ_PROJ_ORTHOGRAPHIC || (v->cfg.projection == VIZ_PROJ_AUTO && v->dim == 2);
    /* The initial view fits the particles of the start (the domain box has margins). */
    double lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        lo[a] = HUGE_VAL;
        hi[a] = -HUGE_VAL;
    }
    for (size_t i = 0; i < s->p.n; ++i)
        for (int a = 0; a < v->dim; ++a) {
            double x = s->p.f[PF_X + a][i];
            if (x >= s->domain_min[a] && x <= s->domain_max[a]) {
                lo[a] = fmin(lo[a], x);
                hi[a] = fmax(hi[a], x);
            }
        }
    for (int a = 0; a < 3; ++a)
        if (!(lo[a] <= hi[a])) {
            lo[a] = a < v->dim ? s->domain_min[a] : 0;
            hi[a] = a < v->dim ? s->domain_max[a] : 0;
        }
    for (int k = 0; k < s->sc->ngeom; ++k) { /* and every place a moving wall goes */
        const scene_geom *gm = &s->sc->geom[k];
        if (gm->kind == GEOM_FLUID || gm->motion.law == MOTION_NONE)
            continue;
        double pad = gm->kind == GEOM_TANK ? gm->layers * s->sc->dp : 0.0, mlo[3], mhi[3];
        for (int a = 0; a < 3; ++a) {
            mlo[a] = gm->min[a] - pad;
            mhi[a] = gm->max[a] + pad;
        }
        scene_motion_sweep(&gm->motion, v->dim, s->sc->end_time, mlo, mhi);
        for (int a = 0; a < v->dim; ++a) {
            lo[a] = fmin(lo[a], fmax(mlo[a], s->domain_min[a]));
            hi[a] = fmax(hi[a], fmin(mhi[a], s->domain_max[a]));
        }
    }
    viz_camera_init(&v->cam, v->dim, ortho, lo, hi, v->cfg.yaw, v->cfg.pitch);
    if (v->ctx.win && o->window)
        viz_input_attach(&v->in, v->ctx.win);
    v->rate_wall = v->last_title = now();
    v->rate_step = s->step;
    v->last_draw = -1;
    *out = v;
    return SL_OK;
}

void viz_close(viz *v)
{
    if (!v)
        return;
    if (v->ctx.kind != VIZ_CTX_NONE) {
        viz_filler_free(&v->fill);
        viz_target_free(&v->win);
        viz_target_free(&v->frame);
        viz_overlay_free(&v->ov);
        viz_renderer_free(&v->r);
        viz_context_destroy(&v->ctx);
    }
    free(v->rgb);
    free(v);
}

long viz_frames_written(const viz *v)
{
    return v->frames_written;
}

const char *viz_describe(viz *v)
{
    int n = snprintf(v->describe, sizeof v->describe, "viewer: OpenGL on %s through %s%s%s%s", v->ctx.renderer,
                     v->ctx.how, v->fill.used_gpu ? "; vertices written on the GPU (CUDA-OpenGL interop)" : "",
                     v->fill.note[0] ? "; " : "", v->fill.note);
    long images = v->frames_drawn + v->frames_written;
    if (n > 0 && (size_t)n < sizeof v->describe && images > 0)
        snprintf(v->describe + n, sizeof v->describe - (size_t)n,
                 "\nviewer: %ld window frames, %ld PNG frames; per image: vertex fill %.2f ms, drawing %.2f ms, "
                 "PNG %.2f ms",
                 v->frames_drawn, v->frames_written, v->n_fill ? 1e3 * v->t_fill / (double)v->n_fill : 0.0,
                 v->n_draw ? 1e3 * v->t_draw / (double)v->n_draw : 0.0,
                 v->frames_written ? 1e3 * v->t_png / (double)v->frames_written : 0.0);
    return v->describe;
}

/* ---- drawing --------------------------------------------------------------------------------- */

static int ensure_filled(viz *v, sim *s, sl_err *err)
{
    if (v->filled_step == s->step && v->filled_field == v->field)
        return SL_OK;
    if (v->o.ranks && !v->whole) /* only this rank's particles now: the last whole state stays */
        return SL_OK;
    double t0 = now();
    SL_TRY(viz_fill(&v->fill, &v->r, s, v->field, v->range, err));
    v->t_fill += now() - t0;
    v->n_fill++;
    v->filled_step = s->step;
    v->filled_field = v->field;
    return SL_OK;
}

/* The colour range shown: fixed from the scene for its field, else automatic (velocity from 0,
 * type 0..2). */
static void color_range(const viz *v, float *lo, float *hi)
{
    *lo = v->range[0];
    *hi = v->range[1];
    if (v->field == (int)v->cfg.field && v->cfg.range_max > v->cfg.range_min) {
        *lo = (float)v->cfg.range_min;
        *hi = (float)v->cfg.range_max;
    } else if (v->field == VIZ_FIELD_VELOCITY) {
        *lo = 0;
    } else if (v->field == VIZ_FIELD_TYPE) {
        *lo = 0;
        *hi = 2;
    }
    if (!(*hi > *lo))
        *hi = *lo + (fabsf(*lo) > 0 ? 0.01f * fabsf(*lo) : 1.0f);
}

static void fmt_value(char *buf, size_t n, float x)
{
    if (x != 0 && (fabsf(x) >= 1e5f || fabsf(x) < 1e-3f))
        snprintf(buf, n, "%.3e", (double)x);
    else
        snprintf(buf, n, "%.4g", (double)x);
}

static void draw_overlay(viz *v, const sim *s, const viz_target *t, float lo, float hi, int live)
{
    static const float panel[4] = {1, 1, 1, 0.78f}, ink[4] = {0.08f, 0.08f, 0.1f, 1}, edge[4] = {0.2f, 0.2f, 0.25f, 1};
    viz_overlay *ov = &v->ov;
    viz_overlay_begin(ov, t->h);
    float sc = (float)ov->scale, pad = 4 * sc, tw, th;
    if (v->cfg.overlay) {
        char text[512];
        int n = snprintf(text, sizeof text, "t = %.4f s   step %ld   %zu particles", s->t, s->step, s->p.n);
        if (live && n > 0 && (size_t)n < sizeof text)
            snprintf(text + n, sizeof text - (size_t)n, "\n%.0f steps/s   %.0f frames/s%s%s", v->steps_per_s,
                     v->frames_per_s, v->paused ? "   PAUSED" : "", v->finished ? "   run finished" : "");
        viz_overlay_text_size(ov, text, &tw, &th);
        viz_overlay_rect(ov, pad, pad, tw + 2 * pad, th + 2 * pad, panel);
        viz_overlay_text(ov, 2 * pad, 2 * pad, text, ink);
        if (live && !v->help) {
            const char *hint = "h: help";
            viz_overlay_text_size(ov, hint, &tw, &th);
            viz_overlay_text(ov, pad, (float)t->h - th - pad, hint, edge);
        }
    }
    if (v->cfg.colorbar) {
        char title[96], top[32], bottom[32];
        const char *u = viz_field_units(v->field);
        snprintf(title, sizeof title, "%s%s%s%s", viz_field_label(v->field), u[0] ? " (" : "", u, u[0] ? ")" : "");
        fmt_value(top, sizeof top, hi);
        fmt_value(bottom, sizeof bottom, lo);
        float w1, w2, w3, lh;
        viz_overlay_text_size(ov, title, &w1, &lh);
        viz_overlay_text_size(ov, top, &w2, &lh);
        viz_overlay_text_size(ov, bottom, &w3, &lh);
        float bw = 14 * sc, bh = 0.45f * (float)t->h;
        float pw = fmaxf(fmaxf(w1, w2), fmaxf(w3, bw)) + 2 * pad;
        float ph = 3 * lh + bh + 5 * pad;
        float px = (float)t->w - pw - pad, py = 0.5f * ((float)t->h - ph);
        viz_overlay_rect(ov, px, py, pw, ph, panel);
        float y = py + pad;
        viz_overlay_text(ov, px + pad, y, title, ink);
        y += lh + pad;
        viz_overlay_text(ov, px + 0.5f * (pw - w2), y, top, ink);
        y += lh + pad;
        float bx = px + 0.5f * (pw - bw);
        viz_overlay_rect(ov, bx - 1, y - 1, bw + 2, bh + 2, edge);
        viz_overlay_gradient(ov, bx, y, bw, bh);
        y += bh + pad;
        viz_overlay_text(ov, px + 0.5f * (pw - w3), y, bottom, ink);
    }
    if (v->cfg.colorbar && v->show_bodies && v->nbodies > 0) {
        /* the bodies' key: a swatch and the index (/bodies' row, bodies.csv's body) each,
         * the first VIZ_BODY_COLORS (the colours repeat after that); top right, above the colour bar */
        int shown = v->nbodies < VIZ_BODY_COLORS ? v->nbodies : VIZ_BODY_COLORS;
        char label[48];
        snprintf(label, sizeof label, v->nbodies > shown ? "bodies (b %% %d)" : "bodies", VIZ_BODY_COLORS);
        float lw, lh;
        viz_overlay_text_size(ov, label, &lw, &lh);
        float cell = lh + pad, pw = fmaxf(lw, 4 * cell) + 2 * pad, ph = lh + 2 * pad + shown * cell;
        float px = (float)t->w - pw - pad, py = pad;
        viz_overlay_rect(ov, px, py, pw, ph, panel);
        viz_overlay_text(ov, px + pad, py + pad, label, ink);
        for (int b = 0; b < shown; ++b) {
            float rgba[4] = {0, 0, 0, 1}, y = py + pad + lh + pad + b * cell;
            viz_body_color(b, rgba);
            viz_overlay_rect(ov, px + pad, y, lh, lh, rgba);
            char idx[16];
            snprintf(idx, sizeof idx, "%d", b);
            viz_overlay_text(ov, px + 2 * pad + lh, y, idx, ink);
        }
    }
    if (live && v->help) {
        viz_overlay_text_size(ov, help_text, &tw, &th);
        float x = 0.5f * ((float)t->w - tw), y = 0.5f * ((float)t->h - th);
        viz_overlay_rect(ov, x - 2 * pad, y - 2 * pad, tw + 4 * pad, th + 4 * pad, panel);
        viz_overlay_text(ov, x, y, help_text, ink);
    }
    viz_overlay_draw(ov, t, v->cfg.colormap);
}

static int draw(viz *v, sim *s, viz_target *t, int live, sl_err *err)
{
    SL_TRY(ensure_filled(v, s, err));
    double t0 = now();
    viz_style st;
    memset(&st, 0, sizeof st);
    viz_camera_matrices(&v->cam, (double)t->w / (double)t->h, st.view, st.proj);
    st.radius = (float)(0.5 * v->dp * v->cfg.particle_size * v->size_scale);
    color_range(v, &st.vmin, &st.vmax);
    st.colormap = v->cfg.colormap;
    st.walls = v->cfg.walls;
    st.color_walls = v->field == VIZ_FIELD_TYPE;
    st.show_bodies = v->show_bodies;
    memcpy(st.background, BACKGROUND, sizeof st.background);
    viz_renderer_draw(&v->r, t, &st);
    draw_overlay(v, s, t, st.vmin, st.vmax, live);
    v->t_draw += now() - t0; /* the GL work itself is finished by the read-back or the swap */
    v->n_draw++;
    return viz_gl_check("drawing", err);
}

static int save_png(viz *v, const viz_target *t, const char *path, sl_err *err)
{
    size_t need = (size_t)t->w * (size_t)t->h * 3;
    if (need > v->rgb_cap) {
        unsigned char *p = realloc(v->rgb, need);
        if (!p)
            return sl_fail(err, SL_ERR_RUNTIME, "viewer: out of memory for a %d x %d image", t->w, t->h);
        v->rgb = p;
        v->rgb_cap = need;
    }
    double t0 = now();
    viz_target_read_rgb(t, v->rgb);
    v->t_draw += now() - t0;
    t0 = now();
    int rc = viz_png_write(path, v->rgb, t->w, t->h, err);
    v->t_png += now() - t0;
    return rc;
}

static int frame_due(const viz *v, const sim *s)
{
    return v->o.frames_dir && s->t >= v->next_frame * v->frame_every * (1 - 1e-9);
}

/* --frames: an image at every frame time reached (the first state at or after it). */
static int write_frames(viz *v, sim *s, sl_err *err)
{
    if (!frame_due(v, s))
        return SL_OK;
    SL_TRY(viz_target_resize(&v->frame, v->cfg.width, v->cfg.height, err));
    SL_TRY(draw(v, s, &v->frame, 0, err));
    char path[4200];
    snprintf(path, sizeof path, "%s/frame_%06ld.png", v->o.frames_dir, v->next_frame);
    SL_TRY(save_png(v, &v->frame, path, err));
    v->frames_written++;
    v->next_frame = (long)floor(s->t / v->frame_every + 1e-9) + 1;
    return SL_OK;
}

static void update_rates(viz *v, const sim *s, double t)
{
    double dt = t - v->rate_wall;
    if (dt < 0.5)
        return;
    v->steps_per_s = (double)(s->step - v->rate_step) / dt;
    v->frames_per_s = (double)(v->frames_drawn - v->rate_frames) / dt;
    v->rate_wall = t;
    v->rate_step = s->step;
    v->rate_frames = v->frames_drawn;
    char title[512];
    snprintf(title, sizeof title, "sluice: %s   t = %.4f s   step %ld   %zu particles   %.0f steps/s   %.0f fps%s",
             v->scene_name, s->t, s->step, s->p.n, v->steps_per_s, v->frames_per_s, v->paused ? "   (paused)" : "");
    glfwSetWindowTitle(v->ctx.win, title);
}

static int draw_window(viz *v, sim *s, sl_err *err)
{
    int w, h;
    glfwGetFramebufferSize(v->ctx.win, &w, &h);
    if (w <= 0 || h <= 0) /* minimised */
        return SL_OK;
    SL_TRY(viz_target_resize(&v->win, w, h, err));
    SL_TRY(draw(v, s, &v->win, 1, err));
    glBindFramebuffer(GL_READ_FRAMEBUFFER, v->win.fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    double t0 = now();
    glfwSwapBuffers(v->ctx.win);
    v->t_draw += now() - t0;
    v->frames_drawn++;
    double t = now();
    v->last_draw = t;
    update_rates(v, s, t);
    if (v->o.max_frames > 0 && v->frames_drawn >= v->o.max_frames)
        v->quit = 1;
    return SL_OK;
}

/* Applies the input gathered since the last call; *changed: whether the view changed. */
static int handle_input(viz *v, sim *s, int *changed, sl_err *err)
{
    viz_input *in = &v->in;
    *changed = in->any;
    int w = v->win.w > 0 ? v->win.w : v->cfg.width, h = v->win.h > 0 ? v->win.h : v->cfg.height;
    if (in->count[VIZ_ACT_QUIT])
        v->quit = 1;
    if (in->count[VIZ_ACT_PAUSE] % 2)
        v->paused = !v->paused;
    if (in->count[VIZ_ACT_STEP]) {
        v->paused = 1;
        v->step_once = 1;
    }
    v->field = (v->field + in->count[VIZ_ACT_FIELD]) % VIZ_NFIELDS;
    if (in->count[VIZ_ACT_RESET]) {
        viz_camera_reset(&v->cam);
        v->size_scale = 1;
    }
    v->size_scale *= powf(1.15f, (float)(in->count[VIZ_ACT_BIGGER] - in->count[VIZ_ACT_SMALLER]));
    if (in->count[VIZ_ACT_HELP] % 2)
        v->help = !v->help;
    if (in->count[VIZ_ACT_BODIES] % 2)
        v->show_bodies = !v->show_bodies;
    if (v->dim == 2) {
        in->pan[0] += in->orbit[0];
        in->pan[1] += in->orbit[1];
    } else {
        viz_camera_orbit(&v->cam, in->orbit[0], in->orbit[1]);
    }
    viz_camera_pan(&v->cam, in->pan[0], in->pan[1], w, h);
    if (in->zoom != 1)
        viz_camera_zoom(&v->cam, in->zoom);
    int shots = in->count[VIZ_ACT_SHOT];
    viz_input_clear(in);
    if (shots) {
        SL_TRY(draw_window(v, s, err));
        char path[4200];
        const char *dir = v->o.shot_dir ? v->o.shot_dir : ".";
        SL_TRY(make_dir(dir, err));
        snprintf(path, sizeof path, "%s/screenshot_%04ld_step%ld.png", dir, v->shots++, s->step);
        SL_TRY(save_png(v, &v->win, path, err));
        fprintf(stderr, "viewer: screenshot %s\n", path);
    }
    return SL_OK;
}

static int after_step(void *ctx, sim *s, sl_err *err)
{
    viz *v = ctx;
    SL_TRY(write_frames(v, s, err));
    if (!v->o.window)
        return SL_OK;
    v->step_once = 0;
    glfwPollEvents();
    int changed;
    SL_TRY(handle_input(v, s, &changed, err));
    if (v->paused || v->last_draw < 0 || now() - v->last_draw >= FRAME_INTERVAL)
        SL_TRY(draw_window(v, s, err));
    while (v->paused && !v->quit && !v->step_once && !engine_signal_pending()) {
        glfwWaitEventsTimeout(0.25);
        SL_TRY(handle_input(v, s, &changed, err));
        if (changed || v->step_once)
            SL_TRY(draw_window(v, s, err));
        else
            update_rates(v, s, now());
    }
    return v->quit ? SL_INTERRUPTED : SL_OK;
}

int viz_wants_state(const viz *v, const sim *s)
{
    return frame_due(v, s) ||
           (v->o.window && (v->paused || v->last_draw < 0 || now() - v->last_draw >= FRAME_INTERVAL));
}

void viz_state_whole(viz *v, int whole)
{
    v->whole = whole;
}

engine_observer viz_observer(viz *v)
{
    engine_observer o = {v, after_step, NULL};
    return o;
}

int viz_hold(viz *v, sim *s, sl_err *err)
{
    if (!v->o.window || v->quit || v->o.max_frames > 0)
        return SL_OK;
    v->finished = 1;
    v->paused = 0;
    if (!v->o.quiet)
        fprintf(stderr, "viewer: the run is over; q or Esc closes the window\n");
    SL_TRY(draw_window(v, s, err));
    while (!v->quit) {
        glfwWaitEventsTimeout(0.5);
        v->paused = 0;
        int changed;
        SL_TRY(handle_input(v, s, &changed, err));
        if (changed)
            SL_TRY(draw_window(v, s, err));
    }
    return SL_OK;
}
