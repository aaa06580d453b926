/* cuda_autotune.cu: the CUDA backend's run_pass: the interaction strategy of each pass, chosen by
 * timing them on the live state, and the timers it and the profile use. */
#include "cuda_state.h"

#include "gpu_check.h"
#include "schemes/mps/mps_passes.h" /* mps_accel_pass_symmetric */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The context the kernels run with: device arrays, host numbers. */
pass_ctx cuda_device_ctx(const sim *s)
{
    const cuda_sim *st = state_of(s);
    pass_ctx c;
    memset(&c, 0, sizeof c);
    c.P = s->P;
    c.nb = s->g.view;
    c.nb.cell_start = st->cell_start;
    c.nb.cell = st->cell;
    for (int k = 0; k < st->nfields; ++k)
        c.f[k] = st->f[k];
    c.type = st->type;
    c.tag = st->tag;
    c.a = s->args;
    return c;
}

launch_geom cuda_geometry(const sim *s)
{
    const cuda_sim *st = state_of(s);
    launch_geom g;
    g.dim = s->g.dim;
    g.ndiv = s->g.ndiv;
    for (int a = 0; a < 3; ++a) {
        g.interior[a] = s->g.interior[a];
        g.nc[a] = s->g.nc[a];
    }
    g.n = (int32_t)s->g.n_inside;
    g.max_per_cell = st->max_per_cell;
    g.sm_count = st->sm_count;
    g.reproducible = st->sort == GPU_SORT_RADIX;
    g.periodic = s->g.view.periodic != 0;
    g.lsmps_laplacian = !mps_accel_pass_symmetric(&s->P);
    return g;
}

/* ---- timing --------------------------------------------------------------------------------- */

void cuda_timer_start(sim *s)
{
    if (s->prof.enabled)
        cudaEventRecord(state_of(s)->ev_start);
}

void cuda_timer_stop(sim *s, const char *phase, const char *detail)
{
    if (!s->prof.enabled)
        return;
    cuda_sim *st = state_of(s);
    float ms = 0;
    cudaEventRecord(st->ev_stop);
    cudaEventSynchronize(st->ev_stop);
    cudaEventElapsedTime(&ms, st->ev_start, st->ev_stop);
    profile_add(&s->prof, phase, detail, 1e-3 * ms);
}

/* Runs launch(arg) `reps` times between events and gives the fastest time after the first (a
 * warm-up), in ms: how the automatic choices of scan and strategy measure. */
int cuda_time_best_of(cuda_sim *st, int reps, int (*launch)(void *arg, sl_err *err), void *arg, float *best,
                      sl_err *err)
{
    *best = INFINITY;
    for (int rep = 0; rep < reps; ++rep) {
        GPU_TRY(cudaEventRecord(st->ev_start), err);
        int rc = launch(arg, err);
        if (rc)
            return rc;
        GPU_TRY(cudaEventRecord(st->ev_stop), err);
        GPU_TRY(cudaEventSynchronize(st->ev_stop), err);
        float ms;
        GPU_TRY(cudaEventElapsedTime(&ms, st->ev_start, st->ev_stop), err);
        if (rep > 0 && ms < *best)
            *best = ms;
    }
    return SL_OK;
}

/* ---- passes ----------------------------------------------------------------------------------- */

static pass_choice *choice_for(cuda_sim *st, int id)
{
    for (int k = 0; k < st->nchoices; ++k)
        if (st->choice[k].id == id)
            return &st->choice[k];
    if (st->nchoices == MAX_PASSES)
        return NULL;
    pass_choice *c = &st->choice[st->nchoices++];
    strategy_choice_init(c, id);
    return c;
}

typedef struct pass_trial {
    const pass_ctx *c;
    const launch_geom *g;
    int pass_id, strategy;
    int32_t n;
    gpu_scratch *work;
} pass_trial;

static int launch_pass_trial(void *arg, sl_err *err)
{
    pass_trial *t = (pass_trial *)arg;
    return gpu_launch_pass(t->pass_id, t->strategy, t->c, t->n, t->g, t->work, err);
}

static int time_strategy(cuda_sim *st, const pass_ctx *c, const launch_geom *g, int pass_id, int k, size_t n,
                         float *ms, sl_err *err)
{
    pass_trial trial = {c, g, pass_id, k, (int32_t)n, &st->scratch};
    return cuda_time_best_of(st, 3, launch_pass_trial, &trial, ms, err);
}

/* Times the valid strategies on the live state (the pass is repeatable) and keeps the fastest: every
 * one the first time; afterwards the chosen one, then those strategy_worth_timing names
 * (strategy_choice.h); the others keep their last times, in brackets in the line. */
