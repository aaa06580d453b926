/* engine.h: the time loop: steps, output times, progress, signals. Knows no scheme in particular. */
#ifndef SLUICE_ENGINE_H
#define SLUICE_ENGINE_H

#include "core/sim.h"
#include "base/status.h"

/* Something that watches the run (probes, the viewer). after_step runs after the initial state
 * and after every step; it returns SL_OK to go on, SL_INTERRUPTED to end the run cleanly (final
 * snapshot and checkpoint, status SL_OK), or an error that stops the run. Read particles only
 * after sim_sync_host(s). */
typedef struct engine_observer {
    void *ctx;
    int (*after_step)(void *ctx, sim *s, sl_err *err);
    /* NULL, or: finishes what after_step left running (the probes' row on its thread) and returns its
     * status; called before every checkpoint, so that what the checkpoint continues is on disk */
    int (*settle)(void *ctx, sl_err *err);
} engine_observer;

enum { ENGINE_MAX_OBSERVERS = 8 };

typedef struct run_options {
    const char *out_dir; /* NULL: the scene's output.directory */
    double until;        /* end time; < 0: the scene's simulation.end_time */
    long max_steps;      /* < 0: no limit */
    int quiet;           /* no progress output, no informational lines on stderr */
    const char *restart; /* a checkpoint to continue from, or NULL */
    engine_observer observers[ENGINE_MAX_OBSERVERS];
    int nobservers;
} run_options;

typedef struct run_summary {
    long steps;
    double sim_time;        /* s */
    double wall_seconds;
    double output_seconds;  /* of wall_seconds, spent writing snapshots and checkpoints (gathered from
                             * every MPI rank on the root: a share that grows with the ranks) */
    double particle_steps_per_second;
    double particles;       /* on every rank together, at the end */
    /* the steps after the first (whose first passes run the autotuner's trials and first-touch
     * allocations) and their wall time less the output among them: the stepping's steady rate */
    long steady_steps;
    double steady_seconds;
    int snapshots;
    int signal;             /* SIGINT/SIGTERM that stopped the run, else 0 */
    int quit;               /* an observer ended the run */
    int failed_everywhere;  /* the error (an instability: the time step is every rank's) stopped every
                             * MPI rank at the same point, so none waits for another */
    char out_dir[4096];
    char xdmf[4200];
    char checkpoint[4200];
} run_summary;

/* Runs s until the end time (or max_steps), writing a snapshot at t = 0, every output interval,
 * and at the end, and the checkpoint DIR/checkpoint.bin every output.checkpoint_every snapshots
 * and at the end. SIGINT/SIGTERM stop the run after the current step, with a final snapshot and
 * checkpoint, and return SL_INTERRUPTED. With o->restart the run continues from that checkpoint
 * (same scene), bit for bit as if it had not stopped. */
int engine_run(sim *s, const run_options *o, run_summary *sum, sl_err *err);

/* Whether SIGINT/SIGTERM arrived during engine_run: an observer that waits (the paused viewer)
 * returns when it does, so the run can end cleanly. */
int engine_signal_pending(void);

#endif
