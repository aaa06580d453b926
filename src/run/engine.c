/* engine.c: the time loop shared by every scheme and backend. */
#define _POSIX_C_SOURCE 200809L
#include "engine.h"

#include "io/checkpoint.h"
#include "io/snapshot.h"
#include "io/p2m_grid.h"
#include "io/schedule.h"
#include "parallel/domain.h"
#include "progress.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t stop_signal = 0;

static void on_signal(int sig)
{
    stop_signal = sig;
}

int engine_signal_pending(void)
{
    return stop_signal != 0;
}

/* Derived numbers stored with every snapshot. */
static int snapshot_write_whole(io_series *series, sim *s, sl_err *err)
{
    static const char *const names[] = {"derived.smoothing_length", "derived.interaction_radius",
                                        "derived.sound_speed", "derived.particle_mass",
                                        "derived.particle_spacing"};
    const double values[] = {s->P.h, s->P.r_max, s->P.c0, s->P.mass, s->P.dp};
    snapshot_info info = {s->t, s->step, s->sc->dim, s->sc->out_fields, s->sc, 5, names, values, NULL, NULL, 0, NULL};
    if (series->grid) /* gridded fields (scene group `grid`) go into the same file */
        SL_TRY(p2m_grid_update(series->grid, s, err));
    snapshot_body *bodies; /* each particle's body, the floating bodies' state */
    SL_TRY(io_snapshot_bodies(s, &info, &bodies, err));
    int rc = io_series_write(series, &s->p, &info, err);
    free(bodies);
    return rc;
}

/* The fields a snapshot reads (snapshot.c's writers, the gridded fields, the bodies' index): what
 * the ranks send the root for it. */
static uint32_t snapshot_fields(const sim *s, const io_series *series)
{
    unsigned out = s->sc->out_fields;
    uint32_t m = 1u << PF_X | 1u << PF_Y | 1u << PF_Z;
    if ((out & OUT_VELOCITY) || series->grid)
        m |= 1u << PF_VX | 1u << PF_VY | 1u << PF_VZ;
    if ((out & OUT_PRESSURE) || series->grid)
        m |= 1u << PF_P;
    if (out & OUT_DENSITY)
        m |= 1u << PF_RHO;
    if (s->motion && s->args.motion.body >= 0)
        m |= 1u << s->args.motion.body;
    return m;
}

/* A snapshot of the state. On several MPI ranks the root writes the whole state
 * (domain_gather); the other ranks list the snapshot too, so every rank times checkpoints alike. */
static int snapshot_write(io_series *series, sim *s, double *spent, sl_err *err)
{
    const double t0 = progress_now();
    if (s->sch->prepare_output)
        s->sch->prepare_output(s);
    int rc = domain_gather(s, snapshot_fields(s, series), err); /* (the host's arrays made current) */
    if (rc == SL_OK && !domain_is_root(s)) {
        rc = io_series_note(series, s->p.n, s->t, err);
    } else if (rc == SL_OK) {
        rc = snapshot_write_whole(series, s, err);
        domain_ungather(s);
    }
    *spent += progress_now() - t0;
    return rc;
}

static int checkpoint_write(const char *path, sim *s, const io_series *series, long next_index, double *spent,
                            sl_err *err)
{
    const double t0 = progress_now();
    /* from the root's whole state, so that a restart works on any number of ranks */
    SL_TRY(domain_gather(s, DOMAIN_GATHER_ALL, err));
    int rc = domain_is_root(s) ? io_checkpoint_write(path, s, series, next_index, err) : SL_OK;
    domain_ungather(s);
    *spent += progress_now() - t0;
    return rc;
}

/* What the observers left running, finished (engine_observer.settle). */
static int settle_observers(const run_options *o, sl_err *err)
{
    for (int k = 0; k < o->nobservers; ++k)
        if (o->observers[k].settle)
            SL_TRY(o->observers[k].settle(o->observers[k].ctx, err));
    return SL_OK;
}

