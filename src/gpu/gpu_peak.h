/* gpu_peak.h: a GPU's peak arithmetic and memory rates from what the device reports about itself
 * (plain C, no CUDA: gpu_info.cu reads the attributes, `sluice bench` holds its floors to the
 * result, and tests check the arithmetic on machines without a GPU). */
#ifndef SLUICE_GPU_PEAK_H
#define SLUICE_GPU_PEAK_H

typedef struct gpu_peak {
    double fp32, fp64; /* flop/s, non-tensor, fused multiply-add counted as 2 */
    double bandwidth;  /* bytes/s of device memory */
} gpu_peak;

/* Results per clock per SM of FP32 and FP64 fused multiply-adds by compute capability, from the
 * throughput table of the CUDA C++ Programming Guide ("Arithmetic Instructions"): 7.0 and 8.0
 * 64/32, 7.5 64/2, 8.6-8.9 128/2, 9.0 and 10.x 128/64; anything else 128/2 (the consumer parts). */
static inline void gpu_lanes_per_sm(int major, int minor, int *fp32, int *fp64)
{
    if ((major == 7 && minor == 0) || (major == 8 && minor == 0)) {
        *fp32 = 64, *fp64 = 32;
    } else if (major == 7) {
        *fp32 = 64, *fp64 = 2;
    } else if (major == 9 || major == 10) {
        *fp32 = 128, *fp64 = 64;
    } else {
        *fp32 = 128, *fp64 = 2;
    }
}

/* The peaks of a device with `sms` SMs of compute capability major.minor at clock_khz, with memory
 * at mem_clock_khz on a bus of bus_bits (double data rate: two transfers per clock). */
static inline gpu_peak gpu_peak_from(int major, int minor, int sms, double clock_khz, double mem_clock_khz,
                                     int bus_bits)
{
    int l32, l64;
    gpu_lanes_per_sm(major, minor, &l32, &l64);
    gpu_peak p;
    p.fp32 = (double)sms * l32 * 2.0 * clock_khz * 1e3;
    p.fp64 = (double)sms * l64 * 2.0 * clock_khz * 1e3;
    p.bandwidth = 2.0 * mem_clock_khz * 1e3 * bus_bits / 8.0;
    return p;
}

#endif
