/* params.h: every number the physics needs, in one plain struct (copied to constant memory on the GPU). */
#ifndef SLUICE_PARAMS_H
#define SLUICE_PARAMS_H

#include "base/real.h"
#include "periodic.h"

/* MPS: radii in metres, lattice constants for the scene's spacing (mps_lattice_constants). */
typedef struct mps_params {
    int is_explicit;      /* explicit (weakly compressible) MPS: EOS pressure, symmetric gradient */
    int weight;           /* enum mps_weight_kind (mps_weight.h) */
    int lsmps;            /* 1: LSMPS gradient and viscosity Laplacian */
    int stabilised;       /* MPS gradient relative to the smallest neighbour value */
    int source;           /* enum mps_source_kind */
    int clamp;            /* negative pressure set to 0 */
    int wall_extrapolated; /* explicit MPS: wall pressure from the fluid (Adami et al. 2012) */
    real re_n, re_lap;    /* number density / gradient radius, Laplacian radius */
    real n0_n, n0_lap;    /* ideal-lattice number densities at re_n and re_lap */
    real lambda0_n, lambda0_lap;
    real rs;              /* LSMPS scaling length */
    real inv_rs;          /* 1 / rs */
    real beta;            /* free surface where n < beta n0 */
    real collision_distance; /* metres */
    real restitution;     /* of the collisions */
    int collision_model;  /* enum mps_collision_kind */
    real mixed_gamma;
    real relaxation;      /* factor on the density source */
    real compressibility; /* 1/Pa */
    real u_ref;           /* speed scale that bounds the time step at rest: sqrt(2 |g| H) */
} mps_params;

typedef struct sim_params {
    int dim;            /* 2 or 3 */
    int kernel;         /* enum kernel_kind */
    real dp;            /* particle spacing */
    real h;             /* smoothing length */
    real inv_h;         /* 1/h */
    real r_max;         /* interaction radius (kernel support) */
    real cell_skin;     /* m: the neighbour cells are (r_max + cell_skin) / ndiv wide, so that cells built
                         * for positions that have since moved less than cell_skin / 2 still hold every
                         * pair within r_max (WCSPH's corrector on MPI ranks, numerics.cell_skin); 0: none */
    real r2_max;
    real kernel_norm;   /* alpha_D: normalisation of the kernel in dim dimensions */
    real mass;          /* particle mass rho0 * dp^dim (every particle) */
    real rho0, c0;
    real inv_rho0;      /* 1/rho0: a product instead of a division per pair */
    real eos_b;         /* Tait: p = B ((rho/rho0)^gamma - 1), B = rho0 c0^2 / gamma */
    real eos_gamma;
    real g[3];          /* gravity */
    real nu;            /* kinematic viscosity (laminar model) */
    int viscosity;      /* enum viscosity_kind */
    real alpha;         /* artificial viscosity */
    real delta;         /* delta-SPH coefficient */
    int diffusion;      /* enum diffusion_kind */
    real hydro_drho[3]; /* Fourtakas: rho0 g / c0^2, the hydrostatic density gradient */
    real eta2;          /* 0.01 h^2: keeps 1/(r^2 + eta2) finite */
    real cfl;
    periodic_box periodic; /* simulation.periodic: pairs interact through their nearest image */
    mps_params mps;     /* MPS and explicit MPS only */
} sim_params;

#endif
