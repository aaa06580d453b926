/* bench.c: `sluice bench`: steps per second of a scene at several particle counts, with the time
 * of every phase, the strategy of every pass and the memory per particle. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "bench_operators.h"
#include "bench_floors.h"
#include "bench_machine.h"

#include "core/backend.h"
#include "core/floating.h"
#include "base/scene.h"
#include "geometry/scene_build.h"
#include "core/sim.h"
#include "io/checkpoint.h"
#include "io/snapshot.h"
#include "run/sim_create.h"


#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_bench[] =
    "usage: sluice bench [--backend cpu|cuda|auto] [--scene FILE | --case dambreak3d|box|floating|operators]\n"
    "                    [--particles 1e6,4e6,16e6] [--method wcsph|mps|emps] [--steps N]\n"
    "                    [--preconditioner jacobi|multigrid]\n"
    "                    [--strategy auto|par-part|par-cell|par-cell-sm|x-pencil|par-part-compact|par-part-sym] [--sort counting|radix]\n"
    "                    [--threads N] [--restart CHECKPOINT]\n"
    "\n"
    "Times whole steps after a warm-up (the warm-up also lets the CUDA backend choose its\n"
    "interaction strategies), then runs the same number of steps again with every phase timed, and\n"
    "prints a table per particle count: particle-steps/s, ns per particle-step, the phases, the\n"
    "strategy of each pass and the memory per particle; and the work per particle counted on the\n"
    "starting layout with the floors it sets: each modelled pass's flops at the peak rate, and the\n"
    "step's arithmetic and memory floors against its time.\n"
    "  --case dambreak3d  SPHERIC Test 2 (the geometry of scenes/dam_break_3d.cfg), WCSPH (default)\n"
    "  --case box         a 1 m cube of water at rest in its tank\n"
    "  --case floating    WCSPH: 10 boxes of density 500 dropped onto still water in a 1.6 m tank; also\n"
    "                     prints the bodies' share of the step (docs/performance.md)\n"
    "  --case operators   the MPS gradient, Laplacian and LSMPS gradient on a regular lattice, every\n"
    "                     strategy against the arithmetic and memory floors (its own options:\n"
    "                     sluice bench --case operators --help)\n"
    "  --scene FILE       any scene file; --particles rescales its spacing\n"
    "  --restart FILE     with --scene: start from a checkpoint of that scene's run (DIR/checkpoint.bin),\n"
    "                     to time a developed flow instead of the first steps\n"
    "  --particles LIST   particle counts (the spacing is scaled to reach each, within a few %)\n"
    "  --steps N          timed steps (default 20)\n";

static const char dambreak3d_text[] =
    "simulation = { method = \"wcsph\"; dimension = 3; end_time = 6.0; };\n"
    "fluid = { gravity = [0.0, 0.0, -9.81]; sound_speed_coef = 20.0; };\n"
    "numerics = { spacing = 0.0183333; kernel = \"wendland\"; h_factor = 2.0; cfl = 0.2; ndiv = 2;\n"
    "             integrator = \"verlet\"; verlet_steps = 40; alpha = 0.02; delta = 0.1; diffusion = \"molteni\"; };\n"
    "geometry = (\n"
    "  { type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [3.22, 1.0, 1.0]; layers = 3; },\n"
    "  { type = \"fluid\"; min = [1.992, 0.0, 0.0]; max = [3.22, 1.0, 0.55]; },\n"
    "  { type = \"obstacle\"; min = [0.6635, 0.2985, 0.0]; max = [0.8245, 0.7015, 0.161]; layers = 3; } );\n";

static const char box_text[] =
    "simulation = { method = \"wcsph\"; dimension = 3; end_time = 1.0; };\n"
    "fluid = { gravity = [0.0, 0.0, -9.81]; sound_speed_coef = 10.0; viscosity = 1.0e-6; };\n"
    "numerics = { spacing = 0.02; h_factor = 2.0; ndiv = 2; integrator = \"verlet\"; alpha = 0.02; };\n"
    "mps = { weight = \"quadratic\"; };\n"
    "geometry = (\n"
    "  { type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.2]; layers = 3; },\n"
    "  { type = \"fluid\"; min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0]; } );\n";

/* Ten 0.12 m boxes (density 500), 5 x 2, resting on the surface of water 0.3 m deep (a fluid box may
 * not overlap a body, so they start on it and settle in); ten bodies as issue 24's speed figure asks. */
