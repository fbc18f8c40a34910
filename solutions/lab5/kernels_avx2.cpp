// Lab 5 reference: the kernels for AVX2 + FMA (8 floats per ymm register).
// Register tile 6 x 16: 6 rows x 2 vectors = 12 accumulators, + 2 vectors of
// B + 1 broadcast of A = 15 of the 16 ymm registers. 12 independent FMA
// chains cover the FMA latency (4 cycles) times the 2 FMA units with room to
// spare, and each step k costs 2 loads + 6 broadcasts for 12 FMAs.
//
// Everything in this file between push_options and pop_options is compiled
// for AVX2+FMA, whatever the build flags; kernels.cpp calls it only after
// cpuid has said the CPU has AVX2 and FMA.
#include <immintrin.h>

#include <cstdint>

#include "solutions/lab5/kernels.h"
#include "solutions/lab5/kernel_sets.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include "solutions/lab5/kernel_bodies_impl.h"

namespace reference::lab5 {
namespace {

struct Avx2 {
    using V = __m256;
    static constexpr int W = 8;
    static V zero() { return _mm256_setzero_ps(); }
    static V load(const float* p) { return _mm256_loadu_ps(p); }
    static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
    static V splat(float x) { return _mm256_set1_ps(x); }
    static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
    static V add(V a, V b) { return _mm256_add_ps(a, b); }
    static float sum(V v) {
        // 8 -> 4 lanes (add the two 128-bit halves), 4 -> 2, 2 -> 1.
        __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        x = _mm_add_ps(x, _mm_movehl_ps(x, x));
        x = _mm_add_ss(x, _mm_movehdup_ps(x));
        return _mm_cvtss_f32(x);
    }
    // Lane i takes part when i < n: the sign bit of lane i of the mask.
    static __m256i first(int n) { return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)); }
    static V load_first(const float* p, int n) { return _mm256_maskload_ps(p, first(n)); }
    static void store_first(float* p, V v, int n) { _mm256_maskstore_ps(p, first(n), v); }
};

// A 16-float "vector" made of two AVX2 registers: the AVX-512 tile geometry
// (12 x 32) with the same template bodies, so that the tests can run that
// geometry on an AVX2-only machine. Not fast (48 accumulators do not fit in
// 16 registers); only for testing.
struct Avx2Pair {
    struct V {
        __m256 lo, hi;
    };
    static constexpr int W = 16;
    static V zero() { return {_mm256_setzero_ps(), _mm256_setzero_ps()}; }
    static V load(const float* p) { return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}; }
    static void store(float* p, V v) {
        _mm256_storeu_ps(p, v.lo);
        _mm256_storeu_ps(p + 8, v.hi);
    }
    static V splat(float x) { return {_mm256_set1_ps(x), _mm256_set1_ps(x)}; }
    static V fma(V a, V b, V c) { return {_mm256_fmadd_ps(a.lo, b.lo, c.lo), _mm256_fmadd_ps(a.hi, b.hi, c.hi)}; }
    static V add(V a, V b) { return {_mm256_add_ps(a.lo, b.lo), _mm256_add_ps(a.hi, b.hi)}; }
    static float sum(V v) { return Avx2::sum(_mm256_add_ps(v.lo, v.hi)); }
    static V load_first(const float* p, int n) { return {Avx2::load_first(p, n), Avx2::load_first(p + 8, n - 8)}; }
    static void store_first(float* p, V v, int n) {
        Avx2::store_first(p, v.lo, n);
        Avx2::store_first(p + 8, v.hi, n - 8);
    }
};

}  // namespace

float dot_avx2(const float* a, const float* b, std::int64_t K) { return bodies::dot<Avx2>(a, b, K); }
void tile_avx2(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
               std::int64_t ldc) {
    bodies::tile<Avx2, 6, 2>(K, A, lda, B, ldb, C, ldc);
}
void micro_avx2(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate, int rows,
                int cols) {
    bodies::micro<Avx2, 6, 2>(kc, a, b, C, ldc, accumulate, rows, cols);
}

void micro_avx2_half(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate,
                     int rows, int cols) {
    bodies::micro<Avx2, 6, 1, 2>(kc, a, b, C, ldc, accumulate, rows, cols);
}

float dot_avx2_pair(const float* a, const float* b, std::int64_t K) { return bodies::dot<Avx2Pair>(a, b, K); }
void tile_avx2_pair(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb,
                    float* C, std::int64_t ldc) {
    bodies::tile<Avx2Pair, 12, 2>(K, A, lda, B, ldb, C, ldc);
}
void micro_avx2_pair(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate,
                     int rows, int cols) {
    bodies::micro<Avx2Pair, 12, 2>(kc, a, b, C, ldc, accumulate, rows, cols);
}

void micro_avx2_pair_half(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc,
                          bool accumulate, int rows, int cols) {
    bodies::micro<Avx2Pair, 12, 1, 2>(kc, a, b, C, ldc, accumulate, rows, cols);
}

}  // namespace reference::lab5
#pragma GCC pop_options

namespace reference::lab5 {

const KernelSet& avx2_kernels() {
    static const KernelSet k{"AVX2+FMA 6x16", mml::SimdLevel::Avx2, 6, 16, dot_avx2, tile_avx2, micro_avx2,
                             micro_avx2_half};
    return k;
}

const KernelSet& avx2_pair_kernels() {
    static const KernelSet k{"AVX2+FMA pairs, AVX-512 tile 12x32 (test only)", mml::SimdLevel::Avx2, 12, 32,
                             dot_avx2_pair, tile_avx2_pair, micro_avx2_pair, micro_avx2_pair_half};
    return k;
}

}  // namespace reference::lab5
