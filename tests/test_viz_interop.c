/* test_viz_interop.c: the viewer's CUDA-OpenGL path (label gpu): an offscreen EGL context, the vertex
 * buffer registered with CUDA and written by the kernel from device arrays; checked against the host
 * path vertex by vertex and pixel by pixel, and timed against it. Exits 77 (skipped) without a CUDA
 * device. */
#include "gpu/viz_interop.h"
#include "base/particles.h"
#include "base/scene.h"
#include "viz/camera.h"
#include "viz/context.h"
#include "viz/fill.h"
#include "viz/gl.h"
#include "viz/render.h"

#include <cuda_runtime_api.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SKIP 77

static int fails = 0;
#define CHECK(cond, ...)                                      \
    do {                                                      \
        if (!(cond)) {                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                     \
            fprintf(stderr, "\n");                            \
            fails++;                                          \
        }                                                     \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A block of particles: fluid on a jittered lattice, a wall row under it. */
static void make_particles(particles *p, size_t n)
{
    sl_err err;
    if (particles_alloc(p, n, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    size_t side = (size_t)ceil(cbrt((double)n));
    for (size_t i = 0; i < n; ++i) {
        double j = (double)((i * 2654435761u) % 1000) / 1000.0;
        p->f[PF_X][i] = (real)((double)(i % side) / side + 0.001 * j);
        p->f[PF_Y][i] = (real)((double)((i / side) % side) / side);
        p->f[PF_Z][i] = (real)((double)(i / (side * side)) / side);
        p->f[PF_VX][i] = (real)(0.5 - j);
        p->f[PF_VY][i] = (real)(0.1 * j);
        p->f[PF_VZ][i] = (real)(-0.3 * j);
        p->f[PF_P][i] = (real)(1000 * p->f[PF_Z][i] + 10 * j);
        p->f[PF_RHO][i] = (real)(1000 + j);
        p->type[i] = i % 10 == 0 ? PT_WALL : PT_FLUID;
    }
}

typedef struct dev_arrays {
    real *f[PF_CORE];
    unsigned char *type;
} dev_arrays;

static int upload(dev_arrays *d, const particles *p)
{
    for (int k = 0; k < PF_CORE; ++k) {
        if (cudaMalloc((void **)&d->f[k], p->n * sizeof(real)) != cudaSuccess)
            return 0;
        cudaMemcpy(d->f[k], p->f[k], p->n * sizeof(real), cudaMemcpyHostToDevice);
    }
    if (cudaMalloc((void **)&d->type, p->n) != cudaSuccess)
        return 0;
    cudaMemcpy(d->type, p->type, p->n, cudaMemcpyHostToDevice);
    return 1;
}

static void dev_free(dev_arrays *d)
{
    for (int k = 0; k < PF_CORE; ++k)
        cudaFree(d->f[k]);
    cudaFree(d->type);
}

static gpu_viz_source source(const dev_arrays *d, size_t n, int field)
{
    gpu_viz_source s = {.x = d->f[PF_X], .y = d->f[PF_Y], .z = d->f[PF_Z], .type = d->type, .n = n};
    if (field == VIZ_FIELD_VELOCITY) {
        s.mode = GPU_VIZ_MAGNITUDE;
        s.val = d->f[PF_VX], s.val_y = d->f[PF_VY], s.val_z = d->f[PF_VZ];
    } else if (field == VIZ_FIELD_TYPE) {
        s.mode = GPU_VIZ_TYPE;
    } else {
        s.mode = GPU_VIZ_SCALAR;
        s.val = d->f[field == VIZ_FIELD_PRESSURE ? PF_P : PF_RHO];
    }
    return s;
}

static void compare(const char *what, const viz_vertex *got, const viz_vertex *want, size_t n, const float gr[2],
                    const float wr[2])
{
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        float tol = 1e-6f * fmaxf(1.0f, fabsf(want[i].value));
        if (got[i].x != want[i].x || got[i].y != want[i].y || got[i].z != want[i].z || got[i].type != want[i].type ||
            fabsf(got[i].value - want[i].value) > tol) {
            if (bad++ == 0)
                fprintf(stderr, "  %s: vertex %zu: got (%g %g %g %g %g), expected (%g %g %g %g %g)\n", what, i,
                        got[i].x, got[i].y, got[i].z, got[i].value, got[i].type, want[i].x, want[i].y, want[i].z,
                        want[i].value, want[i].type);
        }
    }
    CHECK(bad == 0, "%s: %zu of %zu vertices differ from the host path", what, bad, n);
    CHECK(fabsf(gr[0] - wr[0]) <= 1e-6f * fmaxf(1.0f, fabsf(wr[0])) &&
              fabsf(gr[1] - wr[1]) <= 1e-6f * fmaxf(1.0f, fabsf(wr[1])),
          "%s: range [%g, %g], expected [%g, %g]", what, gr[0], gr[1], wr[0], wr[1]);
}

static void render(const viz_renderer *r, viz_target *t, unsigned char *rgb, float lo, float hi)
{
    viz_camera cam;
    double bmin[3] = {0, 0, 0}, bmax[3] = {1, 1, 1};
    viz_camera_init(&cam, 3, 0, bmin, bmax, -30, 25);
    viz_style st;
    memset(&st, 0, sizeof st);
    viz_camera_matrices(&cam, (double)t->w / t->h, st.view, st.proj);
    st.radius = 0.01f;
    st.vmin = lo;
    st.vmax = hi;
    st.walls = VIZ_WALLS_TRANSLUCENT;
    st.background[0] = st.background[1] = st.background[2] = 1;
    viz_renderer_draw(r, t, &st);
    viz_target_read_rgb(t, rgb);
}

int main(void)
{
    int ndev = gpu_viz_device_count();
    if (ndev == 0) {
        printf("SKIP: no CUDA device (the CUDA-OpenGL interop test needs one)\n");
        return SKIP;
    }
    sl_err err;
    viz_context ctx;
    if (viz_context_offscreen(&ctx, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        return 1;
    }
    printf("context: %s, %s\n", ctx.how, ctx.renderer);
    viz_renderer r;
    if (viz_renderer_init(&r, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        return 1;
    }

    /* 1. vertices and ranges, every field, against the host path */
    const size_t n = 20000;
    particles p;
    make_particles(&p, n);
    dev_arrays d;
    memset(&d, 0, sizeof d);
    CHECK(upload(&d, &p), "cannot copy %zu particles to the device", n);
    CHECK(viz_renderer_reserve(&r, n, &err) == SL_OK, "%s", err.msg);
    gpu_viz_buffer *b = NULL;
    if (gpu_viz_register(r.vbo, &b, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        return 1;
    }
    viz_vertex *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    for (int field = 0; field < VIZ_NFIELDS; ++field) {
        float wr[2], gr[2];
        viz_fill_vertices(&p, field, want, wr);
        gpu_viz_source src = source(&d, n, field);
        CHECK(gpu_viz_fill(b, &src, gr, &err) == SL_OK, "%s", err.msg);
        glBindBuffer(GL_ARRAY_BUFFER, r.vbo);
        glGetBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(n * sizeof *got), got);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        compare(scene_viz_field_name(field), got, want, n, gr, wr);
        /* the same kernel into a plain device buffer */
        void *plain = NULL;
        cudaMalloc(&plain, n * sizeof *got);
        CHECK(gpu_viz_write(plain, &src, gr, &err) == SL_OK, "%s", err.msg);
        cudaMemcpy(got, plain, n * sizeof *got, cudaMemcpyDeviceToHost);
        cudaFree(plain);
        compare("plain device buffer", got, want, n, gr, wr);
    }

    /* 2. the same picture from both paths */
    viz_target t;
    memset(&t, 0, sizeof t);
    CHECK(viz_target_resize(&t, 320, 240, &err) == SL_OK, "%s", err.msg);
    unsigned char *img_gpu = malloc(320 * 240 * 3), *img_host = malloc(320 * 240 * 3);
    float range[2];
    gpu_viz_source src = source(&d, n, VIZ_FIELD_VELOCITY);
    gpu_viz_fill(b, &src, range, &err);
    render(&r, &t, img_gpu, range[0], range[1]);
    viz_fill_vertices(&p, VIZ_FIELD_VELOCITY, want, range);
    viz_renderer_upload(&r, want, n);
    render(&r, &t, img_host, range[0], range[1]);
    size_t differ = 0, ink = 0;
    for (size_t i = 0; i < 320 * 240 * 3; ++i) {
        differ += img_gpu[i] != img_host[i];
        ink += img_host[i] < 250;
    }
    CHECK(differ <= 50, "%zu bytes of the image differ between the GPU and the host path", differ);
    CHECK(ink > 1000, "the image is empty (%zu dark bytes)", ink);
    CHECK(viz_gl_check("the test", &err) == SL_OK, "%s", err.msg);
    gpu_viz_unregister(b);
    dev_free(&d);
    particles_free(&p);

    /* 3. time both paths on 2 million particles (a frame's vertex update) */
    const size_t big = 2000000;
    make_particles(&p, big);
    memset(&d, 0, sizeof d);
    CHECK(upload(&d, &p), "cannot copy %zu particles to the device", big);
    CHECK(viz_renderer_reserve(&r, big, &err) == SL_OK, "%s", err.msg);
    CHECK(gpu_viz_register(r.vbo, &b, &err) == SL_OK, "%s", err.msg);
    viz_vertex *host = malloc(big * sizeof *host);
    src = source(&d, big, VIZ_FIELD_VELOCITY);
    const int reps = 20;
    gpu_viz_fill(b, &src, range, &err);
    glFinish();
    double t0 = now();
    for (int k = 0; k < reps; ++k)
        gpu_viz_fill(b, &src, range, &err);
    glFinish();
    double t_gpu = (now() - t0) / reps;
    t0 = now();
    for (int k = 0; k < reps; ++k) {
        /* what the host path costs on the CUDA backend: device -> host, vertices, upload */
        for (int f = 0; f < PF_CORE; ++f)
            cudaMemcpy(p.f[f], d.f[f], big * sizeof(real), cudaMemcpyDeviceToHost);
        viz_fill_vertices(&p, VIZ_FIELD_VELOCITY, host, range);
        viz_renderer_upload(&r, host, big);
    }
    glFinish();
    double t_host = (now() - t0) / reps;
    printf("vertex update of %zu particles: %.3f ms through CUDA-OpenGL interop, %.3f ms through the host\n", big,
           1e3 * t_gpu, 1e3 * t_host);
    gpu_viz_unregister(b);
    dev_free(&d);
    particles_free(&p);
    free(host);
    free(want);
    free(got);
    free(img_gpu);
    free(img_host);
    viz_target_free(&t);
    viz_renderer_free(&r);
    viz_context_destroy(&ctx);
    printf("%d failure(s)\n", fails);
    return fails ? 1 : 0;
}
