/* cli.c: argument parsing and the run, check and info commands. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "boundary/boundary.h"

#include "core/backend.h"
#include "bench/bench.h"
#include "run/engine.h"
#include "io/bodies.h"
#include "io/probes.h"
#include "io/p2m_grid.h"
#include "base/scene.h"
#include "geometry/scene_build.h"
#include "core/motion.h"
#include "core/sim.h"
#include "run/sim_create.h"
#include "parallel/domain.h"
#ifdef SLUICE_HAVE_CUDA
#include "gpu/gpu_info.h"
#endif
#ifdef SLUICE_HAVE_VIEWER
#include "viz/viz.h"
#endif

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SLUICE_VERSION
#define SLUICE_VERSION "unknown"
#endif

static const char usage_main[] =
    "usage: sluice COMMAND [OPTIONS]\n"
    "\n"
    "Particle fluid simulator for free-surface flows (WCSPH, semi-implicit and explicit MPS).\n"
    "\n"
    "commands:\n"
    "  run SCENE.cfg     run a scene, writing HDF5 snapshots and an XDMF index\n"
    "  check SCENE.cfg   validate a scene and print its derived numbers, without running\n"
    "  info              version, precision, backends, threads, CUDA devices\n"
    "  bench             particle-steps per second, per phase, at several particle counts\n"
    "\n"
    "'sluice COMMAND --help' describes a command. Exit status: 0 success, 1 runtime failure,\n"
    "2 bad usage or invalid scene (nothing written), 130/143 stopped by SIGINT/SIGTERM.\n";

static const char usage_run[] =
    "usage: sluice run SCENE.cfg [--out DIR] [--until T] [--steps N] [--backend cpu|cuda|auto]\n"
    "                  [--threads N] [--quiet] [--restart CHECKPOINT] [--sort counting|radix]\n"
    "                  [--strategy auto|par-part|par-cell|par-cell-sm|x-pencil|par-part-compact|par-part-sym]\n"
    "                  [--view] [--frames DIR [--frame-every DT]] [--field F] [--size WxH] [--max-frames N]\n"
    "\n"
    "Runs the scene and writes snapshots (one HDF5 file per output time) and snapshots.xmf,\n"
    "which ParaView opens with File > Open.\n"
    "\n"
    "  --out DIR       output directory (default: the scene's output.directory)\n"
    "  --until T       stop at simulated time T seconds (default: simulation.end_time)\n"
    "  --steps N       stop after N time steps\n"
    "  --backend B     cpu, cuda or auto (default auto: the fastest compiled backend)\n"
    "  --threads N     OpenMP threads for the CPU backend (default: OMP_NUM_THREADS or all cores)\n"
    "  --quiet         no progress output\n"
    "  --restart FILE  continue the run of this scene from a checkpoint (DIR/checkpoint.bin)\n"
    "  --sort S        CUDA backend: counting (fastest) or radix (bit-identical runs); overrides gpu.sort\n"
    "  --strategy S    CUDA backend: interaction strategy of every neighbour pass; overrides gpu.strategy\n"
    "  --view          watch the run in a window (keys: h help, space pause, q quit); docs/viewer.md\n"
    "  --frames DIR    render PNG frames offscreen (no window needed) into DIR\n"
    "  --frame-every DT  simulated seconds between frames (default viewer.frame_every, else\n"
    "                  output.interval)\n"
    "  --field F       colour by velocity, pressure, density or type (default viewer.field)\n"
    "  --size WxH      window and frame size in pixels (default viewer.width x viewer.height)\n"
    "  --max-frames N  with --view: end the run cleanly after N drawn frames (scripted runs)\n"
    "\n"
    "A checkpoint is written every output.checkpoint_every snapshots and at the end. Ctrl-C stops\n"
    "after the current step and writes a final snapshot and checkpoint (exit status 130).\n";

static const char usage_check[] =
    "usage: sluice check SCENE.cfg [--backend cpu|cuda|auto] [--threads N]\n"
    "\n"
    "Validates the scene and prints the derived numbers: particles per kind, spacing, smoothing\n"
    "length and interaction radius, neighbour cells, first time step, memory. Writes nothing.\n";

static const char usage_info[] =
    "usage: sluice info\n"
    "\n"
    "Prints the version, the precision of 'real', the compiled backends and schemes, the OpenMP\n"
    "threads and the CUDA devices.\n";

static int usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "sluice%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see 'sluice%s%s --help')\n", cmd ? " " : "", cmd ? cmd : "");
    return SL_ERR_INPUT;
}

static int is_help(const char *a)
{
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

/* Common options of run and check. */
typedef struct cli_options {
    const char *scene;
    const char *out_dir;
    const char *backend;
    const char *restart;
    const char *sort, *strategy; /* overrides of gpu.sort, gpu.strategy */
    double until;
    long steps;
    int threads;
    int quiet;
    /* viewer */
    int view;
    const char *frames_dir;
    double frame_every;
    long max_frames;
    int field;
    int width, height;
} cli_options;

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* Whether `a` is one of the space-separated words of `allowed` (whole words: "--res" is not "--restart"). */
static int option_allowed(const char *allowed, const char *a)
{
    size_t n = strlen(a);
    for (const char *w = strstr(allowed, a); w; w = strstr(w + 1, a))
        if ((w == allowed || w[-1] == ' ') && (w[n] == ' ' || w[n] == '\0'))
            return 1;
    return 0;
}