static const char floating_text[] =
    "simulation = { method = \"wcsph\"; dimension = 3; end_time = 2.0; };\n"
    "fluid = { gravity = [0.0, 0.0, -9.81]; sound_speed_coef = 10.0; };\n"
    "numerics = { spacing = 0.025; kernel = \"wendland\"; h_factor = 2.0; cfl = 0.2; ndiv = 2;\n"
    "             integrator = \"symplectic\"; viscosity = \"artificial\"; alpha = 0.05; delta = 0.1; };\n"
    "geometry = (\n"
    "  { type = \"tank\"; min = [0.0, 0.0, 0.0]; max = [1.6, 0.8, 0.6]; layers = 3; },\n"
    "  { type = \"fluid\"; min = [0.0, 0.0, 0.0]; max = [1.6, 0.8, 0.3]; },\n"
    "  { type = \"obstacle\"; min = [0.14, 0.14, 0.3]; max = [0.26, 0.26, 0.42]; layers = 3;\n"
    "    floating = { density = 500.0; }; },\n"
    "  { type = \"obstacle\"; min = [0.44, 0.14, 0.3]; max = [0.56, 0.26, 0.42]; layers = 3;\n"
    "    floating = { density = 500.0; }; },\n"
    "  { type = \"obstacle\"; min = [0.74, 0.14, 0.3]; max = [0.86, 0.26, 0.42]; layers = 3;\n"
    "    floating = { density = 500.0; }; },\n"
    "  { type = \"obstacle\"; min = [1.04, 0.14, 0.3]; max = [1.16, 0.26, 0.42]; layers = 3;\n"
    "    floating = { density = 500.0; }; },\n"
    "  { type = \"obstacle\"; min = [1.34, 0.14, 0.3]; max = [1.46, 0.26, 0.42]; layers = 3;\n"
    "    floating = { density = 500.0; }; },\n"
    "  { type = \"obstacle\"; min = [0.14, 0.54, 0.3]; max = [0.26, 0.66, 0.42]; layers = 3;\n"
    "    floating = { density = 500.0; }; },\n"
    "  { type = \"obstacle\"; min = [0.44, 0.54, 0.3]; max = [0.56, 0.66, 0.42]; layers = 3;\n"
    "    floating = { density = 500.0; }; },\n"
    "  { type = \"obstacle\"; min = [0.74, 0.54, 0.3]; max = [0.86, 0.66, 0.42]; layers = 3;\n"
    "    floating = { density = 500.0; }; },\n"
    "  { type = \"obstacle\"; min = [1.04, 0.54, 0.3]; max = [1.16, 0.66, 0.42]; layers = 3;\n"
    "    floating = { density = 500.0; }; },\n"
    "  { type = \"obstacle\"; min = [1.34, 0.54, 0.3]; max = [1.46, 0.66, 0.42]; layers = 3;\n"
    "    floating = { density = 500.0; }; } );\n";

typedef struct bench_options {
    const char *backend;
    const char *scene_path;
    const char *scene_case;
    const char *method;
    const char *preconditioner;
    const char *strategy;
    const char *sort;
    const char *restart; /* a checkpoint of the scene to start from (a developed flow), or NULL */
    double particles[16];
    int ncounts;
    long steps;
} bench_options;

static int bench_usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "sluice bench: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see sluice bench --help)\n");
    return SL_ERR_INPUT;
}

static int parse_counts(const char *list, bench_options *o)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    o->ncounts = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *end;
        errno = 0;
        double v = strtod(tok, &end);
        if (errno || end == tok || *end || !(v >= 10 && v <= 2e9) || o->ncounts == 16)
            return 0;
        o->particles[o->ncounts++] = v;
    }
    return o->ncounts > 0;
}

