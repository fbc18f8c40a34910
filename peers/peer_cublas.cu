#include <cublas_v2.h>

#include <limits>
#include <stdexcept>
#include <string>

#include "peers/peer_cublas.h"

namespace mml::peers {
namespace {

void cublas_check(cublasStatus_t st, const char* what) {
    if (st != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusString(st));
}

// One handle for the process: creating one costs milliseconds, which must
// not be timed. Created on first use; the OS reclaims it at exit.
cublasHandle_t handle() {
    static cublasHandle_t h = [] {
        cublasHandle_t created = nullptr;
        cublas_check(cublasCreate(&created), "cublasCreate");
        return created;
    }();
    return h;
}

}  // namespace

void cublas_sgemm_row_major(const float* A, const float* B, float* C, Shape s, CublasMath math) {
    constexpr long long kIntMax = std::numeric_limits<int>::max();
    if (s.M > kIntMax || s.N > kIntMax || s.K > kIntMax)
        throw std::runtime_error("cublasSgemm takes 32-bit dimensions; this shape is too large");
    cublas_check(cublasSetMathMode(handle(), math == CublasMath::Tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                                      : CUBLAS_DEFAULT_MATH),
                 "cublasSetMathMode");
    const float alpha = 1.0f, beta = 0.0f;
    const int m = int(s.M), n = int(s.N), k = int(s.K);
    // Column-major view: C^T (n x m) = B^T (n x k) * A^T (k x m).
    cublas_check(cublasSgemm(handle(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, B, n, A, k,
                             &beta, C, n),
                 "cublasSgemm");
}

std::string cublas_description() {
    int major = 0, minor = 0, patch = 0;
    if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
        cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
        cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
        return "cuBLAS (version unknown)";
    return "cuBLAS " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace mml::peers
