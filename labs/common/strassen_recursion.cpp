// Strassen's algorithm (1969), as seed 003 writes it, with three changes that
// seed 003's measurements call for ("frequent recursion and frequent
// allocation and freeing of temporaries" made it slower than the classical
// loop):
//   1. a CUTOFF: below it the recursion stops at a fast classical kernel
//      (classical_kernel.h), so there are few, large recursive calls;
//   2. ONE WORKSPACE: every temporary of every level lives in one buffer whose
//      size is computed up front (workspace_floats) and allocated once per
//      call; nothing is allocated inside the recursion;
//   3. VIEWS: quadrants are a pointer and a row stride into A, B, C, never copies.
// Odd sizes are peeled (see strassen.h for why not padding).
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
#include "solutions/lab3/strassen.h"

#include <memory>

#include "solutions/lab3/classical_kernel.h"

namespace reference::lab3 {

Quadrants split(ConstView A, ConstView B, mml::Shape h) {
    Quadrants q;
    q.A11 = {A.p, A.ld};
    q.A12 = {A.p + h.K, A.ld};
    q.A21 = {A.p + h.M * A.ld, A.ld};
    q.A22 = {A.p + h.M * A.ld + h.K, A.ld};
    q.B11 = {B.p, B.ld};
    q.B12 = {B.p + h.N, B.ld};
    q.B21 = {B.p + h.K * B.ld, B.ld};
    q.B22 = {B.p + h.K * B.ld + h.N, B.ld};
    q.half = h;
    return q;
}

CQuadrants split(View C, mml::Shape h) {
    return {{C.p, C.ld}, {C.p + h.N, C.ld}, {C.p + h.M * C.ld, C.ld}, {C.p + h.M * C.ld + h.N, C.ld}};
}

void add_views(ConstView P, ConstView Q, float* out, std::int64_t rows, std::int64_t cols) {
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) out[i * cols + j] = P.p[i * P.ld + j] + Q.p[i * Q.ld + j];
}

void subtract_views(ConstView P, ConstView Q, float* out, std::int64_t rows, std::int64_t cols) {
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) out[i * cols + j] = P.p[i * P.ld + j] - Q.p[i * Q.ld + j];
}

void compute_product(int product, const Quadrants& q, float* Z, float* work, std::int64_t cutoff) {
    const std::int64_t m = q.half.M, n = q.half.N, k = q.half.K;
    float* X = work;               // m x k, ld = k
    float* Y = work + m * k;       // k x n, ld = n
    float* below = Y + k * n;      // the levels below
    const ConstView Xv{X, k}, Yv{Y, n};
    ConstView left = Xv, right = Yv;  // the two operands of this product
    switch (product) {
        case 0: add_views(q.A11, q.A22, X, m, k);      add_views(q.B11, q.B22, Y, k, n); break;
        case 1: add_views(q.A21, q.A22, X, m, k);      right = q.B11;                     break;
        case 2: left = q.A11;                          subtract_views(q.B12, q.B22, Y, k, n); break;
        case 3: left = q.A22;                          subtract_views(q.B21, q.B11, Y, k, n); break;
        case 4: add_views(q.A11, q.A12, X, m, k);      right = q.B22;                     break;
        case 5: subtract_views(q.A21, q.A11, X, m, k); add_views(q.B11, q.B12, Y, k, n); break;
        case 6: subtract_views(q.A12, q.A22, X, m, k); add_views(q.B21, q.B22, Y, k, n); break;
    }
    strassen_recursive(left, right, View{Z, n}, q.half, cutoff, below);
}

namespace {
enum class Op { Set, Add, Subtract };

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

// Read the table at the top column by column: M1 is the first to reach C11 and
// C22 (so it sets them), M2 the first to reach C21, M3 the first for C12.
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

void fix_up_peeled(ConstView A, ConstView B, View C, mml::Shape s) {
    const mml::Shape h = halves(s);
    const std::int64_t M2 = 2 * h.M, N2 = 2 * h.N, K2 = 2 * h.K;  // the even core
    if (K2 < s.K)  // C[0:M2, 0:N2] += A[0:M2, K-1] * B[K-1, 0:N2]   (rank 1, k = 1)
        classical_kernel(A.p + K2, A.ld, B.p + K2 * B.ld, B.ld, C.p, C.ld, M2, N2, 1, true);
    if (M2 < s.M)  // C[M-1, :] = A[M-1, :] * B                       (a whole row)
        classical_kernel(A.p + M2 * A.ld, A.ld, B.p, B.ld, C.p + M2 * C.ld, C.ld, 1, s.N, s.K, false);
    if (N2 < s.N)  // C[0:M2, N-1] = A[0:M2, :] * B[:, N-1]           (the column, corner done above)
        classical_kernel(A.p, A.ld, B.p + N2, B.ld, C.p + N2, C.ld, M2, 1, s.K, false);
}

void strassen_recursive(ConstView A, ConstView B, View C, mml::Shape s, std::int64_t cutoff,
                        float* work) {
    if (stops_at_base_case(s, cutoff)) {
        classical_kernel(A.p, A.ld, B.p, B.ld, C.p, C.ld, s.M, s.N, s.K, false);
        return;
    }
    const mml::Shape h = halves(s);
    const Quadrants q = split(A, B, h);
    const CQuadrants c = split(C, h);
    float* Z = work;                       // h.M x h.N
    float* product_work = work + h.M * h.N;
    for (int product = 0; product < 7; ++product) {
        compute_product(product, q, Z, product_work, cutoff);
        add_product(product, Z, h.N, c, 0, h.M, h.N);
    }
    fix_up_peeled(A, B, C, s);
}

void matmul_strassen(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                     std::int64_t K, std::int64_t cutoff) {
    const mml::Shape s{M, N, K};
    // The one allocation (none when the shape goes straight to the kernel).
    const std::int64_t floats = workspace_floats(s, cutoff);
    std::unique_ptr<float[]> work(floats > 0 ? new float[std::size_t(floats)] : nullptr);
    strassen_recursive({A, K}, {B, N}, {C, N}, s, cutoff, work.get());
}

}  // namespace reference::lab3
