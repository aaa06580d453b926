/* gpu_sort.h: binning particles into cells on the device: sorted order and each cell's first slot. */
#ifndef SLUICE_GPU_SORT_H
#define SLUICE_GPU_SORT_H

#include "gpu_scan.h"
#include "gpu_scratch.h"
#include "base/status.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gpu_sort_kind {
    /* Counting sort: per-key counts by atomicAdd, exclusive scan (either scan kind), scatter by
     * atomicAdd on a per-key cursor. One read of the keys to count, one to scatter. The order
     * inside a key follows the order in which warps reach the cursor: NOT reproducible from run
     * to run (start[] and key_sorted are). */
    GPU_SORT_COUNTING,
    /* LSD radix sort of (key, index) pairs with cub::DeviceRadixSort::SortPairs over only the
     * ceil(log2(nkeys)) bits the keys need. Stable: inside a key the particles keep their
     * previous order, so order[] is bit-reproducible and equals the CPU nbr_grid_build order. */
    GPU_SORT_RADIX
} gpu_sort_kind;

/* Sorts n particles by key (for the neighbour grid: key = nbr_sort_key, nkeys = ncells + 2 with the
 * sink cell ncells and the parked ghosts' key after it, so start[] is nbr_grid's cell_start of
 * ncells + 2 entries and one more).
 *
 * In (device):  key[i] in [0, nkeys) for i < n. Keys outside that range are undefined behaviour
 *               (the counting sort writes out of bounds); they are not checked, to keep the
 *               call free of host synchronisation.
 * Out (device): order[k]      = index i of the particle that goes to slot k (a permutation of
 *                               0..n-1), for k < n;
 *               key_sorted[k] = key[order[k]], non-decreasing;
 *               start[c]      = first slot whose key is >= c, for c <= nkeys (nkeys + 1
 *                               entries), so key c occupies [start[c], start[c+1]), empty keys
 *                               included; start[nkeys] = n.
 * key_sorted may be NULL when the caller has no use for it (the counting sort then does not
 * write it; the radix sort, which needs it, keeps it in the scratch).
 * order, key_sorted and start must not overlap key or each other.
 * Limits: n <= INT32_MAX, 1 <= nkeys <= INT32_MAX - 1 (SL_ERR_INPUT otherwise); n == 0 gives
 * start[] all 0. `scan` picks the prefix sum of the counting sort (ignored by the radix sort).
 * Work is queued on the default stream; the call returns without waiting. s provides the
 * temporary storage: about (nkeys + scan) words for counting, ~3 n words for radix (~4 n
 * without key_sorted). */
int gpu_sort_keys(const int32_t *key, size_t n, size_t nkeys, gpu_sort_kind kind,
                  gpu_scan_kind scan, int32_t *order, int32_t *key_sorted, int32_t *start,
                  gpu_scratch *s, sl_err *err);

#ifdef __cplusplus
}
#endif

#endif
