/* gpu_info.h: what CUDA devices this machine has (plain C interface to src/gpu). */
#ifndef SLUICE_GPU_INFO_H
#define SLUICE_GPU_INFO_H

#include "gpu_peak.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes one line per CUDA device (or the reason there is none) into buf; returns the number of
 * devices. Only built when the CUDA backend is compiled. */
int gpu_describe_devices(char *buf, size_t len);

/* The current device's peaks (gpu_peak.h) and its name; 0, or -1 when there is no device or it does
 * not tell its clocks. */
int gpu_peak_of_current(gpu_peak *out, char *name, size_t len);

/* Makes device `local_rank` modulo the device count the calling thread's (MPI: one GPU per rank of a
 * host, ranks beyond the count sharing them); returns the device, or -1 when there is none. */
int gpu_use_device_of_rank(int local_rank);

#ifdef __cplusplus
}
#endif

#endif
