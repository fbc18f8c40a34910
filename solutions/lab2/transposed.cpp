// Lab 2, stage 2: transpose B, then row-by-row dot products (seed 003,
// Algorithm 2, which measured 3.42x over ijk at n = 5000, built with -O0).
//
// What changed from lab1.ijk: ijk reads B down a column (stride N floats),
// so each B element it uses costs a whole cache line, and at N = 1024 the
// column's lines all fall into the same few cache sets (addresses 4 KiB
// apart) and evict each other. Here B is first copied into Bt = B^T
// (N x K), after which column j of B is row j of Bt: both operands of every
// dot product are read with stride 1, a cache line gives 16 useful floats.
//
// Costs included in the time: a new N*K buffer on every call (allocated,
// filled, freed) and the transpose itself - O(N*K) work against the
// product's O(M*N*K), so about 1/M of the total.
//
// Why it is still far slower than the i-k-j order: the dot product is one
// chain of dependent additions (sum += ...), each waiting for the previous
// one (3-4 cycles on current x86 cores). The compiler may not split the sum
// into several partial sums to vectorize it, because float addition is not
// associative and the result would change (-ffast-math would allow it; lab 5
// does it by hand with AVX). The i-k-j order has no such chain: its N
// updates of a row of C are independent.
#include <vector>

#include "solutions/lab2/locality.h"

namespace reference::lab2 {

namespace {

// Bt[j*K + k] = B[k*N + j]. Reads B along rows; the writes stride through Bt,
// which is cheap next to the product (N*K elements against M*N*K operations).
void transpose(const float* B, float* Bt, std::int64_t N, std::int64_t K) {
    for (std::int64_t k = 0; k < K; ++k)
        for (std::int64_t j = 0; j < N; ++j) Bt[j * K + k] = B[k * N + j];
}

}  // namespace

void matmul_transposed(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K) {
    std::vector<float> Bt(std::size_t(N * K));  // per call: its cost is part of the time
    transpose(B, Bt.data(), N, K);
    for (std::int64_t i = 0; i < M; ++i) {
        const float* a = A + i * K;  // row i of A
        for (std::int64_t j = 0; j < N; ++j) {
            const float* bt = Bt.data() + j * K;  // row j of Bt = column j of B
            float sum = 0.0f;
            for (std::int64_t k = 0; k < K; ++k) sum += a[k] * bt[k];
            C[i * N + j] = sum;
        }
    }
}

}  // namespace reference::lab2
