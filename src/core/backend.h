/* backend.h: where the particle loops run. Schemes describe passes; a backend runs them (CPU: OpenMP). */
#ifndef SLUICE_BACKEND_H
#define SLUICE_BACKEND_H

#include "pass.h"
#include "base/status.h"

#include <stddef.h>

struct sim;
struct p2m_grid;

enum reduce_op {
    REDUCE_MIN, /* smallest value of field a (NaN if any value is NaN) */
    REDUCE_MAX, /* largest value of field a (NaN if any value is NaN) */
    REDUCE_SUM, /* sum of a[i], in double, in an order independent of the thread count */
    REDUCE_DOT  /* sum of a[i] * b[i], likewise */
};

/* A symmetric positive definite system A x = b over particle fields, solved by conjugate gradients
 * with Jacobi preconditioning. Rows whose diagonal is 0 are not unknowns: their x stays 0. The
 * scheme provides A as a pass that computes field `out` = A (field `in`) for every particle; the
 * solver sets s->args.in and s->args.out before each call. */
typedef struct cg_problem {
    const pass *matvec;
    int x, b, diag;              /* solution (initial guess on entry), right-hand side, diagonal of A */
    int r, z, d, q;              /* work fields */
    size_t n;                    /* particles [0, n) */
    double tolerance;            /* on ||b - A x|| / ||b|| */
    int max_iterations;
    /* results */
    int iterations;
    double residual;             /* relative residual reached */
    int converged;
} cg_problem;

/* Device addresses of the particle state, for the viewer's CUDA-OpenGL path: the core fields
 * PF_X..PF_P of particles.h (`real` each) and the type array, in the backend's current order, valid
 * until the next step. */
typedef struct backend_device_view {
    const void *field[8];
    const unsigned char *type;
    size_t n;
} backend_device_view;

typedef struct backend {
    const char *name;
    /* Sorts the particles into the neighbour grid (every particle array is reordered). */
    int (*build_cells)(struct sim *s, sl_err *err);
    /* Runs a pass over particles [0, n) with the scheme's s->args. */
    void (*run_pass)(struct sim *s, const pass *ps, size_t n);
    /* Reduction of real particle fields over [0, n); b is used by REDUCE_DOT only. */
    double (*reduce)(struct sim *s, enum reduce_op op, int a, int b, size_t n);
    /* Solves cg->matvec x = b; fills the results in cg. */
    void (*cg_solve)(struct sim *s, cg_problem *cg);
    /* Backends that keep the particles elsewhere (device memory) copy them to the host arrays
     * (to_host) and back (to_device); NULL where the host arrays are the state. Use
     * sim_sync_host() / sim_sync_device() rather than calling these. */
    void (*to_host)(struct sim *s);
    int (*to_device)(struct sim *s, sl_err *err);
    /* Fills *out with the device addresses of the particle state and returns 1; NULL (or a return
     * of 0) where the host arrays are the state. The viewer then writes its vertex buffer on the
     * device (src/gpu/viz_interop.cu) instead of copying through the host. */
    int (*device_view)(struct sim *s, backend_device_view *out);
    /* Spreads the fluid onto g by `method` (P2M_PARTICLE or P2M_MESH of p2m_grid.h) where the
     * particles are, and leaves g's host sums and fields current; NULL where the host arrays are
     * the state (p2m_grid_update then runs p2m_spread on them). p2m_grid_update decides the
     * method; call that rather than this. */
    int (*p2m_spread)(const struct sim *s, struct p2m_grid *g, int method, sl_err *err);
    /* Releases what the backend allocated for s (may be NULL). */
    void (*release)(struct sim *s);
    /* The first error that run_pass, reduce or cg_solve (which return none) met since the last call,
     * into err, and forgotten; SL_OK when none. NULL where they cannot fail. The engine asks after
     * each time step and step, so a failed kernel ends the run with its own message. */
    int (*take_error)(struct sim *s, sl_err *err);
} backend;

extern const backend backend_cpu;
#ifdef SLUICE_HAVE_CUDA
extern const backend backend_cuda;
#endif

/* "cpu", "cuda" or "auto". Fails with a message naming the accepted values or why a backend is
 * missing from this build. */
int backend_select(const char *name, const backend **out, sl_err *err);

/* Comma-separated names of the backends compiled in. */
const char *backend_compiled(void);

#endif
