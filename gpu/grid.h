// Launch geometry shared by the GPU labs: block counts, and CUDA's grid limits.
//
// CUDA allows up to 2^31-1 blocks along grid x but only 65535 along y. Our
// kernels put C's columns on x and C's rows on y, so a very tall C (more than
// 65535 blocks of rows, e.g. 600000 x 4 with 8 rows a block) needs more than
// one launch: for_each_row_chunk calls the launch once per chunk of rows, and
// the kernel is given A and C starting at that chunk's first row (B is whole).
// For every shape that fits in memory today the loop runs once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace mml::gpu {

constexpr std::int64_t kMaxGridX = 2147483647;  // 2^31 - 1
constexpr std::int64_t kMaxGridY = 65535;

constexpr std::int64_t ceil_div(std::int64_t n, std::int64_t d) { return (n + d - 1) / d; }

// Blocks needed along grid x for n items, per_block a block; throws when the
// grid would exceed CUDA's limit (no shape that fits in memory gets there).
inline unsigned grid_x_blocks(std::int64_t n, std::int64_t per_block) {
    const std::int64_t blocks = ceil_div(n, per_block);
    if (blocks > kMaxGridX)
        throw std::runtime_error("a grid of " + std::to_string(blocks) +
                                 " blocks along x exceeds CUDA's limit of 2^31-1");
    return unsigned(blocks);
}

// Calls launch(first_row, rows) for consecutive chunks of C's M rows, each at
// most 65535 blocks of rows_per_block rows, so that grid y stays legal.
template <typename Launch>
void for_each_row_chunk(std::int64_t M, std::int64_t rows_per_block, Launch&& launch) {
    const std::int64_t chunk = kMaxGridY * rows_per_block;
    for (std::int64_t first = 0; first < M; first += chunk) launch(first, std::min(chunk, M - first));
}

// Blocks along grid y for a chunk of `rows` rows (at most 65535 by construction).
inline unsigned grid_y_blocks(std::int64_t rows, std::int64_t rows_per_block) {
    return unsigned(ceil_div(rows, rows_per_block));
}

}  // namespace mml::gpu
