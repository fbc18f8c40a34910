// Given code (labs 3 and 4): Strassen's error bound, the tolerance of the
// checks of lab3.strassen and lab4.strassen_par. Strassen does NOT satisfy
// the classical element-wise bound |C - C^| <= gamma_K |A||B|: an entry of C
// can carry rounding errors of the size of the largest entries of A and B,
// even when it is itself tiny (tests/test_lab3.cpp shows one). What it
// satisfies is a NORM-WISE bound, with ||X|| = max |x_ij|:
//
// Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Thm 23.2:
//   for n = 2^L * n0 and a recursion that stops at n0 (classical product there),
//   ||C - C^|| <= [ (n/n0)^log2(12) * (n0^2 + 5 n0) - 5n ] u ||A|| ||B|| + O(u^2).
//
// The closed form is the solution of  f(n0) = n0^2,  f(n) = 12 f(n/2) + 25 n:
//   n0^2   the classical product of size n0 (gamma_n0 |A||B| <= n0 u * n0 ||A|| ||B||);
//   12     = 4+2+2+4, the worst quadrant (C11 or C22) adds four products
//          whose operands have norms (2,2), (1,2), (2,1), (2,2) times ||A||, ||B||;
//   25 n   the rounding of the operand sums and of the three additions per quadrant.
// (Counting our own order of additions gives 23 n at each level, less than
// Higham's 25 n, so his constant is a safe over-estimate for this code.)
//
// Our recursion is more general (any M, N, K; peeling; stop when ANY dimension
// <= cutoff), so strassen_error_constant() follows the recursion level by level
// with the same recurrence, taken conservatively:
//   stop at the kernel (shape m x n x k):  f = k^2      (the classical bound, as n0^2)
//   a Strassen level of M x N x K, even core K2 = 2*floor(K/2):
//       f = 12 f(halves) + 25 K2                        (Higham's step, n -> K2)
//         + (K + 1)   if K is odd: the rank-1 update C += a b^T adds one rounded
//                     product (<= u ||A|| ||B||) and one rounded sum (<= u K ||A|| ||B||)
//   the peeled row and column (M or N odd) are classical: <= K^2; f is the max.
// Only K enters the per-level term: the entries of M_i are sums of k products,
// so their size, and their rounding, scale with the inner dimension k alone.
// For a square n = 2^L n0 with cutoff n0 (or any cutoff in [n0, 2 n0)) this is
// exactly Higham's closed form (the tests check that).
//
// The tolerance of the check is factor = f u / (1 - f u): the first-order bound
// with its O(u^2) term made concrete the way gamma_n = nu/(1-nu) does for the
// classical bound (an over-estimate, not part of Higham's proof). When f u >= 1
// the bound says nothing (factor = +inf): deep recursions (tiny cutoffs) on
// large sizes get there quickly, since 12^L grows fast. The tests only use
// shapes and cutoffs where the bound stays small enough to catch a wrong product.
#pragma once

#include <cstdint>

#include "cpu/error_bound.h"
#include "cpu/matrix.h"

namespace common::lab3 {

// f above: ||C - C^|| <= f * u * ||A|| * ||B|| to first order in u.
double strassen_error_constant(mml::Shape s, std::int64_t cutoff);

// Higham's closed form for n = 2^L * n0 (n0 = the size of the leaves).
double higham_strassen_constant(double n, double n0);

// The check's tolerance: ErrorBound::Kind::Normwise, factor = f u / (1 - f u).
mml::ErrorBound strassen_bound(mml::Shape s, std::int64_t cutoff);

}  // namespace common::lab3
