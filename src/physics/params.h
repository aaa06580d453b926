/* params.h: every number the physics needs, in one plain struct (copied to constant memory on the GPU). */
#ifndef SLUICE_PARAMS_H
#define SLUICE_PARAMS_H

#include "../real.h"

typedef struct sim_params {
    int dim;            /* 2 or 3 */
    int kernel;         /* enum kernel_kind */
    real dp;            /* particle spacing */
    real h;             /* smoothing length */
    real inv_h;         /* 1/h */
    real r_max;         /* interaction radius (kernel support) */
    real r2_max;
    real kernel_norm;   /* alpha_D: normalisation of the kernel in dim dimensions */
    real mass;          /* particle mass rho0 * dp^dim (every particle) */
    real rho0, c0;
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
} sim_params;

#endif
