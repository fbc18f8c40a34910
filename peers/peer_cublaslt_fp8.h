// cuBLASLt with FP8 e4m3 inputs: lab 11's FP8 peer row (lab11.cublaslt_fp8).
// It gets the same prepared operands as lab11.wgmma_fp8 (gpu/lowp_operands.h:
// A M x K and Bt N x K, e4m3, both K-major, rows ld apart, zeros past K and
// past M and N up to multiples of 16), converted before the timed call.
// Plain C++: the stage registrations include it.
#pragma once

#include <string>

#include "gpu/lowp_operands.h"

namespace mml::peers {

// C (M x N, float32, row-major, device) = A * B through cublasLtMatmul:
// e4m3 A and B, FP32 compute and output, scales 1 (device pointers), fast
// accumulation off (cuBLASLt then promotes the tensor core's sums to FP32
// periodically, as lab11.wgmma_fp8 does). Launches on the default stream.
void cublaslt_fp8_gemm(const gpu::LowpOperands& ops, float* C);

// "cuBLASLt 13.0.2 (cublasLtMatmul, e4m3, FP32 accumulation, no fast accumulation)". Needs no GPU.
std::string cublaslt_fp8_description();

}  // namespace mml::peers
