// Lab 5 reference: the kernels for AVX-512 (16 floats per zmm register). No
// starter counterpart: the starter's kernels are AVX2 (kernels_avx2.cpp), and
// AVX-512 is the handout's extension.
// Register tile 12 x 32: 12 rows x 2 vectors = 24 accumulators, + 2 vectors
// of B + 1 broadcast = 27 of the 32 zmm registers; each step k costs 2 loads
// + 12 broadcasts for 24 FMAs. The bodies are the ones the AVX2 kernels use
// (kernel_bodies_impl.h); only the vector type and its operations change, and the
// tests run those bodies at this very tile size on machines without AVX-512
// (kernels.h: scalar_kernels_with_avx512_tile, avx2_kernels_emulating_avx512).
//
// Compiled for AVX-512F between push_options and pop_options; called only
// after cpuid has said the CPU (and the OS) support AVX-512F.
#include <immintrin.h>

#include <cstdint>

#include "solutions/lab5/kernels.h"
#include "solutions/lab5/kernel_sets.h"

#pragma GCC push_options
#pragma GCC target("avx512f")
#include "solutions/lab5/kernel_bodies_impl.h"

namespace reference::lab5 {
namespace {

struct Avx512 {
    using V = __m512;
    static constexpr int W = 16;
    static V zero() { return _mm512_setzero_ps(); }
    static V load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
    static V splat(float x) { return _mm512_set1_ps(x); }
    static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
    static V add(V a, V b) { return _mm512_add_ps(a, b); }
    static float sum(V v) {
        // Once per dot product, so plain and obviously right beats clever:
        // store the 16 lanes and add them up.
        alignas(64) float lanes[16];
        _mm512_store_ps(lanes, v);
        float s = 0.0f;
        for (float x : lanes) s += x;
        return s;
    }
    // A k-mask with bit i set for lane i < n (n <= 0: none, n >= 16: all).
    static __mmask16 first(int n) { return n <= 0 ? 0 : n >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << n) - 1); }
    static V load_first(const float* p, int n) { return _mm512_maskz_loadu_ps(first(n), p); }
    static void store_first(float* p, V v, int n) { _mm512_mask_storeu_ps(p, first(n), v); }
};

}  // namespace

float dot_avx512(const float* a, const float* b, std::int64_t K) { return bodies::dot<Avx512>(a, b, K); }
void tile_avx512(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                 std::int64_t ldc) {
    bodies::tile<Avx512, 12, 2>(K, A, lda, B, ldb, C, ldc);
}
void micro_avx512(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate,
                  int rows, int cols) {
    bodies::micro<Avx512, 12, 2>(kc, a, b, C, ldc, accumulate, rows, cols);
}

void micro_avx512_half(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate,
                       int rows, int cols) {
    bodies::micro<Avx512, 12, 1, 2>(kc, a, b, C, ldc, accumulate, rows, cols);
}

}  // namespace reference::lab5
#pragma GCC pop_options

namespace reference::lab5 {

const KernelSet& avx512_kernels() {
    static const KernelSet k{"AVX-512 12x32", mml::SimdLevel::Avx512, 12, 32, dot_avx512, tile_avx512, micro_avx512,
                             micro_avx512_half};
    return k;
}

}  // namespace reference::lab5
