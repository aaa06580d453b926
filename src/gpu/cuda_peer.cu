/* cuda_peer.cu: the MPI halo's exchanges GPU to GPU between the ranks of one host (backend.halo's
 * peer hooks, parallel/mpi_transfer.c): the exchange buffers are device memory from cudaMalloc,
 * which CUDA IPC lets another process map; a rank copies its neighbours' bands straight from their
 * buffers into its own, over NVLink or PCIe, instead of down to the host, through MPI's shared
 * memory and up again. */
#include "cuda_state.h"

#include "gpu_check.h"

#include <string.h>

static_assert(sizeof(cudaIpcMemHandle_t) <= sizeof(peer_handle), "a CUDA IPC handle fits a peer_handle");

int cuda_peer_buffer(sim *s, backend_buffer *buf, size_t bytes)
{
    (void)s;
    cudaFree(buf->ptr); /* the contents are not kept; an exported buffer's peers open the new one */
    buf->ptr = NULL;
    buf->cap = 0;
    if (cudaMalloc(&buf->ptr, bytes) != cudaSuccess) {
        cudaGetLastError(); /* not sticky: the state stays usable */
        buf->ptr = NULL;
        return -1;
    }
    buf->cap = bytes;
    return 0;
}

void cuda_peer_buffer_free(sim *s, backend_buffer *buf)
{
    (void)s;
    cudaFree(buf->ptr);
    buf->ptr = NULL;
    buf->cap = 0;
}

int cuda_peer_export(sim *s, const backend_buffer *buf, peer_handle *h, sl_err *err)
{
    (void)s;
    cudaIpcMemHandle_t handle;
    GPU_TRY(cudaIpcGetMemHandle(&handle, buf->ptr), err);
    memset(h, 0, sizeof *h);
    memcpy(h->bytes, &handle, sizeof handle);
    return SL_OK;
}

int cuda_peer_open(sim *s, const peer_handle *h, void **ptr, sl_err *err)
{
    (void)s;
    cudaIpcMemHandle_t handle;
    memcpy(&handle, h->bytes, sizeof handle);
    *ptr = NULL;
    /* another GPU's memory: copies from it need peer access between the two devices */
    GPU_TRY(cudaIpcOpenMemHandle(ptr, handle, cudaIpcMemLazyEnablePeerAccess), err);
    return SL_OK;
}

void cuda_peer_close(sim *s, void *ptr)
{
    (void)s;
    if (ptr)
        cudaIpcCloseMemHandle(ptr);
}

/* On the default stream, as the hooks' kernels: the copy starts after the gather that filled the
 * peer's buffer has been waited for (peer_wait on that rank, then the MPI message that says so). */
int cuda_peer_copy(sim *s, void *dst, const void *src, size_t bytes, sl_err *err)
{
    (void)s;
    if (bytes)
        GPU_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault), err);
    return SL_OK;
}

int cuda_peer_wait(sim *s, sl_err *err)
{
    (void)s;
    GPU_TRY(cudaDeviceSynchronize(), err);
    return SL_OK;
}
