// Lab 5 reference: the answer to labs/lab5/kernels_avx2.cpp, the kernels for
// AVX2 + FMA (8 floats per ymm register): the template bodies of
// kernel_bodies_impl.h with the vector traits of avx2_traits_impl.h.
// Register tile 6 x 16: 6 rows x 2 vectors = 12 accumulators, + 2 vectors of
// B + 1 broadcast of A = 15 of the 16 ymm registers. 12 independent FMA
// chains cover the FMA latency (4 cycles) times the 2 FMA units with room to
// spare, and each step k costs 2 loads + 6 broadcasts for 12 FMAs.
//
// Every function here carries __attribute__((target("avx2,fma"))) (the three
// kernels from their declarations in kernels.h); kernels.cpp calls them only
// after cpuid has said the CPU has AVX2 and FMA.
#include <immintrin.h>

#include <stdexcept>

#include "solutions/lab5/avx2_traits_impl.h"
#include "solutions/lab5/kernels.h"

namespace reference::lab5 {

// Task 1a: the dot product of Cao's survey, with FMA.
float dot_avx2(const float* a, const float* b, std::int64_t K) {
    return bodies::dot<Avx2>(a, b, K);
}

// Task 2: the register tile, on A and B as they are (unpacked).
void tile_avx2(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
               std::int64_t ldc) {
    bodies::tile<Avx2, 6, 2>(K, A, lda, B, ldb, C, ldc);
}

// Task 3: the micro-kernel, on packed panels (see packing.cpp for the layout).
void micro_avx2(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate) {
    bodies::micro<Avx2, 6, 2>(kc, a, b, C, ldc, accumulate, 6, 16);
}

// The AVX-512 tile geometry (12 x 32) with the same template bodies and a
// 16-float vector of two AVX2 registers (avx2_traits_impl.h: Avx2Pair), so
// that the tests run that geometry on an AVX2-only machine. Not fast (48
// accumulators do not fit in 16 registers); only for testing.
namespace {
__attribute__((target("avx2,fma"))) float dot_pair(const float* a, const float* b, std::int64_t K) {
    return bodies::dot<Avx2Pair>(a, b, K);
}
__attribute__((target("avx2,fma"))) void tile_pair(std::int64_t K, const float* A, std::int64_t lda, const float* B,
                                                   std::int64_t ldb, float* C, std::int64_t ldc) {
    bodies::tile<Avx2Pair, 12, 2>(K, A, lda, B, ldb, C, ldc);
}
__attribute__((target("avx2,fma"))) void micro_pair(std::int64_t kc, const float* a, const float* b, float* C,
                                                    std::int64_t ldc, bool accumulate) {
    bodies::micro<Avx2Pair, 12, 2>(kc, a, b, C, ldc, accumulate, 12, 32);
}
__attribute__((target("avx2,fma"))) void micro_pair_edge(std::int64_t kc, const float* a, const float* b, float* C,
                                                         std::int64_t ldc, bool accumulate, int rows, int cols) {
    bodies::micro<Avx2Pair, 12, 2>(kc, a, b, C, ldc, accumulate, rows, cols);
}
__attribute__((target("avx2,fma"))) void micro_pair_half(std::int64_t kc, const float* a, const float* b, float* C,
                                                         std::int64_t ldc, bool accumulate, int rows, int cols) {
    bodies::micro<Avx2Pair, 12, 1, 2>(kc, a, b, C, ldc, accumulate, rows, cols);
}
}  // namespace

const KernelSet& avx2_kernels_emulating_avx512() {
    if (!mml::simd_available(mml::SimdLevel::Avx2)) throw std::invalid_argument("this CPU has no AVX2+FMA");
    static const KernelSet k{"AVX2+FMA pairs, AVX-512 tile 12x32 (test only)", mml::SimdLevel::Avx2, 12, 32, dot_pair,
                             tile_pair, micro_pair, micro_pair_edge, micro_pair_half};
    return k;
}

}  // namespace reference::lab5
