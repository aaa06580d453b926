/* sim.h: one simulation: the scene, its particles, the neighbour grid, the scheme and the backend. */
#ifndef SLUICE_SIM_H
#define SLUICE_SIM_H

#include "backend.h"
#include "grid/nbr_grid.h"
#include "base/particles.h"
#include "physics/params.h"
#include "scheme.h"
#include "base/profile.h"
#include "base/scene.h"
#include "base/status.h"

struct boundary_model;
struct motion;
struct floating;
struct domain;

typedef struct sim {
    const scene *sc;
    const scheme *sch;
    const struct boundary_model *bnd;    /* the wall model, picked by the scheme (boundary/) */
    const backend *be;
    sim_params P;
    particles p;
    nbr_grid g;
    double domain_min[3], domain_max[3]; /* the neighbour grid covers this box */
    double fluid_height;                 /* highest fluid column (for c0 and hydrostatics) */
    double t;                            /* simulated time, s */
    long step;
    pass_args args;                      /* the scheme's slots, dt and flag for its passes */
    struct motion *motion;               /* the moving walls' bodies (core/motion.h), NULL: none */
    struct floating *floating;           /* the floating ones among them (core/floating.h), NULL: none */
    void *scheme_data;                   /* owned by the scheme, freed with free() */
    void *backend_data;                  /* owned by the backend, freed by be->release */
    struct domain *domain;               /* this rank's share of an MPI run (parallel/domain.h);
                                          * NULL: one rank holds every particle */
    profile prof;                        /* phase times, when prof.enabled */
    int quiet;                           /* no informational lines on stderr (the CUDA backend's
                                          * strategy choices): a quiet run's stderr holds errors only */
} sim;

void sim_free(sim *s);

/* The context a CPU pass runs with: host arrays, the scheme's s->args. */
pass_ctx sim_host_ctx(const sim *s);

/* Makes the host particle arrays (s->p) current: call before reading particles on the host
 * (output, probes, the viewer's CPU path). A no-op on the CPU backend. */
void sim_sync_host(sim *s);

/* Sends host changes of s->p (a restart) to the backend's copy. */
int sim_sync_device(sim *s, sl_err *err);

/* The error the backend's passes, reductions or CG met since the last call (backend.take_error),
 * or SL_OK. sim_time_step and sim_step ask it. */
int sim_backend_error(sim *s, sl_err *err);

/* The scheme's stable time step for the current state (scheme.time_step), and then any error
 * the backend met on the way: what every driver of a run calls. */
int sim_time_step(sim *s, double *dt, sl_err *err);

/* The scheme's step by dt (scheme.step), and then any error the backend met on the way. */
int sim_step(sim *s, double dt, sl_err *err);

/* Bytes held per particle and in total (particle arrays + grid), for `sluice check`. */
size_t sim_memory_bytes(const sim *s);

#endif
