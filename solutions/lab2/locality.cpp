// Lab 2 reference: the answers to labs/lab2/locality.cpp, one section per
// task (the contract is in locality.h). Each section opens with what changed
// from the stage before it and why that should be faster.
#include "solutions/lab2/locality.h"

#include <algorithm>
#include <vector>

namespace reference::lab2 {

// ==========================================================================
// Task 1, lab2.interchanged: loop interchange (i-k-j), written for speed.
//
// Same loop order, same sums in the same order as lab1.ikj
// (solutions/lab1/loop_orders.cpp); what changed, and why it can be faster:
//   - lab1.ikj zeroes all of C in a separate pass first, then comes back to
//     each row. Here each row of C is zeroed just before its k loop, while
//     it is going to be in the cache anyway: one pass over C instead of two.
//   - __restrict__ promises the compiler that C does not overlap A or B.
//     Without it, GCC vectorizes the inner loop only behind a run-time
//     overlap test, with a scalar copy of the loop as the fallback. GCC 12
//     takes the promise only from function parameters: on these local row pointers
//     `-fopt-info-vec-optimized` still reports "loop versioned for
//     vectorization because of possible aliasing" (the test runs once per
//     row of B, so it costs little; handouts/lab2.md, question 10).
//   - Row pointers (a, b, c) are computed once per row instead of i*K + k
//     and k*N + j in every iteration. At -O3 the compiler does this itself
//     (strength reduction); written out, the inner loop reads as what it is:
//     c[j] += aik * b[j], a scaled row of B added to a row of C.
// The inner loop walks B and C with stride 1, so every cache line brought in
// is used in full, and the compiler turns it into SIMD instructions (SSE on
// the default x86-64 target: 4 floats at a time).
// Expect about the speed of lab1.ikj: the memory traffic is the same, all
// of B once per row of C. Task 3 (lab2.blocked, below) attacks that.

void matmul_interchanged(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                         std::int64_t K) {
    for (std::int64_t i = 0; i < M; ++i) {
        const float* __restrict__ a = A + i * K;  // row i of A
        float* __restrict__ c = C + i * N;        // row i of C
        std::fill(c, c + N, 0.0f);
        for (std::int64_t k = 0; k < K; ++k) {
            const float aik = a[k];                   // held in a register for the whole row
            const float* __restrict__ b = B + k * N;  // row k of B
            for (std::int64_t j = 0; j < N; ++j) c[j] += aik * b[j];
        }
    }
}

// ==========================================================================
// Task 2, lab2.transposed: transpose B, then row-by-row dot products (Cao's
// survey, Algorithm 2, which measured 3.42x over ijk at n = 5000, built with -O0).
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

void matmul_transposed(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K) {
    std::vector<float> Bt(std::size_t(N * K));  // per call: its cost is part of the time
    // Bt[j*K + k] = B[k*N + j]. Reads B along rows; the writes stride through Bt,
    // which is cheap next to the product (N*K elements against M*N*K operations).
    {
        float* const bt = Bt.data();
        for (std::int64_t k = 0; k < K; ++k)
            for (std::int64_t j = 0; j < N; ++j) bt[j * K + k] = B[k * N + j];
    }
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

// ==========================================================================
// Task 3, lab2.blocked: cache blocking.
//
// What changed from task 1 (lab2.interchanged): it streams all of B
// (K x N floats, 4 MiB at n = 1024) through the cache once for every row of
// C. Unless B fits in the L2 cache (512 KiB per core on Zen 3), every row
// fetches B again from the L3 cache or from memory. Here the loops over
// N and K are cut into blocks (BLIS names: NC columns, KC rows):
//
//   for jc in steps of NC            // a column panel of B and of C
//     for pc in steps of KC          // a KC x NC block of B: stays in L2 ...
//       for i in 0..M-1              // ... while every row of A uses it
//         c = row i of C, columns jc..jc+nc-1 (stays in L1 across the k loop)
//         for k in pc..pc+kc-1:  c[0..nc-1] += A(i,k) * B(k, jc..jc+nc-1)
//
// So B comes from slow memory about once in all (each block once per pass
// over M), instead of once per row of C. The price: C is read and written
// K/KC times instead of once, and A N/NC times; KC and NC trade these off,
// and `mmlab sweep` finds the best pair on a machine (handouts/lab2.md).
//
// One step more, inside the block: the k loop takes four rows of B at a
// time, so c[j] is loaded and stored once per four multiply-adds instead of
// once per one (the loop body is then 4 loads of B, 1 load and 1 store of C
// for 8 flops, not 1 + 1 + 1 for 2). That moves the bottleneck from the
// load/store units back towards the arithmetic.
//
// Block sizes need not divide the matrix: the last block in each direction
// is cut short (std::min), and block sizes larger than the matrix are just
// one partial block. The summation order differs from task 1 (K split into
// chunks, four products added before they reach C), which the classical
// error bound gamma_K allows: it holds for any order of the K additions.

void matmul_blocked(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                    std::int64_t K, std::int64_t KC, std::int64_t NC) {
    // c[0..nc-1] += sum over k in [0, kc) of a[k] * (row k of the block of B),
    // where row k of the block starts at b + k*ldb (ldb = N, the row length of B).
    auto update_row = [](const float* __restrict__ a, const float* __restrict__ b, std::int64_t ldb,
                         float* __restrict__ c, std::int64_t kc, std::int64_t nc) {
        std::int64_t k = 0;
        for (; k + 4 <= kc; k += 4) {  // four rows of B per pass over c
            const float a0 = a[k], a1 = a[k + 1], a2 = a[k + 2], a3 = a[k + 3];
            const float* __restrict__ b0 = b + k * ldb;
            const float* __restrict__ b1 = b0 + ldb;
            const float* __restrict__ b2 = b1 + ldb;
            const float* __restrict__ b3 = b2 + ldb;
            for (std::int64_t j = 0; j < nc; ++j) c[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
        }
        for (; k < kc; ++k) {  // the last kc % 4 rows, one at a time
            const float ak = a[k];
            const float* __restrict__ bk = b + k * ldb;
            for (std::int64_t j = 0; j < nc; ++j) c[j] += ak * bk[j];
        }
    };
    // The blocks accumulate into C. Zeroing it first is one pass over M*N
    // floats, small next to the M*N*K multiply-adds.
    std::fill(C, C + M * N, 0.0f);
    for (std::int64_t jc = 0; jc < N; jc += NC) {
        const std::int64_t nc = std::min(NC, N - jc);  // the last panel may be narrower
        for (std::int64_t pc = 0; pc < K; pc += KC) {
            const std::int64_t kc = std::min(KC, K - pc);  // the last block may be shorter
            const float* b_block = B + pc * N + jc;        // B(pc, jc): kc x nc, rows N apart
            for (std::int64_t i = 0; i < M; ++i)
                update_row(A + i * K + pc, b_block, N, C + i * N + jc, kc, nc);
        }
    }
}

}  // namespace reference::lab2
