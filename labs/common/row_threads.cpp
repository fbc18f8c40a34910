// Given code (lab 5): threads over blocks of rows (row_threads.h).
#include "labs/common/row_threads.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace common::lab5 {

void for_row_blocks(std::int64_t rows, int threads, void (*body)(void*, std::int64_t, std::int64_t), void* ctx) {
    const std::int64_t t = std::max<std::int64_t>(1, std::min<std::int64_t>(threads, rows));
    std::vector<std::thread> pool;
    for (std::int64_t i = 1; i < t; ++i) pool.emplace_back(body, ctx, rows * i / t, rows * (i + 1) / t);
    body(ctx, 0, rows / t);  // the calling thread takes the first block
    for (auto& th : pool) th.join();
}

}  // namespace common::lab5
