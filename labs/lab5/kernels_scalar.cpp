// Lab 5 - given: the kernels in plain C++. They run on any CPU, and they are
// the specification of what your AVX2 versions in kernels_avx2.cpp compute.
#include "labs/lab5/kernels.h"

namespace student::lab5 {

float dot_scalar(const float* a, const float* b, std::int64_t K) {
    float sum = 0.0f;
    for (std::int64_t k = 0; k < K; ++k) sum += a[k] * b[k];
    return sum;
}

void tile_scalar(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                 std::int64_t ldc) {
    float c[MR][NR] = {};
    for (std::int64_t k = 0; k < K; ++k)
        for (int r = 0; r < MR; ++r)
            for (int j = 0; j < NR; ++j) c[r][j] += A[r * lda + k] * B[k * ldb + j];
    for (int r = 0; r < MR; ++r)
        for (int j = 0; j < NR; ++j) C[r * ldc + j] = c[r][j];
}

void micro_scalar(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate) {
    float c[MR][NR] = {};
    for (std::int64_t p = 0; p < kc; ++p)
        for (int r = 0; r < MR; ++r)
            for (int j = 0; j < NR; ++j) c[r][j] += a[p * MR + r] * b[p * NR + j];
    for (int r = 0; r < MR; ++r)
        for (int j = 0; j < NR; ++j) C[r * ldc + j] = accumulate ? C[r * ldc + j] + c[r][j] : c[r][j];
}

}  // namespace student::lab5
