// Lab 5 reference: the answer to the extension of labs/lab5/kernels_avx512.cpp,
// the kernels for AVX-512 (16 floats per zmm register). Register tile
// 12 x 32: 12 rows x 2 vectors = 24 accumulators, + 2 vectors of B + 1
// broadcast = 27 of the 32 zmm registers; each step k costs 2 loads + 12
// broadcasts for 24 FMAs. The bodies are the ones the AVX2 kernels use
// (kernel_bodies_impl.h); only the vector type and its operations change
// (avx512_traits_impl.h), and the tests run those bodies at this very tile
// size on machines without AVX-512 (kernels.h: scalar_kernels_with_avx512_tile,
// avx2_kernels_emulating_avx512). On top of the whole-tile micro-kernel, an
// edge one (masked stores) and a half-width one (the last columns of C with
// half the FMAs): the given loops use them (labs/common/blis_loops.cpp).
//
// Every function here but the last carries __attribute__((target("avx512f")));
// the given kernels.cpp calls them only after cpuid has said the CPU (and the
// OS) support AVX-512F.
#include "solutions/lab5/avx512_traits_impl.h"
#include "solutions/lab5/kernels.h"

namespace reference::lab5 {

namespace {
__attribute__((target("avx512f"))) float dot_avx512(const float* a, const float* b, std::int64_t K) {
    return bodies::dot<Avx512>(a, b, K);
}
__attribute__((target("avx512f"))) void tile_avx512(std::int64_t K, const float* A, std::int64_t lda, const float* B,
                                                    std::int64_t ldb, float* C, std::int64_t ldc) {
    bodies::tile<Avx512, 12, 2>(K, A, lda, B, ldb, C, ldc);
}
__attribute__((target("avx512f"))) void micro_avx512(std::int64_t kc, const float* a, const float* b, float* C,
                                                     std::int64_t ldc, bool accumulate) {
    bodies::micro<Avx512, 12, 2>(kc, a, b, C, ldc, accumulate, 12, 32);
}
__attribute__((target("avx512f"))) void micro_avx512_edge(std::int64_t kc, const float* a, const float* b, float* C,
                                                          std::int64_t ldc, bool accumulate, int rows, int cols) {
    bodies::micro<Avx512, 12, 2>(kc, a, b, C, ldc, accumulate, rows, cols);
}
__attribute__((target("avx512f"))) void micro_avx512_half(std::int64_t kc, const float* a, const float* b, float* C,
                                                          std::int64_t ldc, bool accumulate, int rows, int cols) {
    bodies::micro<Avx512, 12, 1, 2>(kc, a, b, C, ldc, accumulate, rows, cols);
}
}  // namespace

const KernelSet* avx512_kernels() {
    static const KernelSet k{"AVX-512 12x32", mml::SimdLevel::Avx512, 12, 32, dot_avx512, tile_avx512, micro_avx512,
                             micro_avx512_edge, micro_avx512_half};
    return &k;
}

}  // namespace reference::lab5
