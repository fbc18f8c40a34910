// cuBLAS on tensor cores with reduced-precision inputs: lab 11's peer rows
// (lab11.cublas_bf16, lab11.cublas_tf32). They get the same prepared operands
// as the lab's kernels (gpu/lowp_operands.h: A M x K and Bt N x K, both
// K-major, rows ld apart), converted before the timed call, and accumulate
// in FP32. Plain C++: the stage registrations include it.
#pragma once

#include <string>

#include "gpu/lowp_operands.h"

namespace mml::peers {

// C (M x N, float32, row-major, device) = A * B through cublasGemmEx:
// bf16 operands with CUBLAS_COMPUTE_32F, or TF32 values in float32 with
// CUBLAS_COMPUTE_32F_FAST_TF32 (the inputs are TF32 already: nothing more is
// rounded). Launches on the default stream.
void cublas_lowp_gemm(const gpu::LowpOperands& ops, float* C);

// "cuBLAS 13.0.2 (cublasGemmEx, FP32 accumulation)". Needs no GPU.
std::string cublas_lowp_description();

}  // namespace mml::peers
