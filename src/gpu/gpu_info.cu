/* gpu_info.cu: listing CUDA devices for `sluice info`. */
#include "gpu_info.h"

#include <cuda_runtime.h>
#include <stdio.h>

extern "C" int gpu_describe_devices(char *buf, size_t len)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(buf, len, "  no CUDA device: %s\n", cudaGetErrorString(e));
        return 0;
    }
    size_t used = 0;
    buf[0] = 0;
    for (int d = 0; d < count && used < len; ++d) {
        cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, d) != cudaSuccess)
            continue;
        int n = snprintf(buf + used, len - used, "  %d: %s, sm_%d%d, %.1f GiB, %d SMs\n", d, prop.name,
                         prop.major, prop.minor, (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0),
                         prop.multiProcessorCount);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (count == 0)
        snprintf(buf, len, "  no CUDA device\n");
    return count;
}

extern "C" int gpu_peak_of_current(gpu_peak *out, char *name, size_t len)
{
    int dev, major, minor, sms, clock_khz, mem_khz, bus;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) ||
        cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev) ||
        cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) ||
        cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev) || clock_khz <= 0 || mem_khz <= 0 ||
        bus <= 0) {
        (void)cudaGetLastError();
        return -1;
    }
    cudaDeviceProp prop;
    if (name && len)
        snprintf(name, len, "%s", cudaGetDeviceProperties(&prop, dev) == cudaSuccess ? prop.name : "GPU");
    *out = gpu_peak_from(major, minor, sms, clock_khz, mem_khz, bus);
    return 0;
}

extern "C" int gpu_use_device_of_rank(int local_rank)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        return -1;
    }
    int dev = (local_rank < 0 ? 0 : local_rank) % count;
    return cudaSetDevice(dev) == cudaSuccess ? dev : -1;
}
