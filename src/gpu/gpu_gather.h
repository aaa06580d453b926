/* gpu_gather.h: reordering particle arrays on the device after a sort (dst[k] = src[order[k]]). */
#ifndef SLUICE_GPU_GATHER_H
#define SLUICE_GPU_GATHER_H

#include "base/real.h"
#include "base/status.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most real arrays one gpu_gather_reals call moves. */
enum { GPU_GATHER_MAX_FIELDS = 4 };

/* dst[f][k] = src[f][order[k]] for k < n and f < count (1..GPU_GATHER_MAX_FIELDS), with order from
 * gpu_sort_keys (every order[k] in [0, n) of src's indices; src may be longer): one pass reads
 * order once for all the arrays. Device pointers; no dst may overlap a src or order (gather into
 * free arrays and swap). Queued on the default stream; returns without waiting. */
int gpu_gather_reals(const real *const *src, real *const *dst, int count, const int32_t *order, size_t n,
                     sl_err *err);
/* gpu_gather_reals for one array */
int gpu_gather_real(const real *src, real *dst, const int32_t *order, size_t n, sl_err *err);
/* The same for the particles' identities, kinds and tags together. */
int gpu_gather_ids(const int32_t *id, const uint8_t *type, const uint8_t *tag, int32_t *id_out, uint8_t *type_out,
                   uint8_t *tag_out, const int32_t *order, size_t n, sl_err *err);

#ifdef __cplusplus
}
#endif

#endif
