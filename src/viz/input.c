/* input.c: GLFW callbacks: characters for the command keys (layout independent), Esc, mouse drags
 * (left: orbit, or pan in 2D; right, middle or shift-left: pan) and the wheel (zoom). */
#include "input.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <math.h>
#include <string.h>

static viz_input *of(GLFWwindow *w)
{
    return glfwGetWindowUserPointer(w);
}

static void on_char(GLFWwindow *w, unsigned int c)
{
    viz_input *in = of(w);
    int a = -1;
    switch (c) {
    case ' ': a = VIZ_ACT_PAUSE; break;
    case 'n': case 'N': a = VIZ_ACT_STEP; break;
    case 'c': case 'C': a = VIZ_ACT_FIELD; break;
    case 'r': case 'R': a = VIZ_ACT_RESET; break;
    case '+': case '=': a = VIZ_ACT_BIGGER; break;
    case '-': case '_': a = VIZ_ACT_SMALLER; break;
    case 's': case 'S': a = VIZ_ACT_SHOT; break;
    case 'h': case 'H': case '?': a = VIZ_ACT_HELP; break;
    case 'b': case 'B': a = VIZ_ACT_BODIES; break;
    case 'q': case 'Q': a = VIZ_ACT_QUIT; break;
    default: break;
    }
    if (a >= 0) {
        in->count[a]++;
        in->any = 1;
    }
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode;
    viz_input *in = of(w);
    in->shift = (mods & GLFW_MOD_SHIFT) != 0;
    if (action != GLFW_PRESS && action != GLFW_REPEAT)
        return;
    if (key == GLFW_KEY_ESCAPE)
        in->count[VIZ_ACT_QUIT]++;
    else if (key == GLFW_KEY_KP_ADD)
        in->count[VIZ_ACT_BIGGER]++;
    else if (key == GLFW_KEY_KP_SUBTRACT)
        in->count[VIZ_ACT_SMALLER]++;
    else
        return;
    in->any = 1;
}

static void on_button(GLFWwindow *w, int button, int action, int mods)
{
    viz_input *in = of(w);
    in->shift = (mods & GLFW_MOD_SHIFT) != 0;
    int b = button == GLFW_MOUSE_BUTTON_LEFT ? 0 : button == GLFW_MOUSE_BUTTON_RIGHT ? 1
          : button == GLFW_MOUSE_BUTTON_MIDDLE ? 2 : -1;
    if (b < 0)
        return;
    in->button[b] = action == GLFW_PRESS;
    glfwGetCursorPos(w, &in->last[0], &in->last[1]);
}

static void on_cursor(GLFWwindow *w, double x, double y)
{
    viz_input *in = of(w);
    double dx = x - in->last[0], dy = y - in->last[1];
    in->last[0] = x;
    in->last[1] = y;
    if (in->button[1] || in->button[2] || (in->button[0] && in->shift)) {
        in->pan[0] += dx;
        in->pan[1] += dy;
        in->any = 1;
    } else if (in->button[0]) {
        in->orbit[0] += dx;
        in->orbit[1] += dy;
        in->any = 1;
    }
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    (void)dx;
    viz_input *in = of(w);
    in->zoom *= pow(1.1, dy);
    in->any = 1;
}

static void on_close(GLFWwindow *w)
{
    of(w)->count[VIZ_ACT_QUIT]++;
    of(w)->any = 1;
}

void viz_input_clear(viz_input *in)
{
    memset(in->count, 0, sizeof in->count);
    in->orbit[0] = in->orbit[1] = in->pan[0] = in->pan[1] = 0;
    in->zoom = 1;
    in->any = 0;
}

void viz_input_attach(viz_input *in, GLFWwindow *w)
{
    memset(in, 0, sizeof *in);
    viz_input_clear(in);
    glfwSetWindowUserPointer(w, in);
    glfwSetCharCallback(w, on_char);
    glfwSetKeyCallback(w, on_key);
    glfwSetMouseButtonCallback(w, on_button);
    glfwSetCursorPosCallback(w, on_cursor);
    glfwSetScrollCallback(w, on_scroll);
    glfwSetWindowCloseCallback(w, on_close);
}
