/* context.c: OpenGL context creation: GLFW windows and EGL (pbuffer or surfaceless) offscreen contexts. */
#define _POSIX_C_SOURCE 200809L
#include "context.h"

#include "gl.h"

#include <epoxy/egl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *glfw_error(void)
{
    const char *d = NULL;
    glfwGetError(&d);
    return d ? d : "no reason given";
}

/* GL 3.3 or later with the core profile, or an error naming what was found. */
static int check_version(viz_context *c, sl_err *err)
{
    int v = epoxy_gl_version();
    const char *r = (const char *)glGetString(GL_RENDERER);
    snprintf(c->renderer, sizeof c->renderer, "%s", r ? r : "unknown renderer");
    if (v < 33)
        return sl_fail(err, SL_ERR_RUNTIME, "viewer: %s gives OpenGL %d.%d on %s (accepted: OpenGL 3.3 or later)",
                       c->how, v / 10, v % 10, c->renderer);
    return SL_OK;
}

static void window_hints(int visible)
{
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_DEPTH_BITS, 24);
}

int viz_context_window(viz_context *c, int w, int h, const char *title, sl_err *err)
{
    memset(c, 0, sizeof *c);
    const char *disp = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    if ((!disp || !*disp) && (!wl || !*wl))
        return sl_fail(err, SL_ERR_RUNTIME,
                       "viewer: no display (DISPLAY is not set): use --frames DIR for offscreen rendering, or "
                       "run under xvfb-run");
    if (!glfwInit())
        return sl_fail(err, SL_ERR_RUNTIME,
                       "viewer: cannot open the display '%s' (%s): use --frames DIR for offscreen rendering",
                       disp ? disp : "", glfw_error());
    window_hints(1);
    c->win = glfwCreateWindow(w, h, title, NULL, NULL);
    if (!c->win) {
        sl_fail(err, SL_ERR_RUNTIME,
                "viewer: no OpenGL 3.3 core window on display '%s' (%s): use --frames DIR for offscreen rendering",
                disp ? disp : "", glfw_error());
        glfwTerminate();
        return SL_ERR_RUNTIME;
    }
    glfwMakeContextCurrent(c->win);
    glfwSwapInterval(0); /* the viewer paces itself: a blocking swap would stall the simulation */
    c->kind = VIZ_CTX_WINDOW;
    snprintf(c->how, sizeof c->how, "a GLFW window");
    int rc = check_version(c, err);
    if (rc)
        viz_context_destroy(c);
    return rc;
}

/* ---- EGL ------------------------------------------------------------------------------------- */

static const char *egl_error_name(EGLint e)
{
    switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    default: return "an EGL error";
    }
}

