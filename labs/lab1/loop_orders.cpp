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
    // TODO(lab1, task 1): the triple loop, in the order i, j, k:
    //   for every row i of C (0..M-1) and every column j of C (0..N-1):
    //     sum = 0 (a float)
    //     for k in 0..K-1:  sum += A[i*K + k] * B[k*N + j]
    //     C[i*N + j] = sum
    // Until you write it, C keeps the poison the tests put there and
    // every test of lab1.ijk fails with "was never written".
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

// For the other orders, C must start at zero (they accumulate into C), so
// first set all M*N elements of C to 0, then loop in the named order with the
// innermost statement  C[i*N + j] += A[i*K + k] * B[k*N + j];

void matmul_ikj(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    // TODO(lab1, task 2): zero C, then loops i (outer), k, j (inner).
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

void matmul_jik(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    // TODO(lab1, task 2): loops j (outer), i, k (inner); like ijk, a sum per element.
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

void matmul_jki(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    // TODO(lab1, task 2): zero C, then loops j (outer), k, i (inner).
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

void matmul_kij(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    // TODO(lab1, task 2): zero C, then loops k (outer), i, j (inner).
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

void matmul_kji(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    // TODO(lab1, task 2): zero C, then loops k (outer), j, i (inner).
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}

}  // namespace student::lab1
