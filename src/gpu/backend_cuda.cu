/* backend_cuda.cu: the CUDA backend's table, its errors and its optional hooks (the device view,
 * grid spreading). The particles live on the device as structure-of-arrays; per step only the
 * scalars that decide dt and CG convergence (and the count of particles inside the domain) come
 * back to the host. The host arrays are refreshed on demand (sim_sync_host) for output, probes and
 * checkpoints. The work is in the files cuda_state.h lists. */
#include "backend_cuda.h"
#include "cuda_state.h"

extern "C" {
#include "io/p2m_grid.h"
}

#include "p2m_cuda.h"

#include <stdio.h>

/* The strategies are the scene's gpu.strategy names after "auto", in the same order: one list of
 * names (io/scene_tables.c) serves the scene files, the command line and the tables printed here. */
static_assert((int)GS_PAR_PART == GPU_STRATEGY_PAR_PART - 1 && (int)GS_PAR_CELL == GPU_STRATEGY_PAR_CELL - 1 &&
                  (int)GS_PAR_CELL_SM == GPU_STRATEGY_PAR_CELL_SM - 1 &&
                  (int)GS_X_PENCIL == GPU_STRATEGY_X_PENCIL - 1 &&
                  (int)GS_PAR_PART_COMPACT == GPU_STRATEGY_PAR_PART_COMPACT - 1 &&
                  (int)GS_PAR_PART_SYM == GPU_STRATEGY_PAR_PART_SYM - 1 &&
                  (int)GS_COUNT == GPU_STRATEGY_PAR_PART_SYM,
              "enum gpu_strategy must follow enum gpu_strategy_name");

const char *gpu_strategy_label(int strategy)
{
    return strategy >= 0 && strategy < GS_COUNT ? scene_gpu_strategy_name((enum gpu_strategy_name)(strategy + 1))
                                                : "?";
}

void cuda_remember_error(sim *s, const sl_err *err)
{
    cuda_sim *st = state_of(s);
    if (st && !st->last_error[0])
        snprintf(st->last_error, sizeof st->last_error, "%s", err->msg);
    fprintf(stderr, "sluice: CUDA backend: %s\n", err->msg);
}

/* backend.take_error: the first error cuda_remember_error kept since the last call */
static int cuda_take_error(sim *s, sl_err *err)
{
    cuda_sim *st = state_of(s);
    if (!st || !st->last_error[0])
        return SL_OK;
    snprintf(err->msg, sizeof err->msg, "%s", st->last_error);
    st->last_error[0] = '\0';
    return SL_ERR_RUNTIME;
}

/* The viewer's CUDA-OpenGL path reads the particles where they are. */
static int cuda_device_view(sim *s, backend_device_view *out)
{
    const cuda_sim *st = state_of(s);
    if (!st)
        return 0;
    for (int k = 0; k < s->p.nfields; ++k) /* the scheme's fields too: the viewer reads the bodies' */
        out->field[k] = st->f[k];
    out->type = st->type;
    out->n = s->p.n;
    return 1;
}

/* The grid (scene group `grid`) is spread where the particles are (p2m_cuda.cu), then its sums and
 * fields are copied into the host arrays that the snapshot writer reads. */
static int cuda_p2m_spread(const sim *s, p2m_grid *g, int method, sl_err *err)
{
    const cuda_sim *st = state_of(s);
    if (!st) /* nothing on the device yet: the host arrays are the state */
        return p2m_spread(g, &s->p, s->P.mass, method, err);
    p2m_cuda_input in = {st->f[PF_X], st->f[PF_Y], st->f[PF_Z], st->f[PF_VX], st->f[PF_VY], st->f[PF_VZ],
                         st->f[PF_P], st->type, s->p.n, s->P.mass};
    int rc = p2m_cuda_spread(g, &in, method, err);
    return rc ? rc : p2m_cuda_to_host(g, err);
}

/* C++ has designated initializers only from C++20: the order is that of struct backend. */
extern "C" const backend backend_cuda = {
    "cuda",
    cuda_device_present,
    cuda_build_cells,
    cuda_run_pass,
    cuda_reduce,
    cuda_cg_init,
    cuda_cg_dot,
    cuda_cg_update,
    cuda_cg_decide,
    cuda_cg_direction,
    cuda_cg_scalars,
    cuda_fill_zero,
    cuda_to_host,
    cuda_to_device,
    cuda_device_view,
    cuda_p2m_spread,
    cuda_release,
    cuda_take_error,
    &cuda_bench_hooks,
    &cuda_mg_hooks,
    cuda_upload,
    cuda_body_sums,
    cuda_buffer_free,
    &cuda_halo_hooks,
    cuda_probe_particles,
    1,
};
