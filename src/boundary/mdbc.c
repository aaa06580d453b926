/* mdbc.c: modified dynamic boundary conditions (mDBC; English, Dominguez, Vacondio, Crespo, Stansby,
 * Lind, Chiapponi & Gomez-Gesteira 2022, Comp. Part. Mech. 9:1-15), a WCSPH wall model
 * (numerics.boundary = "mdbc"): the wall and obstacle particles are those of dynamic boundaries
 * (boundary/dynamic.c) and take part in the same pair sums, but before every force evaluation their
 * density is set from the fluid, extrapolated from a ghost node mirrored into the fluid (the pass and
 * the formulas: boundary/mdbc.h, physics/mdbc.h), instead of evolving by continuity.
 *
 * Ghost nodes, from the scene's geometry at initialisation (boxes only: tanks and obstacles):
 *   the wall surface is that of the item's lattice box, half a spacing beyond the outermost layer on
 *   the fluid side (the inner box of a tank, the box of an obstacle; as DualSPHysics places it), and
 *   the ghost is the particle mirrored through the nearest point x_s of that surface:
 *   x_g = x_b + 2 (x_s - x_b) = x_b + 2 d n. Deeper layers follow the same rule. A tank particle
 *   outside two (three) faces, in a corner block, is mirrored through the corner (edge) of the inner
 *   box, as in the paper. An obstacle particle is mirrored across its nearest open face, and across
 *   each face equally near (the diagonal of a corner block: through the corner); a face is closed
 *   where the point half a spacing outside it is inside another solid (an obstacle standing on the
 *   floor: its bottom face), and a particle without an open face keeps the dynamic boundary's
 *   density (offset 0). The offsets x_g - x_b are particle fields (reordered with the particles);
 *   they are computed again at every start from the geometry, and a checkpoint carries them with
 *   every other field, so a restart continues with the same ghost nodes.
 *
 * Velocity: the boundary particles keep the wall's velocity (0, or a moving wall's from its law:
 * boundary/moving.h, which also turns the ghost offsets of a rotating wall) in the momentum
 * and continuity sums, the original mDBC of the paper (DualSPHysics's "Vel0"); neither the no-slip
 * nor the free-slip extrapolation of the ghost velocity of later versions.
 * Tension: the density is not clamped (the extrapolation may give rho_b < rho0 near the free surface
 * or where the flow leaves a wall), but the pressure of a boundary particle is max(p(rho_b), 0)
 * (physics/mdbc.h: mdbc_wall_pressure), so the wall's own pressure never pulls fluid towards it. The
 * paper has no rho >= rho0 rule; DualSPHysics is said to clamp the boundary pressure of mDBC at 0 (not
 * checked in its source: its mDBC density code has no clamp, it would be in its force loop). With
 * dynamic boundaries sluice clamps rho >= rho0 instead (physics/sph_integrate.h).
 * Known limit (docs/methods.md): in violent flows thin sheets of fluid creep into the walls (SPHERIC
 * Test 2 in 3D at dp = 18.3 mm leaks through the floor and into the hollow box from t = 0.5 s on;
 * still water and the 2D dam break do not).
 * The integrators still advance the walls' density by continuity between two force evaluations
 * (physics/sph_integrate.h), but every force evaluation is preceded by this model's pass, so the
 * forces only ever see the extrapolated density; snapshots show the walls' density after the last
 * integration step. */
#include "mdbc.h"

#include "boundary.h"
#include "boundary_passes.h"

#include "core/sim.h"
#include "geometry/scene_build.h"

#include <math.h>
#include <string.h>

/* The lattice box of a geometry item along axis a: the points sit at lo + (i + 1/2) dp, i < cells
 * (scene_build.c), so the box a wall lines ends half a spacing beyond the last point. */
static void lattice_box(const scene *sc, const scene_geom *gm, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; ++a) {
        lo[a] = gm->min[a];
        hi[a] = a < sc->dim ? gm->min[a] + floor((gm->max[a] - gm->min[a]) / sc->dp + 1e-6) * sc->dp : gm->max[a];
    }
}

/* Whether q lies inside the walls of a tank (its layers round the inner box; none above an open
 * top) or inside an obstacle box. Lattice points lie half a spacing from any face, so a margin of a
 * quarter spacing decides without ambiguity. */
static int inside_solid(const scene *sc, const double q[3])
{
    double tol = 0.25 * sc->dp;
    int up = sc->dim - 1;
    for (int k = 0; k < sc->ngeom; ++k) {
        const scene_geom *gm = &sc->geom[k];
        if (gm->kind == GEOM_FLUID)
            continue;
        double lo[3], hi[3];
        lattice_box(sc, gm, lo, hi);
        int in_box = 1, in_inner = 1;
        for (int a = 0; a < sc->dim; ++a) {
            double pad = gm->kind == GEOM_TANK ? gm->layers * sc->dp : 0.0;
            double top = gm->kind == GEOM_TANK && a == up && !gm->closed_top ? 0.0 : pad;
            in_box &= q[a] > lo[a] - pad + tol && q[a] < hi[a] + top - tol;
            in_inner &= q[a] > lo[a] + tol && q[a] < hi[a] - tol;
        }
        if (gm->kind == GEOM_TANK ? in_box && !in_inner : in_box)
            return 1;
    }
    return 0;
}

