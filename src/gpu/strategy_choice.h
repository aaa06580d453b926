/* strategy_choice.h: when a pass's interaction strategy is timed again, and which strategies are
 * (plain C, no CUDA: cuda_autotune.cu decides with it, and tests check the rules on machines
 * without a GPU).
 *
 * A run times every valid strategy of a pass once, on its first call. It times again only when the
 * fullest cell has grown by more than a quarter and the chosen strategy's cost follows the fullest
 * cell (par-cell, par-cell-sm, x-pencil launch a block sized by it): the particle strategies'
 * launches do not depend on it, and a fuller cell only slows the cell strategies, so a particle
 * strategy that won keeps winning. When it times again, the chosen strategy runs first, and then
 * only those whose last time was under STRATEGY_RETIME_MARGIN times its new one: a particle
 * strategy's time has not moved with the cell, and a cell strategy's has only grown, so one whose
 * last time was half again the chosen one's new time cannot have overtaken it (the margin is for
 * the particles' drift since). A retiming of every strategy cost 2.4 s a rank for MPS at 20M
 * particles on an H200 (three runs of par-cell's ppe_setup alone are 1.2 s), and MPI ranks, which
 * grow their fullest cells at different steps, each wait for every rank's. */
#ifndef SLUICE_GPU_STRATEGY_CHOICE_H
#define SLUICE_GPU_STRATEGY_CHOICE_H

#include <math.h>

enum gpu_strategy {
    GS_PAR_PART,
    GS_PAR_CELL,
    GS_PAR_CELL_SM,
    GS_X_PENCIL,
    GS_PAR_PART_COMPACT,
    GS_PAR_PART_SYM,
    GS_COUNT
};

#define STRATEGY_RETIME_MARGIN 1.5f

/* Strategy chosen for one pass, and the layout and times it was chosen on. */
typedef struct pass_choice {
    int id;
    int strategy;               /* GS_*, or -1 before the first timing */
    int chosen_at_max_per_cell; /* the fullest cell at the last timing */
    float ms[GS_COUNT];         /* each strategy's time at the last timing; NAN: not timed (invalid then) */
} pass_choice;

static inline void strategy_choice_init(pass_choice *c, int id)
{
    c->id = id;
    c->strategy = -1;
    c->chosen_at_max_per_cell = 0;
    for (int k = 0; k < GS_COUNT; ++k)
        c->ms[k] = NAN;
}

/* Whether a strategy launches a block sized by the fullest cell, so that its cost follows it. */
static inline int strategy_follows_fullest_cell(int strategy)
{
    return strategy == GS_PAR_CELL || strategy == GS_PAR_CELL_SM || strategy == GS_X_PENCIL;
}

/* Whether the fullest cell's growth to max_per_cell calls for timing the pass again. */
static inline int strategy_retime_due(const pass_choice *c, int max_per_cell)
{
    int at = c->chosen_at_max_per_cell;
    return c->strategy >= 0 && at > 0 && max_per_cell > at + at / 4 && strategy_follows_fullest_cell(c->strategy);
}

/* Whether strategy k (not the chosen one) runs in a timing, the chosen one having taken chosen_ms
 * now: every valid one the first time (or when the chosen one could not run); afterwards those not
 * timed before and those whose last time was under STRATEGY_RETIME_MARGIN * chosen_ms. */
static inline int strategy_worth_timing(const pass_choice *c, int k, float chosen_ms)
{
    if (c->strategy < 0 || isnan(chosen_ms) || isnan(c->ms[k]))
        return 1;
    return c->ms[k] < STRATEGY_RETIME_MARGIN * chosen_ms;
}

#endif
