/* packing.c: particle packing before a run (numerics.packing): the relaxation loop over the backend's
 * passes, the fluid's shape from the geometry (host only: STL meshes), and the set-up and undoing
 * of the packing's own fields, grid and parameters. The method is in docs/methods.md. */
#include "packing.h"

#include "geometry/scene_build.h"
#include "geometry/shapes.h"
#include "physics/sph_kernel.h"
#include "progress.h"
#include "schemes/packing/packing_passes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the fluid's shape ---------------------------------------------------------------------------- */

int packing_shape_open(const scene *sc, packing_shape *ps, sl_err *err)
{
    memset(ps, 0, sizeof *ps);
    ps->sc = sc;
    ps->item = calloc((size_t)sc->ngeom + 1, sizeof *ps->item);
    ps->mesh = calloc((size_t)sc->ngeom + 1, sizeof *ps->mesh);
    ps->seamless = calloc((size_t)sc->ngeom + 1, sizeof *ps->seamless);
    if (!ps->item || !ps->mesh || !ps->seamless) {
        packing_shape_close(ps);
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the packing's shapes");
    }
    for (int k = 0; k < sc->ngeom; ++k) {
        const scene_geom *g = &sc->geom[k];
        if (g->kind != GEOM_FLUID)
            continue;
        if (g->shape == SHAPE_MESH) {
            int rc = shape_load_mesh(sc, g, &ps->mesh[ps->nitems], err);
            if (rc) {
                packing_shape_close(ps);
                return rc;
            }
        }
        for (int a = 0; a < sc->dim; ++a)
            ps->seamless[ps->nitems] |= (unsigned)scene_spans_period(sc, g, a) << a;
        ps->item[ps->nitems++] = g;
    }
    return SL_OK;
}

void packing_shape_close(packing_shape *ps)
{
    for (int k = 0; ps->mesh && k < ps->nitems; ++k)
        stl_free(&ps->mesh[k]);
    free(ps->mesh);
    free(ps->seamless);
    free((void *)ps->item);
    memset(ps, 0, sizeof *ps);
}

static double union_distance(const packing_shape *ps, const double p[3])
{
    double sd = INFINITY;
    for (int k = 0; k < ps->nitems; ++k) {
        const scene_geom *g = ps->item[k];
        const stl_mesh *m = g->shape == SHAPE_MESH ? &ps->mesh[k] : NULL;
        /* along an axis whose period the item spans, asked at its middle: no face there is nearest */
        double q[3] = {p[0], p[1], p[2]};
        for (int a = 0; a < 3; ++a)
            if ((ps->seamless[k] >> a) & 1u)
                q[a] = 0.5 * (g->min[a] + g->max[a]);
        sd = fmin(sd, shape_signed_distance(ps->sc, g, m, q));
    }
    return sd;
}

double packing_shape_distance(const packing_shape *ps, const double p[3], double n[3])
{
    double sd = union_distance(ps, p);
    if (!n)
        return sd;
    /* a hundredth of a spacing: well inside any feature the lattice resolves, far above round-off */
    double e = 0.01 * ps->sc->dp, len2 = 0;
    for (int a = 0; a < 3; ++a) {
        n[a] = 0;
        if (a >= ps->sc->dim)
            continue;
        double q[3] = {p[0], p[1], p[2]};
        q[a] = p[a] + e;
        double hi = union_distance(ps, q);
        q[a] = p[a] - e;
        n[a] = (hi - union_distance(ps, q)) / (2 * e);
        len2 += n[a] * n[a];
    }
    double len = sqrt(len2);
    for (int a = 0; a < 3; ++a)
        n[a] = len > 0 ? n[a] / len : 0;
    return sd;
}

/* ---- the tangent planes and the bound ---------------------------------------------------------------- */

/* What a fluid particle carries of the surface: the tangent plane n . y = c of the surface point
 * nearest it, where the surface term can reach it before the next renewal (elsewhere n = 0, and c
 * the signed distance, or a bound above it), and whether it lies within reach of an edge or corner
 * sharper than 45 degrees. */
typedef struct surface_info {
    real n[3], c, fix;
} surface_info;

