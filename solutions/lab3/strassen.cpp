// Lab 3 reference: the answers to labs/lab3/strassen.cpp. Tasks 1 and 2
// filled in; the given parts (recurse, matmul_strassen) as in the starter.
//
// Strassen's algorithm (1969), as seed 003 writes it, with three changes that
// seed 003's measurements call for ("frequent recursion and frequent
// allocation and freeing of temporaries" made it slower than the classical
// loop): a CUTOFF to a fast classical kernel, so there are few, large
// recursive calls; ONE WORKSPACE, sized up front, so nothing is allocated in
// the recursion; VIEWS, so quadrants are never copied. Odd sizes are peeled
// (labs/common/strassen_fix_ups.h says why not padding).
//
// (Lab 4 is given the same recursion, labs/common/strassen_recursion.cpp,
// because a lab 4 starter must run without lab 3's answers. The two add the
// same terms in the same order, so they agree bit for bit: the
// reference-lab3 tests check that.)
#include "solutions/lab3/strassen.h"

#include <memory>

#include "labs/common/classical_kernel.h"
#include "labs/common/strassen_fix_ups.h"
#include "labs/common/strassen_plan.h"
#include "labs/common/strassen_views.h"

namespace reference::lab3 {

using common::lab3::add_views;
using common::lab3::ConstView;
using common::lab3::CQuadrants;
using common::lab3::Quadrants;
using common::lab3::subtract_views;
using common::lab3::View;

void recurse(ConstView A, ConstView B, View C, mml::Shape s, std::int64_t cutoff, float* work);

// Task 1: M_{product+1} into Z. The workspace of one product: X (m x k) and
// Y (k x n) for the operand sums, then what the recursive call needs. An
// operand that is a single quadrant is used where it is, as a view.
void form_and_multiply(int product, const Quadrants& q, float* Z, float* work, std::int64_t cutoff) {
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
    recurse(left, right, View{Z, n}, q.half, cutoff, below);
}

namespace {

enum class Op { Set, Add, Subtract };

// Rows [r0, r1), `cols` columns, of the quadrant C: =, += or -= the same rows of Z.
void apply(Op op, const float* Z, std::int64_t ldz, View C, std::int64_t r0, std::int64_t r1, std::int64_t cols) {
    for (std::int64_t i = r0; i < r1; ++i) {
        float* c = C.p + i * C.ld;
        const float* z = Z + i * ldz;
        switch (op) {
            case Op::Set: for (std::int64_t j = 0; j < cols; ++j) c[j] = z[j]; break;
            case Op::Add: for (std::int64_t j = 0; j < cols; ++j) c[j] += z[j]; break;
            case Op::Subtract: for (std::int64_t j = 0; j < cols; ++j) c[j] -= z[j]; break;
        }
    }
}

}  // namespace

// Task 2: M_{product+1} into the quadrants it reaches. Read the table
//   C11 = M1 + M4 - M5 + M7    C12 = M3 + M5    C21 = M2 + M4    C22 = M1 - M2 + M3 + M6
// column by column: M1 is the first to reach C11 and C22 (so it sets them),
// M2 the first to reach C21, M3 the first for C12; the rest add or subtract.
void combine_into_c(int product, const float* Z, std::int64_t ldz, const CQuadrants& c, std::int64_t r0,
                    std::int64_t r1, std::int64_t cols) {
    switch (product) {
        case 0: apply(Op::Set, Z, ldz, c.C11, r0, r1, cols);      apply(Op::Set, Z, ldz, c.C22, r0, r1, cols);      break;
        case 1: apply(Op::Set, Z, ldz, c.C21, r0, r1, cols);      apply(Op::Subtract, Z, ldz, c.C22, r0, r1, cols); break;
        case 2: apply(Op::Set, Z, ldz, c.C12, r0, r1, cols);      apply(Op::Add, Z, ldz, c.C22, r0, r1, cols);      break;
        case 3: apply(Op::Add, Z, ldz, c.C11, r0, r1, cols);      apply(Op::Add, Z, ldz, c.C21, r0, r1, cols);      break;
        case 4: apply(Op::Subtract, Z, ldz, c.C11, r0, r1, cols); apply(Op::Add, Z, ldz, c.C12, r0, r1, cols);      break;
        case 5: apply(Op::Add, Z, ldz, c.C22, r0, r1, cols); break;
        case 6: apply(Op::Add, Z, ldz, c.C11, r0, r1, cols); break;
    }
}

// Given in the starter: one level of the recursion.
void recurse(ConstView A, ConstView B, View C, mml::Shape s, std::int64_t cutoff, float* work) {
    namespace given = common::lab3;
    if (given::stops_at_base_case(s, cutoff)) {
        given::classical_kernel(A.p, A.ld, B.p, B.ld, C.p, C.ld, s.M, s.N, s.K, false);
        return;
    }
    const mml::Shape h = given::halves(s);
    const Quadrants q = given::split(A, B, h);
    const CQuadrants c = given::split(C, h);
    float* Z = work;  // h.M x h.N: each product in turn
    float* product_work = work + h.M * h.N;
    for (int product = 0; product < 7; ++product) {
        form_and_multiply(product, q, Z, product_work, cutoff);
        combine_into_c(product, Z, h.N, c, 0, h.M, h.N);
    }
    given::fix_up_peeled(A, B, C, s);
}

// Given in the starter: the one allocation (none when the shape goes straight
// to the kernel), sized before the recursion starts.
void matmul_strassen(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                     std::int64_t K, std::int64_t cutoff) {
    const mml::Shape s{M, N, K};
    const std::int64_t floats = common::lab3::workspace_floats(s, cutoff);
    std::unique_ptr<float[]> work(floats > 0 ? new float[std::size_t(floats)] : nullptr);
    recurse({A, K}, {B, N}, {C, N}, s, cutoff, work.get());
}

}  // namespace reference::lab3