/* Parses argv[2..]; `allowed` lists the options the command takes. Returns SL_OK, SL_ERR_INPUT,
 * or -1 when --help was printed. */
static int parse_options(const char *cmd, const char *usage, const char *allowed, int argc, char **argv,
                         cli_options *o)
{
    memset(o, 0, sizeof o[0]);
    o->until = -1;
    o->steps = -1;
    o->backend = "auto";
    o->frame_every = -1;
    o->field = -1;
    for (int k = 2; k < argc; ++k) {
        const char *a = argv[k];
        if (is_help(a)) {
            fputs(usage, stdout);
            return -1;
        }
        if (a[0] == '-' && a[1] == '-') {
            if (!option_allowed(allowed, a))
                return usage_error(cmd, "unknown option '%s'", a);
            int needs_value = strcmp(a, "--quiet") != 0 && strcmp(a, "--view") != 0;
            if (needs_value && k + 1 >= argc)
                return usage_error(cmd, "option '%s' needs a value", a);
            const char *v = needs_value ? argv[++k] : NULL;
            long lv;
            if (strcmp(a, "--out") == 0) {
                if (!*v)
                    return usage_error(cmd, "--out needs a directory name%s", "");
                o->out_dir = v;
            } else if (strcmp(a, "--until") == 0) {
                if (!parse_double(v, &o->until) || o->until < 0)
                    return usage_error(cmd, "--until '%s' is not a time >= 0 in seconds", v);
            } else if (strcmp(a, "--steps") == 0) {
                if (!parse_long(v, 0, 1000000000000L, &o->steps))
                    return usage_error(cmd, "--steps '%s' is not a whole number >= 0", v);
            } else if (strcmp(a, "--backend") == 0) {
                o->backend = v;
            } else if (strcmp(a, "--restart") == 0) {
                o->restart = v;
            } else if (strcmp(a, "--sort") == 0) {
                if (scene_gpu_sort_parse(v) < 0)
                    return usage_error(cmd, "--sort '%s' is unknown (accepted: %s)", v, scene_gpu_sort_accepted());
                o->sort = v;
            } else if (strcmp(a, "--strategy") == 0) {
                if (scene_gpu_strategy_parse(v) < 0)
                    return usage_error(cmd, "--strategy '%s' is unknown (accepted: %s)", v,
                                       scene_gpu_strategy_accepted());
                o->strategy = v;
            } else if (strcmp(a, "--threads") == 0) {
                if (!parse_long(v, 1, 4096, &lv))
                    return usage_error(cmd, "--threads '%s' is not a whole number in 1..4096", v);
                o->threads = (int)lv;
            } else if (strcmp(a, "--quiet") == 0) {
                o->quiet = 1;
            } else if (strcmp(a, "--view") == 0) {
                o->view = 1;
            } else if (strcmp(a, "--frames") == 0) {
                if (!*v)
                    return usage_error(cmd, "--frames needs a directory name%s", "");
                o->frames_dir = v;
            } else if (strcmp(a, "--frame-every") == 0) {
                if (!parse_double(v, &o->frame_every) || !(o->frame_every > 0))
                    return usage_error(cmd, "--frame-every '%s' is not a time > 0 in seconds", v);
            } else if (strcmp(a, "--max-frames") == 0) {
                if (!parse_long(v, 1, 1000000000L, &o->max_frames))
                    return usage_error(cmd, "--max-frames '%s' is not a whole number >= 1", v);
            } else if (strcmp(a, "--field") == 0) {
                o->field = scene_viz_field_find(v);
                if (o->field < 0)
                    return usage_error(cmd, "--field '%s' is not a field (accepted: velocity, pressure, density, type)", v);
            } else if (strcmp(a, "--size") == 0) {
                char *end;
                long w = strtol(v, &end, 10), h = (*end == 'x' || *end == 'X') ? strtol(end + 1, &end, 10) : -1;
                if (*end || w < 64 || w > 8192 || h < 64 || h > 8192)
                    return usage_error(cmd, "--size '%s' is not WIDTHxHEIGHT in pixels (accepted: 64..8192 each, e.g. 1280x720)", v);
                o->width = (int)w;
                o->height = (int)h;
            }
        } else if (a[0] == '-' && a[1]) {
            return usage_error(cmd, "unknown option '%s'", a);
        } else if (!o->scene) {
            o->scene = a;
        } else {
            return usage_error(cmd, "unexpected argument '%s'", a);
        }
    }
    if (!o->scene)
        return usage_error(cmd, "missing the scene file%s", "");
    if (o->frame_every > 0 && !o->frames_dir)
        return usage_error(cmd, "--frame-every needs --frames DIR%s", "");
    if (o->max_frames > 0 && !o->view)
        return usage_error(cmd, "--max-frames needs --view%s", "");
    if ((o->field >= 0 || o->width > 0) && !o->view && !o->frames_dir)
        return usage_error(cmd, "--field and --size need --view or --frames DIR%s", "");
#ifndef SLUICE_HAVE_VIEWER
    if (o->view || o->frames_dir)
        return usage_error(cmd, "%s needs the viewer, which this build does not have (configure with "
                           "-DSLUICE_VIEWER=ON; it needs GLFW, libepoxy and libpng)", o->view ? "--view" : "--frames");
#endif
    if (o->threads > 0)
        omp_set_num_threads(o->threads);
    return SL_OK;
}

