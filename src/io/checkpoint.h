/* checkpoint.h: the full state of a run in one file, so that a run can continue exactly. */
#ifndef SLUICE_CHECKPOINT_H
#define SLUICE_CHECKPOINT_H

#include "core/sim.h"
#include "base/status.h"
#include "snapshot.h"

/* Writes every particle array in its current order (the order decides the neighbour sums, so a
 * restart continues bit for bit), the time, the step, the output schedule and the list of
 * snapshots written so far. Written atomically (temporary name, fsync, rename). */
int io_checkpoint_write(const char *path, const sim *s, const io_series *series, long next_output,
                        sl_err *err);

/* Replaces the state of s (created from the same scene) and the series' list of snapshots with
 * those of the checkpoint. Fails with a one-line message when the file is not a checkpoint, is
 * damaged or truncated, or belongs to another scene (particle count, fields, precision). */
int io_checkpoint_read(const char *path, sim *s, io_series *series, long *next_output, sl_err *err);

/* The checksum that ends a checkpoint file (64-bit FNV-1a over every byte before it). */
uint64_t io_checkpoint_checksum(const unsigned char *p, size_t n);

#endif
