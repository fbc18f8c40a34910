// Lab 2, stage 3: cache blocking.
//
// What changed from stage 1 (interchanged.cpp): stage 1 streams all of B
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
// one partial block. The summation order differs from stage 1 (K split into
// chunks, four products added before they reach C), which the classical
// error bound gamma_K allows: it holds for any order of the K additions.
#include <algorithm>

#include "solutions/lab2/locality.h"

namespace reference::lab2 {

namespace {

// c[0..nc-1] += sum over k in [0, kc) of a[k] * (row k of the block of B),
// where row k of the block starts at b + k*ldb (ldb = N, the row length of B).
void update_row(const float* __restrict__ a, const float* __restrict__ b, std::int64_t ldb,
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
}

}  // namespace

void matmul_blocked(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                    std::int64_t K, std::int64_t KC, std::int64_t NC) {
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
