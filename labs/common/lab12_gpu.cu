// Lab 12's per-GPU helpers (lab12_gpu.h): the tile product, bf16
// conversion, the poison fill, the step timer.
#include "labs/common/lab12_gpu.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <climits>
#include <stdexcept>

#include "cpu/matrix.h"
#include "gpu/cuda_check.h"

namespace mml::lab12 {
namespace {

void cublas_check(cublasStatus_t st, const char* what) {
    if (st != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusString(st));
}

int as_int(std::int64_t v, const char* what) {
    if (v > INT_MAX) throw std::runtime_error(std::string(what) + " = " + std::to_string(v) + ": cuBLAS takes 32-bit sizes");
    return static_cast<int>(v);
}

struct Lab8Binding {
    Lab8Kernel kernel = nullptr;
    const char* name = "";
};
Lab8Binding& lab8() {
    static Lab8Binding b;
    return b;
}

__global__ void to_bf16_kernel(const float* in, __nv_bfloat16* out, std::int64_t count) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
         i += std::int64_t(gridDim.x) * blockDim.x)
        out[i] = __float2bfloat16_rn(in[i]);
}

__global__ void fill_kernel(float* p, std::int64_t count, float value) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
         i += std::int64_t(gridDim.x) * blockDim.x)
        p[i] = value;
}

unsigned blocks_for(std::int64_t count) {
    const std::int64_t b = (count + 255) / 256;
    return static_cast<unsigned>(b < 65535 ? (b > 0 ? b : 1) : 65535);
}

}  // namespace

std::size_t element_bytes(Precision p) { return p == Precision::Bf16 ? 2 : 4; }
const char* precision_name(Precision p) { return p == Precision::Bf16 ? "bf16" : "fp32"; }
const char* tile_name(TileKernel k) { return k == TileKernel::Lab8 ? "lab8" : "cublas"; }

void bind_lab8_kernel(Lab8Kernel kernel, const char* name) { lab8() = {kernel, name}; }
bool lab8_kernel_available() { return lab8().kernel != nullptr; }

float* TileGemm::Scratch::get(std::size_t need) {
    if (need > floats) {
        if (p) CUDA_CHECK(cudaFree(p));
        p = nullptr;
        CUDA_CHECK(cudaMalloc(&p, need * sizeof(float)));
        floats = need;
    }
    return p;
}
TileGemm::Scratch::~Scratch() {
    if (p) cudaFree(p);  // no check: destructors must not throw
}

TileGemm::TileGemm(TileKernel kernel, Precision precision, cudaStream_t stream)
    : kernel_(kernel), precision_(precision), stream_(kernel == TileKernel::Lab8 ? cudaStreamLegacy : stream) {
    if (kernel == TileKernel::Lab8 && precision != Precision::Fp32)
        throw std::runtime_error("lab 8's kernel is float32 only: use --tile cublas for bf16");
    if (kernel == TileKernel::Lab8 && !lab8_kernel_available())
        throw std::runtime_error("lab 8's kernel is not in this build (built without the reference solutions)");
    cublasHandle_t h = nullptr;
    cublas_check(cublasCreate(&h), "cublasCreate");
    handle_ = h;
    cublas_check(cublasSetStream(h, stream_), "cublasSetStream");
    cublas_check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}

TileGemm::~TileGemm() {
    if (handle_) cublasDestroy(static_cast<cublasHandle_t>(handle_));
}

std::string TileGemm::describe() const {
    int major = 0, minor = 0, patch = 0;
    cublasGetProperty(MAJOR_VERSION, &major);
    cublasGetProperty(MINOR_VERSION, &minor);
    cublasGetProperty(PATCH_LEVEL, &patch);
    const std::string v = "cuBLAS " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    if (kernel_ == TileKernel::Lab8) return std::string("lab 8's ") + lab8().name + " (FP32), accumulated with " + v + " Sgeam";
    if (precision_ == Precision::Bf16) return v + " GemmEx (bf16 inputs, FP32 accumulation, tensor cores)";
    return v + " SGEMM (FP32, tensor cores off)";
}

