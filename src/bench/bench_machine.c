/* bench_machine.c: the machine `sluice bench` runs on, as peak rates (here, in the program, because
 * it asks the CUDA device; bench_floors.c in the library does the rest). */
#include "bench_machine.h"

#ifdef SLUICE_HAVE_CUDA
#include "gpu/gpu_info.h"
#endif

#include <stddef.h>

bench_machine bench_machine_here(int cpu, int threads)
{
#ifdef SLUICE_HAVE_CUDA
    gpu_peak peak;
    char name[64];
    if (!cpu && gpu_peak_of_current(&peak, name, sizeof name) == 0)
        return bench_machine_of(0, threads, &peak, name);
#endif
    return bench_machine_of(cpu, threads, NULL, NULL);
}
