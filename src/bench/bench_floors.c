/* bench_floors.c: the work of a step counted on the particles' layout, and the floors of `sluice
 * bench`'s phases.
 *
 * Flops are counted from the code as in bench_operators.c: an add, subtract or multiply 1, a fused
 * multiply-add 2, a division or square root 1; comparisons, absolute values, minima and maxima 0;
 * products of constants are hoisted out of the loops and not counted; a term only some pairs take
 * (the artificial viscosity of approaching pairs, the collisions) is left out. So the arithmetic
 * floors are lower bounds. */
#include "bench_floors.h"

#include "schemes/registry.h"
#include "physics/sph_forces.h"

#include <stdio.h>
#include <string.h>

#define H200_FP32 67e12
#define H200_FP64 34e12
#define H200_HBM 4.8e12
#define CPU_FLOP_PER_THREAD 6e9 /* 3 GHz x 2 flop/cycle */
#define CPU_DRAM 20e9           /* nominal */

bench_machine bench_machine_of(int cpu, int threads, const gpu_peak *gpu, const char *gpu_name)
{
    bench_machine m;
    const char *real_name = REAL_IS_DOUBLE ? "FP64" : "FP32";
    if (cpu) {
        m.peak_flops = CPU_FLOP_PER_THREAD * threads;
        m.bandwidth = CPU_DRAM;
        snprintf(m.peak_name, sizeof m.peak_name, "CPU, scalar");
        snprintf(m.memory_name, sizeof m.memory_name, "nominal DRAM");
    } else if (gpu) {
        m.peak_flops = REAL_IS_DOUBLE ? gpu->fp64 : gpu->fp32;
        m.bandwidth = gpu->bandwidth;
        snprintf(m.peak_name, sizeof m.peak_name, "%s %s", gpu_name, real_name);
        snprintf(m.memory_name, sizeof m.memory_name, "%s memory", gpu_name);
    } else {
        m.peak_flops = REAL_IS_DOUBLE ? H200_FP64 : H200_FP32;
        m.bandwidth = H200_HBM;
        snprintf(m.peak_name, sizeof m.peak_name, "H200 %s, assumed: the device did not tell its clocks", real_name);
        snprintf(m.memory_name, sizeof m.memory_name, "H200 HBM3e, assumed");
    }
    return m;
}

static int is_wcsph(const sim *s)
{
    return strcmp(s->sch->name, "wcsph") == 0;
}

/* Particle i's counts: WCSPH (one radius, the kernel support; pairs that matter). */
static void count_wcsph(const pass_ctx *c, int32_t i, long *cand, long *cand_after, long *nbr, long *nbr_after,
                        long *fluid_after)
{
    const real *x = c->f[PF_X], *y = c->f[PF_Y], *z = c->f[PF_Z];
    const int three = c->P.dim == 3, fluid_i = c->type[i] == PT_FLUID;
    NBR_FOR_CANDIDATES(&c->nb, i, j, {
        ++*cand;
        *cand_after += j > i;
        real dx = x[i] - x[j], dy = y[i] - y[j], dz = three ? z[i] - z[j] : R(0.0);
        int fluid_j = c->type[j] == PT_FLUID;
        if (j == i || dx * dx + dy * dy + dz * dz >= c->P.r2_max || !sph_pair_matters(fluid_i, fluid_j))
            continue;
        ++*nbr;
        if (j > i) {
            ++*nbr_after;
            *fluid_after += fluid_i && fluid_j;
        }
    });
}

/* Particle i's counts: MPS (re_n and re_lap, in the weight's domain). */
static void count_mps(const pass_ctx *c, const mps_scope scope[2], int32_t i, long *cand, long nbr[2])
{
    mps_particle a = mps_pass_particle(c, i, 0, 0, 0, 0);
    NBR_FOR_CANDIDATES(&c->nb, i, j, {
        ++*cand;
        mps_particle b = mps_pass_particle(c, j, 0, 0, 0, 0);
        mps_pair g;
        for (int k = 0; k < 2; ++k)
            nbr[k] += mps_neighbour_weight(&scope[k], &a, i, &b, j, &g) > R(0.0);
    });
}

void bench_count_work(sim *s, bench_work *w)
{
    sim_sync_host(s);
    pass_ctx c = sim_host_ctx(s);
    const int wcsph = is_wcsph(s);
    memset(w, 0, sizeof *w);
    w->nradii = wcsph ? 1 : 2;
    w->radius[0] = wcsph ? c.P.r_max : c.P.mps.re_n;
    w->radius[1] = wcsph ? R(0.0) : c.P.mps.re_lap;
    mps_scope scope[2];
    if (!wcsph) {
        scope[0] = mps_pass_scope(&c, mps_kernel_n(&c.P), MPS_EVERY_CLASS);
        scope[1] = mps_pass_scope(&c, mps_kernel_lap(&c.P), MPS_EVERY_CLASS);
    }
    size_t n = s->g.n_inside;
    double cand = 0, cand_f = 0, n0 = 0, n1 = 0, n0_f = 0, n1_f = 0, cand_after = 0, nbr_after = 0, fluid_after = 0;
#pragma omp parallel for schedule(static) \
    reduction(+ : cand, cand_f, n0, n1, n0_f, n1_f, cand_after, nbr_after, fluid_after)
    for (size_t k = 0; k < n; ++k) {
        int32_t i = (int32_t)k;
        long cc = 0, ca = 0, nb[2] = {0, 0}, na = 0, fa = 0;
        if (wcsph)
            count_wcsph(&c, i, &cc, &ca, &nb[0], &na, &fa);
        else
            count_mps(&c, scope, i, &cc, nb);
        int fluid = c.type[i] == PT_FLUID;
        cand += (double)cc;
        n0 += (double)nb[0];
        n1 += (double)nb[1];
        cand_f += fluid ? (double)cc : 0.0;
        n0_f += fluid ? (double)nb[0] : 0.0;
        n1_f += fluid ? (double)nb[1] : 0.0;
        cand_after += (double)ca;
        nbr_after += (double)na;
        fluid_after += (double)fa;
    }
    double inv = n ? 1.0 / (double)n : 0.0;
    w->candidates = cand * inv;
    w->candidates_fluid = cand_f * inv;
    w->neighbours[0] = n0 * inv;
    w->neighbours[1] = n1 * inv;
    w->neighbours_fluid[0] = n0_f * inv;
    w->neighbours_fluid[1] = n1_f * inv;
    w->candidates_after = cand_after * inv;
    w->neighbours_after = nbr_after * inv;
    w->fluid_pairs_after = fluid_after * inv;
}

