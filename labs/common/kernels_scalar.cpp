// Given code (lab 5): the kernels in plain C++ (kernel_sets.h). They run on
// any CPU, and they are the specification of what your AVX2 versions in
// labs/lab5/kernels_avx2.cpp compute.
#include "labs/common/kernel_sets.h"

namespace common::lab5 {

namespace {
constexpr int MR = kScalarMR, NR = kScalarNR;
}

float dot_scalar(const float* a, const float* b, std::int64_t K) {
    float sum = 0.0f;
    for (std::int64_t k = 0; k < K; ++k) sum += a[k] * b[k];
    return sum;
}

void tile_scalar(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                 std::int64_t ldc) {
    float c[MR][NR] = {};
    for (std::int64_t k = 0; k < K; ++k)
        for (int i = 0; i < MR; ++i)
            for (int j = 0; j < NR; ++j) c[i][j] += A[i * lda + k] * B[k * ldb + j];
    for (int i = 0; i < MR; ++i)
        for (int j = 0; j < NR; ++j) C[i * ldc + j] = c[i][j];
}

void micro_scalar(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate) {
    float c[MR][NR] = {};
    for (std::int64_t p = 0; p < kc; ++p)
        for (int i = 0; i < MR; ++i)
            for (int j = 0; j < NR; ++j) c[i][j] += a[p * MR + i] * b[p * NR + j];
    for (int i = 0; i < MR; ++i)
        for (int j = 0; j < NR; ++j) C[i * ldc + j] = accumulate ? C[i * ldc + j] + c[i][j] : c[i][j];
}

const KernelSet& scalar_kernels() {
    static const KernelSet k{"scalar 6x16", mml::SimdLevel::Scalar, MR, NR, dot_scalar, tile_scalar, micro_scalar};
    return k;
}

}  // namespace common::lab5
