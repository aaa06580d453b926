/* viz_interop.cu: the viewer's vertex buffer filled by a kernel from device particle arrays: the GL
 * buffer is registered with CUDA once, mapped per frame, written, unmapped (no copy through the
 * host). The value range for the colour map is reduced in the same kernel. */
#include "viz_interop.h"
#include "viz/palette.h"

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

struct gpu_viz_buffer {
    cudaGraphicsResource_t res;
    unsigned int *range; /* device: min and max as order-preserving unsigned keys */
};

struct vertex {
    float x, y, z, value, type;
};
static_assert(sizeof(vertex) == 5 * sizeof(float), "vertex matches viz_vertex (src/viz/render.h)");

/* Floats as unsigned keys that sort like the floats (for atomicMin/atomicMax). */
__device__ static inline unsigned int float_key(float f)
{
    unsigned int u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__host__ static inline float key_float(unsigned int k)
{
    unsigned int u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* range[0..1]: fluid min/max keys; range[2..3]: over all particles. */
__global__ static void fill_kernel(vertex *out, gpu_viz_source src, unsigned int *range)
{
    __shared__ unsigned int smin[2], smax[2];
    if (threadIdx.x < 2) {
        smin[threadIdx.x] = 0xffffffffu;
        smax[threadIdx.x] = 0;
    }
    __syncthreads();
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < src.n) {
        float v;
        unsigned char t = src.type ? src.type[i] : 0;
        if (src.mode == GPU_VIZ_TYPE) {
            v = (float)t;
        } else if (src.mode == GPU_VIZ_MAGNITUDE) {
            float a = (float)src.val[i], b = (float)src.val_y[i], c = src.val_z ? (float)src.val_z[i] : 0.0f;
            /* rounded like the host's (a a + b b) + c c: no contraction into FMAs, so both paths agree */
            v = sqrtf(__fadd_rn(__fadd_rn(__fmul_rn(a, a), __fmul_rn(b, b)), __fmul_rn(c, c)));
        } else {
            v = (float)src.val[i];
        }
        vertex o = {(float)src.x[i], (float)src.y[i], src.z ? (float)src.z[i] : 0.0f, v,
                    viz_vertex_tag(t, src.body ? src.body[i] : R(-1.0), src.nfloat)};
        out[i] = o;
        if (v == v) { /* NaN stays out of the range */
            unsigned int k = float_key(v);
            atomicMin(&smin[1], k);
            atomicMax(&smax[1], k);
            if (t == 0) {
                atomicMin(&smin[0], k);
                atomicMax(&smax[0], k);
            }
        }
    }
    __syncthreads();
    if (threadIdx.x < 2) {
        atomicMin(&range[2 * threadIdx.x], smin[threadIdx.x]);
        atomicMax(&range[2 * threadIdx.x + 1], smax[threadIdx.x]);
    }
}

static int cuda_fail(sl_err *err, const char *what, cudaError_t e)
{
    return sl_fail(err, SL_ERR_RUNTIME, "viewer: CUDA-OpenGL interop: %s: %s", what, cudaGetErrorString(e));
}

/* Runs the kernel into dst; range_dev has 4 keys of scratch. */
static int launch(void *dst, const gpu_viz_source *src, unsigned int *range_dev, float range[2], sl_err *err)
{
    const unsigned int init[4] = {0xffffffffu, 0u, 0xffffffffu, 0u};
    cudaError_t e = cudaMemcpy(range_dev, init, sizeof init, cudaMemcpyHostToDevice);
    if (e != cudaSuccess)
        return cuda_fail(err, "resetting the range", e);
    if (src->n > 0) {
        unsigned int threads = 256;
        unsigned int blocks = (unsigned int)((src->n + threads - 1) / threads);
        fill_kernel<<<blocks, threads>>>((vertex *)dst, *src, range_dev);
        e = cudaGetLastError();
        if (e != cudaSuccess)
            return cuda_fail(err, "launching the vertex kernel", e);
    }
    unsigned int keys[4];
    e = cudaMemcpy(keys, range_dev, sizeof keys, cudaMemcpyDeviceToHost); /* waits for the kernel */
    if (e != cudaSuccess)
        return cuda_fail(err, "the vertex kernel", e);
    int k = keys[0] <= keys[1] ? 0 : 2; /* no fluid: the range over all particles */
    if (keys[k] > keys[k + 1]) {
        range[0] = range[1] = 0;
    } else {
        range[0] = key_float(keys[k]);
        range[1] = key_float(keys[k + 1]);
    }
    return SL_OK;
}

extern "C" int gpu_viz_register(unsigned int gl_buffer, gpu_viz_buffer **out, sl_err *err)
{
    *out = NULL;
    gpu_viz_buffer *b = (gpu_viz_buffer *)calloc(1, sizeof *b);
    if (!b)
        return sl_fail(err, SL_ERR_RUNTIME, "viewer: out of memory");
    cudaError_t e = cudaGraphicsGLRegisterBuffer(&b->res, gl_buffer, cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) {
        free(b);
        return cuda_fail(err, "registering the vertex buffer (is the OpenGL context on the CUDA device?)", e);
    }
    e = cudaMalloc((void **)&b->range, 4 * sizeof(unsigned int));
    if (e != cudaSuccess) {
        cudaGraphicsUnregisterResource(b->res);
        free(b);
        return cuda_fail(err, "allocating", e);
    }
    *out = b;
    return SL_OK;
}

extern "C" int gpu_viz_fill(gpu_viz_buffer *b, const gpu_viz_source *src, float range[2], sl_err *err)
{
    cudaError_t e = cudaGraphicsMapResources(1, &b->res, 0);
    if (e != cudaSuccess)
        return cuda_fail(err, "mapping the vertex buffer", e);
    void *ptr = NULL;
    size_t bytes = 0;
    e = cudaGraphicsResourceGetMappedPointer(&ptr, &bytes, b->res);
    int rc;
    if (e != cudaSuccess)
        rc = cuda_fail(err, "the mapped vertex buffer's address", e);
    else if (bytes < src->n * sizeof(vertex))
        rc = sl_fail(err, SL_ERR_RUNTIME, "viewer: CUDA-OpenGL interop: the vertex buffer holds %zu bytes, %zu needed",
                     bytes, src->n * sizeof(vertex));
    else
        rc = launch(ptr, src, b->range, range, err);
    e = cudaGraphicsUnmapResources(1, &b->res, 0);
    if (rc == SL_OK && e != cudaSuccess)
        rc = cuda_fail(err, "unmapping the vertex buffer", e);
    return rc;
}

extern "C" int gpu_viz_write(void *dst, const gpu_viz_source *src, float range[2], sl_err *err)
{
    unsigned int *r = NULL;
    cudaError_t e = cudaMalloc((void **)&r, 4 * sizeof(unsigned int));
    if (e != cudaSuccess)
        return cuda_fail(err, "allocating", e);
    int rc = launch(dst, src, r, range, err);
    cudaFree(r);
    return rc;
}

extern "C" void gpu_viz_unregister(gpu_viz_buffer *b)
{
    if (!b)
        return;
    cudaGraphicsUnregisterResource(b->res);
    cudaFree(b->range);
    free(b);
}

extern "C" int gpu_viz_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess)
        return 0;
    return n;
}
