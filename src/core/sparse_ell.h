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
 * of 2^shift and of SPARSE_ELL_GROUP. */
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

/* A row's entries on their way to the matrix, a group of the layout at a time: the assembly's
 * 4-byte stores, each to a different sector across a warp, bound the set-up pass; held in registers
 * and written a group at once, they go as two 16-byte stores of values and two of columns per 8
 * entries (docs/performance.md). The newest entry is last: appending moves the others down (fixed
 * indices, so a GPU keeps them in registers). */
enum { SPARSE_ELL_GROUP = 8 };

typedef struct sparse_ell_pending {
    real val[SPARSE_ELL_GROUP];
    int32_t col[SPARSE_ELL_GROUP];
} sparse_ell_pending;

/* A width rounded up to whole groups of the layout and of the assembly (SPARSE_ELL_GROUP). */
static inline int32_t sparse_ell_round_width(int32_t width, int32_t shift)
{
    const int32_t group = (1 << shift) > SPARSE_ELL_GROUP ? 1 << shift : SPARSE_ELL_GROUP;
    return (width + group - 1) / group * group;
}

HD static inline void sparse_ell_pending_clear(sparse_ell_pending *q)
{
    for (int k = 0; k < SPARSE_ELL_GROUP; ++k) {
        q->val[k] = R(0.0);
        q->col[k] = 0;
    }
}

HD static inline void sparse_ell_pending_push(sparse_ell_pending *q, int32_t j, real v)
{
    for (int k = 0; k + 1 < SPARSE_ELL_GROUP; ++k) {
        q->val[k] = q->val[k + 1];
        q->col[k] = q->col[k + 1];
    }
    q->val[SPARSE_ELL_GROUP - 1] = v;
    q->col[SPARSE_ELL_GROUP - 1] = j;
}

/* Writes q as entries k0 .. k0 + 7 of row i (k0 a multiple of 8, below the width: the whole group
 * lies in the row's storage; slots past the row's count are never read). */
HD static inline void sparse_ell_store_group(const sparse_ell *m, int32_t i, int32_t k0, const sparse_ell_pending *q)
{
#if defined(__CUDA_ARCH__) && !REAL_IS_DOUBLE
    if (m->shift == 3) { /* the group is 32 aligned bytes of each array */
        float4 *v = (float4 *)(m->val + sparse_ell_index(m, i, k0));
        int4 *c = (int4 *)(m->col + sparse_ell_index(m, i, k0));
        v[0] = make_float4(q->val[0], q->val[1], q->val[2], q->val[3]);
        v[1] = make_float4(q->val[4], q->val[5], q->val[6], q->val[7]);
        c[0] = make_int4(q->col[0], q->col[1], q->col[2], q->col[3]);
        c[1] = make_int4(q->col[4], q->col[5], q->col[6], q->col[7]);
        return;
    }
#endif
    for (int k = 0; k < SPARSE_ELL_GROUP; ++k) {
        m->val[sparse_ell_index(m, i, k0 + k)] = q->val[k];
        m->col[sparse_ell_index(m, i, k0 + k)] = q->col[k];
    }
}

/* Reads entries k0 .. k0 + 7 of row i (k0 a multiple of 8, below the width), those past the row's
 * count too (whatever they hold): on the GPU two 16-byte loads of each array instead of eight of 4
 * bytes. */
HD static inline void sparse_ell_load_group(const sparse_ell *m, int32_t i, int32_t k0, int32_t col[SPARSE_ELL_GROUP],
                                            real val[SPARSE_ELL_GROUP])
{
#if defined(__CUDA_ARCH__) && !REAL_IS_DOUBLE
    if (m->shift == 3) {
        const float4 *v = (const float4 *)(m->val + sparse_ell_index(m, i, k0));
        const int4 *c = (const int4 *)(m->col + sparse_ell_index(m, i, k0));
        const float4 v0 = v[0], v1 = v[1];
        const int4 c0 = c[0], c1 = c[1];
        val[0] = v0.x, val[1] = v0.y, val[2] = v0.z, val[3] = v0.w;
        val[4] = v1.x, val[5] = v1.y, val[6] = v1.z, val[7] = v1.w;
        col[0] = c0.x, col[1] = c0.y, col[2] = c0.z, col[3] = c0.w;
        col[4] = c1.x, col[5] = c1.y, col[6] = c1.z, col[7] = c1.w;
        return;
    }
#endif
    for (int k = 0; k < SPARSE_ELL_GROUP; ++k) {
        const int64_t e = sparse_ell_index(m, i, k0 + k);
        val[k] = m->val[e];
        col[k] = m->col[e];
    }
}

/* Appends entry (j, v) to row i, whose count goes on past the width; a full group is written. */
HD static inline void sparse_ell_append(const sparse_ell *m, int32_t i, int32_t *count, sparse_ell_pending *q,
                                        int32_t j, real v)
{
    int32_t k = (*count)++;
    if (m->shift == 0) { /* column-major (the CPU's): no group to fill, each entry stored at once */
        if (k < m->width) {
            m->col[(int64_t)k * m->stride + i] = j;
            m->val[(int64_t)k * m->stride + i] = v;
        }
        return;
    }
    sparse_ell_pending_push(q, j, v);
    if ((k & (SPARSE_ELL_GROUP - 1)) == SPARSE_ELL_GROUP - 1 && k < m->width)
        sparse_ell_store_group(m, i, k - (SPARSE_ELL_GROUP - 1), q);
}

/* Writes the row's last, partial group (moved to the group's start) after its last append. */
HD static inline void sparse_ell_finish_row(const sparse_ell *m, int32_t i, int32_t count, const sparse_ell_pending *q)
{
    int32_t left = count & (SPARSE_ELL_GROUP - 1);
    if (!left || count > m->width || m->shift == 0)
        return;
    sparse_ell_pending g = *q;
    for (int32_t k = left; k < SPARSE_ELL_GROUP; ++k)
        sparse_ell_pending_push(&g, 0, R(0.0));
    sparse_ell_store_group(m, i, count - left, &g);
}

#endif
