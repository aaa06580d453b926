/* test_gpu_peak.c: the arithmetic of gpu/gpu_peak.h, which `sluice bench` holds its GPU floors to,
 * against the figures NVIDIA publishes for two data-centre GPUs, from the attributes those parts
 * report (SMs, boost clock, memory clock, bus width as in their datasheets and `nvidia-smi -q`):
 *   H100 SXM5 80GB: 132 SMs, 1980 MHz, HBM3 at 2619 MHz on 5120 bits: 67 Tflop/s FP32, 34 FP64,
 *                   3.35 TB/s;
 *   A100 SXM4 80GB: 108 SMs, 1410 MHz, HBM2e at 1593 MHz on 5120 bits: 19.5 Tflop/s FP32, 9.7 FP64,
 *                   2.039 TB/s.
 * Tolerance 2%: the datasheets round to two or three figures (34 for 33.45 is the widest, 1.6%). A
 * wrong lane count per SM or a missing factor 2 (fused multiply-add, double data rate) is off by
 * 50% or more. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "gpu/gpu_peak.h"

#include <math.h>

static void near(double got, double want)
{
    print_message("  %.4g against %.4g (%+.2f%%)\n", got, want, 100 * (got / want - 1));
    assert_true(fabs(got / want - 1) < 0.02);
}

static void test_h100(void **state)
{
    (void)state;
    gpu_peak p = gpu_peak_from(9, 0, 132, 1980e3, 2619e3, 5120);
    near(p.fp32, 67e12);
    near(p.fp64, 34e12);
    near(p.bandwidth, 3.35e12);
}

static void test_a100(void **state)
{
    (void)state;
    gpu_peak p = gpu_peak_from(8, 0, 108, 1410e3, 1593e3, 5120);
    near(p.fp32, 19.5e12);
    near(p.fp64, 9.7e12);
    near(p.bandwidth, 2.039e12);
}

/* Consumer parts run FP64 at 1/64 of FP32 (compute capability 8.6: 128 and 2 lanes per SM). */
static void test_fp64_ratio_consumer(void **state)
{
    (void)state;
    gpu_peak p = gpu_peak_from(8, 6, 84, 1695e3, 1219e3, 384);
    assert_true(fabs(p.fp32 / p.fp64 - 64.0) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h100),
        cmocka_unit_test(test_a100),
        cmocka_unit_test(test_fp64_ratio_consumer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
