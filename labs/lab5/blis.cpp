// Lab 5 - your code, task 5: the five loops around the micro-kernel, on one
// thread's block of C. Read handouts/lab5.md ("Feeding the tile: packing and
// the five loops") first. Given around them (labs/common/blis_loops.h): the
// block sizes, the packing buffers, the threads and their blocks of C
// (blis_threads, ThreadBlock) and the edge tiles (edge_tile).
#include <algorithm>

#include "labs/common/blis_loops.h"
#include "labs/lab5/gemm.h"

namespace student::lab5 {

// Loops 2 and 1 (gemm.h): C (mc x nc, row stride ldc) = (accumulate = false)
// or += (true) the packed A panel (mc x kc) times the packed B block (kc x nc).
// TODO(lab5, task 5a): loops 2 and 1 of BLIS.
//   Contract: as above; any mc, nc, kc >= 1, not only multiples of MR and NR
//     (the kernel set's tile: kernels.MR, kernels.NR): the packed panels are
//     padded with zeros to whole micro-panels, but C has only mc x nc
//     elements here, and nothing outside them may be written.
//   Goal: one micro-kernel call (kernels.micro) per whole MR x NR tile of C,
//     reading the packed micro-panels in place; the ragged tiles at the
//     right and bottom edges through the given common::lab5::edge_tile.
//   Judged: the tests with odd block sizes (ragged blocks in every loop),
//     then lab5.blis (with task 5b). Stuck: handouts/lab5.md, hints 5.5.x.
void macro_kernel(const KernelSet& kernels, std::int64_t mc, std::int64_t nc, std::int64_t kc,
                  const float* a_packed, const float* b_packed, float* C, std::int64_t ldc, bool accumulate) {
    (void)kernels, (void)mc, (void)nc, (void)kc, (void)a_packed, (void)b_packed, (void)C, (void)ldc, (void)accumulate;
}

// Loops 5, 4 and 3 on one thread's block of C (blis_threads calls this on
// every thread, each with its own block and buffers).
// TODO(lab5, task 5b): loops 5, 4, 3 for this thread's block of C.
//   Contract: C = A*B on the rows [block.m_begin, block.m_end) and columns
//     [block.n_begin, block.n_end) of C (row-major, M x N, A M x K, B K x N;
//     C holds garbage on entry), for any shapes and block sizes (ragged last
//     blocks everywhere); write nothing else of C, and pack only into this
//     thread's buffers block.a_panel and block.b_block.
//   Goal: loops 5 (the block's rows), 4 (K) and 3 (the block's columns), in
//     the steps ThreadBlock gives: each panel of A packed once per (ic, pc)
//     and reused by every block of B, each block of B swept by macro_kernel
//     (task 5a).
//   Judged: the tests, then lab 5's target: your fastest stage at least
//     75 % of OpenBLAS's speed on THREADS threads. Stuck: hints 5.5.x.
void block_loops(const float* A, const float* B, float* C, std::int64_t N, std::int64_t K, const KernelSet& kernels,
                 const common::lab5::ThreadBlock& block) {
    (void)A, (void)B, (void)C, (void)N, (void)K, (void)kernels, (void)block;
}

void matmul_blis(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                 const KernelSet& kernels, BlockSizes blocks, int threads) {
    common::lab5::blis_threads(M, N, K, kernels, blocks, threads, [&](const common::lab5::ThreadBlock& block) {
        block_loops(A, B, C, N, K, kernels, block);
    });
}

}  // namespace student::lab5
