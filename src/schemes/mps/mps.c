/* mps.c: semi-implicit MPS (Koshizuka & Oka 1996).
 *
 * One step:
 *   1. a = nu lap u + g (explicit), u* = u + dt a, x* = x + dt u*         passes accel, predict
 *   2. n* at x*, free surface where n* < beta n0                          pass density
 *   3. A p = b (physics/mps_ppe.h) by preconditioned CG (solver/pcg.h)    passes ppe_setup, ppe_apply
 *      (with mps.preconditioner = "multigrid", ppe_setup also assembles A's rows and the CG runs on
 *      them with the multigrid V-cycle of solver/multigrid.h)
 *   4. u = u* - dt/rho0 grad p, x = x* + dt (u - u*)                      passes gradient, correct
 * Steps 1, 2 and 4 are shared with explicit MPS (mps_common.c).
 *
 * On several MPI ranks (parallel/domain.h) the unknowns of step 3 are each rank's own particles: the
 * ghosts' rows are cleared (their owners solve them), the CG adds its dot products over the ranks
 * and refreshes the ghosts' values of each product's vector; with multigrid the cycle is one rank's
 * spread over the ranks: the particles' loops read the ghosts' r with their owners' diagonal, and
 * the cell levels are cut as the particles are, each rank's columns exchanging a halo with its
 * neighbours' (solver/multigrid.h, mg_ranks). SLUICE_MPI_MG=blocks (a measurement knob) runs the
 * earlier additive Schwarz instead: each rank's cycle on its own rows and its ghosts' rows, the
 * ghosts' share of z sent back to their owners (blocks that overlap by the ghost band). */
#include "mps_common.h"

#include "core/scheme.h"
#include "parallel/domain.h"
#include "schemes/registry.h"
#include "solver/pcg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lattice points within the Laplacian's domain around a particle (the rows' length on a lattice):
 * the width the assembled rows start with. */
static int lattice_neighbours(const sim *s)
{
    double re = s->sc->mps.re_laplacian;
    int m = (int)ceil(re), count = 0, three = s->sc->dim == 3;
    int cube = s->sc->mps.domain == MPS_DOMAIN_CUBIC;
    for (int k = three ? -m : 0; k <= (three ? m : 0); ++k)
        for (int j = -m; j <= m; ++j)
            for (int i = -m; i <= m; ++i) {
                double r = cube ? fmax(fabs((double)i), fmax(fabs((double)j), fabs((double)k)))
                                : sqrt((double)(i * i + j * j + k * k));
                count += r > 0 && r < re;
            }
    return count;
}

static int mps_init(sim *s, sl_err *err)
{
    int rc = mps_setup(s, 0, err);
    if (rc)
        return rc;
    const int *slot = s->args.slot;
    cg_problem *cg = &mps_data_of(s)->cg;
    cg->matvec = &mps_ppe_apply_pass;
    cg->x = slot[MS_X];
    cg->b = slot[MS_B];
    cg->diag = slot[MS_DIAG];
    cg->r = slot[MS_R];
    cg->z = slot[MS_Z];
    cg->d = slot[MS_D];
    cg->q = slot[MS_Q];
    cg->tolerance = s->sc->mps.cg_tolerance;
    cg->max_iterations = s->sc->mps.cg_max_iterations;
    /* one rank has no partial sums to add (and the solver then reads its scalars once an iteration) */
    cg->sum = domain_world_size() > 1 ? domain_sum : NULL;
    cg->share = domain_refresh_field;
    mps_data *d = mps_data_of(s);
    d->use_mg = s->sc->mps.preconditioner == MPS_PRECONDITIONER_MULTIGRID;
    if (d->use_mg) {
        multigrid_init(&d->mg, slot[MS_BLOCK_DIAG]);
        cg->precondition = multigrid_precondition;
        cg->product = multigrid_product;
        cg->data = &d->mg;
        if (domain_world_size() > 1) {
            /* the particles' loops read the ghosts' r (their S r enters this rank's rows) */
            cg->clear = domain_zero_ghosts;
            const char *how = getenv("SLUICE_MPI_MG"); /* a measurement knob: "blocks" */
            if (how && strcmp(how, "blocks") == 0) /* each rank's cycle on its rows and its ghosts' */
                cg->add_back = domain_add_ghosts_to_owners;
            else /* one cycle over the ranks, its cell levels cut as the particles are */
                d->mg.ranks = (mg_ranks){domain_cell_cuts, domain_cell_halo, domain_cell_gather, domain_sum};
        }
    }
    return SL_OK;
}

static void mps_release(sim *s)
{
    mps_data *d = mps_data_of(s);
    if (d->use_mg)
        multigrid_free(s, &d->mg);
}

