// Lab 11: tensor cores. You write the kernels' TODOs in the .cu files beside
// this one, in the order of their numbers; handouts/lab11.md explains each
// step. The inputs arrive already rounded to the tensor cores' formats and
// laid out for them (gpu/lowp_operands.h; the harness converts the float32
// A and B before each call, and does not time the conversion):
//   A  is M x K, row-major:          element (i,k) of A is A[i*ld + k]
//   Bt is B transposed, N x K:       element (k,j) of B is Bt[j*ld + k]
//   ld is K rounded up to a multiple of 64 (128 for FP8: rows start on
//   128-byte lines; the TMA needs at least 16-byte multiples); the columns
//   K..ld-1 hold zeros.
//   C  is M x N float32, row-major:  element (i,j) is C[i*N + j]
// Each function gets DEVICE pointers, launches its kernel on the default
// stream and returns without waiting (the harness times it with CUDA events
// and checks for errors). Every element of C must be overwritten with
// (A*B)(i,j), for ANY M, N, K >= 1 - not only multiples of the tile sizes,
// and only products k < K may count (the test with --param drop_k checks it).
// The check multiplies the same rounded inputs in float64 and allows the
// error of FP32 accumulation (cpu/error_bound.h, tensor_core_bound; FP8:
// fp8_tensor_core_bound).
#pragma once

#include <cstdint>

struct __nv_bfloat16;  // cuda_bf16.h
struct __nv_fp8_e4m3;  // cuda_fp8.h (declared here so that plain C++ files can include this header)

namespace student::lab11 {

// Stage 1 (01_wmma_bf16.cu): WMMA 16x16x16, bf16 in, FP32 accumulate, tiled through shared memory.
void wmma_bf16(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C, std::int64_t M,
               std::int64_t N, std::int64_t K);
// Stage 2 (02_mma_sync.cu): mma.sync.m16n8k16 + ldmatrix + a 4-stage cp.async pipeline, swizzled shared memory.
void mma_sync(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C, std::int64_t M,
              std::int64_t N, std::int64_t K);
// Stage 3 (03_wgmma_sm90a.cu, Hopper only): TMA + mbarrier ring + wgmma, producer/consumer
// warpgroups (setmaxnreg), persistent tiles.
void wgmma(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C, std::int64_t M,
           std::int64_t N, std::int64_t K);
// Stage 4 (03_wgmma_sm90a.cu): stage 3 with TF32 inputs (float32 holding TF32 values).
void wgmma_tf32(const float* A, const float* Bt, std::int64_t ld, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K);
// Stage 5 (04_streamk_sm90a.cu, Hopper only): stage 3 with a persistent tile scheduler that shares the
// last wave out by k-iterations (stream-K + data-parallel), partials added in a fixed order.
void wgmma_streamk(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C, std::int64_t M,
                   std::int64_t N, std::int64_t K);
// Stage 6 (03_wgmma_sm90a.cu, Hopper only): stage 3 with FP8 e4m3 inputs (one byte; ld a multiple of
// 128), 128-wide tiles, the tensor core's sums promoted to float32 registers every stage (128 of k).
void wgmma_fp8(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, std::int64_t ld, float* C, std::int64_t M,
               std::int64_t N, std::int64_t K);

}  // namespace student::lab11
