/* context.h: an OpenGL 3.3 core context: a GLFW window, or offscreen (EGL, else a hidden GLFW window). */
#ifndef SLUICE_VIZ_CONTEXT_H
#define SLUICE_VIZ_CONTEXT_H

#include "base/status.h"

struct GLFWwindow;

enum viz_context_kind { VIZ_CTX_NONE, VIZ_CTX_WINDOW, VIZ_CTX_EGL, VIZ_CTX_HIDDEN };

typedef struct viz_context {
    enum viz_context_kind kind;
    struct GLFWwindow *win;       /* VIZ_CTX_WINDOW, VIZ_CTX_HIDDEN */
    void *egl_display, *egl_context, *egl_surface;
    char how[160];                /* how the context was made ("EGL surfaceless", "GLFW window") */
    char renderer[160];           /* GL_RENDERER */
} viz_context;

/* Opens a window of w x h pixels with a current OpenGL 3.3 core context. Without a display the
 * message says so and points to --frames. */
int viz_context_window(viz_context *c, int w, int h, const char *title, sl_err *err);

/* A current OpenGL 3.3 core context with no window, for rendering into framebuffer objects: EGL on
 * the default display, then Mesa's surfaceless platform, then the EGL device platform; a hidden
 * GLFW window when a display exists and EGL gives nothing. SLUICE_EGL_PLATFORM=default|surfaceless|
 * device tries only that EGL platform. */
int viz_context_offscreen(viz_context *c, sl_err *err);

void viz_context_destroy(viz_context *c);

#endif
