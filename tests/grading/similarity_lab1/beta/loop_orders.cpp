// lab 1 -- loop orders
// row pointers where a row stays fixed in the inner loop; memset for the
// orders that accumulate into C.
#include "labs/lab1/loop_orders.h"

#include <cstring>

namespace student::lab1 {

void matmul_ijk(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    for (int i = 0; i < M; i++) {
        const float* arow = A + i * K;
        float* crow = C + i * N;
        for (int j = 0; j < N; j++) {
            float acc = 0;
            for (int k = 0; k < K; k++) acc += arow[k] * B[k * N + j];
            crow[j] = acc;
        }
    }
}

void matmul_ikj(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::memset(C, 0, sizeof(float) * M * N);
    for (int i = 0; i < M; i++) {
        float* crow = C + i * N;
        for (int k = 0; k < K; k++) {
            const float aik = A[i * K + k];
            const float* brow = B + k * N;
            for (int j = 0; j < N; j++) crow[j] += aik * brow[j];
        }
    }
}

void matmul_jik(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    for (int j = 0; j < N; j++) {
        for (int i = 0; i < M; i++) {
            const float* arow = A + i * K;
            float acc = 0;
            for (int k = 0; k < K; k++) acc += arow[k] * B[k * N + j];
            C[i * N + j] = acc;
        }
    }
}

void matmul_jki(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::memset(C, 0, sizeof(float) * M * N);
    for (int j = 0; j < N; j++) {
        for (int k = 0; k < K; k++) {
            const float bkj = B[k * N + j];
            for (int i = 0; i < M; i++) C[i * N + j] += A[i * K + k] * bkj;
        }
    }
}

void matmul_kij(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::memset(C, 0, sizeof(float) * M * N);
    for (int k = 0; k < K; k++) {
        const float* brow = B + k * N;
        for (int i = 0; i < M; i++) {
            const float aik = A[i * K + k];
            float* crow = C + i * N;
            for (int j = 0; j < N; j++) crow[j] += aik * brow[j];
        }
    }
}

void matmul_kji(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::memset(C, 0, sizeof(float) * M * N);
    for (int k = 0; k < K; k++) {
        for (int j = 0; j < N; j++) {
            const float bkj = B[k * N + j];
            for (int i = 0; i < M; i++) C[i * N + j] += A[i * K + k] * bkj;
        }
    }
}

}  // namespace student::lab1
