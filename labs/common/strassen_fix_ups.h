// Given code (labs 3 and 4): you use it, you do not write it.
//
// Odd sizes in Strassen's recursion: PEELING, not padding. When M, N or K is
// odd at some level, the recursion works on the even part (M-1, N-1 or K-1)
// and the classical kernel adds what is left: the last row of C, the last
// column of C, and the rank-1 update A[:,K-1]*B[K-1,:]. Why not pad to a
// power of two (as Cao's survey does)? Padding 1025 to 2048 multiplies the work
// by up to 8 for a rectangle (each of M, N, K can double), needs copies of A
// and B, and its zeros are stored and multiplied. Peeling costs
// O(MN + MK + NK) extra classical work per level, needs no copy, and handles
// rectangles with the same code.
#pragma once

#include "cpu/matrix.h"
#include "labs/common/strassen_views.h"

namespace common::lab3 {

// After the even core of C (s.M x s.N, its level's halves times 2) has been
// computed: the rank-1 update when K is odd, the last row of C when M is odd,
// the last column when N is odd, with the classical kernel.
void fix_up_peeled(ConstView A, ConstView B, View C, mml::Shape s);

}  // namespace common::lab3
