// Properties of the current CUDA device, read from the runtime (device_info.cu).
#pragma once

#include <cstddef>
#include <string>

namespace mml::gpu {

// What the harness and the reports say about the GPU. Plain C++: the harness
// includes it in builds without CUDA too (harness/gpu_backend.h).
struct DeviceInfo {
    bool available = false;
    std::string why_not;  // when unavailable: the reason, and what to do
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    double sm_clock_ghz = 0;
    double fp32_peak_gflops = 0;  // SMs x FP32 lanes per SM x 2 x clock (spec, not measured)
    double dram_peak_gbs = 0;     // memory clock x bus width x 2 (double data rate; spec, not measured)
    std::size_t total_bytes = 0, free_bytes = 0;
    int driver_version = 0, runtime_version = 0;
};


// FP32 lanes (CUDA cores) per SM for a compute capability; 0 if unknown.
int fp32_lanes_per_sm(int cc_major, int cc_minor);

// Fills every field of DeviceInfo for device 0; available=false with the
// reason when there is no usable device. Never throws.
DeviceInfo read_device_info();

}  // namespace mml::gpu