/* The WCSPH force pass in its symmetric form (par-part-sym: each pair once, j > i), the least any
 * strategy does. A candidate: r_ij 3, |r_ij|^2 5 (against r2_max, kept squared) = 8. A pair of two
 * fluid particles, both shares (sph_force_pair_with, artificial viscosity): 1/rho_j 1, r 1, the
 * Wendland factor 6, v_ij and v_ij . r_ij 8, 1/(r^2 + eta^2) 2, continuity 4, mu 2, the pressure
 * term 4, 1/(rho_i + rho_j) 2, the force 4 and its two sums 6, j's signal speed 5 = 45; density
 * diffusion (Molteni) 10, with Fourtakas's correction 16; laminar viscosity instead of artificial
 * 9 more. A pair with a boundary particle has no diffusion and one acceleration sum fewer. */
static double wcsph_forces_flop(const sim_params *P, const bench_work *w)
{
    sph_pair_options o = sph_pair_options_of(P);
    double pair = 45 + (o.viscosity == VISCOSITY_LAMINAR ? 9 : 0);
    double diffusion = o.diffusion == SPH_NO_DIFFUSION ? 0 : o.diffusion == DIFFUSION_FOURTAKAS ? 16 : 10;
    double boundary_pairs = w->neighbours_after - w->fluid_pairs_after;
    return 8 * w->candidates_after + (pair + diffusion) * w->fluid_pairs_after + (pair - 3) * boundary_pairs;
}

/* MPS passes with the MPS operators (LSMPS: no model). Per candidate and sweep the test of its
 * domain, per neighbour the weight (bench_floors.h), and the pair: the number density 1, the
 * Laplacian per velocity component, the divergence 11, the Poisson product 2, the gradient (and a
 * first sweep for the minimum pressure when stabilised). The
 * passes that work for fluid particles alone count the fluid targets' candidates and neighbours
 * (the Poisson passes too, which also take the walls next to the fluid but skip the surface). */
static double mps_flop(const sim *s, const bench_work *w, const char *name)
{
    const sim_params *P = &s->P;
    const int cube = mps_domain_is_cube(P);
    const double cand = cube ? FLOP_CANDIDATE_CUBE : FLOP_CANDIDATE_SPHERE;
    const double weight = cube ? FLOP_WEIGHT_CUBIC : FLOP_WEIGHT_QUADRATIC;
    const int dim = P->dim, is_explicit = P->mps.is_explicit;
    const double *nbr = w->neighbours, *nbr_f = w->neighbours_fluid;
    if (strcmp(name, "mps.density") == 0)
        return cand * w->candidates + (weight + 1) * nbr[0];
    if (strcmp(name, "mps.accel") == 0) {
        if (P->mps.lsmps)
            return 0;
        double lap = P->nu > 0 ? (weight + FLOP_MPS_LAPLACIAN * dim) * nbr_f[1] : 0;
        return cand * w->candidates + (weight + 1) * nbr[0] + lap;
    }
    if (strcmp(name, "mps.collision") == 0)
        return cand * w->candidates_fluid;
    if (strcmp(name, "mps.ppe_setup") == 0) {
        double divergence = P->mps.source != MPS_SOURCE_DENSITY ? (weight + 11) * nbr_f[0] : 0;
        return cand * w->candidates_fluid + (weight + 1) * nbr_f[1] + divergence;
    }
    if (strcmp(name, "mps.ppe_apply") == 0)
        return cand * w->candidates_fluid + (weight + 2) * nbr_f[1];
    if (strcmp(name, "mps.gradient") == 0) {
        if (P->mps.lsmps)
            return 0;
        int two_sweeps = !is_explicit && P->mps.stabilised;
        return cand * w->candidates_fluid * (two_sweeps ? 2 : 1) +
               (weight + FLOP_MPS_GRADIENT + (two_sweeps ? weight : 0)) * nbr_f[0];
    }
    return 0;
}

double bench_phase_flop(const sim *s, const bench_work *w, const char *name)
{
    if (is_wcsph(s))
        return strcmp(name, "wcsph.forces") == 0 ? wcsph_forces_flop(&s->P, w) : 0;
    return mps_flop(s, w, name);
}

double bench_step_bytes(const sim *s, double matvecs)
{
    double state = 2.0 * ((double)s->p.nfields * sizeof(real) + sizeof(int32_t) + 2 * sizeof(uint8_t));
    /* a product reads the positions and its vector and writes its result; the CG update reads x, r,
     * d, q and the diagonal and writes x, r, z and d */
    double cg = (double)(3 + 2 + 9) * sizeof(real);
    return state + matvecs * cg;
}