/* A plane stands for one face: near an edge the face beyond it would go uncompensated and press the
 * particles into the edge, two of them on one spot in the corner of a box. So a particle within
 * reach of a second face (a probe along the surface, a kernel radius either way, finds a normal more
 * than 45 degrees off whose plane comes within reach) keeps the lattice's place: box edges are
 * lattice-exact anyway. A smooth surface turns the normal by r/R over the probe: 45 degrees only
 * where its radius R is below 1.3 kernel radii, which the plane cannot follow either. */
static surface_info surface_of(const packing_shape *ps, const double x[3], double reach, double r_max)
{
    surface_info si = {{0, 0, 0}, 0, 0};
    double n[3], sd = packing_shape_distance(ps, x, n);
    if (!(sd > -reach)) {
        si.c = (real)sd; /* deep inside: c keeps the distance, so that later renewals may skip it */
        return si;
    }
    for (int a = 0; a < 3; ++a)
        si.n[a] = (real)n[a];
    si.c = (real)(n[0] * x[0] + n[1] * x[1] + n[2] * x[2] - sd); /* phi = c - n.x = -sd */
    int dim = ps->sc->dim;
    double t[2][3] = {{-n[1], n[0], 0}, {0, 0, 0}};
    if (dim == 3) { /* two tangents: n x e (e the axis least along n), then n x t0 */
        int e = fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2]) ? 0 : fabs(n[1]) <= fabs(n[2]) ? 1 : 2;
        double ev[3] = {0, 0, 0};
        ev[e] = 1;
        double t0[3] = {n[1] * ev[2] - n[2] * ev[1], n[2] * ev[0] - n[0] * ev[2], n[0] * ev[1] - n[1] * ev[0]};
        double len = sqrt(t0[0] * t0[0] + t0[1] * t0[1] + t0[2] * t0[2]);
        for (int a = 0; a < 3; ++a)
            t[0][a] = t0[a] / len;
        t[1][0] = n[1] * t[0][2] - n[2] * t[0][1];
        t[1][1] = n[2] * t[0][0] - n[0] * t[0][2];
        t[1][2] = n[0] * t[0][1] - n[1] * t[0][0];
    }
    for (int k = 0; k < 2 * (dim - 1) && !si.fix; ++k) {
        double q[3], nq[3];
        for (int a = 0; a < 3; ++a)
            q[a] = x[a] + (k & 1 ? -r_max : r_max) * t[k / 2][a];
        double sq = packing_shape_distance(ps, q, nq);
        double phi_q = nq[0] * (q[0] - x[0]) + nq[1] * (q[1] - x[1]) + nq[2] * (q[2] - x[2]) - sq;
        if (nq[0] * n[0] + nq[1] * n[1] + nq[2] * n[2] < 0.7071 && phi_q < r_max)
            si.fix = 1;
    }
    return si;
}

static void store_surface(real **f, const int *slot, size_t i, const surface_info *si)
{
    f[slot[PK_NX]][i] = si->n[0];
    f[slot[PK_NY]][i] = si->n[1];
    f[slot[PK_NZ]][i] = si->n[2];
    f[slot[PK_C]][i] = si->c;
    f[slot[PK_FIX]][i] = si->fix;
}

/* The reach of the surface term, and a step more: the planes hold for one step. */
static double plane_reach(const sim *s)
{
    return s->P.r_max + PACKING_MAX_STEP * s->P.dp;
}

void packing_planes(sim *s, const packing_shape *ps)
{
    particles *p = &s->p;
    real **f = p->f;
    const int *slot = s->args.slot;
    double reach = plane_reach(s);
#pragma omp parallel for schedule(dynamic, 256)
    for (size_t i = 0; i < p->n; ++i) {
        surface_info si = {{0, 0, 0}, 0, 0};
        if (p->type[i] == PT_FLUID) {
            double x[3] = {f[PF_X][i], f[PF_Y][i], f[PF_Z][i]};
            si = surface_of(ps, x, reach, s->P.r_max);
        }
        store_surface(f, slot, i, &si);
    }
}

/* After a move, on the host: every free-surface particle kept half a spacing inside the exact shape
 * (the one plane it carried bounds it along one face only: at an edge or corner the other face
 * would let it out), the planes renewed, and the largest net displacement of the step in dp. */
