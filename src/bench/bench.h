/* bench.h: the `sluice bench` command. */
#ifndef SLUICE_BENCH_H
#define SLUICE_BENCH_H

#include "bench_floors.h"

/* argv[1] is "bench". Returns the exit status. */
int bench_main(int argc, char **argv);

/* The floors' machine for a run on the CPU (cpu set; threads) or on the current CUDA device, whose
 * peaks come from its attributes (gpu_info.h), or the H200's when it does not tell them. */
bench_machine bench_machine_here(int cpu, int threads);

#endif
