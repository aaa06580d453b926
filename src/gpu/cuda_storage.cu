/* cuda_storage.cu: the CUDA backend's device arrays: the slab and ring of the real fields, the
 * copies between host and device, and their release; the buffers of data passes read through
 * pass_args (backend.upload). */
#include "cuda_state.h"

#include "gpu_check.h"

#include <stdio.h>
#include <stdlib.h>

static void free_arrays(cuda_sim *st)
{
    for (int k = 0; k < PF_MAX; ++k)
        st->f[k] = NULL;
    cudaFree(st->field_slab);
    st->field_slab = NULL;
    st->nrotating = st->npad = 0;
    cudaFree(st->id);
    cudaFree(st->type);
    cudaFree(st->tag);
    cudaFree(st->cell);
    cudaFree(st->order);
    st->id = st->cell = st->order = NULL;
    st->type = st->tag = NULL;
    st->cap = 0;
    st->nfields = 0;
}

/* The real fields' arrays lie in one slab: first the persistent fields, then as many spare arrays
 * as make their number a multiple of the rotating fields', then the rotating transient fields (the
 * first transients, up to GPU_GATHER_MAX_FIELDS, but not the last one), then the other
 * transients. A rebuild gathers the persistent fields, as many at a time as there are rotating
 * arrays, into the rotating arrays and then each batch into the arrays the batch before left (see
 * cuda_reorder_fields): the arrays taken in turn run round the first part of the slab as a ring of a
 * whole number of batches, so the rotating fields always end up in arrays one after another in
 * field order, and par-part-sym can keep its packed data in the four arrays of ax..drho (WCSPH:
 * 12 persistent fields with Verlet, 15 and one spare with the symplectic integrator). The last
 * transient field's array holds the sort's permutation (its contents are dead from the sort to
 * the pass that writes it). */
static int alloc_arrays(cuda_sim *st, const particles *p, sl_err *err)
{
    free_arrays(st);
    size_t n = p->n, m = n ? n : 1;
    int nfields = p->nfields, npersistent = 0;
    st->order_field = -1;
    for (int k = 0; k < nfields; ++k) {
        if (p->transient[k])
            st->order_field = k;
        else
            ++npersistent;
    }
    for (int k = 0; k < nfields; ++k)
        if (p->transient[k] && k != st->order_field && st->nrotating < GPU_GATHER_MAX_FIELDS)
            st->rotating[st->nrotating++] = k;
    st->npad = st->nrotating ? (st->nrotating - npersistent % st->nrotating) % st->nrotating : 0;
    GPU_TRY(cudaMalloc(&st->field_slab, (size_t)(nfields + st->npad) * m * sizeof(real)), err);
    /* zeroed once: the spare arrays join the ring, so a transient field can sit in an array nothing
     * has written yet, and copy_to_host copies every field (initcheck reported those copies; two
     * runs compared field by field must not differ by leftover device memory) */
    GPU_TRY(cudaMemset(st->field_slab, 0, (size_t)(nfields + st->npad) * m * sizeof(real)), err);
    int place = 0;
    for (int k = 0; k < nfields; ++k)
        if (!p->transient[k])
            st->f[k] = st->field_slab + (size_t)place++ * m;
    for (int q = 0; q < st->npad; ++q)
        st->pad[q] = st->field_slab + (size_t)place++ * m;
    for (int k = 0; k < nfields; ++k)
        if (p->transient[k])
            st->f[k] = st->field_slab + (size_t)place++ * m;
    GPU_TRY(cudaMalloc(&st->id, m * sizeof(int32_t)), err);
    GPU_TRY(cudaMalloc(&st->type, m), err);
    GPU_TRY(cudaMalloc(&st->tag, m), err);
    GPU_TRY(cudaMalloc(&st->cell, m * sizeof(int32_t)), err);
    if (st->order_field < 0)
        GPU_TRY(cudaMalloc(&st->order, m * sizeof(int32_t)), err);
    st->cap = n;
    st->nfields = nfields;
    return SL_OK;
}

static int create_state(sim *s, sl_err *err)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        snprintf(err->msg, sizeof err->msg, "--backend cuda: no CUDA device is available (accepted: cpu)");
        return SL_ERR_INPUT;
    }
    cuda_sim *st = (cuda_sim *)calloc(1, sizeof *st);
    if (!st) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return SL_ERR_RUNTIME;
    }
    s->backend_data = st;
    cudaDeviceProp prop;
    int dev = 0; /* the rank's own device under MPI (gpu_use_device_of_rank) */
    GPU_TRY(cudaGetDevice(&dev), err);
    GPU_TRY(cudaGetDeviceProperties(&prop, dev), err);
    st->sm_count = prop.multiProcessorCount;
    st->sort = s->sc->gpu_sort == GPU_SORT_NAME_RADIX ? GPU_SORT_RADIX : GPU_SORT_COUNTING;
    st->scan = s->sc->gpu_scan == GPU_SCAN_NAME_BLOCKED ? GPU_SCAN_BLOCKED : GPU_SCAN_CUB;
    st->scan_chosen = s->sc->gpu_scan != GPU_SCAN_NAME_AUTO;
    st->forced_strategy = (int)s->sc->gpu_strategy - 1; /* auto: -1 */
    GPU_TRY(cudaMalloc(&st->cell_start, ((size_t)s->g.ncells + 3) * sizeof(int32_t)), err); /* cuda_state.h */
    GPU_TRY(cudaMalloc(&st->counters, 3 * sizeof(int32_t)), err);
    GPU_TRY(cudaEventCreate(&st->ev_start), err);
    GPU_TRY(cudaEventCreate(&st->ev_stop), err);
    return SL_OK;
}

