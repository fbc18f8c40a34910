// Given code (lab 5): the transpose of B (transpose.h).
#include "labs/common/transpose.h"

#include <algorithm>

namespace common::lab5 {

// In 32 x 32 blocks: one block of B (32 rows, 128 bytes each) and one of T
// stay in L1 while it is copied, so neither side walks memory with a large
// stride for long. A plain double loop would read B down its columns.
void transpose(const float* B, float* T, std::int64_t K, std::int64_t N) {
    constexpr std::int64_t kBlock = 32;
    for (std::int64_t k0 = 0; k0 < K; k0 += kBlock)
        for (std::int64_t j0 = 0; j0 < N; j0 += kBlock) {
            const std::int64_t k1 = std::min(K, k0 + kBlock), j1 = std::min(N, j0 + kBlock);
            for (std::int64_t k = k0; k < k1; ++k)
                for (std::int64_t j = j0; j < j1; ++j) T[j * K + k] = B[k * N + j];
        }
}

}  // namespace common::lab5
