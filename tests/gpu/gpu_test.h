/* gpu_test.h: what every GPU test's main does first, and what the CPU-GPU comparisons share. */
#ifndef SLUICE_GPU_TEST_H
#define SLUICE_GPU_TEST_H

#include "gpu/backend_cuda.h"

#include <stdio.h>

/* Where no CUDA device is present: says so and returns 77 from main, ctest's skip code
 * (SKIP_RETURN_CODE in tests/CMakeLists.txt), so that a machine without a GPU reports the test
 * skipped, never passed. Otherwise stdout becomes line-buffered, so that progress shows in a log as it
 * happens (the sanitizer runs) and the tests' lines and cmocka's keep their order. */
#define GPU_TEST_SKIP_WITHOUT_DEVICE()                                                          \
    do {                                                                                      \
        if (!cuda_device_present()) {                                                         \
            printf("no CUDA device: skipped (run this test on a machine with an NVIDIA GPU)\n"); \
            return 77;                                                                        \
        }                                                                                     \
        setvbuf(stdout, NULL, _IOLBF, 0);                                                     \
    } while (0)

/* qsort's ascending order of doubles (the differences' percentiles of the comparisons). */
static inline int gpu_test_by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
