// Lab 8: register blocking on the GPU. You write the kernels' TODOs in the
// .cu files beside this one, in the order of their numbers; handouts/lab8.md
// explains each step. All matrices are row-major float32 in GPU memory:
//   A is M x K: element (i,k) is A[i*K + k]
//   B is K x N: element (k,j) is B[k*N + j]
//   C is M x N: element (i,j) is C[i*N + j]
// Each function gets DEVICE pointers, launches its kernel on the default
// stream and returns without waiting (the harness times it with CUDA events
// and checks for errors). Every element of C must be overwritten with
// (A*B)(i,j), for ANY M, N, K >= 1 - not only multiples of the tile sizes.
#pragma once

#include <cstdint>

namespace student::lab8 {

// Stage 1 (01_register_tile.cu): 8 x 8 thread tile, 128 x 128 block tile, k-step 8.
void register_tile(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
// Stage 2 (02_vector_loads.cu): + float4 loads from global and shared memory.
void vector_loads(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
// Stage 3 (03_conflict_free.cu): + a shared-memory layout without bank conflicts.
void conflict_free(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
// Stage 4 (04_double_buffer.cu, double_buffer_impl.cuh): + double buffering and warp tiles.
void double_buffer(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
// Stage 5 (05_async_copy.cu, async_copy_impl.cuh): + asynchronous copies
// (cp.async) into a multi-stage shared-memory pipeline, fragments
// double-buffered in registers.
void async_copy(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
// Stage 6 (06_autotile.cu): stage 4's and 5's kernels with the tile configuration and
// the split-K factor chosen per shape by the (given) model of
// labs/common/lab8_tiles.h; tile >= 0 (an index into kTileConfigs) and
// split >= 1 force them (mmlab tune does).
void autotile(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K, int tile,
              int split);
// Stage 8 (08_streamk.cu): stage 5's kernel under a persistent scheduler that
// shares the last wave's tiles out by k-steps (stream-K), partials added in a
// fixed order.
// stream_k false (--param sk=0): the same persistent kernel with every tile
// whole, the last wave as it falls (the loss stream-K removes, measured).
void streamk(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
             bool stream_k);
// Extension (07_wmma_tf32.cu): TF32 tensor cores through WMMA (sm_80 and newer).
void wmma_tf32(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);

}  // namespace student::lab8
