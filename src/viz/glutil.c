/* glutil.c: shader compilation and GL error reporting for the viewer. */
#include "gl.h"

static GLuint compile(const char *what, GLenum type, const char *src, sl_err *err)
{
    GLuint sh = glCreateShader(type);
    glShaderSource(sh, 1, &src, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[768];
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        glDeleteShader(sh);
        sl_fail(err, SL_ERR_RUNTIME, "viewer: the %s %s shader does not compile: %s", what,
                type == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
        return 0;
    }
    return sh;
}

GLuint viz_gl_program(const char *what, const char *vs, const char *fs, sl_err *err)
{
    GLuint v = compile(what, GL_VERTEX_SHADER, vs, err);
    if (!v)
        return 0;
    GLuint f = compile(what, GL_FRAGMENT_SHADER, fs, err);
    if (!f) {
        glDeleteShader(v);
        return 0;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, v);
    glAttachShader(p, f);
    glLinkProgram(p);
    glDeleteShader(v);
    glDeleteShader(f);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[768];
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        glDeleteProgram(p);
        sl_fail(err, SL_ERR_RUNTIME, "viewer: the %s shader program does not link: %s", what, log);
        return 0;
    }
    return p;
}

static const char *gl_error_name(GLenum e)
{
    switch (e) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "an unknown GL error";
    }
}

int viz_gl_check(const char *where, sl_err *err)
{
    GLenum e = glGetError();
    if (e == GL_NO_ERROR)
        return SL_OK;
    while (glGetError() != GL_NO_ERROR)
        ;
    return sl_fail(err, SL_ERR_RUNTIME, "viewer: %s failed: %s", where, gl_error_name(e));
}
