/* viz.h: the live viewer and offscreen frames, as an engine observer (what the command line sees). */
#ifndef SLUICE_VIZ_H
#define SLUICE_VIZ_H

#include "run/engine.h"
#include "core/sim.h"
#include "base/status.h"

typedef struct viz_options {
    int window;              /* --view: a window that draws while the run goes on */
    const char *frames_dir;  /* --frames DIR: PNG frames rendered offscreen, or NULL */
    double frame_every;      /* --frame-every DT, s; < 0: viewer.frame_every (0 there: output.interval) */
    long max_frames;         /* --max-frames N: the window ends the run after N frames (scripted runs); 0: never */
    int field;               /* --field; < 0: viewer.field */
    int width, height;       /* --size WxH; 0: viewer.width, viewer.height */
    const char *shot_dir;    /* where `s` saves screenshots (the run's output directory) */
    int quiet;
} viz_options;

typedef struct viz viz;

/* Opens the window or the offscreen context and prepares the renderer for s. Fails with a
 * message that says what to do instead (no display: --frames). */
int viz_open(viz **out, const sim *s, const viz_options *o, sl_err *err);

/* The observer to add to run_options: draws, writes frames, handles the keys; q/Esc end the run
 * cleanly (final snapshot and checkpoint). */
engine_observer viz_observer(viz *v);

/* After the run: keeps the window open on the last state until it is closed (q, Esc), unless the
 * user quit already or --max-frames was given. */
int viz_hold(viz *v, sim *s, sl_err *err);

/* Frames written to --frames DIR. */
long viz_frames_written(const viz *v);

/* One line about the context ("OpenGL on llvmpipe through EGL ...") and, if any, why the
 * CUDA-OpenGL path is not in use. */
const char *viz_describe(viz *v);

void viz_close(viz *v);

#endif
