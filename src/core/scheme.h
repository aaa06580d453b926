/* scheme.h: what a numerical scheme (WCSPH, MPS, ...) provides; the engine drives any of them the same way. */
#ifndef SLUICE_SCHEME_H
#define SLUICE_SCHEME_H

#include "base/status.h"

struct sim;

typedef struct scheme {
    const char *name;         /* scene key simulation.method */
    const char *description;
    /* Derives parameters from the scene, adds the scheme's particle fields, sets initial values. */
    int (*init)(struct sim *s, sl_err *err);
    /* Largest stable time step for the current state into *dt (not finite or not positive when the
     * state has gone unstable, which the caller reports); an error when computing it failed (a
     * cell rebuild out of memory, a device error), so that it is not taken for an instability. */
    int (*time_step)(struct sim *s, double *dt, sl_err *err);
    /* Advances the state by dt (neighbour lists are the scheme's to rebuild when it moves particles). */
    int (*step)(struct sim *s, double dt, sl_err *err);
    /* Fills /particles/pressure etc. from the scheme's own state before output (may be NULL). */
    void (*prepare_output)(struct sim *s);
    /* One line about the solver for the run summary, e.g. CG iterations (may be NULL). */
    void (*summary)(const struct sim *s, char *buf, unsigned long len);
    /* Releases what the scheme holds in the backend (may be NULL); sim_free calls it before the
     * backend's release. */
    void (*release)(struct sim *s);
} scheme;

/* The scheme registered under `name`, or NULL. */
const scheme *scheme_find(const char *name);

/* "wcsph" or "wcsph|mps|emps": the names accepted in scene files. */
const char *scheme_names(void);

#endif
