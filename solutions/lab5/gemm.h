// Lab 5 reference, stage 4 (lab5.blis): the BLIS / GotoBLAS algorithm - the
// five loops around the micro-kernel, packing, cache blocking, threads.
#pragma once

#include <cstdint>

#include "solutions/lab5/blocking.h"
#include "solutions/lab5/kernels.h"

namespace reference::lab5 {

// C = A*B for any M, N, K >= 1 on `threads` threads (OpenMP). Block sizes
// that are 0 take the defaults (blocking.h).
void matmul_blis(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                 const KernelSet& kernels, BlockSizes blocks, int threads);

}  // namespace reference::lab5
