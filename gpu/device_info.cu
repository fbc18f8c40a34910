#include "gpu/device_info.h"

#include <cstdlib>

#include "gpu/cuda_check.h"

namespace mml::gpu {

int fp32_lanes_per_sm(int major, int minor) {
    switch (major) {
        case 5: return 128;                      // Maxwell
        case 6: return minor == 0 ? 64 : 128;    // Pascal: P100 has 64
        case 7: return 64;                       // Volta, Turing
        case 8: return minor == 0 ? 64 : 128;    // A100 64; Ampere consumer, Ada 128
        case 9: return 128;                      // Hopper
        case 10: case 11: case 12: return 128;   // Blackwell
        default: return 0;
    }
}

DeviceInfo read_device_info() {
    DeviceInfo info;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        // cudaErrorInsufficientDriver is also what a machine with no NVIDIA
        // driver at all gets; its text ("driver version is insufficient")
        // would send a student without a GPU off to upgrade a driver.
        const char* why = err == cudaSuccess                   ? "device count is 0"
                          : err == cudaErrorInsufficientDriver ? "no NVIDIA driver here, or one older than this CUDA toolkit needs"
                                                               : cudaGetErrorString(err);
        // CUDA_VISIBLE_DEVICES is honoured (a scheduler's or the user's choice),
        // but one that hides every GPU is named: it, not the machine, is the cause.
        const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
        const std::string hidden = visible ? std::string("; CUDA_VISIBLE_DEVICES='") + visible +
                                                 "' is set: it may hide the GPUs, unset it or name a device that exists"
                                           : "";
        info.why_not = std::string("no CUDA device found (") + why + hidden +
                       "); run the CPU labs (1-5) here, or use a machine with an NVIDIA GPU";
        cudaGetLastError();  // clear the sticky error so later calls start clean
        return info;
    }
    cudaDeviceProp prop{};
    err = cudaGetDeviceProperties(&prop, 0);
    if (err != cudaSuccess) {
        info.why_not = std::string("cannot read the GPU's properties: ") + cudaGetErrorString(err);
        return info;
    }
    info.available = true;
    info.name = prop.name;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    int clock_khz = 0;
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0) == cudaSuccess)
        info.sm_clock_ghz = clock_khz / 1e6;
    info.fp32_peak_gflops =
        info.sm_count * fp32_lanes_per_sm(prop.major, prop.minor) * 2.0 * info.sm_clock_ghz;
    int mem_khz = 0, bus_bits = 0;
    if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0) == cudaSuccess)
        info.dram_peak_gbs = mem_khz * 1e3 * (bus_bits / 8.0) * 2.0 / 1e9;
    cudaMemGetInfo(&info.free_bytes, &info.total_bytes);
    cudaDriverGetVersion(&info.driver_version);
    cudaRuntimeGetVersion(&info.runtime_version);
    return info;
}

}  // namespace mml::gpu
