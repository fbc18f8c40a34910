// lab 11's cuBLAS peers (peers/peer_cublas_lowp.h).
//
// cuBLAS is column-major. The row-major C (M x N) is the column-major C^T
// (N x M), and C^T = B^T A^T. Our Bt buffer (N rows of ld) read column-major
// is the ld x N matrix whose first K rows are B (K x N): transposed (OP_T) it
// is B^T. Our A buffer (M rows of ld) read column-major is A^T (K x M):
// OP_N. So: m = N, n = M, k = K, "TN", both leading dimensions ld - the
// layout in which cuBLAS's Hopper kernels read both operands K-major.
#include "peers/peer_cublas_lowp.h"

#include <cublas_v2.h>

#include <limits>
#include <stdexcept>
#include <string>

namespace mml::peers {
namespace {

void check(cublasStatus_t st, const char* what) {
    if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusString(st));
}

// One handle for the process, created on first use (creating one takes
// milliseconds, which must not be timed); the OS reclaims it at exit.
cublasHandle_t handle() {
    static cublasHandle_t h = [] {
        cublasHandle_t created = nullptr;
        check(cublasCreate(&created), "cublasCreate");
        return created;
    }();
    return h;
}

}  // namespace

void cublas_lowp_gemm(const gpu::LowpOperands& ops, float* C) {
    constexpr long long kIntMax = std::numeric_limits<int>::max();
    const Shape s = ops.shape;
    if (s.M > kIntMax || s.N > kIntMax || s.K > kIntMax || ops.ld > kIntMax)
        throw std::runtime_error("cublasGemmEx takes 32-bit dimensions; this shape is too large");
    const bool bf16 = ops.format == InputRounding::Bf16;
    if (!bf16 && ops.format != InputRounding::Tf32) throw std::logic_error("cublas_lowp_gemm: bf16 or tf32 operands only");
    const cudaDataType_t in_type = bf16 ? CUDA_R_16BF : CUDA_R_32F;
    const cublasComputeType_t compute = bf16 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_FAST_TF32;
    const float alpha = 1.0f, beta = 0.0f;
    const int m = int(s.N), n = int(s.M), k = int(s.K), ld = int(ops.ld);
    check(cublasGemmEx(handle(), CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, ops.Bt, in_type, ld, ops.A, in_type, ld,
                       &beta, C, CUDA_R_32F, m, compute, CUBLAS_GEMM_DEFAULT),
          bf16 ? "cublasGemmEx (bf16)" : "cublasGemmEx (tf32)");
}

std::string cublas_lowp_description() {
    int major = 0, minor = 0, patch = 0;
    if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
        cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
        cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
        return "cuBLAS (version unknown), cublasGemmEx, FP32 accumulation";
    return "cuBLAS " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch) +
           " (cublasGemmEx, FP32 accumulation)";
}

}  // namespace mml::peers
