/* backend_cpu.c: the CPU backend: OpenMP over chunks of particles. */
#include "backend.h"
#include "sim.h"

#include <math.h>

enum { CHUNK = 128 }; /* particles per task: small enough to balance, large enough to amortise */

static int cpu_build_cells(sim *s, sl_err *err)
{
    return nbr_grid_build(&s->g, &s->p, err);
}

static void cpu_run_pass(sim *s, const pass *ps, size_t n)
{
    long nchunks = (long)((n + CHUNK - 1) / CHUNK);
    #pragma omp parallel for schedule(dynamic, 1)
    for (long c = 0; c < nchunks; ++c) {
        size_t b = (size_t)c * CHUNK;
        size_t e = b + CHUNK < n ? b + CHUNK : n;
        ps->cpu(s, b, e);
    }
}

static double cpu_min_field(sim *s, int field, size_t n)
{
    const real *f = s->p.f[field];
    double m = INFINITY;
    int bad = 0;
    #pragma omp parallel for reduction(min : m) reduction(| : bad)
    for (size_t i = 0; i < n; ++i) {
        double v = f[i];
        if (v != v)
            bad = 1;
        else if (v < m)
            m = v;
    }
    return bad ? NAN : m;
}

const backend backend_cpu = {
    .name = "cpu",
    .build_cells = cpu_build_cells,
    .run_pass = cpu_run_pass,
    .min_field = cpu_min_field,
};
