/* cuda_state.h: the CUDA backend's state for one simulation and what its files share (CUDA only).
 *
 * The backend is split by job: cuda_storage.cu (the device arrays), cuda_binning.cu (sorting into
 * the grid), cuda_autotune.cu (strategy choice, running passes, timing), cuda_vectors.cu
 * (reductions, the CG primitives), cuda_halo.cu (the MPI halo's gathers and scatters), cuda_hooks.cu (bench and test hooks, backend_cuda.h) and
 * backend_cuda.cu (the backend table and errors). */
#ifndef SLUICE_CUDA_STATE_H
#define SLUICE_CUDA_STATE_H

extern "C" {
#include "core/backend.h"
#include "core/sim.h"
}

#include "gpu_gather.h"
#include "gpu_scan.h"
#include "gpu_scratch.h"
#include "gpu_sort.h"
#include "pass_kernels.h"

#include <cuda_runtime.h>
#include <stdint.h>

enum { MAX_PASSES = 32 };

typedef struct cuda_sim {
    size_t cap;              /* particles the arrays hold */
    int nfields;             /* real fields on the device */
    real *f[PF_MAX];
    int32_t *id;
    uint8_t *type, *tag;
    int32_t *cell;           /* cell of each particle */
    int32_t *order;          /* the sort's permutation: its own array, or NULL when it borrows the
                              * array of the transient field order_field (dead from the sort to the
                              * pass that writes it, as the reorder skips it) */
    int order_field;
    size_t sorted_from;      /* particles the last sort ordered: order's places run up to it (the parked
                              * ghosts among them dropped since, cuda_build_cells) */
    real *field_slab;        /* every real field's array, one after another (see alloc_arrays) */
    int rotating[GPU_GATHER_MAX_FIELDS]; /* the transient fields whose arrays the reorder hands on */
    int nrotating;
    real *pad[GPU_GATHER_MAX_FIELDS];    /* arrays that fill the ring up to a multiple of the batch */
    int npad;
    int32_t *cell_start;     /* ncells + 2, and the sort's key of the parked ghosts (nbr_sort_key) */
    int32_t *counters;       /* [0] particles inside, [1] most particles in a cell, [2] those before the
                              * parked ghosts' key */
    int32_t *mg_longest;     /* the multigrid's longest assembled row (cuda_multigrid.cu) */
    double *cg_scalar;       /* the CG's scalars (backend.h: enum cg_slot; cuda_vectors.cu) */
    cudaStream_t mg_stream;  /* where the multigrid preconditioner's loops are captured into a graph */
    cudaGraphExec_t mg_graph;
    int mg_capturing;        /* launches go to mg_stream, untimed */
    int mg_graph_off;        /* capture failed once: run the loops directly */
    int mg_recording;        /* loops are listed in mg_ops, not launched (cuda_multigrid.cu) */
    mg_args *mg_ops;         /* the preconditioner's loops as listed at its last call */
    int mg_nops, mg_ops_cap;
    mg_args *mg_captured;    /* those mg_graph was captured from (mg_captured_nops of them) */
    int mg_captured_nops;
    unsigned char mg_stamp[64]; /* the caller's stamp at the last listing (backend.mg.replay) */
    size_t mg_stamp_bytes;   /* 0: none kept */
    real *mg_stamp_f[PF_MAX]; /* and the particle arrays then */
    const int32_t *mg_stamp_cell, *mg_stamp_cell_start;
    mg_args *mg_ops_dev;     /* the same on the device: the small loops' operands for k_mg_block */
    int mg_ops_dev_cap;
    int64_t mg_block_max;    /* loops over at most this many elements run in one block together */
    int32_t *mg_counts;      /* each level's listed cells at the last set-up (pinned host memory) */
    gpu_scratch scratch;
    gpu_scratch mg_select;   /* DeviceSelect's temporary storage for the multigrid's listed cells */
    gpu_scratch halo_stage;  /* the MPI halo's values on their way to or from the host (cuda_halo.cu) */
    gpu_scratch halo_routes; /* select's routes, by destination at the end: read by fetch, remove and plan */
    gpu_scratch halo_index;  /* the drop and remove's places and order; the lists fetch and remove upload;
                              * a balance's column counts */
    gpu_scratch probe_stage; /* the probes' particles packed for the host (cuda_probes.cu) */
    void *probe_host;        /* the same in page-locked host memory, with the totals */
    size_t probe_host_bytes;
    int host_current;        /* the host arrays hold the device state */
    int max_per_cell;
    int sm_count;
    gpu_sort_kind sort;
    gpu_scan_kind scan;
    int scan_chosen;
    int forced_strategy;     /* GS_* or -1 for auto */
    pass_choice choice[MAX_PASSES];
    int nchoices;
    cudaEvent_t ev_start, ev_stop;
    char last_error[sizeof(((sl_err *)0)->msg)];
} cuda_sim;

