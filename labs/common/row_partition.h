// Given code (lab 4): you use it, you do not write it. How C's rows are
// split between threads.
//
// False sharing: two threads writing different floats of the same 64-byte
// cache line make that line bounce between their cores (each write
// invalidates the other core's copy), although they never touch the same
// float. Threads here write only their own rows of C, so the only lines two
// threads could share are where one block of rows ends and the next begins.
// C starts on a 64-byte boundary (cpu/matrix.h), so row r starts on one when
// r*N floats is a multiple of 16 (64 bytes), i.e. when r is a multiple of
// 16 / gcd(N, 16). Putting every block boundary on such a row leaves no line
// shared. (For a view that does not start on a line, it is off by the view's offset.)
#pragma once

#include <cstdint>

namespace common::lab4 {

struct RowRange {
    std::int64_t begin = 0, end = 0;  // rows [begin, end); empty when begin == end
    std::int64_t size() const { return end - begin; }
};

// Rows per cache-line unit: the smallest r > 0 with r*N*4 bytes a multiple of 64.
std::int64_t rows_per_line_unit(std::int64_t N);

// The rows of thread t (0 <= t < threads) when M rows of N floats are split
// into `threads` contiguous blocks: as equal as whole cache-line units allow,
// in order, covering [0, M) exactly once. Threads past the work get empty ranges.
RowRange rows_for_thread(std::int64_t M, std::int64_t N, int threads, int t);

// The OpenMP stages' blocks of rows: `block_rows` (>= 1; less counts as 1)
// rounded up to whole cache-line units of C, so no line of C is written by
// two threads. The default block height (--param block_rows=64):
std::int64_t rounded_block_rows(std::int64_t N, std::int64_t block_rows);
constexpr std::int64_t kDefaultBlockRows = 64;

}  // namespace common::lab4
