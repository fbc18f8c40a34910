// Given code for LAB 4, given COMPILED: you call it there, you do not write it.
//
// Lab 3's sequential Strassen: lab 4 (task 4) runs the seven products of the
// top level on threads and calls these for everything below the top. Their
// body is lab 3's answer (compute_product is lab 3's task 1, add_product its
// task 2), so it is not in this tree as source: lab 4 links it as object code
// (prebuilt/lib/libmmlab-given.a in a student release; the Makefile's
// GIVEN_COMPILED). In lab 3 they are not yours to call: they link in your
// own build, but the grader's build of lab 3 does not have them, so a lab 3
// submission that calls one does not build there and scores 0.
//
// The algorithm (Strassen 1969, as Cao's survey writes it) with a cutoff to the
// classical kernel, one workspace sized up front, views instead of copies,
// and peeling for odd sizes (strassen_fix_ups.h):
//   M1 = (A11 + A22)(B11 + B22)      C11 = M1 + M4 - M5 + M7
//   M2 = (A21 + A22) B11             C12 = M3 + M5
//   M3 = A11 (B12 - B22)             C21 = M2 + M4
//   M4 = A22 (B21 - B11)             C22 = M1 - M2 + M3 + M6
//   M5 = (A11 + A12) B22
//   M6 = (A21 - A11)(B11 + B12)
//   M7 = (A12 - A22)(B21 + B22)
#pragma once

#include <cstdint>

#include "cpu/matrix.h"
#include "labs/common/strassen_views.h"

namespace common::lab3 {

// The seven products (product = 0..6 is M1..M7).
// Computes M_{product+1} of the quadrants into Z (half.M x half.N, ld = half.N):
// forms its two operands (a sum or difference of quadrants into X and Y in
// `work`, or the quadrant itself), then multiplies them with strassen_recursive.
// `work` holds product_workspace_floats(q.half, cutoff) floats (strassen_plan.h).
void compute_product(int product, const Quadrants& q, float* Z, float* work, std::int64_t cutoff);
// Adds M_{product+1} (in Z, ld = ldz) into the quadrants of C it belongs to,
// rows [row_begin, row_end) of each quadrant, `cols` columns. Products must be
// added in the order 0..6: the first one to reach a quadrant writes it (=),
// the others add or subtract.
void add_product(int product, const float* Z, std::int64_t ldz, const CQuadrants& c,
                 std::int64_t row_begin, std::int64_t row_end, std::int64_t cols);

// C (s.M x s.N) = A*B on views, with `work` holding workspace_floats(s, cutoff)
// floats. Allocates nothing.
void strassen_recursive(ConstView A, ConstView B, View C, mml::Shape s, std::int64_t cutoff,
                        float* work);
// C = A*B (row-major, A M x K, B K x N): allocates the workspace once, then recurses.
void matmul_strassen(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                     std::int64_t K, std::int64_t cutoff);

}  // namespace common::lab3
