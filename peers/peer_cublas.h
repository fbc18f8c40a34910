// cuBLAS SGEMM on row-major data: the peer row of the GPU labs (lab8.cublas,
// lab8.cublas_tf32, lab9.cublas). A library the students measure against,
// not code they write: it lives in peers/ beside the CPU labs' OpenBLAS.
//
// cuBLAS is column-major. A row-major M x N matrix is the column-major N x M
// matrix of its transpose, so C = A*B row-major is C^T = B^T * A^T
// column-major: we pass B first, A second, and swap M and N. No copies.
#pragma once

#include <string>

#include "cpu/matrix.h"

namespace mml::peers {

enum class CublasMath {
    Fp32,  // plain FP32 (CUBLAS_DEFAULT_MATH): tensor cores off
    Tf32,  // TF32 tensor cores (CUBLAS_TF32_TENSOR_OP_MATH)
};

// Launches on the default stream; A, B, C are device pointers.
void cublas_sgemm_row_major(const float* A, const float* B, float* C, Shape s, CublasMath math);

// "cuBLAS 13.0.2": the version of the library this binary loaded (for the
// header of a run that has a cuBLAS row). Needs no GPU.
std::string cublas_description();

}  // namespace mml::peers
