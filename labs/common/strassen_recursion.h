// Lab 3 reference: Strassen's algorithm with a cutoff, for any M, N, K.
//
// The pieces are public so that lab 4 can run the top level's seven products
// on threads by calling them (never by copying them), and so that the
// student's starter can use the given parts (plan, helpers, fix-ups).
//
//   plan      what the recursion will do, from the shape alone: where it stops,
//             the halves of each level, the workspace it needs (strassen_plan.cpp)
//   products  the seven products M1..M7 of one level and how they combine
//             into the four quadrants of C (strassen.cpp)
//   fix-ups   the row, column and rank-1 update that odd sizes leave (strassen.cpp)
//   bound     Strassen's norm-wise error bound (strassen_bound.h)
//
// Odd sizes: PEELING, not padding. When M, N or K is odd at some level, the
// recursion works on the even part (M-1, N-1 or K-1) and the classical kernel
// adds what is left: the last row of C, the last column of C, and the rank-1
// update A[:,K-1]*B[K-1,:]. Why not pad to a power of two (as seed 003 does)?
// Padding 1025 to 2048 multiplies the work by up to 8 for a rectangle (each of
// M, N, K can double), needs copies of A and B, and its zeros are stored and
// multiplied. Peeling costs O(MN + MK + NK) extra classical work per level,
// needs no copy, and handles rectangles with the same code.
#pragma once

#include <cstdint>

#include "cpu/matrix.h"

namespace reference::lab3 {

// The default cutoff: recursion stops when any of M, N, K is <= cutoff.
// Chosen from the measured crossover (handouts/lab3.md); --param cutoff=N changes it.
constexpr std::int64_t kDefaultCutoff = 1024;

// ---- views: a pointer to element (0,0) and the row stride (leading dimension)
struct ConstView {
    const float* p;
    std::int64_t ld;
};
struct View {
    float* p;
    std::int64_t ld;
};

// ---- the plan (strassen_plan.cpp)
// True when the recursion stops at the classical kernel for this shape.
bool stops_at_base_case(mml::Shape s, std::int64_t cutoff);
// The halves of one level: floor(M/2), floor(N/2), floor(K/2). The even core
// is twice that; an odd M, N or K leaves one row/column to the fix-ups.
mml::Shape halves(mml::Shape s);
// Floats of workspace the whole recursion on shape s needs: every level holds
// Z (m x n), X (m x k) and Y (k x n) for its halves m, n, k, plus what the
// level below needs. Computed once, allocated once per call.
std::int64_t workspace_floats(mml::Shape s, std::int64_t cutoff);
// The part of one level's workspace that a single product uses: X, Y and the
// levels below (not Z). `half` is the level's halves.
std::int64_t product_workspace_floats(mml::Shape half, std::int64_t cutoff);

// ---- the quadrants of one level
struct Quadrants {   // of A (each m x k) and B (each k x n), m, n, k = half
    ConstView A11, A12, A21, A22, B11, B12, B21, B22;
    mml::Shape half;
};
struct CQuadrants {  // of C (each m x n)
    View C11, C12, C21, C22;
};
Quadrants split(ConstView A, ConstView B, mml::Shape half);
CQuadrants split(View C, mml::Shape half);

// out (rows x cols, contiguous, ld = cols) = P + Q  or  P - Q.
void add_views(ConstView P, ConstView Q, float* out, std::int64_t rows, std::int64_t cols);
void subtract_views(ConstView P, ConstView Q, float* out, std::int64_t rows, std::int64_t cols);

// ---- the seven products (product = 0..6 is M1..M7)
// Computes M_{product+1} of the quadrants into Z (half.M x half.N, ld = half.N):
// forms its two operands (a sum or difference of quadrants into X and Y in
// `work`, or the quadrant itself), then multiplies them with strassen_recursive.
// `work` holds product_workspace_floats(q.half, cutoff) floats.
void compute_product(int product, const Quadrants& q, float* Z, float* work, std::int64_t cutoff);
// Adds M_{product+1} (in Z, ld = ldz) into the quadrants of C it belongs to,
// rows [row_begin, row_end) of each quadrant, `cols` columns. Products must be
// added in the order 0..6: the first one to reach a quadrant writes it (=),
// the others add or subtract.
void add_product(int product, const float* Z, std::int64_t ldz, const CQuadrants& c,
                 std::int64_t row_begin, std::int64_t row_end, std::int64_t cols);

// ---- odd sizes
// After the even core of C has been computed: the rank-1 update when K is odd,
// the last row of C when M is odd, the last column when N is odd (classical kernel).
void fix_up_peeled(ConstView A, ConstView B, View C, mml::Shape s);

// ---- the recursion and the stage
// C (s.M x s.N) = A*B on views, with `work` holding workspace_floats(s, cutoff)
// floats. Allocates nothing.
void strassen_recursive(ConstView A, ConstView B, View C, mml::Shape s, std::int64_t cutoff,
                        float* work);
// The `lab3.strassen` stage: allocates the workspace once, then recurses.
void matmul_strassen(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                     std::int64_t K, std::int64_t cutoff);

}  // namespace reference::lab3
