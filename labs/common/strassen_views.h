// Given code (labs 3 and 4): you use it, you do not write it.
//
// Matrix VIEWS and the quadrants of one level of Strassen's recursion. A view
// is a pointer to element (0,0) and the row stride ld (the leading
// dimension): element (i,j) of a view V is V.p[i*V.ld + j]. A quadrant of a
// bigger matrix is a view with the parent's ld, so the recursion never copies
// a quadrant to multiply it.
#pragma once

#include <cstdint>

#include "cpu/matrix.h"

namespace common::lab3 {

struct ConstView {
    const float* p;
    std::int64_t ld;
};
struct View {
    float* p;
    std::int64_t ld;
};

// The quadrants of one level, each of the level's halves (strassen_plan.h):
struct Quadrants {   // of A (each m x k) and B (each k x n), m, n, k = half
    ConstView A11, A12, A21, A22, B11, B12, B21, B22;
    mml::Shape half;
};
struct CQuadrants {  // of C (each m x n)
    View C11, C12, C21, C22;
};
// split(A, B, half) -> q.A11 ... q.B22;  split(C, half) -> c.C11 ... c.C22.
// Only the even core is split (2*half in each dimension): an odd last row or
// column is left to the fix-ups (strassen_fix_ups.h).
Quadrants split(ConstView A, ConstView B, mml::Shape half);
CQuadrants split(View C, mml::Shape half);

// out (rows x cols, contiguous, ld = cols) = P + Q  or  P - Q: the operand
// sums of the seven products.
void add_views(ConstView P, ConstView Q, float* out, std::int64_t rows, std::int64_t cols);
void subtract_views(ConstView P, ConstView Q, float* out, std::int64_t rows, std::int64_t cols);

}  // namespace common::lab3
