// Lab 6's stage helpers, shared by its registration (stages.cpp, the
// student's versions) and the binding of its reference (references.cpp).
#pragma once

#include <cstdint>

#include "harness/stage.h"

namespace mml::lab6 {

// A block-per-element reduction kernel's launch function, as labs/lab6/lab6.h
// and solutions/lab6/lab6.h declare it: the last argument is the block size.
using BlockReduceFn = void (*)(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                               std::int64_t K, int threads);

// --param block=T: threads a block for lab6.block_reduce (Cao's survey used 64).
// Throws UsageError unless T is a power of two from 32 to 1024.
int block_param(const StageParams& p);

// `fn` as a stage version that reads --param block.
MatmulFn with_block_param(BlockReduceFn fn);

}  // namespace mml::lab6
