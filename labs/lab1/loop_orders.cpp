// Lab 1 - your code. Read handouts/lab1.md first.
//
// Task 1: matmul_ijk, the baseline every later lab is compared against.
// Task 2: the five other loop orders. They compute the same sums in a
//         different order; `make lab1` times all six side by side.
//
// `make lab1` runs the tests on these functions, then the timing table.
#include "labs/lab1/loop_orders.h"

namespace student::lab1 {

void matmul_ijk(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    // TODO(lab1, task 1): the baseline, C = A*B with the loops in the order i, j, k.
    //   Contract: A is M x K, B is K x N, C is M x N, all row-major float32;
    //     on entry C holds garbage (the tests fill it with NaN), on return every
    //     element is the sum over k of A(i,k)*B(k,j).
    //   Goal: the plain loop every later lab is compared against (the "x ijk"
    //     column): one float accumulator per element of C, nothing clever.
    //   Judged: `make lab1` runs the tests (20 shapes, 1x1x1 to 300x200x100,
    //     error within gamma_K*|A||B|), then wants your ijk within 1.5x of the
    //     reference ijk's time at 512^3. Stuck: handouts/lab1.md, hints 1.1.x.
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

// Task 2, the five other orders. Each has the contract of matmul_ijk (same
// product, C garbage on entry) and computes the same M*N*K multiply-adds with
// the three loops nested in the order of its name, outermost first. Judged:
// `make lab1` wants all six correct, and your fastest order at least 4x faster
// than your ijk at 512^3. Stuck: handouts/lab1.md, hints 1.2.x.

void matmul_ikj(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    // TODO(lab1, task 2): loops i (outer), k, j (inner).
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

void matmul_jik(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    // TODO(lab1, task 2): loops j (outer), i, k (inner).
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

void matmul_jki(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    // TODO(lab1, task 2): loops j (outer), k, i (inner).
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

void matmul_kij(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    // TODO(lab1, task 2): loops k (outer), i, j (inner).
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

void matmul_kji(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    // TODO(lab1, task 2): loops k (outer), j, i (inner).
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

}  // namespace student::lab1
