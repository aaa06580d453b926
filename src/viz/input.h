/* input.h: keyboard and mouse of the viewer window, collected between frames. */
#ifndef SLUICE_VIZ_INPUT_H
#define SLUICE_VIZ_INPUT_H

struct GLFWwindow;

enum viz_action {
    VIZ_ACT_PAUSE,    /* space */
    VIZ_ACT_STEP,     /* n */
    VIZ_ACT_FIELD,    /* c */
    VIZ_ACT_RESET,    /* r */
    VIZ_ACT_BIGGER,   /* + */
    VIZ_ACT_SMALLER,  /* - */
    VIZ_ACT_SHOT,     /* s */
    VIZ_ACT_HELP,     /* h */
    VIZ_ACT_BODIES,   /* b */
    VIZ_ACT_QUIT,     /* q, Esc, closing the window */
    VIZ_NACTIONS
};

typedef struct viz_input {
    int count[VIZ_NACTIONS];       /* presses since the last viz_input_clear */
    double orbit[2], pan[2];       /* mouse movement, pixels */
    double zoom;                   /* factor (1: none) */
    int button[3];                 /* left, right, middle held */
    int shift;
    double last[2];                /* cursor position */
    int any;                       /* something happened (redraw while paused) */
} viz_input;

/* Installs the callbacks; `in` must outlive the window. */
void viz_input_attach(viz_input *in, struct GLFWwindow *w);
void viz_input_clear(viz_input *in);

#endif
