/* cuda_probes.cu: the CUDA backend's probe_particles. A probe row reads the particles near its
 * sensors and gauges, and the fluid's totals (front, count, energies) over every particle. Copying
 * every particle's core fields to the host for that took about 5 ms a row at 217k particles on an
 * H100 (docs/performance.md), half a semi-implicit MPS step; here the device picks the particles some
 * probe reaches (physics/probe_sample.h: probe_regions_hold), in particle order, and sums the totals
 * deterministically (a fixed tree per chunk, the chunks added in order, as cuda_bodies.cu), so only
 * those particles and four numbers cross to the host, where io/probes.c samples them as it samples
 * the host arrays. */
#include "cuda_state.h"

#include "gpu_check.h"
#include "gpu_scan.h"
#include "physics/probe_sample.h"

#include <math.h>

namespace {

enum { PROBE_THREADS = 256, PROBE_CHUNK = 4096, PROBE_FIELDS = 5 /* x, y, z, rho, p */ };

struct probe_inputs {
    const real *x, *y, *z, *vx, *vy, *vz, *rho, *p;
    const uint8_t *type;
    size_t n;
};

__global__ void probe_flag(const probe_inputs in, const probe_regions q, int32_t *flag)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < in.n)
        flag[i] = probe_regions_hold(&q, in.x[i], in.y[i], in.z ? in.z[i] : R(0.0));
}

/* The held particles' fields, field-major (x, y, z, rho, p, each `count` long), then their types. */
__global__ void probe_pack(const probe_inputs in, const int32_t *flag, const int32_t *at, size_t count, real *out)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= in.n || !flag[i])
        return;
    const size_t j = (size_t)at[i];
    out[j] = in.x[i];
    out[count + j] = in.y[i];
    out[2 * count + j] = in.z ? in.z[i] : R(0.0);
    out[3 * count + j] = in.rho[i];
    out[4 * count + j] = in.p[i];
    ((uint8_t *)(out + PROBE_FIELDS * count))[j] = in.type[i];
}

/* Each chunk's [fluid count, kinetic, potential energy, front]: sums and a maximum by a fixed tree. */
__global__ void probe_total_partials(const probe_inputs in, const probe_regions q, double *partial)
{
    __shared__ double sh[4][PROBE_THREADS];
    const int t = threadIdx.x;
    const size_t lo = (size_t)blockIdx.x * PROBE_CHUNK, hi = lo + PROBE_CHUNK < in.n ? lo + PROBE_CHUNK : in.n;
    double count = 0, ke = 0, pe = 0, front = -INFINITY;
    for (size_t i = lo + t; i < hi; i += PROBE_THREADS) {
        if (in.type[i] != PT_FLUID)
            continue;
        count += 1;
        const real x = in.x[i], y = in.y[i], z = in.z ? in.z[i] : R(0.0);
        const real xv[3] = {x, y, z};
        if (q.front_sign)
            probe_front_add(xv[q.front_axis], q.front_sign, q.dp, &front);
        if (q.energy)
            probe_energy_add(q.mass, in.vx[i], in.vy[i], in.vz ? in.vz[i] : R(0.0), x, y, z, q.g, &ke, &pe);
    }
    sh[0][t] = count;
    sh[1][t] = ke;
    sh[2][t] = pe;
    sh[3][t] = front;
    __syncthreads();
    for (int w = PROBE_THREADS / 2; w > 0; w >>= 1) {
        if (t < w) {
            for (int k = 0; k < 3; ++k)
                sh[k][t] += sh[k][t + w];
            sh[3][t] = fmax(sh[3][t], sh[3][t + w]);
        }
        __syncthreads();
    }
    if (t < 4)
        partial[(size_t)blockIdx.x * 4 + t] = sh[t][0];
}

__global__ void probe_total(const double *partial, int nchunks, double *out)
{
    const int k = threadIdx.x;
    if (k >= 4)
        return;
    double v = k == 3 ? -INFINITY : 0.0;
    for (int c = 0; c < nchunks; ++c)
        v = k == 3 ? fmax(v, partial[(size_t)c * 4 + k]) : v + partial[(size_t)c * 4 + k];
    out[k] = v;
}

int host_room(cuda_sim *st, size_t bytes, sl_err *err)
{
    if (bytes <= st->probe_host_bytes)
        return SL_OK;
    cudaFreeHost(st->probe_host);
    st->probe_host = NULL;
    st->probe_host_bytes = 0;
    bytes += bytes / 2;
    GPU_TRY(cudaMallocHost(&st->probe_host, bytes), err);
    st->probe_host_bytes = bytes;
    return SL_OK;
}

