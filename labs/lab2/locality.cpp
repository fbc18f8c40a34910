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
    // TODO(lab2, task 1): lab 1's i-k-j order, written the way it is written
    //   when speed matters.
    //   Contract: as lab 1's (C = A*B, row-major; C holds garbage on entry, every
    //     element written); C never overlaps A or B.
    //   Goal: the inner loop adds a scaled row of B to a row of C, both walked
    //     with stride 1 so the compiler vectorizes it; each row of C is zeroed
    //     just before its own k loop (one pass over C, not two as lab1.ikj makes),
    //     and the no-overlap promise is stated (__restrict__).
    //   Judged: `make lab2` runs the tests (every shape, 1x1x1 upwards), then
    //     times it; expect about lab1.ikj's speed. Stuck: handouts/lab2.md,
    //     hints 2.1.x.
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

void matmul_transposed(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K) {
    // TODO(lab2, task 2): Algorithm 2 of Cao's survey (handouts/lab2.md,
    //   References): transpose B, then row-by-row dot products.
    //   Contract: as task 1's; B is not modified.
    //   Goal: every element of C is the dot product of a row of A and a row of
    //     Bt = B transposed (N x K), so both operands are read with stride 1.
    //     Bt is a new buffer of this call: its allocation and the transpose are
    //     part of the time, as in the survey.
    //   Judged: the tests, then the table's "x ijk" (the survey measured 1.57x at
    //     n = 1000). Stuck: handouts/lab2.md, hints 2.2.x.
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

void matmul_blocked(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                    std::int64_t K, std::int64_t KC, std::int64_t NC) {
    // TODO(lab2, task 3): cache blocking.
    //   Contract: as task 1's, for any block sizes KC >= 1 and NC >= 1: they
    //     need not divide K and N and may be larger than them (the harness
    //     refuses values below 1 before your code runs).
    //   Goal: work on one KC x NC block of B at a time (BLIS's names: loop jc
    //     over N in steps of NC, pc over K in steps of KC), so that the block is
    //     brought into the cache once and used by every row of A while it is
    //     there, instead of streaming all of B once per row of C (task 1).
    //   Judged: the tests (blocks of 1, odd blocks that leave partial blocks at
    //     every edge, blocks larger than the matrix), then lab 2's target: this
    //     stage at least 1.3x as fast as task 1 at 144x4000x4000, where B
    //     (61 MiB) does not fit in the cache. Optional once it passes: task 3b
    //     in the handout. Stuck: hints 2.3.x.
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K; (void)KC; (void)NC;
}

}  // namespace student::lab2
