// Lab 11 reference: tensor cores (see labs/lab11/lab11.h for the contract).
// Every function takes DEVICE pointers to the prepared operands
// (gpu/lowp_operands.h: A M x K row-major, Bt = B transposed N x K, rows ld
// elements apart, zeros past K), launches on the default stream and returns
// without waiting; C is the M x N float32 row-major product.
#pragma once

#include <cstdint>

struct __nv_bfloat16;  // cuda_bf16.h
struct __nv_fp8_e4m3;  // cuda_fp8.h (declared here so that plain C++ files can include this header)

namespace reference::lab11 {

// Stage 1: WMMA 16x16x16, bf16 in, FP32 accumulate, tiled through shared memory.
void wmma_bf16(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C, std::int64_t M,
               std::int64_t N, std::int64_t K);
// Stage 2: mma.sync.m16n8k16 + ldmatrix + a 4-stage cp.async pipeline, swizzled shared memory.
void mma_sync(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C, std::int64_t M,
              std::int64_t N, std::int64_t K);
// Stage 3 (sm_90a): TMA + mbarrier ring + wgmma, producer/consumer warpgroups, persistent tiles.
void wgmma(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C, std::int64_t M,
           std::int64_t N, std::int64_t K);
// Stage 4 (sm_90a): stage 3 with TF32 inputs (float32 holding TF32 values).
void wgmma_tf32(const float* A, const float* Bt, std::int64_t ld, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K);
// Stage 5 (sm_90a): stage 3 with a persistent stream-K + data-parallel tile scheduler for the last wave,
// deterministic (partials added in a fixed order).
void wgmma_streamk(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C, std::int64_t M,
                   std::int64_t N, std::int64_t K);
// Stage 6 (sm_90a): stage 3 with FP8 e4m3 inputs, the tensor core's sums promoted to float32 every stage.
void wgmma_fp8(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, std::int64_t ld, float* C, std::int64_t M,
               std::int64_t N, std::int64_t K);

}  // namespace reference::lab11
