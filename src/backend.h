/* backend.h: where the particle loops run. Schemes describe passes; a backend runs them (CPU: OpenMP). */
#ifndef SLUICE_BACKEND_H
#define SLUICE_BACKEND_H

#include "status.h"

#include <stddef.h>

struct sim;

/* One sweep over the particles. The CPU backend splits [0, n) into chunks and calls `cpu` on each;
 * a body writes only the particles of its own range (gather form), so results do not depend on
 * the number of threads. `id` names the pass for backends that carry their own kernels. */
typedef struct pass {
    const char *name;
    int id;
    void (*cpu)(struct sim *s, size_t begin, size_t end);
} pass;

typedef struct backend {
    const char *name;
    /* Sorts the particles into the neighbour grid (every particle array is reordered). */
    int (*build_cells)(struct sim *s, sl_err *err);
    /* Runs a pass over particles [0, n). */
    void (*run_pass)(struct sim *s, const pass *ps, size_t n);
    /* Smallest value of a real particle field over [0, n) (NaN if any value is NaN). */
    double (*min_field)(struct sim *s, int field, size_t n);
} backend;

extern const backend backend_cpu;

/* "cpu", "cuda" or "auto". Fails with a message naming the accepted values or why a backend is
 * missing from this build. */
int backend_select(const char *name, const backend **out, sl_err *err);

/* Comma-separated names of the backends compiled in. */
const char *backend_compiled(void);

#endif
