/* gpu_scratch.cu: the growable device scratch buffer. */
#include "gpu_scratch.h"

#include "gpu_check.h"

extern "C" int gpu_scratch_reserve(gpu_scratch *s, size_t bytes, sl_err *err)
{
    if (bytes <= s->bytes && s->ptr)
        return SL_OK;
    size_t want = s->bytes + s->bytes / 2;
    if (want < bytes)
        want = bytes;
    want = gpu_align(want ? want : 1);
    gpu_scratch_free(s);
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, want);
    if (e != cudaSuccess) {
        char what[96];
        snprintf(what, sizeof what, "cudaMalloc of %zu bytes of scratch", want);
        return gpu_fail(err, what, e);
    }
    s->ptr = p;
    s->bytes = want;
    return SL_OK;
}

extern "C" void gpu_scratch_free(gpu_scratch *s)
{
    if (s->ptr)
        cudaFree(s->ptr); /* an error here is a sticky error from earlier work; it is reported there */
    s->ptr = NULL;
    s->bytes = 0;
}
