/* sparse_ell.h: a sparse matrix over particles in ELLPACK form, written by a scheme's pass when the
 * solver asks for the assembled operator (pass_args.ell) and read by the multigrid preconditioner
 * (core/multigrid_ops.h). Pointers are host or device memory, whichever the backend runs on. */
#ifndef SLUICE_SPARSE_ELL_H
#define SLUICE_SPARSE_ELL_H

#include "base/real.h"

#include <stdint.h>

/* Row i holds the off-diagonal entries k < min(count[i], width) at col[k * stride + i],
 * val[k * stride + i] (column-major: consecutive rows are consecutive addresses, so a warp's reads
 * coalesce); the diagonal is a particle field of its own. count[i] may exceed width: the pass kept
 * counting, so the solver can see that the rows did not fit and assemble again wider. */
typedef struct sparse_ell {
    int32_t *col;
    real *val;
    int32_t *count;
    int32_t width;
    int64_t stride; /* rows the arrays hold */
} sparse_ell;

/* Where entry k of row i lies. Column-major, measured against row-major (i * width + k) on the
 * H200: the products 0.48 against 1.53 ms, the assembly 7.1 against 9.8 ms at 1M particles
 * (docs/performance.md). */
HD static inline int64_t sparse_ell_index(const sparse_ell *m, int32_t i, int32_t k)
{
    return (int64_t)k * m->stride + i;
}

/* Appends entry (j, v) to row i; the count goes on past the width. */
HD static inline void sparse_ell_append(const sparse_ell *m, int32_t i, int32_t *count, int32_t j, real v)
{
    int32_t k = (*count)++;
    if (k < m->width) {
        m->col[sparse_ell_index(m, i, k)] = j;
        m->val[sparse_ell_index(m, i, k)] = v;
    }
}

#endif
