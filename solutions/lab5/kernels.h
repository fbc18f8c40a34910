// Lab 5 reference: the innermost kernels (see labs/lab5/kernels.h: the same
// declarations, and a few more for the tests).
//
// The three kernels are the only code in lab 5 that depends on the SIMD
// width. Everything around them (transposing, the tile loops, packing, the
// five BLIS loops, threads) is written once and gets the kernels from a
// KernelSet (labs/common/kernel_sets.h), chosen at run time. Each level's
// kernels are compiled in their own file (labs/common/kernels_scalar.cpp,
// kernels_avx2.cpp, kernels_avx512.cpp); the SIMD ones from the same template
// bodies (kernel_bodies_impl.h), so they differ only in the vector type and
// its handful of operations.
#pragma once

#include <cstdint>
#include <vector>

#include "labs/common/kernel_sets.h"

namespace reference::lab5 {

constexpr int MR = 6, NR = 16;  // the AVX2 tile (the AVX-512 one: 12 x 32, kernels_avx512.cpp)

using common::lab5::KernelSet;

// The kernel set for --param simd; throws std::invalid_argument if the CPU lacks `simd`.
const KernelSet& kernels_for(mml::SimdLevel simd);

__attribute__((target("avx2,fma"))) float dot_avx2(const float* a, const float* b, std::int64_t K);
__attribute__((target("avx2,fma"))) void tile_avx2(std::int64_t K, const float* A, std::int64_t lda,
                                                   const float* B, std::int64_t ldb, float* C, std::int64_t ldc);
__attribute__((target("avx2,fma"))) void micro_avx2(std::int64_t kc, const float* a, const float* b, float* C,
                                                    std::int64_t ldc, bool accumulate);

// The AVX-512 kernel set (kernels_avx512.cpp, the starter's extension).
const KernelSet* avx512_kernels();

// Kernel sets with the AVX-512 tile geometry (MR x NR = 12 x 32) that run
// without AVX-512, so that the tests can check that geometry and the template
// bodies on any machine: the scalar body at 12 x 32 (kernels_test_tiles.cpp),
// and the AVX2 body with a 16-float vector made of two 8-float AVX2 registers
// (kernels_avx2.cpp; AVX2 CPUs only).
const KernelSet& scalar_kernels_with_avx512_tile();
const KernelSet& avx2_kernels_emulating_avx512();  // throws without AVX2+FMA

// Every kernel set this CPU can run, the test-only ones included (kernels_test_tiles.cpp).
std::vector<const KernelSet*> runnable_kernel_sets();

}  // namespace reference::lab5
