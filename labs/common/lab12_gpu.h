// Lab 12 (given code, not a TODO): what one rank's GPU needs for the
// distributed product - the per-tile product (cuBLAS FP32, cuBLAS bf16, or
// lab 8's or lab 11's kernel), bf16 conversion, the poison fill, and CUDA events around
// each step. No NCCL and no MPI here (lab12_nccl.h adds the communicators).
// Plain C++ declarations: the .cu beside it holds the CUDA.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "labs/common/lab12_tile_bindings.h"

namespace mml::lab12 {

enum class Precision { Fp32, Bf16 };  // of A and B (C is float32 in both)
std::size_t element_bytes(Precision p);
const char* precision_name(Precision p);  // "fp32", "bf16"

enum class TileKernel { Cublas, Lab8, Lab11 };
const char* tile_name(TileKernel k);  // "cublas", "lab8", "lab11"

// Lab 8's and lab 11's kernels, where the references are built: lab12_tile_bindings.h.

// C (m x n, row stride ldc) = A*B, or += when `accumulate`; A is m x k (row
// stride lda), B is k x n (row stride ldb), row-major, in device memory. A and
// B hold float (Fp32) or __nv_bfloat16 (Bf16) elements; C is float.
//   Cublas, Fp32: cublasSgemm with CUBLAS_DEFAULT_MATH (FP32 FMAs, tensor cores off)
//   Cublas, Bf16: cublasGemmEx, bf16 inputs, float32 accumulation (CUBLAS_COMPUTE_32F)
//   Lab8 (Fp32):  lab 8's kernel; it runs on the legacy default stream, so
//                 stream() is cudaStreamLegacy then, and strided operands and
//                 accumulation go through a scratch copy (cublasSgeam adds it in).
//   Lab11 (Bf16): lab 11's wgmma kernel (sm_90 only), float32 accumulation;
//                 legacy default stream as Lab8. It reads B transposed (K-major),
//                 so each call first transposes B into scratch - unless B
//                 arrives transposed already (set_b_transposed); A (and such a
//                 B) is copied only where its rows break the TMA's alignment
//                 rules or the two strides differ; accumulation as Lab8.
// Every call is checked (std::runtime_error naming the call).
class TileGemm {
public:
    // `stream`: where the products run (ignored for Lab8: cudaStreamLegacy).
    TileGemm(TileKernel kernel, Precision precision, cudaStream_t stream);
    ~TileGemm();
    TileGemm(const TileGemm&) = delete;
    TileGemm& operator=(const TileGemm&) = delete;

    void run(const void* A, std::int64_t lda, const void* B, std::int64_t ldb, float* C, std::int64_t ldc,
             std::int64_t m, std::int64_t n, std::int64_t k, bool accumulate);
    cudaStream_t stream() const { return stream_; }
    // From now on run()'s B is B transposed: N x K, row-major (K-major), rows
    // ldb apart - the layout lab 11's kernel reads, stored so once instead of
    // transposed in every call (the copy transport: kmajor_stride). Lab11 only.
    void set_b_transposed(bool t);
    bool b_transposed() const { return b_transposed_; }
    TileKernel kernel() const { return kernel_; }
    std::string describe() const;  // "cuBLAS 13.0.0 SGEMM (FP32, tensor cores off)"

private:
    TileKernel kernel_;
    Precision precision_;
    cudaStream_t stream_;
    void* handle_ = nullptr;  // cublasHandle_t
    bool b_transposed_ = false;
    void run_lab8(const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C, std::int64_t ldc,
                  std::int64_t m, std::int64_t n, std::int64_t k, bool accumulate);
    void run_lab11(const void* A, std::int64_t lda, const void* B, std::int64_t ldb, float* C, std::int64_t ldc,
                   std::int64_t m, std::int64_t n, std::int64_t k, bool accumulate);
    // C = C + T (accumulate) or C = T, T m x n contiguous: cublasSgeam.
    void add_into(float* C, std::int64_t ldc, const float* T, std::int64_t m, std::int64_t n, bool accumulate);
    // Lab8 and Lab11: contiguous (or transposed) copies of A and B, and the
    // product before it is added to C; device memory kept from call to call.
    struct Scratch {
        void* p = nullptr;
        std::size_t bytes = 0;
        void* get(std::size_t need);
        ~Scratch();
    } a_, b_, t_;
};

// The row stride of a K-major (transposed) operand of depth K: K rounded up
// to 8 bf16 (16 bytes, the TMA's rule), at least 8.
std::int64_t kmajor_stride(std::int64_t depth);
// out (cols x rows, row stride ld_out) = in (rows x cols, row stride ld_in)
// transposed, bf16, on `stream`.
void transpose_bf16(const void* in, std::int64_t ld_in, std::int64_t rows, std::int64_t cols, void* out,
                    std::int64_t ld_out, cudaStream_t stream);
// Converts `count` floats to bfloat16 (round to nearest even) on `stream`.
void to_bf16(const float* in, void* out, std::int64_t count, cudaStream_t stream);
// Writes the verifier's poison value (cpu/matrix.h) into `count` floats.
void poison_device(float* p, std::int64_t count, cudaStream_t stream);

// CUDA events at the start and end of each step's communication (on the
// communication stream) and product (on the compute stream); after a
// synchronisation, their sums: how long each stream was busy.
class StepTimer {
public:
    explicit StepTimer(std::size_t steps);
    ~StepTimer();
    StepTimer(const StepTimer&) = delete;
    StepTimer& operator=(const StepTimer&) = delete;
    void comm_begin(std::size_t step, cudaStream_t s);
    void comm_end(std::size_t step, cudaStream_t s);
    void gemm_begin(std::size_t step, cudaStream_t s);
    void gemm_end(std::size_t step, cudaStream_t s);
    double comm_seconds() const;  // steps whose comm was recorded; 0 when none
    double gemm_seconds() const;

private:
    std::vector<cudaEvent_t> events_;  // 4 per step: comm begin/end, gemm begin/end
    std::vector<char> comm_used_, gemm_used_;
};

}  // namespace mml::lab12
