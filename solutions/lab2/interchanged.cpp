// Lab 2, stage 1: loop interchange (i-k-j), written for speed.
//
// Same loop order, same sums in the same order as lab1.ikj
// (solutions/lab1/loop_orders.cpp); what changed, and why it can be faster:
//   - lab1.ikj zeroes all of C in a separate pass first, then comes back to
//     each row. Here each row of C is zeroed just before its k loop, while
//     it is going to be in the cache anyway: one pass over C instead of two.
//   - __restrict__ promises the compiler that C does not overlap A or B.
//     Without it, GCC vectorizes the inner loop only behind a run-time
//     overlap test, with a scalar copy of the loop as the fallback. GCC 12
//     takes the promise only from function parameters: on these local copies
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
// of B once per row of C. Lab 2's stage 3 (blocked.cpp) attacks that.
#include <algorithm>

#include "solutions/lab2/locality.h"

namespace reference::lab2 {

void matmul_interchanged(const float* A_, const float* B_, float* C_, std::int64_t M, std::int64_t N,
                         std::int64_t K) {
    const float* __restrict__ A = A_;
    const float* __restrict__ B = B_;
    float* __restrict__ C = C_;
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

}  // namespace reference::lab2