/* Ghost offset of a tank wall particle at x: the mirror through the nearest point of the inner box. */
static int tank_ghost(const scene *sc, const double x[3], double off[3])
{
    double tol = 0.25 * sc->dp;
    int up = sc->dim - 1;
    for (int k = 0; k < sc->ngeom; ++k) {
        const scene_geom *gm = &sc->geom[k];
        if (gm->kind != GEOM_TANK)
            continue;
        double lo[3], hi[3];
        lattice_box(sc, gm, lo, hi);
        double pad = gm->layers * sc->dp;
        int in = 1;
        for (int a = 0; a < sc->dim; ++a)
            in &= x[a] > lo[a] - pad - tol && x[a] < hi[a] + (a == up && !gm->closed_top ? 0.0 : pad) + tol;
        if (!in)
            continue;
        int moved = 0;
        for (int a = 0; a < sc->dim; ++a) {
            double s = x[a] < lo[a] ? lo[a] : x[a] > hi[a] ? hi[a] : x[a];
            off[a] = 2.0 * (s - x[a]);
            moved |= off[a] != 0.0;
        }
        return moved;
    }
    return 0;
}

/* Ghost offset of an obstacle particle at x: the mirror across its nearest open face(s). */
static int obstacle_ghost(const scene *sc, const double x[3], double off[3])
{
    double tol = 0.25 * sc->dp;
    for (int k = 0; k < sc->ngeom; ++k) {
        const scene_geom *gm = &sc->geom[k];
        if (gm->kind != GEOM_OBSTACLE)
            continue;
        double lo[3], hi[3];
        lattice_box(sc, gm, lo, hi);
        int in = 1;
        for (int a = 0; a < sc->dim; ++a)
            in &= x[a] > lo[a] - tol && x[a] < hi[a] + tol;
        if (!in)
            continue;
        /* per axis, the nearer open face (distance, face coordinate) */
        double dist[3] = {INFINITY, INFINITY, INFINITY}, face[3] = {0, 0, 0};
        double best = INFINITY;
        for (int a = 0; a < sc->dim; ++a)
            for (int side = 0; side < 2 && !scene_spans_period(sc, gm, a); ++side) { /* a seam is no face */
                double f = side ? hi[a] : lo[a];
                double d = fabs(f - x[a]);
                double q[3] = {x[0], x[1], x[2]};
                q[a] = f + (side ? 0.5 : -0.5) * sc->dp;
                if (d < dist[a] - tol && !inside_solid(sc, q)) { /* a tie: the lower face */
                    dist[a] = d;
                    face[a] = f;
                }
            }
        for (int a = 0; a < sc->dim; ++a)
            best = fmin(best, dist[a]);
        if (!isfinite(best))
            return 0; /* no open face */
        for (int a = 0; a < sc->dim; ++a)
            off[a] = dist[a] <= best + tol ? 2.0 * (face[a] - x[a]) : 0.0;
        return 1;
    }
    return 0;
}

static int mdbc_init(sim *s, sl_err *err)
{
    static const char *const names[3] = {"mdbc_gx", "mdbc_gy", "mdbc_gz"};
    const scene *sc = s->sc;
    particles *p = &s->p;
    for (int a = 0; a < 3; ++a) {
        int k = MDBC_SLOT_GX + a;
        if (a >= sc->dim) {
            s->args.slot[k] = -1;
            continue;
        }
        if ((s->args.slot[k] = particles_add_field(p, names[a], 0)) < 0)
            return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the mDBC ghost-node fields");
        s->args.motion.vec[a] = s->args.slot[k]; /* the ghost node turns with a rotating wall */
    }
    /* no-slip: the velocity the viscous term sees at each boundary particle, computed again after
     * every cell rebuild (transient) */
    static const char *const visc_names[3] = {"mdbc_wall_vx", "mdbc_wall_vy", "mdbc_wall_vz"};
    for (int a = 0; a < 3; ++a) {
        s->args.wall_visc[a] = 0;
        if (!sc->no_slip || a >= sc->dim)
            continue;
        if ((s->args.wall_visc[a] = particles_add_field(p, visc_names[a], 1)) < 0)
            return sl_fail(err, SL_ERR_RUNTIME, "out of memory for the mDBC no-slip fields");
    }
    for (size_t i = 0; i < p->n; ++i) {
        if (p->type[i] == PT_FLUID)
            continue;
        double x[3] = {p->f[PF_X][i], p->f[PF_Y][i], sc->dim == 3 ? p->f[PF_Z][i] : 0.0};
        double off[3] = {0, 0, 0};
        int ok = p->type[i] == PT_WALL ? tank_ghost(sc, x, off) : obstacle_ghost(sc, x, off);
        for (int a = 0; a < sc->dim; ++a)
            p->f[s->args.slot[MDBC_SLOT_GX + a]][i] = ok ? (real)off[a] : (real)0;
    }
    return SL_OK;
}

/* Before every force evaluation (the WCSPH step calls the hook after each cell rebuild). */
static void mdbc_update(sim *s)
{
    s->be->run_pass(s, &mdbc_density_pass, s->g.n_inside);
}

/* The fluid a wall particle's density comes from lies within the interaction radius of its ghost
 * node: as far as the longest offset beyond the particle's own reach (a rotating wall turns the
 * offsets, never lengthens them). */
static double mdbc_reach(const sim *s)
{
    const particles *p = &s->p;
    double longest2 = 0;
    for (size_t i = 0; i < p->n; ++i) {
        double r2 = 0;
        for (int a = 0; a < s->sc->dim; ++a) {
            double o = p->f[s->args.slot[MDBC_SLOT_GX + a]][i];
            r2 += o * o;
        }
        longest2 = r2 > longest2 ? r2 : longest2;
    }
    return sqrt(longest2);
}

const boundary_model boundary_mdbc = {
    .name = "mdbc",
    .description = "modified dynamic boundary particles: density from ghost nodes in the fluid, English et al. 2022",
    .init = mdbc_init,
    .reach = mdbc_reach,
    .after_density = mdbc_update,
};