/* Observers run after the initial state and after every step; SL_INTERRUPTED from one ends the
 * run cleanly (final snapshot and checkpoint), like a signal. */
static int notify_observers(const run_options *o, sim *s, int *quit, sl_err *err)
{
    for (int k = 0; k < o->nobservers; ++k) {
        int rc = o->observers[k].after_step(o->observers[k].ctx, s, err);
        if (rc == SL_INTERRUPTED)
            *quit = 1;
        else if (rc)
            return rc;
    }
    return SL_OK;
}

/* Shortens dt so that output times are hit exactly, without leaving a sliver of a step. */
static double fit_to_output(double t, double dt, double t_next)
{
    double left = t_next - t;
    if (dt >= left)
        return left;
    if (dt > 0.5 * left)
        return 0.5 * left;
    return dt;
}

int engine_run(sim *s, const run_options *o, run_summary *sum, sl_err *err)
{
    memset(sum, 0, sizeof *sum);
    s->quiet = o->quiet;
    const scene *sc = s->sc;
    double end = o->until >= 0 ? o->until : sc->end_time;
    const char *dir = o->out_dir ? o->out_dir : sc->out_dir;
    snprintf(sum->out_dir, sizeof sum->out_dir, "%s", dir);

    io_series series;
    int rc = io_series_open(&series, dir, sc->out_fields, err);
    if (rc)
        return rc;
    io_series_xdmf_path(&series, sum->xdmf, sizeof sum->xdmf);
    p2m_grid grid;
    if (sc->grid.enabled) {
        rc = p2m_grid_for_sim(&grid, s, err);
        if (rc) {
            io_series_close(&series);
            return rc;
        }
        io_series_set_grid(&series, &grid);
    }
    snprintf(sum->checkpoint, sizeof sum->checkpoint, "%s/checkpoint.bin", dir);
    double interval = sc->out_interval;
    long next_index = io_index_after(s->t, interval);
    if (o->restart) {
        rc = io_checkpoint_read(o->restart, s, &series, &next_index, err);
        /* The checkpoint's next output counts the interval of the run that wrote it. A scene that
         * writes at another interval would find that output in the past (a finer one, to look closer
         * at an event: the step fitted to it was negative) or skip outputs (a coarser one): the first
         * output after t at this interval instead. With the interval unchanged the checkpoint's is
         * that one, and kept (exact restart). */
        if (rc == SL_OK && !(next_index * interval > s->t * (1 + 1e-12) &&
                             (next_index - 1) * interval <= s->t * (1 + 1e-12)))
            next_index = io_index_after(s->t, interval);
        if (rc == SL_OK && sc->grid.enabled)
            io_series_find_grids(&series); /* the earlier run may have written no /grid, or another */
        if (rc == SL_OK)
            rc = sim_sync_device(s, err);
        if (rc) {
            io_series_close(&series);
            if (sc->grid.enabled)
                p2m_grid_free(&grid);
            return rc;
        }
    }
    /* every rank made (or read) the whole state: each keeps its slab */
    if ((rc = domain_distribute(s, err))) {
        io_series_close(&series);
        if (sc->grid.enabled)
            p2m_grid_free(&grid);
        return rc;
    }
    char shares[1024];
    domain_describe(s, shares, sizeof shares);
    if (!o->quiet && shares[0])
        fprintf(stderr, "sluice: %s\n", shares);

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    progress pr;
    progress_start(&pr, stderr, o->quiet, s->t, end, (double)domain_total_particles(s));
    double wall0 = progress_now();
    long steps0 = s->step;
    double dt_first = 0;
    double steady_wall0 = 0, steady_output0 = 0; /* at the end of the first step */

    int quit = 0; /* an observer (the viewer's q) ended the run */
    if (!o->restart)
        rc = snapshot_write(&series, s, &sum->output_seconds, err);
    if (rc == SL_OK)
        rc = notify_observers(o, s, &quit, err);
    while (rc == SL_OK && !quit && s->t < end * (1 - 1e-12) && !domain_any(s, stop_signal) &&
           (o->max_steps < 0 || s->step - steps0 < o->max_steps)) {
        double dt, step_wall0 = progress_now();
        if ((rc = sim_time_step(s, &dt, err)))
            break;
        dt = domain_min_time_step(s, dt); /* every rank takes the same step */
        if (dt_first == 0)
            dt_first = dt;
        if (!(dt > 1e-6 * dt_first) || !isfinite(dt)) {
            rc = sl_fail(err, SL_ERR_RUNTIME,
                         "the run became unstable at t = %.6g s, step %ld: time step %.3g s (the first "
                         "was %.3g s); try a smaller numerics.cfl or numerics.spacing",
                         s->t, s->step, dt, dt_first);
            sum->failed_everywhere = 1;
            break;
        }
        double t_next = fmin(next_index * interval, end);
        dt = fit_to_output(s->t, dt, t_next);
        if ((rc = sim_step(s, dt, err)))
            break;
        domain_note_step(s, progress_now() - step_wall0); /* (the balance by work) */
        s->step++;
        s->t = (s->t + dt >= t_next * (1 - 1e-12)) ? t_next : s->t + dt;
        if (s->t >= t_next) {
            if (io_output_due(s->t, next_index, interval))
                next_index++;
            rc = snapshot_write(&series, s, &sum->output_seconds, err);
            if (rc == SL_OK && sc->checkpoint_every > 0 && series.count % sc->checkpoint_every == 0) {
                rc = settle_observers(o, err);
                if (rc == SL_OK)
                    rc = checkpoint_write(sum->checkpoint, s, &series, next_index, &sum->output_seconds, err);
            }
        }
        if (rc == SL_OK)
            rc = notify_observers(o, s, &quit, err);
        progress_update(&pr, s->t, s->step - steps0);
        if (s->step - steps0 == 1) {
            steady_wall0 = progress_now();
            steady_output0 = sum->output_seconds;
        }
    }
    if (s->step - steps0 > 1) {
        sum->steady_steps = s->step - steps0 - 1;
        sum->steady_seconds = progress_now() - steady_wall0 - (sum->output_seconds - steady_output0);
    }
    progress_finish(&pr, s->t, s->step - steps0);
    if (rc == SL_OK || rc == SL_INTERRUPTED) { /* the shares after balancing */
        domain_describe(s, shares, sizeof shares);
        if (!o->quiet && shares[0])
            fprintf(stderr, "sluice: %s\n", shares);
    }
    /* A run stopped early (signal or step limit) still ends with its last state on disk. */
    if (rc == SL_OK && series.count > 0 && series.entries[series.count - 1].time != s->t)
        rc = snapshot_write(&series, s, &sum->output_seconds, err);
    /* ... and a checkpoint, so it can be continued (with --until, or after a signal). */
    if (rc == SL_OK)
        rc = settle_observers(o, err);
    if (rc == SL_OK)
        rc = checkpoint_write(sum->checkpoint, s, &series, next_index, &sum->output_seconds, err);

    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sum->steps = s->step - steps0;
    sum->sim_time = s->t;
    sum->wall_seconds = progress_now() - wall0;
    /* a rank that failed calls no collective on its way out: the command stops every rank */
    double particles = rc == SL_OK || rc == SL_INTERRUPTED ? (double)domain_total_particles(s) : (double)s->p.n;
    sum->particles = particles;
    sum->particle_steps_per_second =
        sum->wall_seconds > 0 ? (double)sum->steps * particles / sum->wall_seconds : 0;
    sum->snapshots = series.count;
    sum->quit = quit;
    io_series_close(&series);
    if (sc->grid.enabled)
        p2m_grid_free(&grid);
    if (rc == SL_OK && stop_signal) {
        sum->signal = stop_signal;
        rc = SL_INTERRUPTED;
    }
    return rc;
}
