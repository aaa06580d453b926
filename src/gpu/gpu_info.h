/* gpu_info.h: what CUDA devices this machine has (plain C interface to src/gpu). */
#ifndef SLUICE_GPU_INFO_H
#define SLUICE_GPU_INFO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes one line per CUDA device (or the reason there is none) into buf; returns the number of
 * devices. Only built when the CUDA backend is compiled. */
int gpu_describe_devices(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
