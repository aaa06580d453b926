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
    int ranks;               /* the run is split among MPI ranks (viz_ranks.c): the vertices are
                              * filled from the host arrays, and only while they hold every particle
                              * (viz_state_whole) */
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

/* Whether the next observer call may fill the vertices (an image is due: a --frames time reached,
 * or the window's redraw): what an MPI run gathers the state for (viz_ranks.c). */
int viz_wants_state(const viz *v, const sim *s);

/* With viz_options.ranks: whether s's host arrays hold every particle now (1 between the gather
 * and the observer call's end). Otherwise the vertices keep the last whole state's. */
void viz_state_whole(viz *v, int whole);

/* On an MPI run: the observer for every rank, v on the root and NULL elsewhere. Each step every rank
 * learns whether the root wants the state (viz_wants_state), gathers it on the root if so, and
 * learns whether the root's viewer ended the run (q, Esc, --max-frames), so all stop at one step.
 * ctx must outlive the run. */
typedef struct viz_ranks {
    viz *v;
} viz_ranks;
engine_observer viz_ranks_observer(viz_ranks *r);

/* Frames written to --frames DIR. */
long viz_frames_written(const viz *v);

/* One line about the context ("OpenGL on llvmpipe through EGL ...") and, if any, why the
 * CUDA-OpenGL path is not in use. */
const char *viz_describe(viz *v);

void viz_close(viz *v);

#endif
