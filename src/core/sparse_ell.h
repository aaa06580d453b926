/* sparse_ell.h: a sparse matrix over particles in ELLPACK form, written by a scheme's pass when the
 * solver asks for the assembled operator (pass_args.ell) and read by the multigrid preconditioner
 * (core/multigrid_ops.h). Pointers are host or device memory, whichever the backend runs on. */
#ifndef SLUICE_SPARSE_ELL_H
#define SLUICE_SPARSE_ELL_H

#include "base/real.h"

#include <stdint.h>

/* Row i holds the off-diagonal entries k < min(count[i], width) at col[e], val[e], e =
 * sparse_ell_index(i, k); the diagonal is a particle field of its own. count[i] may exceed width: the
 * pass kept counting, so the solver can see that the rows did not fit and assemble again wider.
 * The layout is sliced: entries k of a row lie in groups of 2^shift consecutive addresses, group g of
 * every row before group g + 1 of any. shift 0 is column-major (entry k of consecutive rows at
 * consecutive addresses); shift 3 puts 8 entries of a row in one 32-byte sector, which the thread
 * that assembles the row fills whole (docs/performance.md has both measured). width is a multiple
 * of 2^shift. */
typedef struct sparse_ell {
    int32_t *col;
    real *val;
    int32_t *count;
    int32_t width;
    int32_t shift;
    int64_t stride; /* rows the arrays hold */
} sparse_ell;

/* Where entry k of row i lies. */
HD static inline int64_t sparse_ell_index(const sparse_ell *m, int32_t i, int32_t k)
{
    const int32_t low = (1 << m->shift) - 1;
    return ((((int64_t)(k >> m->shift)) * m->stride + i) << m->shift) + (k & low);
}

/* A width rounded up to whole groups of the layout. */
static inline int32_t sparse_ell_round_width(int32_t width, int32_t shift)
{
    const int32_t group = 1 << shift;
    return (width + group - 1) / group * group;
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
