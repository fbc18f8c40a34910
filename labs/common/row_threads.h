// Lab 5 reference: seed 003's way of using several cores - split the rows of
// C into one contiguous block per thread, create the threads, join them.
#pragma once

#include <cstdint>
#include <functional>

namespace reference::lab5 {

// Calls body(first_row, end_row) on `threads` threads (std::thread, i.e.
// pthreads on Linux) for nearly equal blocks of [0, rows), and waits for all.
// threads <= 1 (or one row) runs body(0, rows) on the calling thread.
void for_row_blocks(std::int64_t rows, int threads,
                    const std::function<void(std::int64_t, std::int64_t)>& body);

}  // namespace reference::lab5
