// Lab 3 reference: the recursion, the one place it is written. The answers
// to lab 3's tasks are here, under the names lab 4 knows them by:
//   task 1  form_and_multiply (the starter)  =  compute_product
//   task 2  combine_into_c    (the starter)  =  add_product
// and the starter's given recurse and matmul_strassen are strassen_recursive
// and matmul_strassen. The lab 3 reference (strassen.cpp) runs this; lab 4,
// whose parallel Strassen calls it below its top level, is GIVEN it COMPILED
// (Makefile, GIVEN_COMPILED: libmmlab-given.a), never as source: its
// declarations are labs/common/strassen_recursion.h.
//
// Strassen's algorithm (1969), as Cao's survey writes it, with three changes
// that the survey's measurements call for ("frequent recursion and frequent
// allocation and freeing of temporaries" made it slower than the classical
// loop):
//   1. a CUTOFF: below it the recursion stops at a fast classical kernel
//      (classical_kernel.h), so there are few, large recursive calls;
//   2. ONE WORKSPACE: every temporary of every level lives in one buffer whose
//      size is computed up front (workspace_floats) and allocated once per
//      call; nothing is allocated inside the recursion;
//   3. VIEWS: quadrants are a pointer and a row stride into A, B, C, never copies.
// Odd sizes are peeled (labs/common/strassen_fix_ups.h says why not padding).
//
// One level, with quadrants of size m x k (A), k x n (B), m x n (C):
//   M1 = (A11 + A22)(B11 + B22)      C11 = M1 + M4 - M5 + M7
//   M2 = (A21 + A22) B11             C12 = M3 + M5
//   M3 = A11 (B12 - B22)             C21 = M2 + M4
//   M4 = A22 (B21 - B11)             C22 = M1 - M2 + M3 + M6
//   M5 = (A11 + A12) B22
//   M6 = (A21 - A11)(B11 + B12)
//   M7 = (A12 - A22)(B21 + B22)
// 7 half-size products instead of 8, for 18 additions of half-size matrices.
// The workspace of a level: Z (m x n) receives each product in turn and is
// added into C before the next; X (m x k) and Y (k x n) hold the operand
// sums; the level below gets the rest.
#include "labs/common/strassen_recursion.h"

#include "labs/common/strassen_level.h"

namespace common::lab3 {

// Task 1: M_{product+1} into Z. An operand that is a single quadrant is used
// where it is, as a view; a sum is formed in X or Y.
void compute_product(int product, const Quadrants& q, float* Z, float* work, std::int64_t cutoff) {
    const std::int64_t m = q.half.M, n = q.half.N, k = q.half.K;
    float* X = work;           // m x k, ld = k
    float* Y = work + m * k;   // k x n, ld = n
    float* below = Y + k * n;  // the levels below
    ConstView left{X, k}, right{Y, n};  // the two operands, unless a quadrant replaces one
    switch (product) {
        case 0: add_views(q.A11, q.A22, X, m, k);      add_views(q.B11, q.B22, Y, k, n);      break;  // M1
        case 1: add_views(q.A21, q.A22, X, m, k);      right = q.B11;                         break;  // M2
        case 2: left = q.A11;                          subtract_views(q.B12, q.B22, Y, k, n); break;  // M3
        case 3: left = q.A22;                          subtract_views(q.B21, q.B11, Y, k, n); break;  // M4
        case 4: add_views(q.A11, q.A12, X, m, k);      right = q.B22;                         break;  // M5
        case 5: subtract_views(q.A21, q.A11, X, m, k); add_views(q.B11, q.B12, Y, k, n);      break;  // M6
        case 6: subtract_views(q.A12, q.A22, X, m, k); add_views(q.B21, q.B22, Y, k, n);      break;  // M7
    }
    strassen_recursive(left, right, View{Z, n}, q.half, cutoff, below);
}

namespace {
enum class Op { Set, Add, Subtract };

// Rows [r0, r1), `cols` columns, of the quadrant C: =, += or -= the same rows of Z.
void apply(Op op, const float* Z, std::int64_t ldz, View C, std::int64_t r0, std::int64_t r1,
           std::int64_t cols) {
    for (std::int64_t i = r0; i < r1; ++i) {
        float* c = C.p + i * C.ld;
        const float* z = Z + i * ldz;
        if (op == Op::Set)
            for (std::int64_t j = 0; j < cols; ++j) c[j] = z[j];
        else if (op == Op::Add)
            for (std::int64_t j = 0; j < cols; ++j) c[j] += z[j];
        else
            for (std::int64_t j = 0; j < cols; ++j) c[j] -= z[j];
    }
}
}  // namespace

// Task 2: M_{product+1} into the quadrants it reaches. Read the table at the
// top column by column: M1 is the first to reach C11 and C22 (so it sets
// them), M2 the first to reach C21, M3 the first for C12; the rest add or
// subtract. (Lab 4 adds row slices [r0, r1) on threads.)
void add_product(int product, const float* Z, std::int64_t ldz, const CQuadrants& c,
                 std::int64_t r0, std::int64_t r1, std::int64_t cols) {
    switch (product) {
        case 0: apply(Op::Set, Z, ldz, c.C11, r0, r1, cols);      apply(Op::Set, Z, ldz, c.C22, r0, r1, cols); break;
        case 1: apply(Op::Set, Z, ldz, c.C21, r0, r1, cols);      apply(Op::Subtract, Z, ldz, c.C22, r0, r1, cols); break;
        case 2: apply(Op::Set, Z, ldz, c.C12, r0, r1, cols);      apply(Op::Add, Z, ldz, c.C22, r0, r1, cols); break;
        case 3: apply(Op::Add, Z, ldz, c.C11, r0, r1, cols);      apply(Op::Add, Z, ldz, c.C21, r0, r1, cols); break;
        case 4: apply(Op::Subtract, Z, ldz, c.C11, r0, r1, cols); apply(Op::Add, Z, ldz, c.C12, r0, r1, cols); break;
        case 5: apply(Op::Add, Z, ldz, c.C22, r0, r1, cols); break;
        case 6: apply(Op::Add, Z, ldz, c.C11, r0, r1, cols); break;
    }
}

// One level and the one allocation: the starter's given recurse and
// matmul_strassen, with the answers to its tasks (strassen_level.h).
void strassen_recursive(ConstView A, ConstView B, View C, mml::Shape s, std::int64_t cutoff,
                        float* work) {
    strassen_level(A, B, C, s, cutoff, work, {compute_product, add_product});
}

void matmul_strassen(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                     std::int64_t K, std::int64_t cutoff) {
    with_workspace(A, B, C, M, N, K, cutoff, strassen_recursive);
}

}  // namespace common::lab3
