// Lab 5: the stages. Read handouts/lab5.md first. Row-major float32:
//   A is M x K (A[i*K + k]), B is K x N (B[k*N + j]), C is M x N (C[i*N + j]).
// Every function must overwrite every element of C with (A*B)[i][j], for any
// M, N, K >= 1.
#pragma once

#include <cstdint>

#include "labs/common/block_sizes.h"
#include "labs/common/row_threads.h"
#include "labs/common/transpose.h"
#include "labs/lab5/kernels.h"

namespace student::lab5 {

// Given helpers (labs/common/, namespace common::lab5; read them, they are short):
//   transpose(B, T, K, N)         T = B^T, N x K (transpose.h)
//   for_row_blocks(rows, threads, body, ctx)
//                                 body(ctx, first_row, end_row) for nearly equal
//                                 row blocks of [0, rows), one per thread:
//                                 min(threads, rows) threads, the calling thread
//                                 doing the first block; waits for all (row_threads.h)
//   panels(n, R)                  ceil(n / R): micro-panels of R rows or columns (block_sizes.h)
using common::lab5::BlockSizes;
using common::lab5::for_row_blocks;
using common::lab5::panels;
using common::lab5::transpose;

// Stage 1 (lab5.dot, threads = 1) and Cao's survey's combined row (lab5.combined):
// transpose B, then one dot product per element of C. (dot.cpp, task 1b)
void matmul_dot(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K, const KernelSet& kernels, int threads);

// Stage 2 (lab5.tile): the register tile on unpacked A and B. (tile.cpp, given;
// it calls your kernels.tile)
void matmul_tile(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                 std::int64_t K, const KernelSet& kernels);

// Stage 4 (lab5.blis): packed, blocked, threaded. 0 = the default block size.
// (blis.cpp: your loops, task 5, inside the given threads of
// labs/common/blis_loops.h, around your micro-kernel and your packing)
void matmul_blis(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                 const KernelSet& kernels, BlockSizes blocks, int threads);

// Loops 2 and 1 of stage 4 (blis.cpp, task 5a): C (mc x nc, row stride ldc)
// = (accumulate = false) or += (true) the packed A panel (mc x kc) times the
// packed B block (kc x nc). (`mmlab blis-levels` times the reference's alone.)
void macro_kernel(const KernelSet& kernels, std::int64_t mc, std::int64_t nc, std::int64_t kc,
                  const float* a_packed, const float* b_packed, float* C, std::int64_t ldc, bool accumulate);

// Packing (packing.cpp, task 4): the layouts are there. MR and NR are the
// kernel set's tile (6 x 16 for yours and the given scalar kernels).
void pack_a(const float* A, std::int64_t lda, std::int64_t mc, std::int64_t kc, int MR, float* out);
void pack_b_panels(const float* B, std::int64_t ldb, std::int64_t kc, std::int64_t nc, int NR, std::int64_t first_panel,
                   std::int64_t end_panel, float* out);

}  // namespace student::lab5
