// Given code (lab 5): you use it, you do not write it.
//
// Cao's survey's way of using several cores: split the rows of C into one
// contiguous block per thread, create the threads, join them (lab5.combined).
#pragma once

#include <cstdint>

namespace common::lab5 {

// Calls body(ctx, first_row, end_row) for nearly equal blocks of [0, rows),
// one per thread: min(threads, rows) threads (std::thread, i.e. pthreads on
// Linux), the calling thread doing the first block; returns when all are
// done. threads <= 1 (or one row) runs body(ctx, 0, rows) on the calling thread.
// `ctx` is what the blocks share (the matrices...), passed through unchanged.
void for_row_blocks(std::int64_t rows, int threads, void (*body)(void* ctx, std::int64_t first_row, std::int64_t end_row),
                    void* ctx);

}  // namespace common::lab5
