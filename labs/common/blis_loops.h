// Given code (lab 5): you use it, you do not write it.
//
// Stage 4 (lab5.blis) around the loops you write in blis.cpp (task 5): the
// block sizes, the packing buffers, the threads and their blocks of C, and
// the edge tiles, for any kernel set (any register tile MR x NR). The
// starter's and the reference's blis.cpp both run their loops inside
// blis_threads. Why the threads split C as they do: the top of
// blis_loops.cpp.
#pragma once

#include <cstdint>
#include <functional>

#include "labs/common/block_sizes.h"
#include "labs/common/kernel_sets.h"

namespace common::lab5 {

// One thread's share of a product: its block of C, rows [m_begin, m_end) and
// columns [n_begin, n_end) (whole micro-panels, except at the edges of C),
// the block sizes it walks them by, and its own 64-byte aligned buffers.
struct ThreadBlock {
    std::int64_t m_begin, m_end, n_begin, n_end;
    // Loop 5 steps through the rows by mc_equal (at most MC, a multiple of
    // MR), loop 3 through the columns by nc_equal (at most NC, a multiple of
    // NR), loop 4 through K by KC: the last step of each may be shorter.
    std::int64_t mc_equal, nc_equal, KC;
    float* a_panel;  // room for one packed mc_equal x KC panel of A
    float* b_block;  // room for one packed KC x nc_equal block of B
};

// C = A*B (M x N) on `threads` threads (OpenMP): picks the block sizes
// (`requested`, 0 = the default: blocks_for_product in block_sizes.h), cuts C
// into one block per thread (a grid of blocks, as square as the shape
// allows), and calls loops(block) on each thread for its block; returns when
// every thread is done. The threads share nothing but A, B and C, and each
// writes only its own block of C. Throws std::invalid_argument for a kernel
// set whose tile is larger than edge_tile's buffer.
void blis_threads(std::int64_t M, std::int64_t N, std::int64_t K, const KernelSet& kernels, BlockSizes requested,
                  int threads, const std::function<void(const ThreadBlock&)>& loops);

// The edge tile at C (row stride ldc): the `rows` x `cols` (at most MR x NR)
// of the MR x NR tile that the micro-kernel would compute from the packed
// micro-panels a (A's sliver) and b (B's micro-panel), written into C
// (accumulate = false) or added to it (true); nothing outside them is
// touched. For the tiles at the bottom and right edges of C, where a whole
// tile would not fit; the kernel set's edge micro-kernels do it when it has
// them, otherwise a buffer and a copy.
void edge_tile(const KernelSet& kernels, int rows, int cols, std::int64_t kc, const float* a, const float* b, float* C,
               std::int64_t ldc, bool accumulate);

// n cut into pieces of equal size, whole R-panels each, at most `most` (a
// multiple of R): the size of one piece (the last may be shorter). 1100
// columns with most = 1024, R = 16: 560 (two pieces, 560 + 540), not
// 1024 + 76. blis_threads uses it for mc_equal and nc_equal.
std::int64_t equal_piece(std::int64_t n, std::int64_t most, int R);

// The threads lab5.blis starts for one M x N x K product when `threads` are
// asked for: fewer when the product is so small that a thread's share would
// not pay for starting it (blis_loops.cpp says how small). blis_threads itself
// runs on the threads it is given, so that the tests can run small shapes on
// several threads; the stage (and anyone timing it) asks this first.
int threads_worth_starting(std::int64_t M, std::int64_t N, std::int64_t K, int threads);

}  // namespace common::lab5