/* Host -> device: every field, id, type, tag. */
int cuda_to_device(sim *s, sl_err *err)
{
    int rc;
    if (!state_of(s) && (rc = create_state(s, err)))
        return rc;
    cuda_sim *st = state_of(s);
    const particles *p = &s->p;
    if (p->n > st->cap || p->nfields != st->nfields)
        if ((rc = alloc_arrays(st, p, err)))
            return rc;
    for (int k = 0; k < p->nfields; ++k)
        GPU_TRY(cudaMemcpy(st->f[k], p->f[k], p->n * sizeof(real), cudaMemcpyHostToDevice), err);
    GPU_TRY(cudaMemcpy(st->id, p->id, p->n * sizeof(int32_t), cudaMemcpyHostToDevice), err);
    GPU_TRY(cudaMemcpy(st->type, p->type, p->n, cudaMemcpyHostToDevice), err);
    GPU_TRY(cudaMemcpy(st->tag, p->tag, p->n, cudaMemcpyHostToDevice), err);
    st->host_current = 1;
    return SL_OK;
}

/* The arrays grown to hold n particles, the first `keep` of each array kept (every field, id, kind,
 * tag), with room to spare (the halo's append grows them a little every step otherwise). Each real
 * field keeps its place in the slab, so the ring of the reorder (alloc_arrays) goes on as it was.
 * The cells and the sort's order are computed again by the next build. */
int cuda_reserve(sim *s, size_t n, size_t keep, sl_err *err)
{
    cuda_sim *st = state_of(s);
    if (n <= st->cap)
        return SL_OK;
    const size_t old_m = st->cap ? st->cap : 1, m = n + n / 8 + 1024;
    if (keep > st->cap)
        keep = st->cap;
    const int slots = st->nfields + st->npad;
    real *slab = NULL;
    int32_t *id = NULL, *cell = NULL, *order = NULL;
    uint8_t *type = NULL, *tag = NULL;
    cudaError_t e = cudaMalloc(&slab, (size_t)slots * m * sizeof(real));
    if (e == cudaSuccess)
        e = cudaMalloc(&id, m * sizeof(int32_t));
    if (e == cudaSuccess)
        e = cudaMalloc(&type, m);
    if (e == cudaSuccess)
        e = cudaMalloc(&tag, m);
    if (e == cudaSuccess)
        e = cudaMalloc(&cell, m * sizeof(int32_t));
    if (e == cudaSuccess && st->order_field < 0)
        e = cudaMalloc(&order, m * sizeof(int32_t));
    /* zeroed as alloc_arrays does: no field ever holds leftover device memory */
    if (e == cudaSuccess)
        e = cudaMemset(slab, 0, (size_t)slots * m * sizeof(real));
    for (int q = 0; q < slots && e == cudaSuccess && keep > 0; ++q) /* each array's slot, in place */
        e = cudaMemcpyAsync(slab + (size_t)q * m, st->field_slab + (size_t)q * old_m, keep * sizeof(real),
                            cudaMemcpyDeviceToDevice);
    if (e == cudaSuccess && keep > 0)
        e = cudaMemcpy(id, st->id, keep * sizeof(int32_t), cudaMemcpyDeviceToDevice);
    if (e == cudaSuccess && keep > 0)
        e = cudaMemcpy(type, st->type, keep, cudaMemcpyDeviceToDevice);
    if (e == cudaSuccess && keep > 0)
        e = cudaMemcpy(tag, st->tag, keep, cudaMemcpyDeviceToDevice);
    if (e != cudaSuccess) {
        cudaFree(slab);
        cudaFree(id);
        cudaFree(type);
        cudaFree(tag);
        cudaFree(cell);
        cudaFree(order);
        return gpu_fail(err, "growing the particles' arrays (cudaMalloc, cudaMemcpy)", e);
    }
    for (int k = 0; k < st->nfields; ++k)
        st->f[k] = slab + (size_t)(st->f[k] - st->field_slab) / old_m * m;
    for (int q = 0; q < st->npad; ++q)
        st->pad[q] = slab + (size_t)(st->pad[q] - st->field_slab) / old_m * m;
    cudaFree(st->field_slab);
    cudaFree(st->id);
    cudaFree(st->type);
    cudaFree(st->tag);
    cudaFree(st->cell);
    cudaFree(st->order);
    st->field_slab = slab;
    st->id = id;
    st->type = type;
    st->tag = tag;
    st->cell = cell;
    st->order = order;
    st->cap = m;
    return SL_OK;
}

