/* cuda_bodies.cu: the CUDA backend's body_sums: each floating body's force and moment summed over its
 * particles on the device (physics/rigid_body.h: rigid_body_particle_sums), deterministically: a
 * block per (chunk of BODY_CHUNK particles, body) sums its chunk by a fixed tree into partials, and a
 * second kernel adds the partials of each body in chunk order. Only 6 doubles per body come back. */
#include "cuda_state.h"

#include "gpu_check.h"

enum { BODY_THREADS = 256, BODY_CHUNK = 4096 };

struct body_inputs {
    const real *x, *y, *z, *ax, *ay, *az, *body;
    real mass;
    size_t n;
};

__global__ void body_partials(body_inputs in, double *partial)
{
    __shared__ double sh[6][BODY_THREADS];
    int b = blockIdx.y, t = threadIdx.x;
    size_t lo = (size_t)blockIdx.x * BODY_CHUNK, hi = lo + BODY_CHUNK < in.n ? lo + BODY_CHUNK : in.n;
    double acc[6] = {0, 0, 0, 0, 0, 0}, u[6];
    for (size_t i = lo + t; i < hi; i += BODY_THREADS) {
        if (in.body[i] != (real)b)
            continue;
        rigid_body_particle_sums(in.mass, in.x[i], in.y[i], in.z ? in.z[i] : R(0.0), in.ax[i], in.ay[i],
                                 in.az ? in.az[i] : R(0.0), u);
        for (int k = 0; k < 6; ++k)
            acc[k] += u[k];
    }
    for (int k = 0; k < 6; ++k)
        sh[k][t] = acc[k];
    __syncthreads();
    for (int w = BODY_THREADS / 2; w > 0; w >>= 1) {
        if (t < w)
            for (int k = 0; k < 6; ++k)
                sh[k][t] += sh[k][t + w];
        __syncthreads();
    }
    if (t < 6)
        partial[((size_t)b * gridDim.x + blockIdx.x) * 6 + t] = sh[t][0];
}

__global__ void body_totals(const double *partial, int nchunks, int nbodies, double *out)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x; /* body * 6 + component */
    if (j >= nbodies * 6)
        return;
    int b = j / 6, k = j % 6;
    double s = 0;
    for (int c = 0; c < nchunks; ++c)
        s += partial[((size_t)b * nchunks + c) * 6 + k];
    out[j] = s;
}

static int sums(sim *s, int body, int nbodies, const int acc[3], double *out, sl_err *err)
{
    cuda_sim *st = state_of(s);
    size_t n = s->g.n_inside;
    int nchunks = (int)((n + BODY_CHUNK - 1) / BODY_CHUNK);
    if (nchunks == 0) {
        for (int j = 0; j < 6 * nbodies; ++j)
            out[j] = 0;
        return SL_OK;
    }
    size_t partial_bytes = (size_t)nchunks * nbodies * 6 * sizeof(double), total_bytes = (size_t)nbodies * 6 * sizeof(double);
    SL_TRY(gpu_scratch_reserve(&st->scratch, partial_bytes + total_bytes, err));
    double *partial = (double *)st->scratch.ptr, *total = partial + (size_t)nchunks * nbodies * 6;
    int dim = s->sc->dim;
    body_inputs in = {st->f[PF_X], st->f[PF_Y], dim == 3 ? st->f[PF_Z] : NULL, st->f[acc[0]], st->f[acc[1]],
                      acc[2] >= 0 ? st->f[acc[2]] : NULL, st->f[body], s->P.mass, n};
    body_partials<<<dim3((unsigned)nchunks, (unsigned)nbodies), BODY_THREADS>>>(in, partial);
    GPU_LAUNCHED("body_partials", err);
    body_totals<<<(nbodies * 6 + 127) / 128, 128>>>(partial, nchunks, nbodies, total);
    GPU_LAUNCHED("body_totals", err);
    GPU_TRY(cudaMemcpy(out, total, total_bytes, cudaMemcpyDeviceToHost), err);
    return SL_OK;
}

int cuda_body_sums(sim *s, int body, int nbodies, const int acc[3], double *out)
{
    sl_err err;
    cuda_timer_start(s);
    int rc = sums(s, body, nbodies, acc, out, &err);
    cuda_timer_stop(s, "body_sums", NULL);
    if (rc)
        cuda_remember_error(s, &err);
    return rc;
}
