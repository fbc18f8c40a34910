// Lab 12's per-GPU helpers (lab12_gpu.h): the tile product, bf16
// conversion and transposition, the poison fill, the step timer.
#include "labs/common/lab12_gpu.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
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
struct Lab11Binding {
    Lab11Kernel kernel = nullptr;
    const char* name = "";
};
Lab11Binding& lab11() {
    static Lab11Binding b;
    return b;
}

__global__ void to_bf16_kernel(const float* in, __nv_bfloat16* out, std::int64_t count) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
         i += std::int64_t(gridDim.x) * blockDim.x)
        out[i] = __float2bfloat16_rn(in[i]);
}

// out (cols x rows, row stride ld_out) = in (rows x cols, row stride ld_in)
// transposed, bf16, through a 32 x 32 tile of shared memory so that both the
// reads and the writes are along rows (the +1 column: no two threads of a
// warp on one bank when the tile is read down a column).
__global__ void transpose_bf16_kernel(const __nv_bfloat16* in, std::int64_t ld_in, std::int64_t rows, std::int64_t cols,
                                      __nv_bfloat16* out, std::int64_t ld_out) {
    __shared__ __nv_bfloat16 tile[32][33];
    const std::int64_t r0 = std::int64_t(blockIdx.y) * 32, c0 = std::int64_t(blockIdx.x) * 32;
    for (int i = threadIdx.y; i < 32; i += blockDim.y) {
        const std::int64_t r = r0 + i, c = c0 + threadIdx.x;
        if (r < rows && c < cols) tile[i][threadIdx.x] = in[r * ld_in + c];
    }
    __syncthreads();
    for (int i = threadIdx.y; i < 32; i += blockDim.y) {
        const std::int64_t c = c0 + i, r = r0 + threadIdx.x;  // row c of out holds column c of in
        if (c < cols && r < rows) out[c * ld_out + r] = tile[threadIdx.x][i];
    }
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
const char* tile_name(TileKernel k) {
    return k == TileKernel::Lab8 ? "lab8" : k == TileKernel::Lab11 ? "lab11" : "cublas";
}

void bind_lab8_kernel(Lab8Kernel kernel, const char* name) { lab8() = {kernel, name}; }
bool lab8_kernel_available() { return lab8().kernel != nullptr; }
void bind_lab11_kernel(Lab11Kernel kernel, const char* name) { lab11() = {kernel, name}; }
bool lab11_kernel_available() { return lab11().kernel != nullptr; }

void* TileGemm::Scratch::get(std::size_t need) {
    if (need > bytes) {
        if (p) CUDA_CHECK(cudaFree(p));
        p = nullptr;
        CUDA_CHECK(cudaMalloc(&p, need));
        bytes = need;
    }
    return p;
}
TileGemm::Scratch::~Scratch() {
    if (p) cudaFree(p);  // no check: destructors must not throw
}

TileGemm::TileGemm(TileKernel kernel, Precision precision, cudaStream_t stream)
    : kernel_(kernel), precision_(precision), stream_(kernel == TileKernel::Cublas ? stream : cudaStreamLegacy) {
    if (kernel == TileKernel::Lab8 && precision != Precision::Fp32)
        throw std::runtime_error("lab 8's kernel is float32 only: use --tile cublas for bf16");
    if (kernel == TileKernel::Lab8 && !lab8_kernel_available())
        throw std::runtime_error("lab 8's kernel is not in this build (built without the reference solutions)");
    if (kernel == TileKernel::Lab11 && precision != Precision::Bf16)
        throw std::runtime_error("lab 11's wgmma kernel takes bf16 inputs: use --precision bf16");
    if (kernel == TileKernel::Lab11 && !lab11_kernel_available())
        throw std::runtime_error("lab 11's kernel is not in this build (built without the reference solutions)");
    cublasHandle_t h = nullptr;
    cublas_check(cublasCreate(&h), "cublasCreate");
    handle_ = h;
    cublas_check(cublasSetStream(h, stream_), "cublasSetStream");
    cublas_check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}

void TileGemm::set_b_transposed(bool t) {
    if (t && kernel_ != TileKernel::Lab11) throw std::runtime_error("only lab 11's tile reads B transposed");
    b_transposed_ = t;
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
    if (kernel_ == TileKernel::Lab11)
        return std::string("lab 11's ") + lab11().name + " (bf16 inputs, FP32 accumulation, B " +
               (b_transposed_ ? "stored transposed" : "transposed each call") + "), accumulated with " + v + " Sgeam";
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
    if (kernel_ == TileKernel::Lab8)
        run_lab8(static_cast<const float*>(A), lda, static_cast<const float*>(B), ldb, C, ldc, m, n, k, accumulate);
    else
        run_lab11(A, lda, B, ldb, C, ldc, m, n, k, accumulate);
}

void TileGemm::add_into(float* C, std::int64_t ldc, const float* T, std::int64_t m, std::int64_t n, bool accumulate) {
    const float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
    // C = beta*C + 1*T (in place: cuBLAS allows C to be its first operand with the same ld).
    cublas_check(cublasSgeam(static_cast<cublasHandle_t>(handle_), CUBLAS_OP_N, CUBLAS_OP_N, as_int(n, "n"), as_int(m, "m"),
                             &beta, C, as_int(ldc, "ldc"), &one, T, as_int(n, "n"), C, as_int(ldc, "ldc")),
                 "cublasSgeam");
}

// Lab 8's kernel: contiguous operands, C overwritten.
void TileGemm::run_lab8(const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float* C, std::int64_t ldc,
                        std::int64_t m, std::int64_t n, std::int64_t k, bool accumulate) {
    if (lda != k) {
        float* c = static_cast<float*>(a_.get(m * k * sizeof(float)));
        CUDA_CHECK(cudaMemcpy2DAsync(c, k * sizeof(float), a, lda * sizeof(float), k * sizeof(float), m,
                                     cudaMemcpyDeviceToDevice, stream_));
        a = c;
    }
    if (ldb != n) {
        float* c = static_cast<float*>(b_.get(k * n * sizeof(float)));
        CUDA_CHECK(cudaMemcpy2DAsync(c, n * sizeof(float), b, ldb * sizeof(float), n * sizeof(float), k,
                                     cudaMemcpyDeviceToDevice, stream_));
        b = c;
    }
    if (!accumulate && ldc == n) {
        lab8().kernel(a, b, C, m, n, k);
        CUDA_CHECK_LAUNCH();
        return;
    }
    float* t = static_cast<float*>(t_.get(m * n * sizeof(float)));
    lab8().kernel(a, b, t, m, n, k);
    CUDA_CHECK_LAUNCH();
    add_into(C, ldc, t, m, n, accumulate);
}

// Lab 11's wgmma kernel: A and Bt K-major with one row stride `ld` (a
// multiple of 8 bf16 = 16 bytes, rows 16-byte aligned: the TMA's rules), C
// overwritten. A SUMMA panel of A is used where it lies when it keeps those
// rules (panels on multiples of 8 columns: the default ones); B arriving
// K x N is transposed into scratch with A's stride (the TMA reads only K
// columns of each row, so the stride may be wider than the panel); B
// arriving transposed is used where it lies when its stride is A's and both
// keep the rules, else both are copied to one stride.
void TileGemm::run_lab11(const void* A, std::int64_t lda, const void* B, std::int64_t ldb, float* C, std::int64_t ldc,
                         std::int64_t m, std::int64_t n, std::int64_t k, bool accumulate) {
    constexpr std::int64_t es = 2;  // bytes of a bf16
    auto fits = [](const void* p, std::int64_t ld) { return ld % 8 == 0 && reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    const bool in_place = fits(A, lda) && (!b_transposed_ || (fits(B, ldb) && ldb == lda));
    const std::int64_t ld = in_place ? lda : (k + 63) / 64 * 64;  // 64: rows start on 128-byte lines (lowp_operands.h)
    const void* a = A;
    if (!in_place) {
        void* c = a_.get(m * ld * es);
        CUDA_CHECK(cudaMemcpy2DAsync(c, ld * es, A, lda * es, k * es, m, cudaMemcpyDeviceToDevice, stream_));
        a = c;
    }
    const void* bt = B;
    if (b_transposed_ && !in_place) {
        void* c = b_.get(n * ld * es);
        CUDA_CHECK(cudaMemcpy2DAsync(c, ld * es, B, ldb * es, k * es, n, cudaMemcpyDeviceToDevice, stream_));
        bt = c;
    } else if (!b_transposed_) {
        void* c = b_.get(n * ld * es);
        transpose_bf16(B, ldb, k, n, c, ld, stream_);
        bt = c;
    }
    if (!accumulate && ldc == n) {
        lab11().kernel(a, bt, ld, C, m, n, k);
        CUDA_CHECK_LAUNCH();
        return;
    }
    float* t = static_cast<float*>(t_.get(m * n * sizeof(float)));
    lab11().kernel(a, bt, ld, t, m, n, k);
    CUDA_CHECK_LAUNCH();
    add_into(C, ldc, t, m, n, accumulate);
}

std::int64_t kmajor_stride(std::int64_t depth) { return std::max<std::int64_t>(8, (depth + 7) / 8 * 8); }

void transpose_bf16(const void* in, std::int64_t ld_in, std::int64_t rows, std::int64_t cols, void* out,
                    std::int64_t ld_out, cudaStream_t stream) {
    if (rows <= 0 || cols <= 0) return;
    const dim3 block(32, 8), grid(static_cast<unsigned>((cols + 31) / 32), static_cast<unsigned>((rows + 31) / 32));
    if (grid.y > 65535) throw std::runtime_error("transpose_bf16: more than 2^21 rows (lab 11's tile: a panel of B that deep)");
    transpose_bf16_kernel<<<grid, block, 0, stream>>>(static_cast<const __nv_bfloat16*>(in), ld_in, rows, cols,
                                                       static_cast<__nv_bfloat16*>(out), ld_out);
    CUDA_CHECK_LAUNCH();
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
