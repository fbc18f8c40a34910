// Lab 5: the innermost kernels. Read handouts/lab5.md first.
//
// You write the AVX2+FMA versions (kernels_avx2.cpp, tasks 1a, 2, 3). The
// plain C++ versions (labs/common/kernels_scalar.cpp) are given: they compute
// exactly what yours must compute, so read them first. kernels.cpp (given)
// picks yours when the CPU has AVX2+FMA and the scalar ones otherwise; what a
// kernel set is and how the choice is made: labs/common/kernel_sets.h.
//
// All matrices are row-major float32. The register tile is MR x NR = 6 x 16:
// 6 rows of C, 16 columns = 2 AVX2 vectors of 8 floats.
#pragma once

#include <cstdint>

#include "labs/common/kernel_sets.h"

namespace student::lab5 {

constexpr int MR = 6, NR = 16;

using common::lab5::KernelSet;

// The kernel set for --param simd (the widest this build has that needs no
// more than `simd`); throws std::invalid_argument if the CPU lacks `simd`. (kernels.cpp, given)
const KernelSet& kernels_for(mml::SimdLevel simd);

// Your kernels (kernels_avx2.cpp); their specification is the scalar kernels'
// (labs/common/kernel_sets.h: dot_scalar, tile_scalar, micro_scalar).
__attribute__((target("avx2,fma"))) float dot_avx2(const float* a, const float* b, std::int64_t K);
__attribute__((target("avx2,fma"))) void tile_avx2(std::int64_t K, const float* A, std::int64_t lda,
                                                   const float* B, std::int64_t ldb, float* C, std::int64_t ldc);
__attribute__((target("avx2,fma"))) void micro_avx2(std::int64_t kc, const float* a, const float* b, float* C,
                                                    std::int64_t ldc, bool accumulate);

// The extension (kernels_avx512.cpp): your AVX-512 kernel set, or nullptr.
const KernelSet* avx512_kernels();

}  // namespace student::lab5
