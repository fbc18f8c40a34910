// Lab 5 reference: the portable kernels, plain C++ for any CPU (the fallback
// when cpuid finds neither AVX2+FMA nor AVX-512). The same template bodies
// with a "vector" of one float: a 4 x 4 register tile of scalars.
//
// Also the 12 x 32 instance, the AVX-512 tile geometry, which the tests run
// on every machine to check the packing and loops at that tile size.
#include <cstdint>

#include "solutions/lab5/kernel_bodies_impl.h"
#include "solutions/lab5/kernel_sets.h"
#include "solutions/lab5/kernels.h"

namespace reference::lab5 {
namespace {

struct Scalar {
    using V = float;
    static constexpr int W = 1;
    static V zero() { return 0.0f; }
    static V load(const float* p) { return *p; }
    static void store(float* p, V v) { *p = v; }
    static V splat(float x) { return x; }
    static V fma(V a, V b, V c) { return a * b + c; }
    static V add(V a, V b) { return a + b; }
    static float sum(V v) { return v; }
    static V load_first(const float* p, int n) { return n > 0 ? *p : 0.0f; }
    static void store_first(float* p, V v, int n) {
        if (n > 0) *p = v;
    }
};

void tile_4x4(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
              std::int64_t ldc) {
    bodies::tile<Scalar, 4, 4>(K, A, lda, B, ldb, C, ldc);
}
void micro_4x4(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate, int rows,
               int cols) {
    bodies::micro<Scalar, 4, 4>(kc, a, b, C, ldc, accumulate, rows, cols);
}
void micro_4x2(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate, int rows,
               int cols) {
    bodies::micro<Scalar, 4, 2, 4>(kc, a, b, C, ldc, accumulate, rows, cols);
}
void tile_12x32(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                std::int64_t ldc) {
    bodies::tile<Scalar, 12, 32>(K, A, lda, B, ldb, C, ldc);
}
void micro_12x32(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate,
                 int rows, int cols) {
    bodies::micro<Scalar, 12, 32>(kc, a, b, C, ldc, accumulate, rows, cols);
}

void micro_12x16(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate,
                 int rows, int cols) {
    bodies::micro<Scalar, 12, 16, 32>(kc, a, b, C, ldc, accumulate, rows, cols);
}

}  // namespace

const KernelSet& scalar_kernels() {
    static const KernelSet k{"scalar 4x4", mml::SimdLevel::Scalar, 4, 4, bodies::dot<Scalar>, tile_4x4, micro_4x4,
                             micro_4x2};
    return k;
}

const KernelSet& scalar_kernels_with_avx512_tile() {
    static const KernelSet k{"scalar, AVX-512 tile 12x32 (test only)", mml::SimdLevel::Scalar, 12, 32, bodies::dot<Scalar>,
                             tile_12x32, micro_12x32, micro_12x16};
    return k;
}

}  // namespace reference::lab5
