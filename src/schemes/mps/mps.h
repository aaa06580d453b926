/* mps.h: what the MPS schemes report about their solver (tests and run summaries). */
#ifndef SLUICE_MPS_H
#define SLUICE_MPS_H

struct sim;

typedef struct mps_stats {
    long steps;              /* steps taken */
    long cg_unconverged;     /* steps whose Poisson solve missed its tolerance */
    long cg_iterations;      /* total CG iterations */
    int cg_max_iterations;   /* most iterations of one solve */
    double cg_max_residual;  /* largest relative residual a solve ended with */
    int cg_last_iterations;
    double cg_last_residual;
    long lsmps_fallbacks;    /* particle-operator evaluations where LSMPS fell back to MPS */
    long surface_particles;  /* fluid particles flagged as free surface at the last step */
} mps_stats;

/* Fills st for a simulation running "mps" or "emps"; returns 0, or -1 for another scheme. */
int mps_get_stats(const struct sim *s, mps_stats *st);

#endif
