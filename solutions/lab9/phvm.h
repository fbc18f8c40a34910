// Lab 9, Lei et al. 2024: BasicMM and PHVM for skinny products R = E*F (E is M x K,
// F is K x N, M, N << K), as the paper describes them. Row-major, as every
// stage: E[i][k] = E[i*K + k], F[k][j] = F[k*N + j], R[i][j] = R[i*N + j].
// Device pointers; launches on the default stream.
#pragma once

#include <cstdint>

namespace reference::lab9 {

// Both compute the M*N outputs one after another (the paper's model counts
// M*N * t_single_elem): for each (i, j) one launch of GS blocks x BS threads
// sums dot(E.row(i), F.col(j)); every block reduces in shared memory and adds
// its total to R[i][j] with one atomicAdd. BS: a multiple of 32, <= 1024.
void basicmm(const float* E, const float* F, float* R, std::int64_t M, std::int64_t N,
             std::int64_t K, int gs, int bs);
void phvm(const float* E, const float* F, float* R, std::int64_t M, std::int64_t N,
          std::int64_t K, int gs, int bs);

}  // namespace reference::lab9
