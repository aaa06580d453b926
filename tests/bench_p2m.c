/* bench_p2m.c: times particle-based (atomic) against mesh-based (CSR gather) spreading for a range of
 * particles per node, to set P2M_MESH_THRESHOLD and P2M_MESH_THRESHOLD_GPU (docs/performance.md).
 * Not a test: run by hand,
 *   build/bench_p2m [DIM [ORDER]] [--backend cpu|cuda] [--side CELLS]
 * cpu (default): p2m_spread with OMP_NUM_THREADS threads; cuda: the kernels of src/gpu/p2m_cuda.cu on
 * particles already on the device (the backend's case), timed to the end of the spreading and the
 * fields on the device; the mesh-based gather with each number of lanes per node as well, and the
 * copy of the grid to the host (the same for both algorithms) in its own column. */
#define _POSIX_C_SOURCE 200809L

#include "io/p2m_grid.h"
#include "base/scene.h"
#ifdef SLUICE_HAVE_CUDA
#include "gpu/backend_cuda.h"
#include "gpu/p2m_cuda.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void die(const sl_err *err)
{
    fprintf(stderr, "bench_p2m: %s\n", err->msg);
    exit(1);
}

/* What one timed call spreads with: the host particles, or their device copy. */
typedef struct target {
    const particles *p;
#ifdef SLUICE_HAVE_CUDA
    const p2m_cuda_input *dev;
#endif
    int cuda;
} target;

static void spread_once(p2m_grid *g, const target *t, int method)
{
    sl_err err;
#ifdef SLUICE_HAVE_CUDA
    if (t->cuda) {
        if (p2m_cuda_spread(g, t->dev, method, &err))
            die(&err);
        return;
    }
#endif
    if (p2m_spread(g, t->p, R(1.0), method, &err))
        die(&err);
}

/* Best of `reps` after one untimed call (first-touch allocation of buffers on either side). */
static double best_of(p2m_grid *g, const target *t, int method, int reps)
{
    spread_once(g, t, method);
    double best = INFINITY;
    for (int r = 0; r < reps; ++r) {
        double t0 = now();
        spread_once(g, t, method);
        double dt = now() - t0;
        if (dt < best)
            best = dt;
    }
    return best;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_p2m [DIM [ORDER]] [--backend cpu|cuda] [--side CELLS]\n");
    return 2;
}

int main(int argc, char **argv)
{
    int dim = 3, order = 4, cuda = 0, side = 0, positional = 0;
    for (int k = 1; k < argc; ++k) {
        if (strcmp(argv[k], "--backend") == 0 && k + 1 < argc) {
            const char *b = argv[++k];
            if (strcmp(b, "cuda") == 0)
                cuda = 1;
            else if (strcmp(b, "cpu") != 0)
                return usage();
        } else if (strcmp(argv[k], "--side") == 0 && k + 1 < argc) {
            side = atoi(argv[++k]);
            if (side < 1)
                return usage();
        } else if (argv[k][0] != '-' && positional < 2) {
            if (positional++ == 0)
                dim = atoi(argv[k]);
            else
                order = atoi(argv[k]);
        } else {
            return usage();
        }
    }
    if (dim < 2 || dim > 3 || order < 1 || order > P2M_MAX_ORDER)
        return usage();
#ifdef SLUICE_HAVE_CUDA
    if (cuda && !cuda_device_present()) {
        fprintf(stderr, "bench_p2m: --backend cuda: no CUDA device\n");
        return 1;
    }
#else
    if (cuda) {
        fprintf(stderr, "bench_p2m: --backend cuda: this build has no CUDA backend\n");
        return 1;
    }
#endif
    if (side == 0)
        side = dim == 3 ? 40 : 400; /* interior cells per axis */
    double dmin[3] = {0, 0, 0}, dmax[3] = {1, 1, dim == 3 ? 1 : 0};
    double spacing = 1.0 / side;
    static const double ppn[] = {0.02, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4};
    printf("dim %d, order %d, %d^%d cells, %s\n", dim, order, side, dim, cuda ? "cuda" : "cpu");
    printf("%10s %12s %10s %12s %12s %8s", "particles", "per node", "contrib", "particle s", "mesh s", "ratio");
    if (cuda)
        printf(" %6s %12s %12s %12s %12s %12s", "lanes", "mesh 4 s", "mesh 8 s", "mesh 16 s", "mesh 32 s",
               "to host s");
    printf("\n");
    for (size_t k = 0; k < sizeof ppn / sizeof ppn[0]; ++k) {
        p2m_grid g;
        sl_err err;
        if (p2m_grid_init(&g, dim, order, spacing, dmin, dmax, GRID_ALL, P2M_MAX_NODES, &err))
            die(&err);
        /* particles cell by cell, random inside their cell: the cell order the simulation keeps */
        size_t ncell = (size_t)pow(side, dim), n = 0, cap = (size_t)(ppn[k] * (double)ncell * 1.2) + 16;
        particles p;
        if (particles_alloc(&p, cap, &err))
            die(&err);
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
        target t = {&p,
#ifdef SLUICE_HAVE_CUDA
                    NULL,
#endif
                    cuda};
#ifdef SLUICE_HAVE_CUDA
        p2m_cuda_input dev;
        if (cuda) {
            if (p2m_cuda_upload(&p, R(1.0), &dev, &err))
                die(&err);
            t.dev = &dev;
        }
#endif
        int reps = cuda ? 20 : n < 100000 ? 9 : 5;
        double tp = best_of(&g, &t, P2M_PARTICLE, reps), tm = best_of(&g, &t, P2M_MESH, reps);
        printf("%10zu %12.3g %10.3g %12.4g %12.4g %8.2f", n, (double)n / (double)g.nnodes,
               p2m_contributions_per_node(&g, n), tp, tm, tm / tp);
#ifdef SLUICE_HAVE_CUDA
        if (cuda) {
            static const int lane_options[] = {4, 8, 16, 32};
            printf(" %6d", g.gpu_lanes_used);
            for (int l = 0; l < 4; ++l) {
                g.gpu_lanes = lane_options[l];
                printf(" %12.4g", best_of(&g, &t, P2M_MESH, reps));
            }
            g.gpu_lanes = 0;
            double best = INFINITY;
            for (int r = 0; r < 5; ++r) {
                double t0 = now();
                if (p2m_cuda_to_host(&g, &err))
                    die(&err);
                best = fmin(best, now() - t0);
            }
            printf(" %12.4g", best);
            p2m_cuda_input_free(&dev);
        }
#endif
        printf("\n");
        particles_free(&p);
        p2m_grid_free(&g);
    }
    return 0;
}
