// Lab 3 - your code. Read handouts/lab3.md first.
//
// Given (in labs/common/, namespace common::lab3: read the headers, they are
// short):
//   views        ConstView / View: a pointer to element (0,0) and the row
//                stride ld; element (i,j) of a view V is V.p[i*V.ld + j]
//                (strassen_views.h)
//   quadrants    split(A, B, half) -> q.A11 ... q.B22;  split(C, half) -> c.C11 ...
//   helpers      add_views(P, Q, out, rows, cols)       out = P + Q
//                subtract_views(P, Q, out, rows, cols)  out = P - Q
//                (out is contiguous: rows x cols with ld = cols)
//   the plan     stops_at_base_case, halves, workspace_floats,
//                product_workspace_floats (strassen_plan.h)
//   one level    strassen_level: the classical kernel where the recursion
//                stops, else the seven products through your two functions,
//                then the fix-ups odd M, N, K leave (peeling - see
//                strassen_fix_ups.h); with_workspace: the one allocation
//                (strassen_level.h)
// (Lab 4 is given this lab's answer compiled, labs/common/strassen_recursion.h:
// not for you here - the grader's build of lab 3 does not have it.)
//
// Task 1: form_and_multiply - the seven products M1..M7.
// Task 2: combine_into_c    - the four combinations into C's quadrants.
// Until you write them, the even part of C is never written and every test
// with a small cutoff fails with "was never written". Start with the test
// "one level on 2x2x2": it names the quadrant that is wrong and its formula.
// (Task 3, your cutoff, is kYourCutoff in labs/lab3/strassen.h.)
#include "labs/lab3/strassen.h"

#include "labs/common/strassen_level.h"
#include "labs/common/strassen_views.h"

namespace student::lab3 {

using common::lab3::add_views;
using common::lab3::ConstView;
using common::lab3::CQuadrants;
using common::lab3::Quadrants;
using common::lab3::subtract_views;
using common::lab3::View;

// (The names differ from lab 4's given compute_product / add_product /
// strassen_recursive on purpose: the views are common::lab3 types, so C++
// would find both versions where both are declared and refuse to choose.)
void recurse(ConstView A, ConstView B, View C, mml::Shape s, std::int64_t cutoff, float* work);

// TODO(lab3, task 1): the product M_{product+1} of one Strassen level
//   (product 0 is M1, ..., 6 is M7: the seven formulas are in handouts/lab3.md,
//   "Background").
//   Contract: on return Z (q.half.M x q.half.N, row stride q.half.N) holds
//     M_{product+1}, multiplied by YOUR recursion (recurse, above); A and B are
//     untouched. `work` was sized up front by the given plan
//     (product_workspace_floats in strassen_plan.h) for three parts, one
//     after the other, in this order (m, n, k: the halves in q.half):
//       X      room for the left operand when it is a sum (m x k)
//       Y      room for the right operand when it is a sum (k x n)
//       below  the workspace of the recursive call
//   Goal: Strassen without the costs that made Cao's survey's slow
//     (handouts/lab3.md, "Background"): no allocation here (a test counts
//     them), and no copy of an operand that is a single quadrant.
//   Judged: the tests (start with "one level on 2x2x2": it names the wrong
//     quadrant; then every shape at cutoffs from 1 to larger than the matrix,
//     exact results on small integers), then the target (task 2's TODO).
//     Stuck: handouts/lab3.md, hints 3.1.x.
void form_and_multiply(int product, const Quadrants& q, float* Z, float* work, std::int64_t cutoff) {
    (void)product; (void)q; (void)Z; (void)work; (void)cutoff;
}

// TODO(lab3, task 2): add M_{product+1} (in Z, row stride ldz) into the
//   quadrants of C it belongs to (the four combinations C11 ... C22 are in
//   handouts/lab3.md, "Background").
//   Contract: only rows r0 <= i < r1 and columns 0 <= j < cols of each quadrant
//     (lab 4 splits the rows over threads); the products arrive one at a time,
//     in the order M1, M2, ..., M7, through the same Z; C holds garbage before
//     the first product reaches it. After M7, every quadrant holds its
//     combination. A quadrant is a view (this file's header: a pointer and
//     C's row stride, not the quadrant's width); Z's row stride is ldz.
//   Goal: the four combinations without a second buffer per quadrant.
//   Judged: the tests (as task 1's), then `make lab3`'s target at 2048^3 and
//     your cutoff (kYourCutoff in strassen.h, task 3; until you set it, the
//     reference's 1024: one Strassen level): your Strassen correct and faster
//     than the classical kernel it stops at - a level saves 1/8 of the
//     multiplications, and your sums and combinations must cost less than that
//     (handouts/lab3.md, "How to run"). Stuck: handouts/lab3.md, hints 3.2.x.
void combine_into_c(int product, const float* Z, std::int64_t ldz, const CQuadrants& c, std::int64_t r0,
                    std::int64_t r1, std::int64_t cols) {
    (void)product; (void)Z; (void)ldz; (void)c; (void)r0; (void)r1; (void)cols;
}

// Given: one level of the recursion (labs/common/strassen_level.h). Stop at
// the classical kernel when the shape is small; else split, run the seven
// products through Z one by one (your two functions), then fix up what odd
// sizes left out.
void recurse(ConstView A, ConstView B, View C, mml::Shape s, std::int64_t cutoff, float* work) {
    common::lab3::strassen_level(A, B, C, s, cutoff, work, {form_and_multiply, combine_into_c});
}

// Given: the one allocation, sized before the recursion starts.
void matmul_strassen(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                     std::int64_t K, std::int64_t cutoff) {
    common::lab3::with_workspace(A, B, C, M, N, K, cutoff, recurse);
}

}  // namespace student::lab3
