// Lab 5 reference: loops 2 and 1 of BLIS (jr, ir) around the micro-kernel -
// one packed mc x kc block of A times one packed kc x nc panel of B.
#pragma once

#include <cstdint>

#include "solutions/lab5/kernels.h"

namespace reference::lab5 {

// C (mc x nc, row stride ldc) = or += (accumulate) packed A * packed B.
// c_tile: scratch of MR*NR floats for the edge tiles.
void macro_kernel(const KernelSet& kernels, std::int64_t mc, std::int64_t nc, std::int64_t kc,
                  const float* a_packed, const float* b_packed, float* C, std::int64_t ldc, bool accumulate,
                  float* c_tile);

}  // namespace reference::lab5
