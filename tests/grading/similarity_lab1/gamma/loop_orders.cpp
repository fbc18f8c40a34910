/* Lab 1 - loop orders.
 * ijk and jik sum each element in double and store it once; the other four
 * clear C and then add one product at a time. */
#include "labs/lab1/loop_orders.h"

namespace student::lab1 {

void matmul_ijk(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::int64_t i, j, k;
    for (i = 0; i < M; i = i + 1)
        for (j = 0; j < N; j = j + 1) {
            double s = 0.0;
            for (k = 0; k < K; k = k + 1) s = s + (double)A[i * K + k] * (double)B[k * N + j];
            C[i * N + j] = (float)s;
        }
}

void matmul_jik(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::int64_t i, j, k;
    for (j = 0; j < N; j = j + 1)
        for (i = 0; i < M; i = i + 1) {
            double s = 0.0;
            for (k = 0; k < K; k = k + 1) s = s + (double)A[i * K + k] * (double)B[k * N + j];
            C[i * N + j] = (float)s;
        }
}

void matmul_ikj(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::int64_t i, j, k;
    for (i = 0; i < M * N; i = i + 1) C[i] = 0;
    for (i = 0; i < M; i = i + 1)
        for (k = 0; k < K; k = k + 1)
            for (j = 0; j < N; j = j + 1) C[i * N + j] = C[i * N + j] + A[i * K + k] * B[k * N + j];
}

void matmul_kij(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::int64_t i, j, k;
    for (i = 0; i < M * N; i = i + 1) C[i] = 0;
    for (k = 0; k < K; k = k + 1)
        for (i = 0; i < M; i = i + 1)
            for (j = 0; j < N; j = j + 1) C[i * N + j] = C[i * N + j] + A[i * K + k] * B[k * N + j];
}

void matmul_jki(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::int64_t i, j, k;
    for (i = 0; i < M * N; i = i + 1) C[i] = 0;
    for (j = 0; j < N; j = j + 1)
        for (k = 0; k < K; k = k + 1)
            for (i = 0; i < M; i = i + 1) C[i * N + j] = C[i * N + j] + A[i * K + k] * B[k * N + j];
}

void matmul_kji(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::int64_t i, j, k;
    for (i = 0; i < M * N; i = i + 1) C[i] = 0;
    for (k = 0; k < K; k = k + 1)
        for (j = 0; j < N; j = j + 1)
            for (i = 0; i < M; i = i + 1) C[i * N + j] = C[i * N + j] + A[i * K + k] * B[k * N + j];
}

}  // namespace student::lab1