/* Device -> host: every real field, and the ids, types and tags. */
static int copy_particles_to_host(cuda_sim *st, particles *p, sl_err *err)
{
    for (int k = 0; k < p->nfields; ++k)
        GPU_TRY(cudaMemcpy(p->f[k], st->f[k], p->n * sizeof(real), cudaMemcpyDeviceToHost), err);
    GPU_TRY(cudaMemcpy(p->id, st->id, p->n * sizeof(int32_t), cudaMemcpyDeviceToHost), err);
    GPU_TRY(cudaMemcpy(p->type, st->type, p->n, cudaMemcpyDeviceToHost), err);
    GPU_TRY(cudaMemcpy(p->tag, st->tag, p->n, cudaMemcpyDeviceToHost), err);
    return SL_OK;
}

/* Device -> host: the particles and the neighbour grid (for host code that walks neighbours). */
static int copy_to_host(sim *s, sl_err *err)
{
    cuda_sim *st = state_of(s);
    if (!st || st->host_current)
        return SL_OK;
    particles *p = &s->p;
    SL_TRY(copy_particles_to_host(st, p, err));
    int rc = nbr_grid_reserve(&s->g, p->n, err);
    if (rc)
        return rc;
    GPU_TRY(cudaMemcpy(s->g.cell_start, st->cell_start, ((size_t)s->g.ncells + 2) * sizeof(int32_t),
                       cudaMemcpyDeviceToHost), err);
    GPU_TRY(cudaMemcpy(s->g.cell, st->cell, p->n * sizeof(int32_t), cudaMemcpyDeviceToHost), err);
    s->g.view.cell = s->g.cell;
    st->host_current = 1;
    return SL_OK;
}

void cuda_to_host(sim *s)
{
    sl_err err;
    if (copy_to_host(s, &err))
        cuda_remember_error(s, &err);
}

void cuda_release(sim *s)
{
    cuda_sim *st = state_of(s);
    if (!st)
        return;
    free_arrays(st);
    cudaFree(st->cell_start);
    cudaFree(st->counters);
    cudaFree(st->mg_longest);
    cudaFree(st->cg_scalar);
    if (st->mg_graph)
        cudaGraphExecDestroy(st->mg_graph);
    if (st->mg_stream)
        cudaStreamDestroy(st->mg_stream);
    free(st->mg_ops);
    free(st->mg_captured);
    cudaFreeHost(st->mg_counts);
    cudaFree(st->mg_ops_dev);
    gpu_scratch_free(&st->scratch);
    gpu_scratch_free(&st->mg_select);
    gpu_scratch_free(&st->halo_stage);
    gpu_scratch_free(&st->halo_index);
    gpu_scratch_free(&st->halo_routes);
    gpu_scratch_free(&st->probe_stage);
    cudaFreeHost(st->probe_host);
    cudaEventDestroy(st->ev_start);
    cudaEventDestroy(st->ev_stop);
    free(st);
    s->backend_data = NULL;
}

int cuda_buffer_reserve(backend_buffer *buf, size_t bytes, const char *what, sl_err *err)
{
    if (bytes <= buf->cap)
        return SL_OK;
    cudaFree(buf->ptr); /* the contents are not kept: every user writes the buffer whole */
    buf->ptr = NULL;
    buf->cap = 0;
    cudaError_t e = cudaMalloc(&buf->ptr, bytes);
    if (e != cudaSuccess) {
        buf->ptr = NULL;
        return gpu_fail(err, what, e);
    }
    buf->cap = bytes;
    return SL_OK;
}

/* backend.upload: a copy on the default stream, so the passes launched after it read it (the copy
 * from pageable memory has left the host buffer when it returns, so the host may change it). */
const void *cuda_upload(sim *s, backend_buffer *buf, const void *host, size_t bytes)
{
    sl_err err;
    cudaError_t e;
    if (cuda_buffer_reserve(buf, bytes, "cudaMalloc (pass data)", &err)) {
        cuda_remember_error(s, &err);
        return NULL;
    }
    if (bytes && (e = cudaMemcpy(buf->ptr, host, bytes, cudaMemcpyHostToDevice)) != cudaSuccess) {
        gpu_fail(&err, "cudaMemcpy (pass data)", e);
        cuda_remember_error(s, &err);
        return NULL;
    }
    return buf->ptr;
}

void cuda_buffer_free(sim *s, backend_buffer *buf)
{
    (void)s;
    cudaFree(buf->ptr);
    buf->ptr = NULL;
    buf->cap = 0;
}
