// Lab 2 - your code. Read handouts/lab2.md first.
//
// Task 1: matmul_interchanged - lab 1's fastest order (i-k-j), written the
//         way it is written when speed matters.
// Task 2: matmul_transposed   - transpose B, then a dot product of two rows
//         per element of C (both walked with stride 1).
// Task 3: matmul_blocked      - cache blocking: work on a KC x NC block of B
//         at a time, so that the block stays in the cache while every row of
//         A uses it.
//
// `make lab2` runs the tests on these functions, then the timing table.
// Until a function writes C, its tests fail with "was never written".
#include "labs/lab2/locality.h"

#include <algorithm>
#include <vector>

namespace student::lab2 {

void matmul_interchanged(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                         std::int64_t K) {
    // TODO(lab2, task 1): the i-k-j loop of lab 1, rewritten:
    //   - mark the three pointers __restrict__ (copy them into local pointers
    //     declared  const float* __restrict__ a = ...;  float* __restrict__ c = ...;)
    //     to promise the compiler that C never overlaps A or B (GCC 12 takes
    //     the promise only from function parameters: handouts/lab2.md, question 10);
    //   - for every row i: take  c = C + i*N  (row i of C) and  a = A + i*K,
    //     set c[0..N-1] to 0 right here (the row is about to be used, so
    //     zeroing it now costs no extra trip to memory), then
    //     for k in 0..K-1:  aik = a[k];  b = B + k*N  (row k of B);
    //                       for j in 0..N-1:  c[j] += aik * b[j];
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

void matmul_transposed(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K) {
    // TODO(lab2, task 2): seed 003's Algorithm 2.
    //   1. std::vector<float> Bt(N*K);  Bt is B transposed, N x K:
    //      Bt[j*K + k] = B[k*N + j]  for all k, j.
    //      (A new buffer on every call: its allocation and the transpose are
    //      part of the time you measure, as they would be in a real program.)
    //   2. for every i, j:  sum = 0 (a float);
    //                       for k in 0..K-1:  sum += A[i*K + k] * Bt[j*K + k];
    //                       C[i*N + j] = sum;
    //      Both operands of the dot product are now read along rows (stride 1).
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

void matmul_blocked(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                    std::int64_t K, std::int64_t KC, std::int64_t NC) {
    // TODO(lab2, task 3): cache blocking (BLIS names: jc, pc walk N and K in
    // steps of NC and KC).
    //   1. set all M*N elements of C to 0 (the blocks below accumulate into C).
    //   2. for jc = 0, NC, 2*NC, ... < N:      nc = std::min(NC, N - jc);
    //        for pc = 0, KC, 2*KC, ... < K:    kc = std::min(KC, K - pc);
    //          // the block of B: rows pc..pc+kc-1, columns jc..jc+nc-1
    //          for every row i of C (0..M-1):
    //            c = C + i*N + jc;                       (nc elements of row i)
    //            for k in pc..pc+kc-1:  aik = A[i*K + k];  b = B + k*N + jc;
    //                                   for j in 0..nc-1:  c[j] += aik * b[j];
    //   The std::min calls handle the last, partial blocks: without them the
    //   tests with sizes that are not multiples of KC or NC fail.
    //   Use __restrict__ pointers as in task 1 (or, as the reference does, put
    //   the k and j loops of one row in a helper whose pointer parameters are
    //   __restrict__: there GCC is sure to use the promise).
    //   Optional, once the tests pass (handouts/lab2.md, task 3b): handle four
    //   k at a time in the innermost loop so that c[j] is loaded and stored
    //   once per four multiply-adds instead of once per one.
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K; (void)KC; (void)NC;
}

}  // namespace student::lab2