static int has_client_ext(const char *name)
{
    const char *ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!ext)
        return 0;
    size_t n = strlen(name);
    for (const char *p = strstr(ext, name); p; p = strstr(p + 1, name))
        if ((p == ext || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Initialises dpy and makes a 3.3 core context current on it (a pbuffer, or no surface at all).
 * Appends why not to why. */
static int egl_try(viz_context *c, EGLDisplay dpy, const char *name, char *why, size_t nwhy)
{
    size_t used = strlen(why);
#define WHY(...) snprintf(why + used, nwhy - used, __VA_ARGS__)
    if (dpy == EGL_NO_DISPLAY) {
        WHY("%s%s: no display", used ? "; " : "", name);
        return 0;
    }
    EGLint major, minor;
    if (!eglInitialize(dpy, &major, &minor)) {
        WHY("%s%s: eglInitialize: %s", used ? "; " : "", name, egl_error_name(eglGetError()));
        return 0;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        WHY("%s%s: no desktop OpenGL (eglBindAPI: %s)", used ? "; " : "", name, egl_error_name(eglGetError()));
        eglTerminate(dpy);
        return 0;
    }
    const EGLint pbuf_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_DEPTH_SIZE, 24,
                                EGL_NONE};
    const EGLint any_attr[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig cfg;
    EGLint ncfg = 0;
    int pbuffer = eglChooseConfig(dpy, pbuf_attr, &cfg, 1, &ncfg) && ncfg > 0;
    if (!pbuffer && !(eglChooseConfig(dpy, any_attr, &cfg, 1, &ncfg) && ncfg > 0)) {
        WHY("%s%s: no OpenGL config", used ? "; " : "", name);
        eglTerminate(dpy);
        return 0;
    }
    const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                               EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
    if (ctx == EGL_NO_CONTEXT) {
        WHY("%s%s: no OpenGL 3.3 core context (%s)", used ? "; " : "", name, egl_error_name(eglGetError()));
        eglTerminate(dpy);
        return 0;
    }
    EGLSurface surf = EGL_NO_SURFACE;
    if (pbuffer) {
        const EGLint surf_attr[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
        surf = eglCreatePbufferSurface(dpy, cfg, surf_attr);
    }
    if (!eglMakeCurrent(dpy, surf, surf, ctx)) {
        WHY("%s%s: eglMakeCurrent: %s", used ? "; " : "", name, egl_error_name(eglGetError()));
        if (surf != EGL_NO_SURFACE)
            eglDestroySurface(dpy, surf);
        eglDestroyContext(dpy, ctx);
        eglTerminate(dpy);
        return 0;
    }
#undef WHY
    c->kind = VIZ_CTX_EGL;
    c->egl_display = dpy;
    c->egl_context = ctx;
    c->egl_surface = surf;
    snprintf(c->how, sizeof c->how, "EGL %d.%d (%s, %s)", (int)major, (int)minor, name,
             surf != EGL_NO_SURFACE ? "pbuffer" : "no surface");
    return 1;
}

static int egl_open(viz_context *c, const char *only, char *why, size_t nwhy)
{
    if (!only || strcmp(only, "default") == 0)
        if (egl_try(c, eglGetDisplay(EGL_DEFAULT_DISPLAY), "default display", why, nwhy))
            return 1;
    if (!only || strcmp(only, "surfaceless") == 0) {
        if (has_client_ext("EGL_MESA_platform_surfaceless")) {
            EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
            if (egl_try(c, d, "surfaceless platform", why, nwhy))
                return 1;
        }
    }
    if (!only || strcmp(only, "device") == 0) {
        if (has_client_ext("EGL_EXT_platform_device") && has_client_ext("EGL_EXT_device_enumeration")) {
            EGLDeviceEXT dev[8];
            EGLint ndev = 0;
            if (eglQueryDevicesEXT(8, dev, &ndev))
                for (EGLint k = 0; k < ndev; ++k) {
                    EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, dev[k], NULL);
                    if (egl_try(c, d, "device platform", why, nwhy))
                        return 1;
                }
        }
    }
    return 0;
}

int viz_context_offscreen(viz_context *c, sl_err *err)
{
    memset(c, 0, sizeof *c);
    char why[640] = "";
    const char *only = getenv("SLUICE_EGL_PLATFORM");
    if (only && !*only)
        only = NULL;
    if (only && strcmp(only, "default") && strcmp(only, "surfaceless") && strcmp(only, "device"))
        return sl_fail(err, SL_ERR_INPUT,
                       "viewer: SLUICE_EGL_PLATFORM='%s' (accepted: default, surfaceless, device, or unset)", only);
    if (egl_open(c, only, why, sizeof why)) {
        int rc = check_version(c, err);
        if (rc)
            viz_context_destroy(c);
        return rc;
    }
    const char *disp = getenv("DISPLAY");
    if (disp && *disp && glfwInit()) {
        window_hints(0);
        c->win = glfwCreateWindow(64, 64, "sluice", NULL, NULL);
        if (c->win) {
            glfwMakeContextCurrent(c->win);
            c->kind = VIZ_CTX_HIDDEN;
            snprintf(c->how, sizeof c->how, "a hidden GLFW window");
            int rc = check_version(c, err);
            if (rc)
                viz_context_destroy(c);
            return rc;
        }
        glfwTerminate();
    }
    return sl_fail(err, SL_ERR_RUNTIME,
                   "viewer: no offscreen OpenGL 3.3 core context: %s%s (needs an EGL driver: Mesa's "
                   "libegl-mesa0 + libgl1-mesa-dri, or the GPU's)",
                   why[0] ? why : "no EGL display", disp && *disp ? "; no GLFW window either" : "");
}

void viz_context_destroy(viz_context *c)
{
    if (c->kind == VIZ_CTX_EGL) {
        EGLDisplay dpy = c->egl_display;
        eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (c->egl_surface)
            eglDestroySurface(dpy, c->egl_surface);
        eglDestroyContext(dpy, c->egl_context);
        eglTerminate(dpy);
    } else if (c->win) {
        glfwDestroyWindow(c->win);
        glfwTerminate();
    }
    memset(c, 0, sizeof *c);
}