static int measure(sim *s, const pass *ps, size_t n, pass_choice *ch, sl_err *err)
{
    cuda_sim *st = state_of(s);
    pass_ctx c = cuda_device_ctx(s);
    launch_geom g = cuda_geometry(s);
    int first = ch->strategy < 0, chosen = ch->strategy;
    float chosen_ms = NAN, best = INFINITY;
    char line[256] = "";
    int used = 0;
    if (!first && gpu_strategy_valid(ps->id, chosen, (int32_t)n, &g))
        SL_TRY(time_strategy(st, &c, &g, ps->id, chosen, n, &chosen_ms, err));
    for (int k = 0; k < GS_COUNT; ++k) {
        if (!gpu_strategy_valid(ps->id, k, (int32_t)n, &g)) {
            ch->ms[k] = NAN;
            continue;
        }
        float t = chosen_ms;
        if (k != chosen || isnan(chosen_ms)) {
            if (!strategy_worth_timing(ch, k, chosen_ms)) { /* kept from the last timing */
                if (used < (int)sizeof line)
                    used += snprintf(line + used, sizeof line - (size_t)used, " %s (%.3f ms)", gpu_strategy_label(k),
                                     ch->ms[k]);
                continue;
            }
            SL_TRY(time_strategy(st, &c, &g, ps->id, k, n, &t, err));
        }
        ch->ms[k] = t;
        if (used < (int)sizeof line)
            used += snprintf(line + used, sizeof line - (size_t)used, " %s %.3f ms", gpu_strategy_label(k), t);
        if (t < best) {
            best = t;
            ch->strategy = k;
        }
    }
    const int timed_at = ch->chosen_at_max_per_cell;
    ch->chosen_at_max_per_cell = st->max_per_cell;
    /* a strategy timed and not kept (par-part-sym in double) may have grown the scratch: give it
     * back, and let the next user reserve what it needs */
    gpu_scratch_free(&st->scratch);
    if (s->quiet || getenv("SLUICE_QUIET_STRATEGIES") != NULL)
        return SL_OK;
    if (first)
        fprintf(stderr, "sluice: strategy for %s (%zu particles, at most %d per cell):%s -> %s\n", ps->name, n,
                st->max_per_cell, line, gpu_strategy_label(ch->strategy));
    else /* a run's stall of every trial's time: said, so that a step's time is not a mystery */
        fprintf(stderr, "sluice: strategy for %s timed again at step %ld (at most %d per cell, %d when last timed):%s "
                "-> %s\n", ps->name, s->step, st->max_per_cell, timed_at, line, gpu_strategy_label(ch->strategy));
    return SL_OK;
}

static int run_pass_checked(sim *s, const pass *ps, size_t n, sl_err *err)
{
    cuda_sim *st = state_of(s);
    launch_geom g = cuda_geometry(s);
    int strategy = GS_PAR_PART;
    if (st->forced_strategy >= 0 && gpu_strategy_valid(ps->id, st->forced_strategy, (int32_t)n, &g)) {
        strategy = st->forced_strategy;
    } else if (st->forced_strategy < 0 && (ps->flags & PASS_NEIGHBOURS)) {
        pass_choice *ch = choice_for(st, ps->id);
        if (ch && (ps->flags & PASS_REPEATABLE)) {
            /* timed again when the fullest cell has grown by more than a quarter since the last
             * timing and the chosen strategy's cost follows it (strategy_choice.h). Not when it
             * shrinks as well: a fullest cell that swings back and forth would time again at each
             * swing, a stall of every trial. */
            int grown = strategy_retime_due(ch, st->max_per_cell);
            if (ch->strategy < 0 || grown || !gpu_strategy_valid(ps->id, ch->strategy, (int32_t)n, &g)) {
                int rc = measure(s, ps, n, ch, err);
                if (rc)
                    return rc;
            }
            strategy = ch->strategy;
        } else if (ch && ch->strategy >= 0 && gpu_strategy_valid(ps->id, ch->strategy, (int32_t)n, &g)) {
            strategy = ch->strategy;
        }
    }
    pass_ctx c = cuda_device_ctx(s);
    cuda_timer_start(s);
    int rc = gpu_launch_pass(ps->id, strategy, &c, (int32_t)n, &g, &st->scratch, err);
    cuda_timer_stop(s, ps->name, gpu_strategy_label(strategy));
    st->host_current = 0;
    return rc;
}

void cuda_run_pass(sim *s, const pass *ps, size_t n)
{
    sl_err err;
    if (run_pass_checked(s, ps, n, &err))
        cuda_remember_error(s, &err);
}