static int bound_and_renew(sim *s, const packing_shape *ps, double *step, sl_err *err)
{
    sim_sync_host(s);
    SL_TRY(sim_backend_error(s, err));
    particles *p = &s->p;
    real **f = p->f;
    const int *slot = s->args.slot;
    double dp = s->sc->dp, reach = plane_reach(s), largest = 0;
    size_t n_in = s->g.n_inside;
#pragma omp parallel for schedule(dynamic, 256) reduction(max : largest)
    for (size_t i = 0; i < n_in; ++i) {
        if (p->type[i] != PT_FLUID)
            continue;
        double x[3] = {f[PF_X][i], f[PF_Y][i], f[PF_Z][i]}, x1[3] = {x[0], x[1], x[2]}, d2 = 0;
        /* a few projections: at a corner the first may land outside the other face */
        for (int it = 0; it < 3 && f[slot[PK_FREE]][i] > 0; ++it) {
            double n[3], sd = packing_shape_distance(ps, x1, n);
            if (sd <= -0.5 * dp)
                break;
            for (int a = 0; a < s->sc->dim; ++a)
                x1[a] -= (sd + 0.5 * dp) * n[a];
        }
        for (int a = 0; a < 3; ++a) {
            double net = f[slot[PK_DX + a]][i] + (x1[a] - x[a]);
            d2 += net * net;
            f[PF_X + a][i] = (real)x1[a];
        }
        largest = fmax(largest, sqrt(d2) / dp);
        int deep = f[slot[PK_NX]][i] == 0 && f[slot[PK_NY]][i] == 0 && f[slot[PK_NZ]][i] == 0;
        if (deep && f[slot[PK_C]][i] + sqrt(d2) < -reach) {
            /* a step changes the distance by no more than its length: no need to ask the shape */
            f[slot[PK_C]][i] = (real)(f[slot[PK_C]][i] + sqrt(d2));
            continue;
        }
        surface_info si = surface_of(ps, x1, reach, s->P.r_max);
        si.fix = si.fix || f[slot[PK_FIX]][i] > 0; /* once at an edge, for good: no flip-flop */
        store_surface(f, slot, i, &si);
    }
    *step = largest;
    return sim_sync_device(s, err);
}

/* ---- the steps ---------------------------------------------------------------------------------------- */

int packing_begin(sim *s, packing_state *st, int64_t max_cells, sl_err *err)
{
    const scene *sc = s->sc;
    memset(st, 0, sizeof *st);
    st->saved = s->P;
    st->keep_fields = s->p.nfields;
    /* Wendland C2 whatever the scheme: smooth, and no pairing instability at any h */
    sim_params *P = &s->P;
    double h = sc->h_factor * sc->dp;
    P->kernel = KERNEL_WENDLAND_C2;
    P->h = (real)h;
    P->inv_h = (real)(1.0 / h);
    P->r_max = (real)(2.0 * h);
    P->r2_max = P->r_max * P->r_max;
    P->kernel_norm = (real)sph_kernel_norm(KERNEL_WENDLAND_C2, sc->dim, h);
    static const char *const names[PK_COUNT] = {"pk_dx", "pk_dy", "pk_dz", "pk_free", "pk_nx", "pk_ny", "pk_nz", "pk_c", "pk_fix"};
    memset(&s->args, 0, sizeof s->args);
    for (int k = 0; k < PK_COUNT; ++k)
        if ((s->args.slot[k] = particles_add_field(&s->p, names[k], k <= PK_FREE)) < 0)
            return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the packing's particle fields");
    SL_TRY(packing_shape_open(sc, &st->shape, err));
    scene_domain(sc, P->r_max, s->domain_min, s->domain_max);
    P->periodic.axes = sc->periodic;
    for (int a = 0; a < 3; ++a)
        P->periodic.length[a] = (sc->periodic >> a) & 1u ? (real)(s->domain_max[a] - s->domain_min[a]) : (real)0;
    SL_TRY(nbr_grid_init(&s->g, sc->dim, sc->ndiv, P->r_max, s->domain_min, s->domain_max, sc->periodic,
                         max_cells, err));
    packing_planes(s, &st->shape);
    return s->be->build_cells(s, err);
}

int packing_iterate(sim *s, packing_state *st, int k, double *step, sl_err *err)
{
    if (k > 0)
        SL_TRY(s->be->build_cells(s, err));
    size_t n = s->g.n_inside;
    s->be->run_pass(s, &packing_shift_pass, n);
    s->be->run_pass(s, &packing_move_pass, n);
    SL_TRY(sim_backend_error(s, err));
    return bound_and_renew(s, &st->shape, step, err);
}

