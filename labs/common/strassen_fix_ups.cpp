// Given code (labs 3 and 4): what odd sizes leave after a Strassen level
// (strassen_fix_ups.h says why peeling and not padding).
#include "labs/common/strassen_fix_ups.h"

#include "labs/common/classical_kernel.h"
#include "labs/common/strassen_plan.h"

namespace common::lab3 {

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

}  // namespace common::lab3
