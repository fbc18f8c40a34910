// Lab 8 reference: register blocking on the GPU (see labs/lab8/lab8.h for the
// contract). Every function takes DEVICE pointers, launches its kernel on the
// default stream and returns without waiting; the harness times and checks it.
#pragma once

#include <cstdint>

namespace reference::lab8 {

// Stage 1: 8 x 8 thread tile, 128 x 128 block tile, k-step 8.
void register_tile(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
// Stage 2: + float4 loads from global and shared memory (A transposed in shared).
void vector_loads(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
// Stage 3: + a shared-memory layout without bank conflicts.
void conflict_free(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
// Stage 4: + double buffering, warp tiling and a cache-friendly tile order.
void double_buffer(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
// Stage 5: + asynchronous copies (cp.async) into a multi-stage shared-memory
// pipeline, fragments double-buffered in registers (stage 4's 128 x 256 tile,
// one block of 8 warps an SM).
void async_copy(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
// Stage 6: stage 4's and 5's kernels with the tile configuration and the split-K
// factor chosen per shape by the model of labs/common/lab8_tiles.h; tile >= 0
// (an index into kTileConfigs) and split >= 1 force them (mmlab tune does).
void autotile(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K, int tile,
              int split);
// Stage 8: stage 5's kernel under a persistent tile scheduler: the full
// waves' tiles whole (data-parallel), the last wave's shared out by k-steps
// (stream-K), the partials added in block order (deterministic).
// stream_k false (--param sk=0): the same persistent kernel with every tile
// whole, the last wave as it falls (the loss stream-K removes, measured).
void streamk(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
             bool stream_k);
// Extension: TF32 tensor cores through WMMA (sm_80 and newer; throws elsewhere).
void wmma_tf32(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);

}  // namespace reference::lab8