/* Every array of p put back in id order (the order scene_build made), which the sorts changed. */
static int restore_order(particles *p, sl_err *err)
{
    size_t n = p->n;
    real *tmp = malloc((n ? n : 1) * sizeof *tmp);
    uint8_t *tb = malloc(n ? n : 1);
    if (!tmp || !tb) {
        free(tmp), free(tb);
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory restoring the particle order after packing");
    }
    for (int k = 0; k < p->nfields; ++k) {
        for (size_t i = 0; i < n; ++i)
            tmp[p->id[i]] = p->f[k][i];
        memcpy(p->f[k], tmp, n * sizeof *tmp);
    }
    uint8_t *bytes[2] = {p->type, p->tag};
    for (int b = 0; b < 2; ++b) {
        for (size_t i = 0; i < n; ++i)
            tb[p->id[i]] = bytes[b][i];
        memcpy(bytes[b], tb, n);
    }
    for (size_t i = 0; i < n; ++i)
        p->id[i] = (int32_t)i;
    free(tmp), free(tb);
    return SL_OK;
}

/* A last check by the exact shape: any fluid particle outside it (none is expected: the bound keeps
 * free-surface particles inside, and walls the others) put back half a spacing inside. Only those
 * outside: against walls the fluid lies closer to the surface, as on the lattice. */
static void project_inside(sim *s, const packing_shape *ps)
{
    particles *p = &s->p;
    real **f = p->f;
    double dp = s->sc->dp;
#pragma omp parallel for schedule(dynamic, 256)
    for (size_t i = 0; i < p->n; ++i) {
        if (p->type[i] != PT_FLUID)
            continue;
        double x[3] = {f[PF_X][i], f[PF_Y][i], f[PF_Z][i]}, n[3];
        double sd = packing_shape_distance(ps, x, n);
        if (sd > 0)
            for (int a = 0; a < s->sc->dim; ++a)
                f[PF_X + a][i] = (real)(x[a] - (sd + 0.5 * dp) * n[a]);
    }
}

int packing_end(sim *s, packing_state *st, sl_err *err)
{
    int rc = SL_OK;
    if (s->be->release || s->be->to_host) {
        sim_sync_host(s);
        rc = sim_backend_error(s, err);
    }
    if (rc == SL_OK && st->shape.sc)
        project_inside(s, &st->shape);
    if (s->be->release)
        s->be->release(s);
    nbr_grid_free(&s->g);
    memset(&s->g, 0, sizeof s->g);
    particles_drop_fields(&s->p, st->keep_fields);
    if (rc == SL_OK)
        rc = restore_order(&s->p, err);
    packing_shape_close(&st->shape);
    s->P = st->saved;
    memset(&s->args, 0, sizeof s->args);
    return rc;
}

int packing_run(sim *s, int64_t max_cells, FILE *progress, packing_result *res, sl_err *err)
{
    const scene *sc = s->sc;
    packing_state st;
    memset(res, 0, sizeof *res);
    double start = progress_now(), last_print = start;
    int rc = packing_begin(s, &st, max_cells, err), printed = 0;
    for (int k = 0; rc == SL_OK && k < sc->packing_iterations; ++k) {
        double step;
        rc = packing_iterate(s, &st, k, &step, err);
        if (rc)
            break;
        if (k == 0)
            res->first_step = step;
        res->last_step = step;
        res->iterations = k + 1;
        int done = step <= sc->packing_tolerance; /* NaN does not converge: the cap ends it */
        double now = progress_now();
        /* a long packing reports like a long run: after 2 s, then every 10 s */
        if (progress && (done || k + 1 == sc->packing_iterations ? printed : now - last_print >= (printed ? 10.0 : 2.0))) {
            fprintf(progress, "packing: iteration %d / %d, largest step %.3g dp (tolerance %g), %.1f s\n", k + 1,
                    sc->packing_iterations, step, sc->packing_tolerance, now - start);
            fflush(progress);
            last_print = now;
            printed = 1;
        }
        if (done)
            break;
    }
    int end_rc = packing_end(s, &st, rc ? NULL : err);
    res->seconds = progress_now() - start;
    return rc ? rc : end_rc;
}