void TileGemm::run(const void* A, std::int64_t lda, const void* B, std::int64_t ldb, float* C, std::int64_t ldc,
                   std::int64_t m, std::int64_t n, std::int64_t k, bool accumulate) {
    if (m <= 0 || n <= 0) return;
    cublasHandle_t h = static_cast<cublasHandle_t>(handle_);
    if (k <= 0) {
        if (!accumulate)
            CUDA_CHECK(cudaMemset2DAsync(C, ldc * sizeof(float), 0, n * sizeof(float), m, stream_));
        return;
    }
    const float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
    // Row-major C = A*B is column-major C^T = B^T A^T: the same memory, the
    // operands swapped (n x m result, B first).
    if (kernel_ == TileKernel::Cublas) {
        if (precision_ == Precision::Fp32) {
            cublas_check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, as_int(n, "n"), as_int(m, "m"), as_int(k, "k"), &one,
                                     static_cast<const float*>(B), as_int(ldb, "ldb"), static_cast<const float*>(A),
                                     as_int(lda, "lda"), &beta, C, as_int(ldc, "ldc")),
                         "cublasSgemm");
        } else {
            cublas_check(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, as_int(n, "n"), as_int(m, "m"), as_int(k, "k"), &one, B,
                                      CUDA_R_16BF, as_int(ldb, "ldb"), A, CUDA_R_16BF, as_int(lda, "lda"), &beta, C,
                                      CUDA_R_32F, as_int(ldc, "ldc"), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                         "cublasGemmEx (bf16)");
        }
        return;
    }
    // Lab 8's kernel: contiguous operands, C overwritten.
    const float* a = static_cast<const float*>(A);
    const float* b = static_cast<const float*>(B);
    if (lda != k) {
        float* c = a_.get(m * k);
        CUDA_CHECK(cudaMemcpy2DAsync(c, k * sizeof(float), a, lda * sizeof(float), k * sizeof(float), m,
                                     cudaMemcpyDeviceToDevice, stream_));
        a = c;
    }
    if (ldb != n) {
        float* c = b_.get(k * n);
        CUDA_CHECK(cudaMemcpy2DAsync(c, n * sizeof(float), b, ldb * sizeof(float), n * sizeof(float), k,
                                     cudaMemcpyDeviceToDevice, stream_));
        b = c;
    }
    if (!accumulate && ldc == n) {
        lab8().kernel(a, b, C, m, n, k);
        CUDA_CHECK_LAUNCH();
        return;
    }
    float* t = t_.get(m * n);
    lab8().kernel(a, b, t, m, n, k);
    CUDA_CHECK_LAUNCH();
    // C = beta*C + 1*T (in place: cuBLAS allows C to be its first operand with the same ld).
    cublas_check(cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, as_int(n, "n"), as_int(m, "m"), &beta, C, as_int(ldc, "ldc"),
                             &one, t, as_int(n, "n"), C, as_int(ldc, "ldc")),
                 "cublasSgeam");
}

void to_bf16(const float* in, void* out, std::int64_t count, cudaStream_t stream) {
    if (count <= 0) return;
    to_bf16_kernel<<<blocks_for(count), 256, 0, stream>>>(in, static_cast<__nv_bfloat16*>(out), count);
    CUDA_CHECK_LAUNCH();
}

void poison_device(float* p, std::int64_t count, cudaStream_t stream) {
    if (count <= 0) return;
    fill_kernel<<<blocks_for(count), 256, 0, stream>>>(p, count, poison_value());
    CUDA_CHECK_LAUNCH();
}

StepTimer::StepTimer(std::size_t steps) : events_(4 * steps, nullptr), comm_used_(steps, 0), gemm_used_(steps, 0) {
    for (cudaEvent_t& e : events_) CUDA_CHECK(cudaEventCreate(&e));
}
StepTimer::~StepTimer() {
    for (cudaEvent_t e : events_)
        if (e) cudaEventDestroy(e);
}
void StepTimer::comm_begin(std::size_t s, cudaStream_t st) {
    CUDA_CHECK(cudaEventRecord(events_[4 * s], st));
    comm_used_[s] = 1;
}
void StepTimer::comm_end(std::size_t s, cudaStream_t st) { CUDA_CHECK(cudaEventRecord(events_[4 * s + 1], st)); }
void StepTimer::gemm_begin(std::size_t s, cudaStream_t st) {
    CUDA_CHECK(cudaEventRecord(events_[4 * s + 2], st));
    gemm_used_[s] = 1;
}
void StepTimer::gemm_end(std::size_t s, cudaStream_t st) { CUDA_CHECK(cudaEventRecord(events_[4 * s + 3], st)); }

double StepTimer::comm_seconds() const {
    double ms = 0;
    for (std::size_t s = 0; s < comm_used_.size(); ++s) {
        if (!comm_used_[s]) continue;
        float t = 0;
        CUDA_CHECK(cudaEventElapsedTime(&t, events_[4 * s], events_[4 * s + 1]));
        ms += t;
    }
    return ms / 1e3;
}

double StepTimer::gemm_seconds() const {
    double ms = 0;
    for (std::size_t s = 0; s < gemm_used_.size(); ++s) {
        if (!gemm_used_[s]) continue;
        float t = 0;
        CUDA_CHECK(cudaEventElapsedTime(&t, events_[4 * s + 2], events_[4 * s + 3]));
        ms += t;
    }
    return ms / 1e3;
}

}  // namespace mml::lab12
