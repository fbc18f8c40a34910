// Given code (labs 3 and 4). The classical base case: cache-blocked i-k-j
// (lab 2's idea), written so the compiler vectorises the innermost loop. It
// is the yardstick of lab 3: the crossover is measured against THIS kernel,
// and Strassen's recursion stops at it, so "Strassen is faster" means "fewer
// calls of the same kernel win".
//
// What changed from lab2.blocked (lab 2's task 3): the block of B is packed
// into a contiguous buffer, two rows of C share each load of B, it works on
// views (any row stride, so quadrants need no copy), and an AVX2+FMA copy is
// picked at run time.
//
// Loop structure (BLIS names: KC rows of B and NC columns form one block of B):
//   for each block of NC columns of C and B
//     for each block of KC rows of B (and columns of A)
//       for each pair of rows i, i+1 of C
//         for p in the KC block, 4 at a time
//           row i of C (NC floats) += A[i][p..p+3] * rows p..p+3 of the B block
// Why it is fast: the KC x NC block of B (128 KiB) stays in the L2 cache while
// every row of C walks over it; the NC floats of two C rows (2 KiB) stay in L1;
// the block is first copied into a contiguous buffer ("packed", as BLIS does):
// left in place, its rows lie N floats apart, and when N is a power of two
// (1024, 2048 - exactly the sizes Strassen produces) they all fall into the
// same few cache sets and evict each other; packed, they fill the cache evenly;
// every access is stride 1. Two rows of C share each load of B, and four rows
// of B share each load and store of C: 4 loads of B + 2 of C + 2 stores per
// 8 multiply-adds, instead of 2 loads + 1 store per multiply-add-vector of the
// plain ikj loop. The summation order differs from ijk, but any order keeps
// the classical gamma_K error bound.
//
// SIMD: compiled twice, once for AVX2+FMA (8 floats a vector, fused
// multiply-add) and once for the baseline x86-64 (SSE2); the AVX2 copy is
// chosen at run time when the CPU has it. Never -march=native: the binary may
// run on another machine. (Lab 5 goes much further with a register tile.)
#include "labs/common/classical_kernel.h"

#include "cpu/machine.h"

namespace common::lab3 {
namespace {

constexpr std::int64_t KC = 128;  // rows of B in one block
constexpr std::int64_t NC = 256;  // columns of B and C in one block

// One block: C[i][0..nb) (+)= A[i][0..kb) * B[0..kb)[0..nb) for rows i in [0, m).
// `overwrite` (true for the first k-block when the caller did not ask to
// accumulate) means the rows of C are zeroed first instead of added to.
__attribute__((always_inline)) inline void block_body(const float* __restrict A, std::int64_t lda,
                                                      const float* __restrict B, std::int64_t ldb,
                                                      float* __restrict C, std::int64_t ldc,
                                                      std::int64_t m, std::int64_t nb, std::int64_t kb,
                                                      bool overwrite) {
    std::int64_t i = 0;
    for (; i + 2 <= m; i += 2) {
        float* __restrict c0 = C + i * ldc;
        float* __restrict c1 = c0 + ldc;
        const float* a0 = A + i * lda;
        const float* a1 = a0 + lda;
        if (overwrite)
            for (std::int64_t j = 0; j < nb; ++j) c0[j] = c1[j] = 0.0f;
        std::int64_t p = 0;
        for (; p + 4 <= kb; p += 4) {
            const float* __restrict b0 = B + p * ldb;
            const float* __restrict b1 = b0 + ldb;
            const float* __restrict b2 = b1 + ldb;
            const float* __restrict b3 = b2 + ldb;
            const float x0 = a0[p], x1 = a0[p + 1], x2 = a0[p + 2], x3 = a0[p + 3];
            const float y0 = a1[p], y1 = a1[p + 1], y2 = a1[p + 2], y3 = a1[p + 3];
            for (std::int64_t j = 0; j < nb; ++j) {
                c0[j] += x0 * b0[j] + x1 * b1[j] + x2 * b2[j] + x3 * b3[j];
                c1[j] += y0 * b0[j] + y1 * b1[j] + y2 * b2[j] + y3 * b3[j];
            }
        }
        for (; p < kb; ++p) {
            const float* __restrict b = B + p * ldb;
            const float x = a0[p], y = a1[p];
            for (std::int64_t j = 0; j < nb; ++j) {
                c0[j] += x * b[j];
                c1[j] += y * b[j];
            }
        }
    }
    if (i < m) {  // the last row when m is odd
        float* __restrict c0 = C + i * ldc;
        const float* a0 = A + i * lda;
        if (overwrite)
            for (std::int64_t j = 0; j < nb; ++j) c0[j] = 0.0f;
        for (std::int64_t p = 0; p < kb; ++p) {
            const float* __restrict b = B + p * ldb;
            const float x = a0[p];
            for (std::int64_t j = 0; j < nb; ++j) c0[j] += x * b[j];
        }
    }
}

__attribute__((always_inline)) inline void kernel_body(const float* A, std::int64_t lda, const float* B,
                                                       std::int64_t ldb, float* C, std::int64_t ldc,
                                                       std::int64_t m, std::int64_t n, std::int64_t k,
                                                       bool accumulate) {
    alignas(64) float packed[KC * NC];  // one block of B, on the stack: no allocation
    for (std::int64_t jc = 0; jc < n; jc += NC) {
        const std::int64_t nb = n - jc < NC ? n - jc : NC;
        if (k == 0 && !accumulate)
            for (std::int64_t i = 0; i < m; ++i)
                for (std::int64_t j = 0; j < nb; ++j) C[i * ldc + jc + j] = 0.0f;
        for (std::int64_t pc = 0; pc < k; pc += KC) {
            const std::int64_t kb = k - pc < KC ? k - pc : KC;
            const float* b = B + pc * ldb + jc;
            std::int64_t ldp = ldb;
            if (m > 2) {  // worth a copy: every row pair of C reads the block again
                for (std::int64_t p = 0; p < kb; ++p)
                    for (std::int64_t j = 0; j < nb; ++j) packed[p * nb + j] = b[p * ldb + j];
                b = packed;
                ldp = nb;
            }
            block_body(A + pc, lda, b, ldp, C + jc, ldc, m, nb, kb, pc == 0 && !accumulate);
        }
    }
}

__attribute__((target("avx2,fma"))) void kernel_avx2(const float* A, std::int64_t lda, const float* B,
                                                     std::int64_t ldb, float* C, std::int64_t ldc,
                                                     std::int64_t m, std::int64_t n, std::int64_t k,
                                                     bool accumulate) {
    kernel_body(A, lda, B, ldb, C, ldc, m, n, k, accumulate);
}

void kernel_portable(const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                     std::int64_t ldc, std::int64_t m, std::int64_t n, std::int64_t k, bool accumulate) {
    kernel_body(A, lda, B, ldb, C, ldc, m, n, k, accumulate);
}

}  // namespace

void classical_kernel(const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                      std::int64_t ldc, std::int64_t m, std::int64_t n, std::int64_t k,
                      bool accumulate) {
    static const bool avx2 = mml::cpu_has_avx2_fma();  // asked once, at the first call
    if (avx2) kernel_avx2(A, lda, B, ldb, C, ldc, m, n, k, accumulate);
    else kernel_portable(A, lda, B, ldb, C, ldc, m, n, k, accumulate);
}

void matmul_classical(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                      std::int64_t K) {
    classical_kernel(A, K, B, N, C, N, M, N, K, false);
}

}  // namespace common::lab3
