/* bench_p2m.c: times particle-based (atomic) against mesh-based (CSR gather) spreading for a range of
 * particles per node, to set P2M_MESH_THRESHOLD (docs/performance.md). Not a test: run by hand,
 *   build/bench_p2m [dim] [order]     (OMP_NUM_THREADS to choose the threads) */
#define _POSIX_C_SOURCE 200809L

#include "p2m_grid.h"
#include "scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double best_of(p2m_grid *g, const particles *p, int method, int reps)
{
    sl_err err;
    double best = INFINITY;
    for (int r = 0; r < reps; ++r) {
        double t0 = now();
        if (p2m_spread(g, p, R(1.0), method, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            exit(1);
        }
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    int dim = argc > 1 ? atoi(argv[1]) : 3;
    int order = argc > 2 ? atoi(argv[2]) : 4;
    int side = dim == 3 ? 40 : 400; /* interior cells per axis */
    double dmin[3] = {0, 0, 0}, dmax[3] = {1, 1, dim == 3 ? 1 : 0};
    double spacing = 1.0 / side;
    static const double ppn[] = {0.02, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4};
    printf("dim %d, order %d, %d^%d cells\n", dim, order, side, dim);
    printf("%10s %12s %10s %12s %12s %8s\n", "particles", "per node", "contrib", "particle s", "mesh s", "ratio");
    for (size_t k = 0; k < sizeof ppn / sizeof ppn[0]; ++k) {
        p2m_grid g;
        sl_err err;
        if (p2m_grid_init(&g, dim, order, spacing, dmin, dmax, GRID_ALL, P2M_MAX_NODES, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        /* particles cell by cell, random inside their cell: the cell order the simulation keeps */
        size_t ncell = (size_t)pow(side, dim), n = 0, cap = (size_t)(ppn[k] * (double)ncell * 1.2) + 16;
        particles p;
        if (particles_alloc(&p, cap, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        srand(1);
        for (size_t c = 0; c < ncell; ++c) {
            double want = ppn[k];
            int m = (int)want + ((double)rand() / RAND_MAX < want - floor(want));
            size_t cc[3] = {c % (size_t)side, (c / (size_t)side) % (size_t)side, c / ((size_t)side * (size_t)side)};
            for (int q = 0; q < m && n < cap; ++q, ++n) {
                for (int a = 0; a < dim; ++a)
                    p.f[PF_X + a][n] = (real)((cc[a] + (double)rand() / RAND_MAX) * spacing);
                p.f[PF_VX][n] = R(1.0);
                p.f[PF_P][n] = R(2.0);
            }
        }
        p.n = n;
        /* in cell order, as the simulation keeps them (nbr_grid_build) */
        int reps = n < 100000 ? 9 : 5;
        double tp = best_of(&g, &p, P2M_PARTICLE, reps), tm = best_of(&g, &p, P2M_MESH, reps);
        printf("%10zu %12.3g %10.3g %12.4g %12.4g %8.2f\n", n, (double)n / (double)g.nnodes,
               p2m_contributions_per_node(&g, n), tp, tm, tm / tp);
        particles_free(&p);
        p2m_grid_free(&g);
    }
    return 0;
}