/* Loads the scene and creates the simulation; the message to print in err on failure. */
static int open_scene_quietly(const cli_options *o, scene *sc, sim *s, sl_err *err)
{
    const backend *be;
    int rc = backend_select(o->backend, &be, err);
    if (rc) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return sl_fail(err, rc, "sluice: %.1000s", why);
    }
    rc = scene_load(sc, o->scene, err);
    if (rc)
        return rc;
    if (o->sort)
        sc->gpu_sort = (enum gpu_sort_kind_name)scene_gpu_sort_parse(o->sort);
    if (o->strategy)
        sc->gpu_strategy = (enum gpu_strategy_name)scene_gpu_strategy_parse(o->strategy);
    rc = sim_create(s, sc, be, err);
    if (rc)
        scene_free(sc);
    return rc;
}

/* Loads the scene and creates the simulation; prints the error and returns its status on failure. */
static int open_scene(const cli_options *o, scene *sc, sim *s)
{
    sl_err err;
    int rc = open_scene_quietly(o, sc, s, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    return rc;
}

/* open_scene on every MPI rank, then the rank's share of the run (parallel/domain.h): each rank
 * builds the same scene alone, so all fail alike on a bad one and the lowest failing rank prints
 * the message once. */
static int open_scene_ranks(const cli_options *o, int rank, scene *sc, sim *s)
{
    sl_err err;
    int rc = open_scene_quietly(o, sc, s, &err);
    if (rc == SL_OK && (rc = domain_attach(s, s->bnd && s->bnd->reach ? s->bnd->reach(s) : 0.0, &err))) {
        sim_free(s);
        scene_free(sc);
    }
    int first;
    int all = domain_agree_status(rc, &first);
    if (all && rank == first)
        fprintf(stderr, "%s\n", err.msg);
    if (all && rc == SL_OK) { /* another rank failed */
        domain_detach(s);
        sim_free(s);
        scene_free(sc);
    }
    return all;
}

static int run_scene(const cli_options *op, int rank, int size);

static int cmd_run(int argc, char **argv)
{
    cli_options o;
    int rc = parse_options("run", usage_run,
                           "--out --until --steps --backend --threads --quiet --restart --sort --strategy --view "
                           "--frames --frame-every --field --size --max-frames",
                           argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    int rank, size; /* under mpirun: this process's rank of `size`, each a slab of the domain */
    domain_start(&argc, &argv, &rank, &size);
    if (rank > 0)
        o.quiet = 1; /* the root speaks for the run */
    if (size > 1) {
        int host_rank, host_ranks;
        domain_host_ranks(&host_rank, &host_ranks);
        /* the host's cores shared among its ranks, unless the user said how many */
        if (o.threads <= 0 && !getenv("OMP_NUM_THREADS")) {
            int share = omp_get_num_procs() / host_ranks;
            omp_set_num_threads(share > 1 ? share : 1);
        }
#ifdef SLUICE_HAVE_CUDA
        gpu_use_device_of_rank(host_rank); /* one GPU per rank of a host, before the backend takes one */
#endif
    }
    rc = run_scene(&o, rank, size);
    domain_finish();
    return rc;
}

/* The run command after its options: one rank, or this rank's share of an MPI run. */
static int run_scene(const cli_options *op, int rank, int size)
{
    cli_options o = *op;
    scene sc;
    sim s;
    int rc = open_scene_ranks(&o, rank, &sc, &s);
    if (rc)
        return rc;
    if (!o.quiet)
        fprintf(stderr, "sluice: %s: %zu particles (%zu fluid), %s on %s with %d threads\n", sc.path, s.p.n,
                particles_count_type(&s.p, PT_FLUID), sc.method, s.be->name, omp_get_max_threads());
    run_options ro = {.out_dir = o.out_dir, .until = o.until, .max_steps = o.steps, .quiet = o.quiet, .restart = o.restart};
    run_summary sum;
    sl_err err;
    /* A file that reaches the size limit (ulimit -f) fails its write with EFBIG, reported like a full
     * disk, instead of SIGXFSZ killing the run without a word. */
    signal(SIGXFSZ, SIG_IGN);
    io_probes probes;
    int have_probes = sc.probes.enabled;
    if (have_probes) {
        rc = io_probes_init(&probes, &sc, o.out_dir ? o.out_dir : sc.out_dir, o.restart != NULL, &err);
        if (rc) {
            fprintf(stderr, "sluice: %s\n", err.msg);
            sim_free(&s);
            scene_free(&sc);
            return rc;
        }
        ro.observers[ro.nobservers++] = (engine_observer){&probes, io_probes_after_step, io_probes_settle};
    }
    io_bodies bodies; /* floating bodies' bodies.csv */
    int have_bodies = s.floating != NULL && rank == 0; /* every rank holds the bodies' state */
    if (have_bodies) {
        io_bodies_init(&bodies, &sc, o.out_dir ? o.out_dir : sc.out_dir, o.restart != NULL, &err);
        ro.observers[ro.nobservers++] = (engine_observer){&bodies, io_bodies_after_step, NULL};
    }
#ifdef SLUICE_HAVE_VIEWER
    viz *v = NULL;
    viz_ranks vr = {NULL}; /* on several ranks: the root's viewer, every rank's observer */
    if (o.view || o.frames_dir) {
        viz_options vo = {.window = o.view, .frames_dir = o.frames_dir, .frame_every = o.frame_every,
                          .max_frames = o.max_frames, .field = o.field, .width = o.width, .height = o.height,
                          .shot_dir = o.out_dir ? o.out_dir : sc.out_dir, .quiet = o.quiet, .ranks = size > 1};
        rc = rank == 0 ? viz_open(&v, &s, &vo, &err) : SL_OK;
        int failed_rank;
        if (size > 1 && (rc = domain_agree_status(rc, &failed_rank)) && rank != failed_rank)
            snprintf(err.msg, sizeof err.msg, "the viewer could not start on rank %d", failed_rank);
        if (rc) {
            if (rank == 0)
                fprintf(stderr, "sluice: %s\n", err.msg);
            if (have_probes)
                io_probes_close(&probes);
            sim_free(&s);
            scene_free(&sc);
            return rc;
        }
        vr.v = v;
        ro.observers[ro.nobservers++] = size > 1 ? viz_ranks_observer(&vr) : viz_observer(v);
    }
#endif
    rc = engine_run(&s, &ro, &sum, &err);
    if (size > 1 && rc != SL_OK && rc != SL_INTERRUPTED && !sum.failed_everywhere)
        domain_abort(rc, err.msg); /* the others may wait in a collective: stop them all */
#ifdef SLUICE_HAVE_VIEWER
    if (v) {
        if (!o.quiet)
            fprintf(stderr, "sluice: %s\n", viz_describe(v));
        if (rc == SL_OK)
            rc = viz_hold(v, &s, &err);
        if (o.frames_dir && (rc == SL_OK || rc == SL_INTERRUPTED))
            printf("frames: %ld PNG images in %s\n", viz_frames_written(v), o.frames_dir);
        viz_close(v);
    }
#endif
    if (have_probes)
        io_probes_close(&probes);
    if (have_bodies)
        io_bodies_close(&bodies);
    if ((rc == SL_OK || rc == SL_INTERRUPTED) && rank == 0) {
        printf("sluice: %s after %ld steps at t = %.6g s in %.1f s (%.3g particle-steps/s",
               rc == SL_INTERRUPTED ? "stopped by signal" : sum.quit ? "stopped from the viewer" : "finished",
               sum.steps, sum.sim_time, sum.wall_seconds, sum.particle_steps_per_second);
        /* the stepping's own rate where output took a visible share (scaling figures compare it) */
        if (sum.output_seconds > 0.01 * sum.wall_seconds && sum.wall_seconds > sum.output_seconds)
            printf("; %.3g s of it writing output, %.3g particle-steps/s without", sum.output_seconds,
                   sum.particle_steps_per_second * sum.wall_seconds / (sum.wall_seconds - sum.output_seconds));
        if (sum.steady_steps > 0 && sum.steady_seconds > 0) /* what the scaling figures compare */
            printf("; after the first step, without output: %.4g ms a step, %.3g particle-steps/s",
                   1e3 * sum.steady_seconds / (double)sum.steady_steps,
                   (double)sum.steady_steps * sum.particles / sum.steady_seconds);
        printf(")\n");
        if (s.sch->summary) {
            char line[512];
            s.sch->summary(&s, line, sizeof line);
            printf("%s\n", line);
        }
        printf("output: %s (%d snapshots); open %s in ParaView\n", sum.out_dir, sum.snapshots, sum.xdmf);
        printf("checkpoint: %s (continue with --restart)\n", sum.checkpoint);
        if (have_probes)
            printf("probes: %s (%d rows)\n", probes.path, probes.rows);
        if (have_bodies)
            printf("bodies: %s (%d rows)\n", bodies.path, bodies.rows);
    } else if (rc != SL_OK && rc != SL_INTERRUPTED && rank == 0) {
        fprintf(stderr, "sluice: %s\n", err.msg);
    }
    domain_detach(&s);
    sim_free(&s);
    scene_free(&sc);
    if (rc == SL_INTERRUPTED)
        return 128 + sum.signal;
    return rc;
}

static void print_bytes(const char *label, double b)
{
    const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        ++u;
    }
    printf("%-16s%.3g %s", label, b, unit[u]);
}

static int cmd_check(int argc, char **argv)
{
    cli_options o;
    int rc = parse_options("check", usage_check, "--backend --threads", argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    scene sc;
    sim s;
    rc = open_scene(&o, &sc, &s);
    if (rc)
        return rc;
    const sim_params *P = &s.P;
    const nbr_grid *g = &s.g;
    const char *ax = "xyz";
    printf("%-16s%s: valid\n", "scene", sc.path);
    printf("%-16s%s (%s), %dD, %s backend\n", "method", s.sch->name, s.sch->description, sc.dim, s.be->name);
    printf("%-16s%s (%s)\n", "walls", s.bnd->name, s.bnd->description);
    for (int b = 0; s.motion && b < s.motion->nbodies; ++b) { /* core/motion.h */
        const scene_geom *gm = &sc.geom[s.motion->item[b]];
        printf("%-16sgeometry[%d] (%s, line %d): %s law\n", b ? "" : "moving walls", s.motion->item[b],
               gm->kind == GEOM_TANK ? "tank" : "obstacle", gm->line, scene_motion_law_name(gm->motion.law));
    }
    printf("%-16s%zu (fluid %zu, wall %zu, obstacle %zu)\n", "particles", s.p.n,
           particles_count_type(&s.p, PT_FLUID), particles_count_type(&s.p, PT_WALL),
           particles_count_type(&s.p, PT_OBSTACLE));
    printf("%-16s%g m\n", "spacing", sc.dp);
    if (P->mps.re_n > 0) {
        printf("%-16sre = %g m (number density, gradient), %g m (Laplacian); n0 = %.4g, %.4g; lambda0 = %.4g l0^2\n",
               "MPS radii", (double)P->mps.re_n, (double)P->mps.re_lap, (double)P->mps.n0_n,
               (double)P->mps.n0_lap, (double)(P->mps.lambda0_lap / (P->dp * P->dp)));
        if (!P->mps.is_explicit)
            printf("%-16sCG, %s, relative residual %g, at most %d iterations%s\n", "pressure solve",
                   sc.mps.preconditioner == MPS_PRECONDITIONER_MULTIGRID
                       ? "multigrid preconditioner (assembled matrix, aggregation on the neighbour cells)"
                       : "Jacobi preconditioner (matrix-free)",
                   sc.mps.cg_tolerance, sc.mps.cg_max_iterations,
                   sc.mps.stop_unconverged ? "; a solve that misses it ends the run" : "");
    } else {
        printf("%-16sh = %g m (%g dp), %s kernel, interaction radius %g m\n", "smoothing", (double)P->h,
               sc.h_factor, scene_kernel_name(sc.kernel), (double)P->r_max);
    }
    printf("%-16s%g m/s", "sound speed", (double)P->c0);
    if (sc.sound_speed <= 0)
        printf(" (%g sqrt(|g| H), H = %g m)", sc.sound_speed_coef, s.fluid_height);
    printf("\n%-16s", "domain");
    for (int a = 0; a < sc.dim; ++a)
        printf("%s%c [%g, %g]%s", a ? ", " : "", ax[a], s.domain_min[a], s.domain_max[a],
               (sc.periodic >> a) & 1u ? " periodic" : "");
    printf(" m\n%-16s%lld (", "cells", (long long)g->ncells);
    for (int a = 0; a < sc.dim; ++a)
        printf("%s%d", a ? " x " : "", g->nc[a]);
    printf(" with margins), width %g m, ndiv %d: %d runs of %d cells per particle\n", (double)g->cell_width,
           g->ndiv, g->view.nruns, 2 * g->ndiv + 1);
    double dt;
    sl_err terr;
    if ((rc = sim_time_step(&s, &dt, &terr))) {
        fprintf(stderr, "%s: %s\n", sc.path, terr.msg);
        sim_free(&s);
        scene_free(&sc);
        return rc;
    }
    printf("%-16s%.4g s at the start (CFL %g); about %.3g steps to t = %g s\n", "time step", dt, sc.cfl,
           dt > 0 ? sc.end_time / dt : 0.0, sc.end_time);
    int nsnap = (int)floor(sc.end_time / sc.out_interval + 1e-9) + 1;
    printf("%-16s%s every %g s (about %d snapshots)\n", "output", sc.out_dir, sc.out_interval, nsnap);
    if (sc.probes.enabled) {
        int faces = 0;
        for (int k = 0; k < sc.probes.npressure; ++k)
            faces += sc.probes.pressure[k].diameter > 0;
        char over[64] = "";
        if (faces)
            snprintf(over, sizeof over, " (%d over %s face)", faces, faces == 1 ? "its" : "their");
        printf("%-16s%s/probes.csv every %g s: %d pressure%s, %d gauges%s%s%s\n", "probes", sc.out_dir,
               sc.probes.interval > 0 ? sc.probes.interval : sc.out_interval, sc.probes.npressure, over,
               sc.probes.ngauges, sc.probes.front != FRONT_NONE ? ", front" : "", sc.probes.energy ? ", energy" : "",
               strcmp(sc.method, "mps") == 0 ? ", CG" : "");
    }
    if (sc.grid.enabled) {
        p2m_grid grid;
        sl_err gerr;
        if (p2m_grid_for_sim(&grid, &s, &gerr) != SL_OK) {
            fprintf(stderr, "%s\n", gerr.msg); /* names the file and the key */
            sim_free(&s);
            scene_free(&sc);
            return SL_ERR_INPUT;
        }
        size_t nfluid = particles_count_type(&s.p, PT_FLUID);
        printf("%-16s%d x %d", "grid", grid.L.n[0], grid.L.n[1]);
        if (sc.dim == 3)
            printf(" x %d", grid.L.n[2]);
        int on_device = s.be->p2m_spread != NULL;
        printf(" nodes, spacing %g m, order %d; %.3g contributions per node: %s spreading%s\n", grid.L.spacing,
               grid.L.order, p2m_contributions_per_node(&grid, nfluid),
               p2m_pick(&grid, (int)sc.grid.method, nfluid, on_device) == P2M_MESH ? "mesh-based" : "particle-based",
               on_device ? " on the GPU" : "");
        p2m_grid_free(&grid);
    }
    double bytes = (double)sim_memory_bytes(&s);
    print_bytes("memory", bytes);
    printf(" (%.0f bytes per particle)\n", s.p.n ? bytes / (double)s.p.n : 0.0);
    sim_free(&s);
    scene_free(&sc);
    return SL_OK;
}

static int cmd_info(int argc, char **argv)
{
    for (int k = 2; k < argc; ++k) {
        if (is_help(argv[k])) {
            fputs(usage_info, stdout);
            return 0;
        }
        return usage_error("info", "unexpected argument '%s'", argv[k]);
    }
    printf("sluice %s\n", SLUICE_VERSION);
    printf("precision:       %s (sizeof(real) = %zu)\n", REAL_NAME, sizeof(real));
    printf("backends:        %s\n", backend_compiled());
    printf("schemes:         %s\n", scheme_names());
    printf("OpenMP threads:  %d (of %d processors)\n", omp_get_max_threads(), omp_get_num_procs());
    printf("MPI:             %s\n", domain_mpi_library());
#ifdef SLUICE_HAVE_CUDA
    char buf[4096];
    int n = gpu_describe_devices(buf, sizeof buf);
    printf("CUDA devices:    %d\n%s", n, buf);
#else
    printf("CUDA devices:    not built with CUDA\n");
#endif
    return 0;
}

int cli_main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_main, stderr);
        return SL_ERR_INPUT;
    }
    const char *cmd = argv[1];
    if (is_help(cmd)) {
        fputs(usage_main, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("sluice %s\n", SLUICE_VERSION);
        return 0;
    }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc, argv);
    if (strcmp(cmd, "check") == 0)
        return cmd_check(argc, argv);
    if (strcmp(cmd, "info") == 0)
        return cmd_info(argc, argv);
    if (strcmp(cmd, "bench") == 0)
        return bench_main(argc, argv);
    return usage_error(NULL, "unknown command '%s'", cmd);
}
