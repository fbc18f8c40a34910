// Lab 5 reference, stage 2 (lab5.tile): C computed one MR x NR register tile
// at a time with broadcast-and-FMA (outer products), on A and B as they are.
#pragma once

#include <cstdint>

#include "solutions/lab5/kernels.h"

namespace reference::lab5 {

void matmul_register_tile(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                          std::int64_t K, const KernelSet& kernels);

}  // namespace reference::lab5