int pick(sim *s, const probe_regions *req, particles *out, probe_totals *tot, sl_err *err)
{
    cuda_sim *st = state_of(s);
    const size_t n = s->p.n;
    const int dim = s->sc->dim;
    const probe_inputs in = {st->f[PF_X], st->f[PF_Y], dim == 3 ? st->f[PF_Z] : NULL, st->f[PF_VX], st->f[PF_VY],
                             dim == 3 ? st->f[PF_VZ] : NULL, st->f[PF_RHO], st->f[PF_P], st->type, n};
    const int nchunks = (int)((n + PROBE_CHUNK - 1) / PROBE_CHUNK);
    /* scratch: flags, places, the scan's storage, the totals' partials and result */
    size_t scan_bytes = 0;
    SL_TRY(gpu_exclusive_scan_i32_tmp(NULL, NULL, n ? n : 1, st->scan, NULL, &scan_bytes, err));
    const size_t ints = ((n ? n : 1) * sizeof(int32_t) + 255) / 256 * 256, scan_room = (scan_bytes + 255) / 256 * 256;
    const size_t sums = ((size_t)nchunks + 1) * 4 * sizeof(double);
    SL_TRY(gpu_scratch_reserve(&st->scratch, 2 * ints + scan_room + sums, err));
    char *base = (char *)st->scratch.ptr; /* each part 256-byte aligned */
    int32_t *flag = (int32_t *)base, *at = (int32_t *)(base + ints);
    void *scan_tmp = base + 2 * ints;
    double *partial = (double *)(base + 2 * ints + scan_room), *total = partial + (size_t)nchunks * 4;
    size_t count = 0;
    if (n > 0) {
        const unsigned blocks = (unsigned)((n + PROBE_THREADS - 1) / PROBE_THREADS);
        probe_flag<<<blocks, PROBE_THREADS>>>(in, *req, flag);
        GPU_LAUNCHED("probe_flag", err);
        SL_TRY(gpu_exclusive_scan_i32_tmp(flag, at, n, st->scan, scan_tmp, &scan_bytes, err));
        int32_t last[2];
        GPU_TRY(cudaMemcpy(&last[0], at + n - 1, sizeof(int32_t), cudaMemcpyDeviceToHost), err);
        GPU_TRY(cudaMemcpy(&last[1], flag + n - 1, sizeof(int32_t), cudaMemcpyDeviceToHost), err);
        count = (size_t)last[0] + (size_t)last[1];
        probe_total_partials<<<(unsigned)nchunks, PROBE_THREADS>>>(in, *req, partial);
        GPU_LAUNCHED("probe_total_partials", err);
        probe_total<<<1, 32>>>(partial, nchunks, total);
        GPU_LAUNCHED("probe_total", err);
    }
    const size_t bytes = count * (PROBE_FIELDS * sizeof(real) + 1);
    if (count > 0) {
        SL_TRY(gpu_scratch_reserve(&st->probe_stage, bytes, err));
        const unsigned blocks = (unsigned)((n + PROBE_THREADS - 1) / PROBE_THREADS);
        probe_pack<<<blocks, PROBE_THREADS>>>(in, flag, at, count, (real *)st->probe_stage.ptr);
        GPU_LAUNCHED("probe_pack", err);
    }
    SL_TRY(host_room(st, bytes + 4 * sizeof(double), err));
    double *host_total = (double *)st->probe_host;
    real *host = (real *)(host_total + 4);
    if (n > 0)
        GPU_TRY(cudaMemcpy(host_total, total, 4 * sizeof(double), cudaMemcpyDeviceToHost), err);
    else
        host_total[0] = host_total[1] = host_total[2] = 0, host_total[3] = -INFINITY;
    if (count > 0)
        GPU_TRY(cudaMemcpy(host, st->probe_stage.ptr, bytes, cudaMemcpyDeviceToHost), err);
    memset(out, 0, sizeof *out);
    out->n = out->cap = count;
    out->nfields = PF_CORE;
    out->f[PF_X] = host;
    out->f[PF_Y] = host + count;
    out->f[PF_Z] = host + 2 * count;
    out->f[PF_RHO] = host + 3 * count;
    out->f[PF_P] = host + 4 * count;
    out->type = (uint8_t *)(host + PROBE_FIELDS * count);
    *tot = (probe_totals){host_total[3], host_total[0], host_total[1], host_total[2]};
    return SL_OK;
}

} // namespace

int cuda_probe_particles(sim *s, const probe_regions *req, particles *out, probe_totals *tot, int *picked, sl_err *err)
{
    *picked = 0;
    if (!state_of(s)) /* nothing on the device yet: the host arrays are the state */
        return SL_OK;
    cuda_timer_start(s);
    const int rc = pick(s, req, out, tot, err);
    cuda_timer_stop(s, "probes", NULL);
    *picked = rc == SL_OK;
    return rc;
}