static int parse_bench_options(int argc, char **argv, bench_options *o)
{
    memset(o, 0, sizeof *o);
    o->backend = "auto";
    o->steps = 20;
    for (int k = 2; k < argc; ++k) {
        const char *a = argv[k];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_bench, stdout);
            return -1;
        }
        if (k + 1 >= argc)
            return bench_usage_error("option '%s' needs a value (or is unknown)", a);
        const char *v = argv[++k];
        if (strcmp(a, "--backend") == 0)
            o->backend = v;
        else if (strcmp(a, "--scene") == 0)
            o->scene_path = v;
        else if (strcmp(a, "--case") == 0) {
            if (strcmp(v, "dambreak3d") != 0 && strcmp(v, "box") != 0 && strcmp(v, "floating") != 0)
                return bench_usage_error("--case '%s' is unknown (accepted: dambreak3d, box, floating, operators)", v);
            o->scene_case = v;
        } else if (strcmp(a, "--method") == 0) {
            if (strcmp(v, "wcsph") != 0 && strcmp(v, "mps") != 0 && strcmp(v, "emps") != 0)
                return bench_usage_error("--method '%s' is unknown (accepted: wcsph, mps, emps)", v);
            o->method = v;
        } else if (strcmp(a, "--preconditioner") == 0) {
            if (strcmp(v, "jacobi") != 0 && strcmp(v, "multigrid") != 0)
                return bench_usage_error("--preconditioner '%s' is unknown (accepted: jacobi, multigrid)", v);
            o->preconditioner = v;
        } else if (strcmp(a, "--strategy") == 0)
            o->strategy = v;
        else if (strcmp(a, "--sort") == 0)
            o->sort = v;
        else if (strcmp(a, "--restart") == 0)
            o->restart = v;
        else if (strcmp(a, "--particles") == 0) {
            if (!parse_counts(v, o))
                return bench_usage_error("--particles '%s' is not a list of up to 16 counts in 10..2e9", v);
        } else if (strcmp(a, "--steps") == 0) {
            char *end;
            o->steps = strtol(v, &end, 10);
            if (*end || o->steps < 1 || o->steps > 100000)
                return bench_usage_error("--steps '%s' is not a whole number in 1..100000", v);
        } else if (strcmp(a, "--threads") == 0) {
            char *end;
            long t = strtol(v, &end, 10);
            if (*end || t < 1 || t > 4096)
                return bench_usage_error("--threads '%s' is not a whole number in 1..4096", v);
            omp_set_num_threads((int)t);
        } else
            return bench_usage_error("unknown option '%s'", a);
    }
    if (o->scene_path && o->scene_case)
        return bench_usage_error("%s", "give --scene or --case, not both");
    if (o->restart && (!o->scene_path || o->ncounts > 0 || o->method))
        return bench_usage_error("--restart '%s' needs --scene (the scene that wrote the checkpoint) and neither "
                                 "--particles nor --method (the checkpoint fixes both)", o->restart);
    return SL_OK;
}

/* Applies the command line to a loaded scene. */
static int override_scene(scene *sc, const bench_options *o)
{
    if (o->method)
        snprintf(sc->method, sizeof sc->method, "%s", o->method);
    if (o->preconditioner)
        sc->mps.preconditioner = strcmp(o->preconditioner, "multigrid") == 0 ? MPS_PRECONDITIONER_MULTIGRID
                                                                             : MPS_PRECONDITIONER_JACOBI;
    if (o->strategy) {
        int k = scene_gpu_strategy_parse(o->strategy);
        if (k >= 0)
            sc->gpu_strategy = (enum gpu_strategy_name)k;
        else
            return bench_usage_error("--strategy '%s' is unknown (accepted: %s)", o->strategy,
                                     scene_gpu_strategy_accepted());
    }
    if (o->sort) {
        int k = scene_gpu_sort_parse(o->sort);
        if (k >= 0)
            sc->gpu_sort = (enum gpu_sort_kind_name)k;
        else
            return bench_usage_error("--sort '%s' is unknown (accepted: %s)", o->sort, scene_gpu_sort_accepted());
    }
    return SL_OK;
}

static int load_bench_scene(const bench_options *o, scene *sc, sl_err *err)
{
    if (o->scene_path)
        return scene_load(sc, o->scene_path, err);
    const char *name = o->scene_case ? o->scene_case : "dambreak3d";
    const char *text = strcmp(name, "box") == 0 ? box_text : strcmp(name, "floating") == 0 ? floating_text : dambreak3d_text;
    char label[64];
    snprintf(label, sizeof label, "bench case %s", name);
    return scene_load_string(sc, text, label, err);
}

/* Particles the scene makes at spacing dp (built and thrown away). */
static size_t count_at(scene *sc, double dp, sl_err *err)
{
    double keep = sc->dp;
    sc->dp = dp;
    particles p;
    memset(&p, 0, sizeof p);
    int rc = scene_build_particles(sc, &p, err);
    size_t n = rc ? 0 : p.n;
    particles_free(&p);
    sc->dp = keep;
    return n;
}

