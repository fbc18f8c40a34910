// Properties of the current CUDA device, read from the runtime.
#pragma once

#include "harness/gpu_backend.h"

namespace mml::gpu {

// FP32 lanes (CUDA cores) per SM for a compute capability; 0 if unknown.
int fp32_lanes_per_sm(int cc_major, int cc_minor);

// Fills every field of DeviceInfo for device 0; available=false with the
// reason when there is no usable device. Never throws.
DeviceInfo read_device_info();

}  // namespace mml::gpu