static inline cuda_sim *state_of(const sim *s)
{
    return (cuda_sim *)s->backend_data;
}

/* backend_cuda.cu: keeps the first error for backend.take_error (the calls that return none) and
 * prints every one. */
void cuda_remember_error(sim *s, const sl_err *err);

/* cuda_storage.cu: the backend's to_device, to_host and release. */
int cuda_to_device(sim *s, sl_err *err);
int cuda_reserve(sim *s, size_t n, size_t keep, sl_err *err); /* room for n, the first keep kept */
/* The persistent fields, ids, kinds and tags gathered along order[0 .. count) (particle k takes
 * order[k]'s), the transient fields' arrays reused and left undefined: the sort's reorder, and the
 * ghosts' drop once the rates are spent (cuda_binning.cu). */
int cuda_reorder_fields(sim *s, const int32_t *order, size_t count, sl_err *err);
/* The ids, kinds and tags alone gathered along order[0 .. count) through the scratch and copied
 * back in place (cuda_reorder_fields' last part; the halo's compaction that keeps every field). */
int cuda_reorder_ids(sim *s, const int32_t *order, size_t count, sl_err *err);
void cuda_to_host(sim *s);
void cuda_release(sim *s);
/* buf with room for bytes in device memory (its contents not kept: a larger one replaces it); what
 * names the allocation in the error. */
int cuda_buffer_reserve(backend_buffer *buf, size_t bytes, const char *what, sl_err *err);
const void *cuda_upload(sim *s, backend_buffer *buf, const void *host, size_t bytes);
void cuda_buffer_free(sim *s, backend_buffer *buf);

/* cuda_peer.cu: the halo's exchanges GPU to GPU (backend.halo's peer hooks, CUDA IPC). */
int cuda_peer_buffer(sim *s, backend_buffer *buf, size_t bytes);
void cuda_peer_buffer_free(sim *s, backend_buffer *buf);
int cuda_peer_export(sim *s, const backend_buffer *buf, peer_handle *h, sl_err *err);
int cuda_peer_open(sim *s, const peer_handle *h, void **ptr, sl_err *err);
void cuda_peer_close(sim *s, void *ptr);
int cuda_peer_copy(sim *s, void *dst, const void *src, size_t bytes, sl_err *err);
int cuda_peer_wait(sim *s, sl_err *err);

/* cuda_binning.cu: the backend's build_cells. */
int cuda_build_cells(sim *s, sl_err *err);

/* cuda_autotune.cu: the context and the grid the kernels run with, the profile timers (no-ops
 * unless s->prof.enabled), the autotuner's stopwatch, and the backend's run_pass. */
pass_ctx cuda_device_ctx(const sim *s);
launch_geom cuda_geometry(const sim *s);
void cuda_timer_start(sim *s);
void cuda_timer_stop(sim *s, const char *phase, const char *detail);
int cuda_time_best_of(cuda_sim *st, int reps, int (*launch)(void *arg, sl_err *err), void *arg, float *best,
                      sl_err *err);
void cuda_run_pass(sim *s, const pass *ps, size_t n);

/* cuda_vectors.cu: the backend's reduce and CG primitives. */
double cuda_reduce(sim *s, enum reduce_op op, int a, int b, size_t n);
int cuda_cg_init(sim *s, const cg_problem *cg, double dots[3]);
int cuda_cg_dot(sim *s, cg_problem *cg, int a, int b, int slot);
int cuda_cg_update(sim *s, cg_problem *cg, int rz, int dq, int out);
int cuda_cg_decide(sim *s, cg_problem *cg, int dq, int out, double bnorm);
int cuda_cg_direction(sim *s, cg_problem *cg, int num, int den);
int cuda_cg_scalars(sim *s, cg_problem *cg, int slot, int count, double *v, int write);
int cuda_fill_zero(sim *s, int field, size_t n);

/* cuda_bodies.cu: the backend's body_sums (floating bodies). */
int cuda_body_sums(sim *s, int body, int nbodies, const int acc[3], double *out);

/* cuda_probes.cu: the backend's probe_particles. */
int cuda_probe_particles(sim *s, const probe_regions *req, particles *out, probe_totals *tot, int *picked, sl_err *err);

/* cuda_hooks.cu: the backend's bench hooks. */
extern const backend_bench_hooks cuda_bench_hooks;

/* cuda_halo.cu: the backend's MPI halo hooks. */
extern "C" const backend_halo_hooks cuda_halo_hooks;

/* cuda_multigrid.cu: the backend's multigrid primitives. */
extern "C" const backend_mg_hooks cuda_mg_hooks;

#endif
