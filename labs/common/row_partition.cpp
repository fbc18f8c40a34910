// Given code (lab 4): the split of C's rows between threads (row_partition.h).
#include "labs/common/row_partition.h"

#include <algorithm>
#include <numeric>

namespace common::lab4 {

std::int64_t rows_per_line_unit(std::int64_t N) {
    constexpr std::int64_t kFloatsPerLine = 16;  // 64 bytes
    return kFloatsPerLine / std::gcd(N, kFloatsPerLine);
}

RowRange rows_for_thread(std::int64_t M, std::int64_t N, int threads, int t) {
    const std::int64_t unit = rows_per_line_unit(N);
    const std::int64_t units = (M + unit - 1) / unit;  // the last unit may be short
    // Thread t gets units [t*units/T, (t+1)*units/T): shares differ by at most one unit.
    const std::int64_t u0 = units * t / threads, u1 = units * (t + 1) / threads;
    return {std::min(M, u0 * unit), std::min(M, u1 * unit)};
}

std::int64_t rounded_block_rows(std::int64_t N, std::int64_t block_rows) {
    const std::int64_t unit = rows_per_line_unit(N);
    if (block_rows < 1) block_rows = 1;
    return (block_rows + unit - 1) / unit * unit;
}

}  // namespace common::lab4
