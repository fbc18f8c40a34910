// Lab 5 reference, for the tests only: the template bodies of
// kernel_bodies_impl.h at the AVX-512 tile geometry (12 x 32) with a "vector"
// of one float, so that any CPU runs that geometry through the loops (blis.cpp)
// and the packing, and the list of every kernel set this CPU runs. No starter
// counterpart.
#include <cstdint>

#include "solutions/lab5/kernel_bodies_impl.h"
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

void tile_12x32(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                std::int64_t ldc) {
    bodies::tile<Scalar, 12, 32>(K, A, lda, B, ldb, C, ldc);
}
void micro_12x32(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate) {
    bodies::micro<Scalar, 12, 32>(kc, a, b, C, ldc, accumulate, 12, 32);
}
void micro_12x32_edge(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate,
                      int rows, int cols) {
    bodies::micro<Scalar, 12, 32>(kc, a, b, C, ldc, accumulate, rows, cols);
}
void micro_12x16(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate,
                 int rows, int cols) {
    bodies::micro<Scalar, 12, 16, 32>(kc, a, b, C, ldc, accumulate, rows, cols);
}

}  // namespace

const KernelSet& scalar_kernels_with_avx512_tile() {
    static const KernelSet k{"scalar, AVX-512 tile 12x32 (test only)", mml::SimdLevel::Scalar, 12, 32,
                             bodies::dot<Scalar>, tile_12x32, micro_12x32, micro_12x32_edge, micro_12x16};
    return k;
}

std::vector<const KernelSet*> runnable_kernel_sets() {
    std::vector<const KernelSet*> sets = {&common::lab5::scalar_kernels(), &scalar_kernels_with_avx512_tile()};
    if (mml::simd_available(mml::SimdLevel::Avx2)) {
        sets.push_back(&kernels_for(mml::SimdLevel::Avx2));
        sets.push_back(&avx2_kernels_emulating_avx512());
    }
    if (mml::simd_available(mml::SimdLevel::Avx512)) sets.push_back(&kernels_for(mml::SimdLevel::Avx512));
    return sets;
}

}  // namespace reference::lab5