/* The spacing that gives about `target` particles: N ~ dp^-dim, refined twice from a coarse build. */
static double spacing_for(scene *sc, double target, sl_err *err)
{
    double dp = sc->dp;
    size_t n = count_at(sc, dp, err);
    if (n == 0)
        return 0;
    /* a coarse probe first when the target is large: building 20M particles to count them is slow */
    for (int it = 0; it < 3; ++it) {
        dp *= pow((double)n / target, 1.0 / sc->dim);
        if (it == 2)
            break;
        n = count_at(sc, dp, err);
        if (n == 0)
            return 0;
    }
    return dp;
}

/* The phases' times with the arithmetic floor of each modelled phase (bench_floors.h), then the
 * step's floors against its time. */
static void print_phases(const sim *s, const bench_work *w, const bench_machine *m, double step_seconds, long steps)
{
    const profile *pr = &s->prof;
    const double n = (double)s->g.n_inside;
    double total = 0, flop_step = 0, matvecs = 0;
    double solve = 0, solves = 0, products = 0, mg_setup = 0;
    for (int k = 0; k < pr->nphases; ++k) {
        const profile_phase *ph = &pr->phase[k];
        if (strcmp(ph->name, "cg.total") == 0) { /* the solve's envelope: its parts have rows of their own */
            solve = ph->seconds / (double)steps;
            solves = (double)ph->calls / (double)steps;
            continue;
        }
        if (strcmp(ph->name, "mps.ppe_apply") == 0 || strcmp(ph->name, "mg.product") == 0)
            products += (double)ph->calls / (double)steps;
        if (strcmp(ph->name, "mg.setup") == 0)
            mg_setup = ph->seconds / (double)steps;
        total += ph->seconds;
    }
    printf("  %-22s %10s %8s %12s %11s  %s\n", "phase", "ms/step", "share", "calls/step", "flop-floor", "strategy");
    for (int k = 0; k < pr->nphases; ++k) {
        const profile_phase *ph = &pr->phase[k];
        double calls = (double)ph->calls / (double)steps;
        double flop = calls * bench_phase_flop(s, w, ph->name);
        char floor_ms[32] = "-";
        if (flop > 0)
            snprintf(floor_ms, sizeof floor_ms, "%.4f", 1e3 * n * flop / m->peak_flops);
        flop_step += flop;
        if (strcmp(ph->name, "mps.ppe_apply") == 0)
            matvecs = calls;
        printf("  %-22s %10.4f %7.1f%% %12.1f %11s  %s\n", ph->name, 1e3 * ph->seconds / (double)steps,
               total > 0 ? 100.0 * ph->seconds / total : 0.0, calls, floor_ms, ph->detail ? ph->detail : "");
    }
    if (solves > 0) {
        /* each solve is one product for the initial residual, then one per iteration */
        double iterations = products - solves;
        printf("  pressure solve: %.1f iterations per step, %.4f ms per iteration, preconditioner set-up %.4f ms\n"
               "   per step, the solve %.4f ms per step: %.1f%% of the step with the set-up\n",
               iterations, iterations > 0 ? 1e3 * solve / iterations : 0.0, 1e3 * mg_setup, 1e3 * solve,
               total > 0 ? 100.0 * (solve + mg_setup) * (double)steps / total : 0.0);
    }
    printf("  (phases timed one by one, with a device synchronisation each: %.4f ms/step in all, against\n"
           "   %.4f ms/step for the untimed steps)\n", 1e3 * total / (double)steps, 1e3 * step_seconds);
    double bytes = bench_step_bytes(s, matvecs);
    double flop_ms = 1e3 * n * flop_step / m->peak_flops, mem_ms = 1e3 * n * bytes / m->bandwidth;
    double larger = flop_ms > mem_ms ? flop_ms : mem_ms;
    printf("  floors per step: arithmetic %.4f ms (%.0f flop per particle in the modelled passes, %s at %.3g\n"
           "   flop/s), memory %.4f ms (%.0f bytes per particle, %s at %.3g B/s); the step takes %.1f times the\n"
           "   larger\n",
           flop_ms, flop_step, m->peak_name, m->peak_flops, mem_ms, bytes, m->memory_name, m->bandwidth,
           larger > 0 ? 1e3 * step_seconds / larger : 0.0);
}

