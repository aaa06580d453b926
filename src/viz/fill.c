/* fill.c: the two ways into the vertex buffer. Vertices are in the particles' current (cell) order:
 * the renderer does not care about order, and the GPU path cannot reorder cheaply. */
#include "fill.h"

#include "base/scene.h"
#include "core/floating.h"
#include "palette.h"
#ifdef SLUICE_HAVE_CUDA
#include "gpu/viz_interop.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void viz_fill_vertices(const particles *p, int field, viz_vertex *out, float range[2])
{
    viz_fill_vertices_bodies(p, field, NULL, 0, out, range);
}

void viz_fill_vertices_bodies(const particles *p, int field, const real *body, int nfloat, viz_vertex *out,
                              float range[2])
{
    float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}; /* fluid, all */
    const real *x = p->f[PF_X], *y = p->f[PF_Y], *z = p->f[PF_Z];
    for (size_t i = 0; i < p->n; ++i) {
        float v;
        switch (field) {
        case VIZ_FIELD_PRESSURE: v = (float)p->f[PF_P][i]; break;
        case VIZ_FIELD_DENSITY: v = (float)p->f[PF_RHO][i]; break;
        case VIZ_FIELD_TYPE: v = (float)p->type[i]; break;
        default: {
            float a = (float)p->f[PF_VX][i], b = (float)p->f[PF_VY][i], c = (float)p->f[PF_VZ][i];
            v = sqrtf(a * a + b * b + c * c);
        }
        }
        out[i] = (viz_vertex){(float)x[i], (float)y[i], (float)z[i], v,
                              viz_vertex_tag(p->type[i], body ? body[i] : R(-1.0), nfloat)};
        if (v == v) {
            int k = p->type[i] == PT_FLUID ? 0 : 1;
            for (int j = k; j < 2; ++j) { /* every value counts for "all", fluid ones for "fluid" too */
                lo[j] = fminf(lo[j], v);
                hi[j] = fmaxf(hi[j], v);
            }
        }
    }
    int k = lo[0] <= hi[0] ? 0 : 1;
    range[0] = lo[k] <= hi[k] ? lo[k] : 0;
    range[1] = lo[k] <= hi[k] ? hi[k] : 0;
}

#ifdef SLUICE_HAVE_CUDA
/* The GPU path; returns 0 (and turns itself off, with a note) when it cannot be used. */
static int fill_gpu(viz_filler *f, viz_renderer *r, sim *s, int field, float range[2])
{
    backend_device_view dv;
    if (f->gpu_off || !s->be->device_view || !s->be->device_view(s, &dv))
        return 0;
    sl_err e;
    if (f->gpu && (f->gpu_vbo != r->vbo || f->gpu_capacity != r->capacity)) {
        gpu_viz_unregister(f->gpu);
        f->gpu = NULL;
    }
    if (!f->gpu) {
        gpu_viz_buffer *b;
        if (gpu_viz_register(r->vbo, &b, &e) != SL_OK) {
            f->gpu_off = 1;
            snprintf(f->note, sizeof f->note, "%.900s; the viewer copies through the host instead", e.msg);
            return 0;
        }
        f->gpu = b;
        f->gpu_vbo = r->vbo;
        f->gpu_capacity = r->capacity;
    }
    int nfloat = s->floating ? s->floating->n : 0;
    gpu_viz_source src = {.x = dv.field[PF_X], .y = dv.field[PF_Y], .z = s->sc->dim == 3 ? dv.field[PF_Z] : NULL,
                          .type = dv.type, .n = dv.n,
                          .body = nfloat > 0 && s->args.motion.body >= 0 ? dv.field[s->args.motion.body] : NULL,
                          .nfloat = nfloat};
    switch (field) {
    case VIZ_FIELD_PRESSURE: src.mode = GPU_VIZ_SCALAR, src.val = dv.field[PF_P]; break;
    case VIZ_FIELD_DENSITY: src.mode = GPU_VIZ_SCALAR, src.val = dv.field[PF_RHO]; break;
    case VIZ_FIELD_TYPE: src.mode = GPU_VIZ_TYPE; break;
    default:
        src.mode = GPU_VIZ_MAGNITUDE;
        src.val = dv.field[PF_VX];
        src.val_y = dv.field[PF_VY];
        src.val_z = s->sc->dim == 3 ? dv.field[PF_VZ] : NULL;
    }
    if (gpu_viz_fill(f->gpu, &src, range, &e) != SL_OK) {
        f->gpu_off = 1;
        snprintf(f->note, sizeof f->note, "%.900s; the viewer copies through the host instead", e.msg);
        return 0;
    }
    return 1;
}
#endif

int viz_fill(viz_filler *f, viz_renderer *r, sim *s, int field, float range[2], sl_err *err)
{
    size_t n = s->p.n;
    SL_TRY(viz_renderer_reserve(r, n, err));
#ifdef SLUICE_HAVE_CUDA
    if (fill_gpu(f, r, s, field, range)) {
        f->used_gpu = 1;
        return SL_OK;
    }
#endif
    f->used_gpu = 0;
    if (n > f->cap) {
        viz_vertex *h = realloc(f->host, n * sizeof *h);
        if (!h)
            return sl_fail(err, SL_ERR_RUNTIME, "viewer: out of memory for %zu vertices", n);
        f->host = h;
        f->cap = n;
    }
    sim_sync_host(s);
    int nfloat = s->floating ? s->floating->n : 0;
    const real *body = nfloat > 0 && s->args.motion.body >= 0 ? s->p.f[s->args.motion.body] : NULL;
    viz_fill_vertices_bodies(&s->p, field, body, nfloat, f->host, range);
    viz_renderer_upload(r, f->host, n);
    return SL_OK;
}

void viz_filler_free(viz_filler *f)
{
#ifdef SLUICE_HAVE_CUDA
    if (f->gpu)
        gpu_viz_unregister(f->gpu);
#endif
    free(f->host);
    memset(f, 0, sizeof *f);
}
