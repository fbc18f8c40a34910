// Lab 12's one binding to lab 5: the local product of every rank of the CPU
// algorithms is lab 5's packed BLIS-style GEMM (the reference), reached only
// through labs/common/lab12_local_gemm.h. This is the only file of lab 12
// that names lab 5's code; a build without the answers (NO_REFERENCE=1, the
// grader's) leaves it out, and local_gemm uses OpenBLAS instead (and says so).
//
// What lab 12 needs from lab 5 is one symbol: C = A*B for contiguous
// row-major A, B, C on `threads` threads, with the kernel set of the widest
// SIMD this CPU has. Today that is reference::lab5::matmul_blis with
// kernels_for(...) and default block sizes. (A version that adds into a
// strided C - lab 5's macro-kernel already can - would spare local_gemm its
// scratch copy: about 3 % of a 1024-deep panel's time.)
#include <string>

#include "cpu/machine.h"
#include "labs/common/lab12_local_gemm.h"

#include "solutions/lab5/gemm.h"
namespace {
const reference::lab5::KernelSet& widest_kernels() { return reference::lab5::kernels_for(mml::detect_simd()); }
}  // namespace

namespace {

void lab5_gemm(const float* A, const float* B, float* C, std::int64_t m, std::int64_t n, std::int64_t k,
               int threads) {
    reference::lab5::matmul_blis(A, B, C, m, n, k, widest_kernels(), {}, threads);
}

std::string lab5_kernel_name() { return widest_kernels().name; }

struct Bind {
    Bind() { mml::lab12::bind_lab5_kernel(lab5_gemm, lab5_kernel_name); }
} bind;

}  // namespace