/* The work per particle the floors come from. */
static void print_work(const bench_work *w)
{
    printf("  work per particle on the starting layout: %.1f candidates (%.1f of fluid targets)", w->candidates,
           w->candidates_fluid);
    for (int k = 0; k < w->nradii; ++k)
        printf(", %.1f neighbours within %.4g m (%.1f of fluid targets)", w->neighbours[k], (double)w->radius[k],
               w->neighbours_fluid[k]);
    if (w->nradii == 1)
        printf("; pairs j > i: %.1f candidates, %.1f neighbours, %.1f of them of two fluid particles",
               w->candidates_after, w->neighbours_after, w->fluid_pairs_after);
    printf("\n");
}

/* The floating bodies' share of the step: the profiled force pass (floating.*: the bodies' particles
 * against the fluid, contacts) and the per-body sums (body_sums), plus the bodies' Newton-Euler
 * update, which runs on the host inside the scheme's integrator and is timed here by repeating the
 * predictor and corrector on the final state (then restored), as floating_predict/correct run once
 * each per step. Over the untimed step time and over the profiled phases' sum. */
static void print_bodies_share(sim *s, double step_seconds, long steps)
{
    floating *fl = s->floating;
    if (!fl || fl->n == 0)
        return;
    const profile *pr = &s->prof;
    double force = 0, sums = 0, place = 0, total = 0;
    for (int k = 0; k < pr->nphases; ++k) {
        const profile_phase *ph = &pr->phase[k];
        if (strcmp(ph->name, "cg.total") == 0)
            continue;
        total += ph->seconds;
        if (strncmp(ph->name, "floating.", 9) == 0)
            force += ph->seconds;
        else if (strcmp(ph->name, "body_sums") == 0)
            sums += ph->seconds;
        else if (strcmp(ph->name, "motion.place") == 0)
            place += ph->seconds;
    }
    force /= (double)steps, sums /= (double)steps, place /= (double)steps, total /= (double)steps;
    size_t bytes = (size_t)fl->n * sizeof *fl->state;
    rigid_body_state *keep = malloc(2 * bytes);
    double integ = 0;
    if (keep) {
        memcpy(keep, fl->state, bytes);
        memcpy(keep + fl->n, fl->state0, bytes);
        double dt = 1e-5; /* any small step: the cost does not depend on it */
        long reps = 2000;
        double t0 = profile_now();
        for (long r = 0; r < reps; ++r) {
            floating_predict(s, dt);
            floating_correct(s, dt);
        }
        integ = (profile_now() - t0) / (double)reps;
        memcpy(fl->state, keep, bytes);
        memcpy(fl->state0, keep + fl->n, bytes);
        free(keep);
    }
    double bodies = force + sums + integ;
    printf("  floating bodies (%d): force pass %.4f ms + body_sums %.4f ms + integration %.4f ms = %.4f ms per step:\n"
           "   %.1f%% of the step (%.4f ms untimed), %.1f%% of the profiled phases (%.4f ms); placing their\n"
           "   particles (motion.place) %.4f ms more, %.1f%% of the step\n",
           fl->n, 1e3 * force, 1e3 * sums, 1e3 * integ, 1e3 * bodies, 100.0 * bodies / step_seconds,
           1e3 * step_seconds, total > 0 ? 100.0 * bodies / total : 0.0, 1e3 * total, 1e3 * place,
           100.0 * place / step_seconds);
}

