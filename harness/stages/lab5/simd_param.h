// Lab 5's stages read --param simd=W (the vector width: which SIMD level's
// kernels run) and lab5.blis --param mc, kc, nc (its block sizes); `mmlab
// blis-levels` reads --simd W. Both versions of a stage (stages.cpp, the
// student's; references.cpp, the reference's) and the command read them
// here, so a bad value gets the same one-line error everywhere.
#pragma once

#include <string>

#include "cpu/machine.h"
#include "harness/stage.h"
#include "labs/common/block_sizes.h"

namespace mml::lab5 {

// The SIMD level of width W (floats per vector: 1 scalar, 8 AVX2+FMA, 16
// AVX-512; 0 = the widest this CPU has). A width that is none of these, or a
// level this CPU lacks, is a UsageError that starts with `request`, the
// option as it was written ("--param simd=3", "--simd 16").
SimdLevel simd_level_of_width(long long width, const std::string& request);
// --param simd=W (default 0).
SimdLevel requested_simd(const StageParams& p);
// lab5.blis's --param mc, kc, nc: 1..2^20, or 0 (the default) when absent.
common::lab5::BlockSizes requested_blocks(const StageParams& p);

}  // namespace mml::lab5