int mps_poisson_system(sim *s, size_t n, sl_err *err)
{
    mps_data *d = mps_data_of(s);
    int rc;
    if (!d->use_mg) {
        s->be->run_pass(s, &mps_ppe_setup_pass, n);
    } else {
        int width = lattice_neighbours(s);
        if ((rc = multigrid_assemble(s, &d->mg, &mps_ppe_setup_pass, n, width + width / 8 + 1, err)))
            return rc;
    }
    /* a ghost's row is its owner's: no unknown here, so the solve's sums hold this rank's rows alone
     * (the ghosts' values still enter the products) */
    const int owners_only[] = {s->args.slot[MS_DIAG], s->args.slot[MS_B]};
    if ((rc = domain_zero_ghosts(s, owners_only, 2, err)))
        return rc;
    /* but the multigrid reads the ghosts' rows with their owners' diagonal (the one here misses the
     * neighbours beyond the band): which ghosts are unknowns, S r at them, and their rows' entries
     * with this rank's particles (the overlapping blocks: a principal submatrix of A, so the blocks'
     * sum stays symmetric positive definite) */
    if (d->use_mg && (rc = domain_refresh_field(s, s->args.slot[MS_BLOCK_DIAG], err)))
        return rc;
    return d->use_mg ? multigrid_setup(s, &d->mg, err) : SL_OK;
}

static void record_solve(mps_stats *st, const cg_problem *cg)
{
    st->cg_iterations += cg->iterations;
    st->cg_last_iterations = cg->iterations;
    st->cg_last_residual = cg->residual;
    if (cg->iterations > st->cg_max_iterations)
        st->cg_max_iterations = cg->iterations;
    if (cg->residual > st->cg_max_residual)
        st->cg_max_residual = cg->residual;
    if (!cg->converged)
        st->cg_unconverged++;
}

/* A solve that missed its tolerance: the run stops when the scene says so, else the first such step
 * is reported on stderr and the rest counted for the summary. */
static int unconverged(sim *s, const mps_stats *st, const cg_problem *cg, sl_err *err)
{
    if (s->sc->mps.stop_unconverged)
        return sl_fail(err, SL_ERR_RUNTIME,
                       "%s: step %ld (t = %.6g s): the pressure solve did not converge: %d iterations, relative "
                       "residual %.3g > mps.cg_tolerance %.3g (mps.stop_unconverged = true ends the run)",
                       s->sc->path, s->step, s->t, cg->iterations, cg->residual, cg->tolerance);
    if (st->cg_unconverged == 1 && !s->quiet && domain_is_root(s)) /* every rank's solve is the same */
        fprintf(stderr,
                "sluice: warning: step %ld (t = %.6g s): the pressure solve did not converge: %d iterations, "
                "relative residual %.3g > mps.cg_tolerance %.3g; the run goes on (the summary counts such steps; "
                "mps.stop_unconverged = true ends the run instead)\n",
                s->step, s->t, cg->iterations, cg->residual, cg->tolerance);
    return SL_OK;
}

static int mps_step(sim *s, double dt, sl_err *err)
{
    mps_data *d = mps_data_of(s);
    const backend *be = s->be;
    int rc = mps_step_predict(s, dt, err);
    /* the ghosts' classes (the free surface) as their owners' density pass found them: the Poisson
     * rows read their neighbours' */
    if (rc || (rc = domain_refresh_halo(s, err)))
        return rc;
    size_t n = s->g.n_inside;
    if ((rc = mps_poisson_system(s, n, err)))
        return rc;
    d->cg.n = n;
    if ((rc = pcg_solve(s, &d->cg, err)))
        return rc;
    record_solve(&d->stats, &d->cg);
    /* a NaN residual: a NaN in the system, which the next time step reports as an instability */
    if (!d->cg.converged && d->cg.residual == d->cg.residual && (rc = unconverged(s, &d->stats, &d->cg, err)))
        return rc;
    be->run_pass(s, &mps_pressure_pass, n);
    return mps_step_correct(s, err);
}

static void mps_summary(const sim *s, char *buf, unsigned long len)
{
    const mps_data *d = mps_data_of(s);
    const mps_stats *st = &d->stats;
    char pre[300] = "Jacobi", ranks[80] = "";
    if (d->use_mg && d->mg.nranks > 1 && d->mg.whole_from < d->mg.used) /* (mg_ranks) */
        snprintf(ranks, sizeof ranks, "; on %d ranks, whole on each from level %d", d->mg.nranks, d->mg.whole_from);
    if (d->use_mg)
        snprintf(pre, sizeof pre, "multigrid, %d levels (the last cycle ran %d%s), rows of %d entries (the longest %d; "
                 "widened %d times), %.0f MB (%.0f bytes per particle)",
                 d->mg.nlevels, d->mg.used, ranks, d->mg.A.width, d->mg.longest, d->mg.widenings,
                 (double)multigrid_bytes(&d->mg) / 1e6, s->p.n ? (double)multigrid_bytes(&d->mg) / (double)s->p.n : 0.0);
    snprintf(buf, len,
             "pressure Poisson solve (%s): %.1f CG iterations per step (at most %d), residual at most %.2g "
             "(tolerance %.2g), %ld of %ld steps unconverged; LSMPS fell back to MPS %ld times",
             pre, st->steps ? (double)st->cg_iterations / (double)st->steps : 0.0, st->cg_max_iterations,
             st->cg_max_residual, d->cg.tolerance, st->cg_unconverged, st->steps, st->lsmps_fallbacks);
}

const scheme scheme_mps = {
    .name = "mps",
    .description = "semi-implicit MPS (pressure Poisson equation, CG)",
    .init = mps_init,
    .time_step = mps_time_step,
    .step = mps_step,
    .prepare_output = NULL,
    .summary = mps_summary,
    .release = mps_release,
};