/* Warm-up, timed steps, then the same again with every phase timed. */
static int bench_one(const bench_options *o, const backend *be, scene *sc, sl_err *err)
{
    sim s;
    int rc = sim_create(&s, sc, be, err);
    if (rc)
        return rc;
    if (o->restart) { /* the flow as the checkpoint left it; the run's snapshot list is not needed */
        io_series series;
        memset(&series, 0, sizeof series);
        long next_output;
        rc = io_checkpoint_read(o->restart, &s, &series, &next_output, err);
        free(series.entries);
        /* the cells of the restored layout, as sim_create built them for the scene's (the work
         * counts read them) */
        if (rc || (rc = sim_sync_device(&s, err)) || (rc = s.be->build_cells(&s, err))) {
            sim_free(&s);
            return rc;
        }
        printf("\nfrom %s: step %ld, t = %.6g s\n", o->restart, s.step, s.t);
    }
    bench_work work;
    bench_count_work(&s, &work);
    long warm = 5;
    double t0 = 0, elapsed = 0;
    for (long k = 0; k < warm + o->steps; ++k) {
        if (k == warm)
            t0 = profile_now();
        double dt;
        if ((rc = sim_time_step(&s, &dt, err))) {
            sim_free(&s);
            return rc;
        }
        if (!(dt > 0) || !isfinite(dt)) {
            sim_free(&s);
            return sl_fail(err, SL_ERR_RUNTIME, "bench: the time step became %g at step %ld", dt, k);
        }
        if ((rc = sim_step(&s, dt, err))) {
            sim_free(&s);
            return rc;
        }
        s.step++;
        s.t += dt;
    }
    /* the last step's dt reduction waited for the device, so the clock has seen all the work but
     * the last update pass; the next time_step (not timed) would add it: negligible for N >= 10 */
    elapsed = profile_now() - t0;
    s.prof.enabled = 1;
    profile_reset(&s.prof);
    for (long k = 0; k < o->steps; ++k) {
        double dt;
        if ((rc = sim_time_step(&s, &dt, err)) || (rc = sim_step(&s, dt, err))) {
            sim_free(&s);
            return rc;
        }
        s.step++;
        s.t += dt;
    }
    double step_s = elapsed / (double)o->steps;
    double n = (double)s.p.n;
    size_t bytes = sim_memory_bytes(&s);
    if (be->bench)
        bytes = be->bench->device_bytes(&s);
    printf("\n%s, %s backend, %s, %.0f particles (spacing %.4g m), %ld timed steps\n", sc->method, be->name, REAL_NAME, n,
           sc->dp, o->steps);
    printf("  %.4g particle-steps/s   %.3f ns per particle-step   %.4f ms per step   %.0f %s bytes per particle\n",
           n / step_s, 1e9 * step_s / n, 1e3 * step_s, (double)bytes / n, be == &backend_cpu ? "host" : "device");
    print_work(&work);
    bench_machine m = bench_machine_here(be == &backend_cpu, omp_get_max_threads());
    print_phases(&s, &work, &m, step_s, o->steps);
    print_bodies_share(&s, step_s, o->steps);
    if (s.sch->summary) {
        char line[512];
        s.sch->summary(&s, line, sizeof line);
        printf("  %s\n", line);
    }
    sim_free(&s);
    return rc;
}

int bench_main(int argc, char **argv)
{
    for (int k = 2; k + 1 < argc; ++k)
        if (strcmp(argv[k], "--case") == 0 && strcmp(argv[k + 1], "operators") == 0)
            return bench_operators_main(argc, argv); /* its own options */
    bench_options o;
    int rc = parse_bench_options(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    sl_err err;
    const backend *be;
    if ((rc = backend_select(o.backend, &be, &err))) {
        fprintf(stderr, "sluice: %s\n", err.msg);
        return rc;
    }
    if (o.ncounts == 0) {
        o.particles[0] = 0; /* the scene's own spacing */
        o.ncounts = 1;
    }
    if (be->bench) {
        size_t nprim = o.particles[o.ncounts - 1] > 0 ? (size_t)o.particles[o.ncounts - 1] : 1000000;
        if ((rc = be->bench->primitives(stdout, nprim, &err))) {
            fprintf(stderr, "sluice: %s\n", err.msg);
            return rc;
        }
    }
    for (int k = 0; k < o.ncounts; ++k) {
        scene sc;
        if ((rc = load_bench_scene(&o, &sc, &err))) {
            if (err.msg[0])
                fprintf(stderr, "%s\n", err.msg);
            return rc;
        }
        /* A rejected option after the load: the scene is ours to free (override_scene printed
         * the message; err was not written). */
        if ((rc = override_scene(&sc, &o))) {
            scene_free(&sc);
            return rc;
        }
        if (o.particles[k] > 0) {
            double dp = spacing_for(&sc, o.particles[k], &err);
            if (!(dp > 0)) {
                fprintf(stderr, "sluice: %s\n", err.msg);
                scene_free(&sc);
                return SL_ERR_INPUT;
            }
            sc.dp = dp;
        }
        rc = bench_one(&o, be, &sc, &err);
        scene_free(&sc);
        if (rc) {
            fprintf(stderr, "sluice: %s\n", err.msg);
            return rc;
        }
    }
    return SL_OK;
}
