// Lab 5 - given: transpose, row-block threads, default block sizes.
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "labs/lab5/gemm.h"

namespace student::lab5 {

void transpose(const float* B, float* T, std::int64_t K, std::int64_t N) {
    constexpr std::int64_t kBlock = 32;  // 32 x 32 blocks stay in L1 on both sides
    for (std::int64_t k0 = 0; k0 < K; k0 += kBlock)
        for (std::int64_t j0 = 0; j0 < N; j0 += kBlock)
            for (std::int64_t k = k0; k < std::min(K, k0 + kBlock); ++k)
                for (std::int64_t j = j0; j < std::min(N, j0 + kBlock); ++j) T[j * K + k] = B[k * N + j];
}

void for_row_blocks(std::int64_t rows, int threads, void (*body)(void*, std::int64_t, std::int64_t), void* ctx) {
    const std::int64_t t = std::max<std::int64_t>(1, std::min<std::int64_t>(threads, rows));
    std::vector<std::thread> pool;
    for (std::int64_t i = 1; i < t; ++i) pool.emplace_back(body, ctx, rows * i / t, rows * (i + 1) / t);
    body(ctx, 0, rows / t);
    for (auto& th : pool) th.join();
}

BlockSizes default_block_sizes() {
    auto size = [](int name, long fallback) {
        const long v = sysconf(name);
        return std::int64_t(v > 0 ? v : fallback);
    };
    const std::int64_t l1 = size(_SC_LEVEL1_DCACHE_SIZE, 32 << 10), l2 = size(_SC_LEVEL2_CACHE_SIZE, 512 << 10),
                       l3 = size(_SC_LEVEL3_CACHE_SIZE, 8 << 20);
    BlockSizes b;
    b.KC = std::clamp<std::int64_t>(l1 * 3 / 4 / (NR * 4), 64, 1024);          // KC x NR of B: 3/4 of L1
    b.MC = std::clamp<std::int64_t>(l2 / 2 / (b.KC * 4), MR, 1024) / MR * MR;  // MC x KC of A: half of L2
    b.NC = std::clamp<std::int64_t>(l3 / 4 / (b.KC * 4), NR, 4096) / NR * NR;  // KC x NC of B: a quarter of L3
    return b;
}

}  // namespace student::lab5
