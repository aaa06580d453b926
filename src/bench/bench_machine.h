/* bench_machine.h: the peak rates `sluice bench` holds its floors to, for the machine it runs on. */
#ifndef SLUICE_BENCH_MACHINE_H
#define SLUICE_BENCH_MACHINE_H

#include "bench_floors.h"

/* For a run on the CPU (cpu set; threads) or on the current CUDA device, whose peaks come from its
 * attributes (gpu/gpu_info.h), or the H200's when it does not tell them (bench_machine_of). */
bench_machine bench_machine_here(int cpu, int threads);

#endif
