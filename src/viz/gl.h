/* gl.h: the OpenGL entry points (libepoxy: OpenGL 3.3 core, no fixed-function GL) and shader helpers. */
#ifndef SLUICE_VIZ_GL_H
#define SLUICE_VIZ_GL_H

#include "base/status.h"

#include <epoxy/gl.h>

/* Compiles and links a program from GLSL 3.30 core sources; `what` names it in messages. Returns 0
 * (with err set) on failure. */
GLuint viz_gl_program(const char *what, const char *vs, const char *fs, sl_err *err);

/* SL_ERR_RUNTIME with the pending glGetError() named, or SL_OK. */
int viz_gl_check(const char *where, sl_err *err);

#endif
